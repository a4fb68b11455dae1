from tests.corpus.conftest import corpus_copy, tiny_corpus, tiny_spec  # noqa: F401  (shared fixtures)
