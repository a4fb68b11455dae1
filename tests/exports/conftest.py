import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # exports are read from local files only
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import shutil  # noqa: E402

import pytest  # noqa: E402

from tests.corpus.conftest import tiny_spec  # noqa: E402  (2 docs x 2 pages, fair/poor scans, 100 dpi)


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """A complete corpus made once, serially in this process."""
    from corpus.generate import generate_corpus

    out = tmp_path_factory.mktemp("exports") / "corpus"
    generate_corpus(tiny_spec(), out)
    return out


@pytest.fixture(scope="session")
def exports(corpus, tmp_path_factory):
    """Each format exported once (the round-trip tests read these)."""
    from corpus.views.exports import export_corpus

    root = tmp_path_factory.mktemp("exported")
    return {fmt: (root / fmt, export_corpus(corpus, fmt, root / fmt)) for fmt in ("synthdocqa-card", "hf",
                                                                                 "croissant")}


@pytest.fixture
def corpus_copy(corpus, tmp_path):
    dst = tmp_path / "copy"
    shutil.copytree(corpus, dst)
    return dst
