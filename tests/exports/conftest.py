import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # exports are read from local files only
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def corpus(tiny_corpus):
    """The session's shared small corpus (tests/conftest.py), named for what these tests export."""
    return tiny_corpus


@pytest.fixture(scope="session")
def exports(corpus, tmp_path_factory):
    """Each format exported once (the round-trip tests read these)."""
    from synthdocqa.corpus.views.exports import export_corpus

    root = tmp_path_factory.mktemp("exported")
    return {fmt: (root / fmt, export_corpus(corpus, fmt, root / fmt)) for fmt in ("synthdocqa-card", "hf",
                                                                                 "croissant")}
