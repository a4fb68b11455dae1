"""Sampling a tier into the IR: every stage's parameters for every page, drawn before rendering."""

from __future__ import annotations

from typing import Any

from ir.document import PageDegradation, PerturbationProfile, StageParams
from ir.rng import Rng

from .stages import STAGE_ORDER
from .tiers import tier_table

_DECIMALS = 6  # rounded so the profile's JSON round-trips to the very same floats


def _draw(spec: Any, rng: Rng) -> Any:
    if isinstance(spec, list):
        lo, hi = (float(v) for v in spec)
        return round(rng.uniform(lo, hi), _DECIMALS) if hi > lo else round(lo, _DECIMALS)
    if isinstance(spec, dict):
        if "int" in spec:
            lo, hi = (int(v) for v in spec["int"])
            return rng.integers(lo, hi + 1)
        if "choice" in spec:
            return rng.choice(list(spec["choice"]))
        if "p" in spec:
            return rng.bernoulli(float(spec["p"]))
        raise ValueError(f"unknown parameter spec {spec!r}")
    return spec


def sample_stage(tier: str, name: str, rng: Rng, force: bool = False) -> StageParams:
    """One stage of one page; each parameter has its own stream, so adding one shifts no other.
    ``force=True`` enables the stage regardless of its probability (tests, contact sheets)."""
    entry = tier_table(tier)[name]
    enabled = force or (float(entry["p"]) > 0 and rng.fork("enabled").bernoulli(float(entry["p"])))
    params = {k: _draw(v, rng.fork("param", k)) for k, v in entry["params"].items()} if enabled else {}
    return StageParams(name=name, enabled=enabled, params=params)


def sample_profile(tier: str, n_pages: int, rng: Rng) -> PerturbationProfile:
    """Sample every stage of every page of a document from the tier table.

    Page ``p`` (1-based) samples stage ``s`` from ``rng.fork("page", p).fork("stage", s)``; the stream
    its application later uses is ``Rng(seed, seed_path).fork("stage", s)`` with
    ``seed_path = rng.path + ("page", p, "apply")``, so ``ir.json`` alone replays the scan.
    """
    tier_table(tier)  # validates the name
    if n_pages < 1:
        raise ValueError(f"n_pages must be >= 1, got {n_pages}")
    pages = []
    for p in range(1, n_pages + 1):
        prng = rng.fork("page", p)
        stages = [sample_stage(tier, name, prng.fork("stage", name)) for name in STAGE_ORDER]
        pages.append(PageDegradation(page_no=p, seed_path=[*rng.path, "page", p, "apply"], stages=stages))
    return PerturbationProfile(tier=tier, pages=pages)
