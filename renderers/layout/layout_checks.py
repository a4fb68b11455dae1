"""Layout quality as a checked property: overlapping text, clipped text, mid-token wraps, half-empty pages.

``check_layout(pdf, render_map, ir) -> [LayoutProblem]`` reads what was really drawn (pymupdf's text
layer and drawings) and uses the RenderMap and the IR only to interpret it. The four kinds:

- ``overlap``: two words of different draw calls whose glyph cores intersect (the band between the
  baseline and ~0.7 em above it, so tight leading between lines does not count), unless one of them
  belongs to an annotation (stamps, handwritten notes, signatures, highlights may sit over text on
  purpose). Rotated text is compared in its own direction (separating axes), not by axis-aligned hulls.
- ``clipped``: a drawn character or a RenderMap span outside the page.
- ``mid_token_wrap``: in the RenderMap, one fact's text continued on the next line where the break falls
  inside a token (``"27,1" / "29"``) or between the digit groups of one number; in the PDF, the last word
  of a line and the first word of the line below joining into a word of the IR that the IR never writes
  as two words (``"Qt" / "y"``, ``"H" / "o"``).
- ``half_empty``: the drawn content in the body area (between header and footer of the page's layout)
  covers less than half the body height (vertical extent, gaps under ``FILL_GAP`` points closed) on a page
  that is neither the document's last page nor followed by a page opening a new section (a level-1
  heading of the IR at the top of its body).

One module, though long: the four checks share one reading of each page (``_page_text``: words, runs and
drawings) and one vocabulary of the IR, so they stay together.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Literal, get_args

import pymupdf

from synthdocqa.ir.base import Model
from synthdocqa.ir.blocks import block_spans
from synthdocqa.ir.boxes import Box
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.rendermap import RenderMap

from .layouts import layout_from_id

LayoutProblemKind = Literal["overlap", "clipped", "mid_token_wrap", "half_empty"]
LAYOUT_PROBLEM_KINDS: tuple[LayoutProblemKind, ...] = get_args(LayoutProblemKind)

HALF_EMPTY_BELOW = 0.5
"""A page whose content covers less than this share of the body height is half-empty."""
FILL_GAP = 36.0
"""Vertical gaps up to this many points between drawn things count as filled (block spacing, leading)."""
CLIP_TOLERANCE = 0.5
CORE_ABOVE = 0.7
"""A word's glyph core: from ``CORE_BELOW`` em under the baseline to ``CORE_ABOVE`` em above it."""
CORE_BELOW = 0.05
CORE_INSET = 0.3
"""Points taken off both ends of a word before testing overlaps (touching runs are not overlapping)."""

_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_PRESERVE_LIGATURES  # no mediabox clip
_GROUPED_NUMBER = re.compile(r"\d{1,3}(?: \d{3})+")


class LayoutProblem(Model):
    """One defect of a rendered page (``bbox``: PDF points, top-left origin, where it shows)."""

    kind: LayoutProblemKind
    page_no: int
    message: str
    bbox: Box | None = None

    def __str__(self) -> str:
        return f"page {self.page_no}: {self.kind}: {self.message}"


# ------------------------------------------------------------------------------------------ text of a page
@dataclass
class _Word:
    text: str
    run: int  # the pymupdf span it came from (one draw call); words of one run never overlap
    quad: tuple[tuple[float, float], ...]  # glyph core, 4 corners in order
    hull: tuple[float, float, float, float]  # axis-aligned box of the full glyph boxes
    baseline: float
    size: float
    horizontal: bool


@dataclass
class _Run:
    words: list[_Word]
    x0: float
    x1: float
    baseline: float
    size: float


