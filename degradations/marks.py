"""Where a reader marks a page: on what the page holds, never on blank paper.

People highlight a figure, circle a total, underline a name, tick or initial an approval line. What a drawn
span is comes from its fact (``marks.yaml``: a total, a figure of the issuer's, a person, an approval), so a
document's marks are chosen from its render map when its scans are sampled (``mark_targets`` then
``choose_marks``, by ``sampling.sample_profile``) and recorded in the markup stage's parameters with the box
each goes on, in fractions of the page: ``ir.json`` alone replays them, and the scan's record says what each
mark touches. A page degraded on its own (the ``degrade`` command, a contact sheet) has no render map: the
markup stage then finds the page's lines of print itself (``text_line_boxes``) and marks those.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from synthdocqa.ir.rng import Rng

if TYPE_CHECKING:  # the degrade command loads this module; a document's models are for the corpus's use
    from synthdocqa.ir.document import DocumentIR
    from synthdocqa.ir.facts import Fact
    from synthdocqa.ir.rendermap import RenderMap

PEN_KINDS: tuple[str, ...] = ("circle", "underline", "tick", "initials")
"""The pen's marks; a highlighter's is ``highlight``."""


@functools.cache
def mark_rules() -> dict[str, Any]:
    """``marks.yaml``: what a span is, what each mark goes on, the highlighter inks per device."""
    import yaml

    return yaml.safe_load(Path(__file__).with_name("marks.yaml").read_text("utf-8"))


@dataclass(frozen=True)
class MarkTarget:
    """Something on a page a reader may mark: what it is (``on``: figure, total, name, approval), its box in
    fractions of the page (x0, y0, x1, y1) and the text drawn there."""

    on: str
    box: tuple[float, float, float, float]
    text: str


def _words(words: list[str]) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)


def span_kind(fact: Fact, text: str, persons: set[str]) -> str | None:
    """What a span drawn for ``fact`` is for a reader (``marks.yaml``'s ``spans``, first rule that holds), or None."""
    rules = mark_rules()["spans"]
    label = fact.label
    approval = rules["approval"]
    if _words(approval["label_words"]).search(label) and (text in approval["texts"] or text in persons):
        return "approval"
    total = rules["total"]
    if (fact.derivation is not None and fact.derivation.op in total["derivations"]) or \
            _words(total["label_words"]).search(label):
        if any(ch.isdigit() for ch in text):
            return "total"
    if text in persons:
        return "name"
    if fact.quantity in rules["figure"]["quantities"] and \
            sum(ch.isdigit() for ch in text) >= mark_rules()["figure_digits"]:
        return "figure"
    return None


def mark_targets(doc: DocumentIR, render_map: RenderMap) -> dict[int, list[MarkTarget]]:
    """Every span of the render map a reader may mark, by page, in drawing order."""
    persons = {e.name for e in doc.entities if e.kind == "person"}
    facts = {f.id: f for f in doc.facts}
    sizes = {p.page_no: (p.width, p.height) for p in render_map.pages}
    out: dict[int, list[MarkTarget]] = {}
    for s in render_map.spans:
        fact = facts.get(s.fact_ids[0])
        kind = None if fact is None else span_kind(fact, s.text, persons)
        if kind is None or s.page_no not in sizes:
            continue
        w, h = sizes[s.page_no]
        box = (s.bbox[0] / w, s.bbox[1] / h, s.bbox[2] / w, s.bbox[3] / h)
        if box[2] - box[0] <= 0 or box[3] - box[1] <= 0:
            continue
        out.setdefault(s.page_no, []).append(MarkTarget(kind, tuple(round(v, 5) for v in box), s.text))
    return out


def choose_marks(targets: list[MarkTarget], n_highlights: int, n_pen: int, device: str, rng: Rng
                 ) -> list[dict[str, Any]]:
    """The marks of one page: up to ``n_highlights`` highlighter bands and ``n_pen`` pen marks, each on a
    different target of a kind it goes on (``marks.yaml``); fewer when the page holds fewer (none on a page
    with nothing to mark). A mark is ``{"kind", "on", "box", "text"}`` plus a highlighter's ``ink``."""
    rules = mark_rules()
    free = list(targets)
    marks: list[dict[str, Any]] = []
    inks = rules["inks"]["thresholded" if device in rules["thresholding_devices"] else "all"]

    def take(kinds: list[str], weights: dict[str, float] | None = None) -> MarkTarget | None:
        pool = [t for t in free if t.on in kinds]
        if not pool:
            return None
        w = [float((weights or {}).get(t.on, 1.0)) for t in pool]
        pick = pool[int(rng.choice(range(len(pool)), p=w))]
        free.remove(pick)
        return pick

    weights = rules["highlight"]
    for _ in range(n_highlights):
        t = take(list(weights), weights)
        if t is None:
            break
        marks.append({"kind": "highlight", "on": t.on, "box": list(t.box), "text": t.text, "ink": rng.choice(inks)})
    pen: dict[str, list[str]] = rules["pen"]
    for _ in range(n_pen):
        kinds = [k for k in PEN_KINDS if any(t.on in pen[k] for t in free)]
        if not kinds:
            break
        kind = rng.choice(kinds)
        t = take(pen[kind])
        if t is not None:
            marks.append({"kind": kind, "on": t.on, "box": list(t.box), "text": t.text})
    return marks


def text_line_boxes(img: np.ndarray) -> list[tuple[float, float, float, float]]:
    """The page's runs of print (words run together along a line), as fractions of the page, top to bottom:
    where a reader's marks can go on a page that comes without a render map. Dark pixels are closed along
    the line by a horizontal kernel of about two character widths; a run counts when it is a line's height
    (0.6 %-3 % of the page) and at least three times as long as it is high."""
    import cv2

    h, w = img.shape[:2]
    grey = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    k = max(w // 400, 1)  # work on a small copy: runs of print survive a 1/k downscale
    small = cv2.resize(grey, (max(w // k, 1), max(h // k, 1)), interpolation=cv2.INTER_AREA)
    ink = (small < 150).astype(np.uint8)
    sw, sh = small.shape[1], small.shape[0]
    ink = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((1, max(sw // 80, 2)), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    out = []
    for i in range(1, n):
        x, y, bw, bh = stats[i, :4]
        if 0.006 * sh <= bh <= 0.03 * sh and bw >= 3 * bh and stats[i, cv2.CC_STAT_AREA] >= 0.2 * bw * bh:
            out.append((x / sw, y / sh, (x + bw) / sw, (y + bh) / sh))
    return sorted(out, key=lambda b: (round(b[1], 3), b[0]))
