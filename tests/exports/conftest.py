import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # exports are read from local files only
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import shutil  # noqa: E402

import pytest  # noqa: E402

from ir.spec import REFERENCE_ELEMENT_MIX, CorpusSpec, PageCountDist  # noqa: E402


def tiny_spec(seed: int = 5, n_docs: int = 2) -> CorpusSpec:
    """2 documents x 2 pages at 100 dpi, scans of the fair and poor tiers (geometry moves the boxes)."""
    return CorpusSpec(name="tiny", seed=seed, n_docs=n_docs, profile="custom",
                      pages=PageCountDist(mean=2, sigma=0, min=2, max=2), element_mix=dict(REFERENCE_ELEMENT_MIX),
                      tier_mix={"fair": 1.0, "poor": 1.0}, dpi=100, scan_dpi=100)


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """A complete corpus made once by the in-process engine."""
    from flows.corpus_ops import generate_corpus

    out = tmp_path_factory.mktemp("exports") / "corpus"
    generate_corpus(tiny_spec(), out, workers=1)
    return out


@pytest.fixture(scope="session")
def exports(corpus, tmp_path_factory):
    """Each format exported once (the round-trip tests read these)."""
    from ir.exports import export_corpus

    root = tmp_path_factory.mktemp("exported")
    return {fmt: (root / fmt, export_corpus(corpus, fmt, root / fmt)) for fmt in ("synthdocqa-card", "hf",
                                                                                 "croissant")}


@pytest.fixture
def corpus_copy(corpus, tmp_path):
    dst = tmp_path / "copy"
    shutil.copytree(corpus, dst)
    return dst
