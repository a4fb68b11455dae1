"""``tiny_spec``: the small corpus the tests share (its fixtures, ``tiny_corpus`` and ``corpus_copy``, are in
tests/conftest.py, so every folder of tests uses the one corpus made once per session)."""

from synthdocqa.ir.spec import REFERENCE_ELEMENT_MIX, CorpusSpec, PageCountDist


def tiny_spec(seed: int = 5, n_docs: int = 2) -> CorpusSpec:
    return CorpusSpec(name="tiny", seed=seed, n_docs=n_docs, profile="custom",
                      pages=PageCountDist(mean=2, sigma=0, min=2, max=2), element_mix=dict(REFERENCE_ELEMENT_MIX),
                      tier_mix={"fair": 1.0, "poor": 1.0}, dpi=100, scan_dpi=100)