def _word(chars: list[tuple[dict, pymupdf.Quad]], run: int, size: float, direction: tuple[float, float]) -> _Word:
    """A word from its characters: glyph core along the line's direction, hull of the glyph boxes."""
    dx, dy = direction
    up = (dy, -dx)  # towards the ascent, page coordinates (y down)
    first, _ = chars[0]
    last, q1 = chars[-1]
    ox, oy = first["origin"]
    ex, ey = last["origin"]
    adv = abs(q1.ur - q1.ul)
    ex, ey = ex + dx * (adv - CORE_INSET), ey + dy * (adv - CORE_INSET)
    ox, oy = ox + dx * CORE_INSET, oy + dy * CORE_INSET
    lo, hi = -CORE_BELOW * size, CORE_ABOVE * size
    quad = ((ox + up[0] * lo, oy + up[1] * lo), (ex + up[0] * lo, ey + up[1] * lo),
            (ex + up[0] * hi, ey + up[1] * hi), (ox + up[0] * hi, oy + up[1] * hi))
    pts = [p for _, q in chars for p in (q.ul, q.ur, q.ll, q.lr)]
    hull = (min(p.x for p in pts), min(p.y for p in pts), max(p.x for p in pts), max(p.y for p in pts))
    return _Word("".join(ch["c"] for ch, _ in chars), run, quad, hull, first["origin"][1], size,
                 abs(dy) < 1e-3 and dx > 0)


def _page_text(page: pymupdf.Page) -> tuple[list[_Word], list[_Run], list[tuple[float, float, float, float]]]:
    """Words (with glyph cores), horizontal runs and the boxes of every character of the page."""
    words: list[_Word] = []
    runs: list[_Run] = []
    chars_out: list[tuple[float, float, float, float]] = []
    raw = page.get_text("rawdict", flags=_TEXT_FLAGS)
    n_run = 0
    for block in raw["blocks"]:
        for line in block.get("lines", []):
            direction = tuple(line["dir"])
            for span in line["spans"]:
                n_run += 1
                run_words: list[_Word] = []
                cur: list[tuple[dict, pymupdf.Quad]] = []
                for ch in span["chars"]:
                    q = pymupdf.recover_char_quad(line["dir"], span, ch)
                    if ch["c"].strip():
                        r = q.rect
                        chars_out.append((r.x0, r.y0, r.x1, r.y1))
                        cur.append((ch, q))
                    elif cur:
                        run_words.append(_word(cur, n_run, span["size"], direction))
                        cur = []
                if cur:
                    run_words.append(_word(cur, n_run, span["size"], direction))
                words.extend(run_words)
                if run_words and run_words[0].horizontal:
                    runs.append(_Run(run_words, min(w.hull[0] for w in run_words),
                                     max(w.hull[2] for w in run_words), run_words[0].baseline, span["size"]))
    return words, runs, chars_out


# ------------------------------------------------------------------------------------------ geometry
def _separated(a, b) -> bool:
    """Separating-axis test of two convex quads (True when a line separates them)."""
    for poly in (a, b):
        for i in range(len(poly)):
            x0, y0 = poly[i]
            x1, y1 = poly[(i + 1) % len(poly)]
            nx, ny = y0 - y1, x1 - x0
            pa = [nx * x + ny * y for x, y in a]
            pb = [nx * x + ny * y for x, y in b]
            if max(pa) <= min(pb) + 1e-6 or max(pb) <= min(pa) + 1e-6:
                return True
    return False


def _hull_of(quad) -> tuple[float, float, float, float]:
    xs = [p[0] for p in quad]
    ys = [p[1] for p in quad]
    return min(xs), min(ys), max(xs), max(ys)


