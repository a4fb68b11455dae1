"""Sampling a device and tier into the IR: every stage's parameters for every page, drawn before rendering."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from synthdocqa.ir.perturbation import PageDegradation, PerturbationProfile, StageParams
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import DEFAULT_DEVICE, DEVICES, TIERS, Device, ScanPlan, StageName, Tier

from .devices import stage_table
from .marks import MarkTarget, choose_marks
from .stages import STAGES, get_stage

SEND_DAYS = (0, 0, 0, 1, 1, 2, 3, 5, 7)
"""Days between a document's date and the day it is faxed, drawn uniformly from this list: mostly the day it
is dated, now and then a week later; never before."""


@dataclass(frozen=True)
class FaxOrigin:
    """What a fax machine's header line says of a document: who sends it and from which number (its issuer),
    and the date the document bears (it is sent on that day or ``SEND_DAYS`` after, never before)."""

    dated: dt.date
    sender: str
    number: str

    def header(self, rng: Rng) -> dict[str, object]:
        """The header's date, time, sender and number for one transmission (every page of the document)."""
        sent = self.dated + dt.timedelta(days=int(rng.choice(list(SEND_DAYS))))
        sender = " ".join(self.sender.upper().split())
        out: dict[str, object] = {"year": sent.year, "day": sent.timetuple().tm_yday - 1,
                                  "minute": int(rng.integers(480, 1081)), "sender": sender[:28].rstrip()}
        if self.number:
            out["number_text"] = self.number
        return out


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
                   pages: Sequence[tuple[Tier, Device]] | None = None, fax: FaxOrigin | None = None,
                   targets: Mapping[int, Sequence[MarkTarget]] | None = None) -> PerturbationProfile:
    """Sample every stage of every page of a document from its device's table at its tier.

    Page ``p`` (1-based) captured by device ``d`` samples stage ``s`` from
    ``rng.fork("page", p, d).fork("stage", s)`` - each page and each device its own draws (the flatbed and
    the photocopy of one page are two different sheets' worth of wear, not one); the stream its
    application later uses is ``Rng(seed, seed_path).fork("stage", s)`` with ``seed_path = rng.path +
    ("page", p, d, "apply")``, so ``ir.json`` alone replays the scan. ``pages`` gives a page its own
    (tier, device) (recorded on the page); by default every page takes the document's.

    A faxed document is sent once: every fax page's header carries one date and time (from
    ``rng.fork("sent")``, a minute later every third page) and its page n/m; with ``fax`` (the document's
    date and issuer) the date is on or after the document's and the sender is its issuer, else the table's draw.

    ``targets`` (``marks.mark_targets`` of the document's render map, by page): a page's markup records the
    marks it makes and the box each goes on (``marks.choose_marks`` on ``.fork("stage", "markup").fork("place")``),
    none on a page with nothing to mark; without it the stage marks the runs of print it finds when applied.
    """
    stage_table(device, tier)  # validates both names
    if n_pages < 1:
        raise ValueError(f"n_pages must be >= 1, got {n_pages}")
    if pages is not None and len(pages) != n_pages:
        raise ValueError(f"pages lists {len(pages)} (tier, device) pairs for {n_pages} pages")
    sent = fax.header(rng.fork("sent")) if fax is not None else None
    out = []
    for p in range(1, n_pages + 1):
        ptier, pdevice = pages[p - 1] if pages is not None else (tier, device)
        table = stage_table(pdevice, ptier)
        prng = rng.fork("page", p, pdevice)
        stages = [stage.sample(table[name], prng.fork("stage", name)) for name, stage in STAGES.items()]
        stages = [s.model_copy(update={"params": _fax_header(s.params, p, n_pages, sent)})
                  if s.name == "fax_header" and s.enabled else s for s in stages]
        if targets is not None:
            stages = [StageParams.model_validate({"name": s.name, "enabled": True, "params": {**s.params, "marks": (
                choose_marks(list(targets.get(p, ())), int(s.params["n_highlights"]), int(s.params["n_scribbles"]),
                             pdevice, prng.fork("stage", s.name).fork("place")))}})
                      if s.name == "markup" and s.enabled else s for s in stages]
        own = (ptier, pdevice) != (tier, device)
        out.append(PageDegradation(page_no=p, seed_path=[*rng.path, "page", p, pdevice, "apply"],
                                   tier=ptier if own else None, device=pdevice if own else None, stages=stages))
    return PerturbationProfile(tier=tier, device=device, pages=out)


def _fax_header(params: dict, page: int, n_pages: int, sent: dict[str, object] | None) -> dict:
    """A page's header line: the document's transmission (a minute later every third page) and "P.002/007"."""
    out = {**params, "page": page, "pages": n_pages}
    if sent is not None:
        out.update(sent)
        out["minute"] = min(int(sent["minute"]) + (page - 1) // 3, 24 * 60 - 1)  # type: ignore[call-overload]
    return out
