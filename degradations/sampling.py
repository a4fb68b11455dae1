"""Sampling a tier into the IR: every stage's parameters for every page, drawn before rendering."""

from __future__ import annotations

from ir.document import PageDegradation, PerturbationProfile, StageParams
from ir.rng import Rng

from .stages import STAGES, get_stage
from .tiers import tier_table


def sample_stage(tier: str, name: str, rng: Rng, force: bool = False) -> StageParams:
    """One stage of one page (``Stage.sample`` on the tier's table entry); ``force=True`` enables the
    stage regardless of its probability (tests, contact sheets)."""
    return get_stage(name).sample(tier_table(tier)[name], rng, force)


def sample_profile(tier: str, n_pages: int, rng: Rng) -> PerturbationProfile:
    """Sample every stage of every page of a document from the tier table.

    Page ``p`` (1-based) samples stage ``s`` from ``rng.fork("page", p).fork("stage", s)``; the stream
    its application later uses is ``Rng(seed, seed_path).fork("stage", s)`` with
    ``seed_path = rng.path + ("page", p, "apply")``, so ``ir.json`` alone replays the scan.
    """
    table = tier_table(tier)  # validates the name
    if n_pages < 1:
        raise ValueError(f"n_pages must be >= 1, got {n_pages}")
    pages = []
    for p in range(1, n_pages + 1):
        prng = rng.fork("page", p)
        stages = [stage.sample(table[name], prng.fork("stage", name)) for name, stage in STAGES.items()]
        pages.append(PageDegradation(page_no=p, seed_path=[*rng.path, "page", p, "apply"], stages=stages))
    return PerturbationProfile(tier=tier, pages=pages)
