"""Sampling a device and tier into the IR: every stage's parameters for every page, drawn before rendering."""

from __future__ import annotations

from collections.abc import Sequence

from synthdocqa.ir.perturbation import PageDegradation, PerturbationProfile, StageParams
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import DEFAULT_DEVICE, DEVICES, TIERS, Device, ScanPlan, StageName, Tier

from .devices import stage_table
from .stages import STAGES, get_stage


def sample_stage(tier: Tier, name: StageName, rng: Rng, force: bool = False, device: Device = DEFAULT_DEVICE
                 ) -> StageParams:
    """One stage of one page (``Stage.sample`` on the device's table entry at ``tier``); ``force=True``
    enables the stage regardless of its probability (tests, contact sheets), with the ranges of the first
    device that uses it at ``tier`` when ``device`` does not (the fax's dither on a flatbed)."""
    entry = stage_table(device, tier)[name]
    if force and not entry["params"]:
        entry = next((t[name] for t in (stage_table(d, tier) for d in DEVICES) if t[name]["params"]), entry)
    return get_stage(name).sample(entry, rng, force)


def page_captures(plan: ScanPlan, index: int, tier: Tier, device: Device, n_pages: int) -> list[tuple[Tier, Device]]:
    """(tier, device) of each page of document ``index``: the document's, or the cycle (page ``p`` takes
    tier ``TIERS[(2 * index + p - 1) % 5]`` and device ``DEVICES[(index + p - 1) % 4]``: two-page documents
    0, 1, 2 already show all five tiers and all four devices)."""
    if plan == "document":
        return [(tier, device)] * n_pages
    if plan == "cycle":
        return [(TIERS[(2 * index + p) % len(TIERS)], DEVICES[(index + p) % len(DEVICES)]) for p in range(n_pages)]
    raise ValueError(f"unknown scan plan {plan!r}; expected document or cycle")


def sample_profile(tier: Tier, n_pages: int, rng: Rng, device: Device = DEFAULT_DEVICE,
                   pages: Sequence[tuple[Tier, Device]] | None = None) -> PerturbationProfile:
    """Sample every stage of every page of a document from its device's table at its tier.

    Page ``p`` (1-based) captured by device ``d`` samples stage ``s`` from
    ``rng.fork("page", p, d).fork("stage", s)`` - each page and each device its own draws (the flatbed and
    the photocopy of one page are two different sheets' worth of wear, not one); the stream its
    application later uses is ``Rng(seed, seed_path).fork("stage", s)`` with ``seed_path = rng.path +
    ("page", p, d, "apply")``, so ``ir.json`` alone replays the scan. ``pages`` gives a page its own
    (tier, device) (recorded on the page); by default every page takes the document's.
    """
    stage_table(device, tier)  # validates both names
    if n_pages < 1:
        raise ValueError(f"n_pages must be >= 1, got {n_pages}")
    if pages is not None and len(pages) != n_pages:
        raise ValueError(f"pages lists {len(pages)} (tier, device) pairs for {n_pages} pages")
    out = []
    for p in range(1, n_pages + 1):
        ptier, pdevice = pages[p - 1] if pages is not None else (tier, device)
        table = stage_table(pdevice, ptier)
        prng = rng.fork("page", p, pdevice)
        stages = [stage.sample(table[name], prng.fork("stage", name)) for name, stage in STAGES.items()]
        stages = [s.model_copy(update={"params": {**s.params, "page": p, "pages": n_pages}})
                  if s.name == "fax_header" and s.enabled else s for s in stages]  # the header's "P.002/007"
        own = (ptier, pdevice) != (tier, device)
        out.append(PageDegradation(page_no=p, seed_path=[*rng.path, "page", p, pdevice, "apply"],
                                   tier=ptier if own else None, device=pdevice if own else None, stages=stages))
    return PerturbationProfile(tier=tier, device=device, pages=out)
