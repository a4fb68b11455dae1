import shutil

import pytest

from ir.spec import REFERENCE_ELEMENT_MIX, CorpusSpec, PageCountDist


def tiny_spec(seed: int = 5, n_docs: int = 2) -> CorpusSpec:
    return CorpusSpec(name="tiny", seed=seed, n_docs=n_docs, profile="custom",
                      pages=PageCountDist(mean=2, sigma=0, min=2, max=2), element_mix=dict(REFERENCE_ELEMENT_MIX),
                      tier_mix={"fair": 1.0, "poor": 1.0}, dpi=100, scan_dpi=100)


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory):
    """A 2-document corpus made once, serially in this process (``corpus.generate.generate_corpus``)."""
    from corpus.generate import generate_corpus

    out = tmp_path_factory.mktemp("tiny") / "corpus"
    generate_corpus(tiny_spec(), out)
    return out


@pytest.fixture
def corpus_copy(tiny_corpus, tmp_path):
    dst = tmp_path / "copy"
    shutil.copytree(tiny_corpus, dst)
    return dst