def _boxes_meet(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


# ------------------------------------------------------------------------------------------ IR vocabulary
def _normal(text: str) -> str:
    return " ".join(text.split())


def _ir_texts(ir: DocumentIR) -> list[str]:
    """Every string the IR asks to draw, as the units the renderer draws (a cell, a header, a paragraph)."""
    out = [ir.title]
    for _, b in ir.blocks():
        match b.type:
            case "annotation" if b.kind == "signature":  # the name in script, each caption line under it
                out += [s.text for s in b.spans]
            case "heading" | "text_block" | "annotation" | "footnote":
                out.append("".join(s.text for s in b.spans))
            case "list":
                out.append(b.title)
                out += ["".join(s.text for s in item) for item in b.items]
            case "table":
                out += [b.caption, *b.columns]
                out += [s.text for row in b.rows for s in row]
            case "figure":
                out += [b.title, b.caption, b.unit_label, *b.categories]
                out += [s.name for s in b.series] + [p.text for s in b.series for p in s.points]
            case "form":
                out += [b.title, *(f.label for f in b.fields), *(f.value.text for f in b.fields)]
                out += [c.label for c in b.checkboxes] + list(b.signature_lines)
    return [_normal(t) for t in out if t and t.strip()]


@dataclass
class _Vocabulary:
    units: list[str]  # every text the IR draws as one unit (a cell, a header, a paragraph, a title)
    prefixes: set[str]
    pairs: set[tuple[str, str]]
    grouped: set[str]  # "a b" pairs that are digit groups of one number


def _vocabulary(ir: DocumentIR) -> _Vocabulary:
    prefixes: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    grouped: set[str] = set()
    units = _ir_texts(ir)
    for text in units:
        toks = text.split(" ")
        for t in toks:
            for k in range(2, len(t) + 1):
                prefixes.add(t[:k])
        pairs.update(zip(toks, toks[1:], strict=False))
        for m in _GROUPED_NUMBER.finditer(text):
            g = m.group(0).split(" ")
            grouped.update(f"{x} {y}" for x, y in zip(g, g[1:], strict=False))
    return _Vocabulary(units, prefixes, pairs, grouped)


def _annotation_blocks(ir: DocumentIR) -> dict[str, set[str]]:
    """Annotation block id -> the words it draws."""
    return {b.id: set(_normal((" " if b.kind == "signature" else "").join(s.text for s in b.spans)).split(" "))
            for _, b in ir.blocks() if b.type == "annotation"}  # a signature draws its spans on lines of their own


def _level1_headings(ir: DocumentIR) -> list[str]:
    return [_normal("".join(s.text for s in b.spans)) for _, b in ir.blocks()
            if b.type == "heading" and b.level == 1]


# ------------------------------------------------------------------------------------------ the checks
def _overlaps(page_no: int, words: list[_Word], exempt: set[int]) -> list[LayoutProblem]:
    problems = []
    items = sorted(range(len(words)), key=lambda i: _hull_of(words[i].quad)[1])
    hulls = [_hull_of(w.quad) for w in words]
    seen: set[tuple[int, int]] = set()
    for pos, i in enumerate(items):
        hi = hulls[i]
        for j in items[pos + 1:]:
            hj = hulls[j]
            if hj[1] >= hi[3]:
                break
            a, b = words[i], words[j]
            if a.run == b.run or i in exempt or j in exempt or not _boxes_meet(hi, hj):
                continue
            if _separated(a.quad, b.quad):
                continue
            key = (a.run, b.run)
            if key in seen:
                continue
            seen.add(key)
            box = (round(min(hi[0], hj[0]), 1), round(min(hi[1], hj[1]), 1), round(max(hi[2], hj[2]), 1),
                   round(max(hi[3], hj[3]), 1))
            problems.append(LayoutProblem(kind="overlap", page_no=page_no, bbox=box,
                                          message=f"{a.text!r} drawn over {b.text!r}"))
    return problems


def _annotation_words(words: list[_Word], page_spans, annotations: dict[str, set[str]]) -> set[int]:
    """Words of the page that belong to an annotation: an annotation's word near one of its drawn spans."""
    regions: list[tuple[tuple[float, float, float, float], set[str]]] = []
    for sb in page_spans:
        if sb.block_id in annotations:
            x0, y0, x1, y1 = sb.bbox
            m = 40.0
            regions.append(((x0 - m, y0 - m, x1 + m, y1 + m), annotations[sb.block_id]))
    out = set()
    for i, w in enumerate(words):
        cx, cy = (w.hull[0] + w.hull[2]) / 2, (w.hull[1] + w.hull[3]) / 2
        for (x0, y0, x1, y1), vocab in regions:
            if x0 <= cx <= x1 and y0 <= cy <= y1 and w.text in vocab:
                out.add(i)
                break
    return out


def _clipped(page_no: int, width: float, height: float, chars, page_spans) -> list[LayoutProblem]:
    t = CLIP_TOLERANCE
    problems = []
    outside = [c for c in chars if c[0] < -t or c[1] < -t or c[2] > width + t or c[3] > height + t]
    if outside:
        box = (round(min(c[0] for c in outside), 1), round(min(c[1] for c in outside), 1),
               round(max(c[2] for c in outside), 1), round(max(c[3] for c in outside), 1))
        problems.append(LayoutProblem(kind="clipped", page_no=page_no, bbox=box,
                                      message=f"{len(outside)} characters drawn outside the {width:g}x{height:g} "
                                              "page"))
    for sb in page_spans:
        x0, y0, x1, y1 = sb.bbox
        if x0 < -t or y0 < -t or x1 > width + t or y1 > height + t:
            problems.append(LayoutProblem(kind="clipped", page_no=page_no, bbox=sb.bbox,
                                          message=f"span {sb.text!r} (block {sb.block_id}) outside the page"))
    return problems


def _pdf_wraps(page_no: int, runs: list[_Run], vocab: _Vocabulary) -> list[LayoutProblem]:
    """A run's last word and the first word of the run on the next line below it, joined into one IR word,
    where the two lines joined that way are part of one text of the IR (a list title over a marker "1."
    is not one text)."""
    problems = []
    for r in runs:
        best = None
        for m in runs:
            if m is r or abs(m.size - r.size) > 0.6:
                continue
            d = m.baseline - r.baseline
            if not 0.9 * r.size <= d <= 1.65 * r.size or m.x1 <= r.x0 or r.x1 <= m.x0:
                continue
            if best is None or d < best[0]:
                best = (d, m)
        if best is None:
            continue
        m = best[1]
        a, b = r.words[-1].text, m.words[0].text
        if (a, b) in vocab.pairs and f"{a} {b}" not in vocab.grouped:
            continue
        joined = " ".join(w.text for w in r.words) + " ".join(w.text for w in m.words)
        split = (a + b) in vocab.prefixes or f"{a} {b}" in vocab.grouped
        if split and any(joined in u or joined.replace(f"{a}{b}", f"{a} {b}") in u for u in vocab.units):
            box = (round(min(r.x0, m.x0), 1), round(r.words[-1].hull[1], 1), round(max(r.x1, m.x1), 1),
                   round(m.words[0].hull[3], 1))
            problems.append(LayoutProblem(kind="mid_token_wrap", page_no=page_no, bbox=box,
                                          message=f"{a!r} / {b!r} wrapped inside one token"))
    return problems


def _span_wraps(render_map: RenderMap, ir: DocumentIR) -> list[LayoutProblem]:
    """One fact's text continued on the next line with the break inside a token or a grouped number."""
    texts: dict[tuple[str, tuple[str, ...]], list[str]] = defaultdict(list)
    for _, b in ir.blocks():
        for s in block_spans(b):
            if s.fact_ids:
                texts[(b.id, tuple(s.fact_ids))].append(_normal(s.text))
    problems = []
    prev = None
    for sb in render_map.spans:
        if prev is not None and prev.block_id == sb.block_id and prev.fact_ids == sb.fact_ids and (
                sb.page_no != prev.page_no or sb.bbox[1] >= prev.bbox[3] - 0.5):
            a, b = prev.text, sb.text
            whole = texts.get((sb.block_id, tuple(sb.fact_ids)), [])
            inside = any(a + b in t and f"{a} {b}" not in t for t in whole)
            digits = a[-1:].isdigit() and b[:1].isdigit() and any(
                f"{a} {b}" in t and _GROUPED_NUMBER.search(f"{a.split(' ')[-1]} {b.split(' ')[0]}")
                for t in whole)
            if inside or digits:
                problems.append(LayoutProblem(kind="mid_token_wrap", page_no=sb.page_no, bbox=sb.bbox,
                                              message=f"fact {','.join(sb.fact_ids)} drawn as {a!r} / {b!r}"))
        prev = sb
    return problems


def _body_of(render_map: RenderMap, page_no: int, width: float, height: float) -> tuple[float, ...]:
    page = render_map.pages[page_no - 1] if page_no <= len(render_map.pages) else None
    if page is not None and page.body is not None:  # the body as drawn (in the document's frame)
        return tuple(page.body)
    lid = page.layout_id if page is not None else None
    if lid:
        return layout_from_id(lid).body
    return (0.0, 0.0, width, height)


def _fill(page: pymupdf.Page, words: list[_Word], body) -> float:
    """Share of the body height covered by drawn things (text, vector drawings, images)."""
    bx0, by0, bx1, by1 = body
    spans = []
    for w in words:
        spans.append((w.hull[1], w.hull[3]))
    for d in page.get_drawings():
        r = d["rect"]
        spans.append((r.y0, r.y1))
    for info in page.get_image_info():
        spans.append((info["bbox"][1], info["bbox"][3]))
    clipped = sorted((max(a, by0), min(b, by1)) for a, b in spans if b > by0 and a < by1)
    covered = 0.0
    cur = None
    for a, b in clipped:
        if cur is None:
            cur = [a, b]
        elif a <= cur[1] + FILL_GAP:
            cur[1] = max(cur[1], b)
        else:
            covered += cur[1] - cur[0]
            cur = [a, b]
    if cur is not None:
        covered += cur[1] - cur[0]
    return covered / max(by1 - by0, 1.0)


def _opens_section(runs: list[_Run], body, headings: list[str]) -> bool:
    """Does a level-1 heading of the IR open the page's body (a line of it at the top of the content;
    a sidebar may start at the same height)?"""
    bx0, by0, bx1, by1 = body
    inside = [r for r in runs if min(w.hull[1] for w in r.words) >= by0 - 2 and r.baseline <= by1 + 2]
    if not inside:
        return False
    top = min(min(w.hull[1] for w in r.words) for r in inside)
    for r in inside:
        if min(w.hull[1] for w in r.words) > top + 8:
            continue
        line = " ".join(w.text for w in r.words)
        if len(line) >= 2 and any(h.startswith(line) or h.upper().startswith(line) for h in headings):
            return True
    return False


def check_layout(pdf: bytes, render_map: RenderMap, ir: DocumentIR) -> list[LayoutProblem]:
    """Every overlap, clipped text, mid-token wrap and half-empty page of a rendered document."""
    vocab = _vocabulary(ir)
    annotations = _annotation_blocks(ir)
    headings = _level1_headings(ir)
    problems: list[LayoutProblem] = []
    by_page: dict[int, list] = defaultdict(list)
    for sb in render_map.spans:
        by_page[sb.page_no].append(sb)
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        texts = [_page_text(page) for page in doc]
        fills: list[float] = []
        opens: list[bool] = []
        for n, page in enumerate(doc, start=1):
            words, runs, chars = texts[n - 1]
            w, h = page.rect.width, page.rect.height
            exempt = _annotation_words(words, by_page.get(n, []), annotations)
            problems += _overlaps(n, words, exempt)
            problems += _clipped(n, w, h, chars, by_page.get(n, []))
            problems += _pdf_wraps(n, runs, vocab)
            body = _body_of(render_map, n, w, h)
            fills.append(_fill(page, words, body))
            opens.append(_opens_section(runs, body, headings))
        for n in range(1, doc.page_count):  # the last page may end short
            if fills[n - 1] < HALF_EMPTY_BELOW and not opens[n]:
                problems.append(LayoutProblem(kind="half_empty", page_no=n,
                                              message=f"content covers {fills[n - 1]:.0%} of the body height"))
    problems += _span_wraps(render_map, ir)
    order = {k: i for i, k in enumerate(LAYOUT_PROBLEM_KINDS)}
    return sorted(problems, key=lambda p: (p.page_no, order[p.kind]))


def count_by_kind(problems: list[LayoutProblem]) -> dict[str, int]:
    """Problems per kind (every kind listed, zeros included)."""
    out = dict.fromkeys(LAYOUT_PROBLEM_KINDS, 0)
    for p in problems:
        out[p.kind] += 1
    return out


__all__ = ["LAYOUT_PROBLEM_KINDS", "LayoutProblem", "LayoutProblemKind", "check_layout", "count_by_kind"]
