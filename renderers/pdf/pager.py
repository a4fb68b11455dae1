"""The flow pass of ``render_document``: the blocks of each IR page laid out on PDF pages, in its layout.

Each IR page's blocks go into the slots of its layout in reading order (a block goes to the next slot that
accepts its element type, is wide enough for it and still has room; a slot whose capacity is used is
skipped when a later slot on the page also accepts the type). What does not fit is split (paragraphs
between lines, tables between rows with the header repeated, forms between rows) and carried to the next
slot, to the full-width space below the page's content, or to a continuation page: same layout furniture
and style, with the body as one full-width slot (as a long table or appendix continues in real
documents). An IR page that does not open a section continues on the last page when that page is still
mostly empty, so no page stays more than half empty in mid-section. Nothing is drawn past its slot: a
piece taller than its slot moves on. Footnotes sit at the bottom of the page where their IR page starts.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from synthdocqa.ir.blocks import Block
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.vocab import SPEAKS_ALONE

from ..layout.layouts import ELEMENT_TYPES, Layout, Slot
from .blocks import HeadingFlow, TableFlow, footnote_flow, list_flow, text_flow
from .charts import FigureFlow
from .ctx import DrawCtx
from .flow import Flow, Piece
from .theme import Theme, theme_for
from .widgets import AnnotationFlow, FormFlow

MAX_PAGES_PER_PLAN_PAGE = 60


@dataclass
class Placed:
    """A piece laid out on a PDF page: its top-left corner and width (points)."""

    piece: Piece
    x: float
    y: float
    width: float
    block_id: str
    bottom_area: bool = False  # footnotes and their rule, at the bottom of the body


@dataclass
class OutPage:
    """A PDF page of the flow pass: its layout and style, the IR page that starts on it, its pieces."""

    layout: Layout
    theme: Theme
    plan_page_no: int | None
    placed: list[Placed] = field(default_factory=list)


FLOWS: dict[str, Callable[[Block, Theme], Flow]] = {
    "heading": HeadingFlow, "text_block": text_flow, "list": list_flow, "table": TableFlow, "figure": FigureFlow,
    "form": FormFlow, "annotation": AnnotationFlow, "footnote": footnote_flow}
"""The flow that lays out each block type."""


def make_flow(block: Block, theme: Theme) -> Flow:
    """The block's flow, in the theme's fonts for the block's text."""
    theme = theme.for_text(block.model_dump_json())
    flow = FLOWS.get(block.type)
    if flow is None:
        raise ValueError(f"block {block.id}: unknown block type {block.type!r}")
    return flow(block, theme)


MERGE_BELOW = 0.55
"""An IR page that does not open a section continues on the previous PDF page when that page's content
covers less than this share of its body height (the layout check calls a page under 0.5 half-empty)."""
SPILL_MERGE_BELOW = 0.3
RUN_ON_BELOW = 0.5
"""In a document without a table of contents (an invoice, minutes, an incident report, a memo) a section
starts below the previous section's content when that page is less than this share full, as such documents
are typed: one section after another, not one section a page."""
"""A section also starts below the content of the previous PDF page when that page holds only the spill of
the last IR page (a few lines carried over) and covers less than this share: no page holds one stray line
before a new section."""
FILL_GAP = 36.0
MIN_REGION = 48.0
"""The least height (points) worth opening as a region below a page's content."""


class _Pager:
    """Fills the slots of successive PDF pages with the blocks of successive IR pages.

    Each IR page starts a PDF page in its own layout, except one that does not open a section while the
    last PDF page is less than ``MERGE_BELOW`` full: its blocks continue below that page's content (in the
    page's style), and only what does not fit goes to a page in its own layout; a section, too, when that
    page holds only a short spill of the previous IR page (``SPILL_MERGE_BELOW``). When a block fits none of
    the remaining slots of a page (element not accepted, capacity used, too narrow, too short), the
    full-width space below everything drawn on the page is opened as one region before a new page is
    started, so a page is not left half empty because a band or a column row was already used.
    """

    def __init__(self, out: list[OutPage]) -> None:
        self.out = out
        self.page: OutPage | None = None
        self.plan_no = 0
        self.started = False  # has a block of the current IR page been placed yet?

    # -- IR pages -----------------------------------------------------------------------------------------
    def begin(self, layout: Layout, theme: Theme, plan_page_no: int, notes: list[Block], opens_section: bool,
              run_on: bool = False, own_page: bool = False) -> None:
        """Start IR page ``plan_page_no``: on the current page when it is mostly empty, else on a new one (always
        on a new one with ``own_page``: a section that speaks alone, such as an auditor's report)."""
        self.layout, self.theme = layout, theme
        self.pages_made = 0
        self.layout_fresh = True
        self.plan_no, self.started = plan_page_no, False
        spill = self.page is not None and self.page.plan_page_no is None  # carried over from the last IR page
        below = (0.0 if own_page else max(SPILL_MERGE_BELOW if spill else 0.0, RUN_ON_BELOW if run_on else 0.0)
                 if opens_section else MERGE_BELOW)
        if self.page is not None and self._fill() < below and \
                self._open_region(self._footnote_pieces(notes, self.page)):
            return
        self._new_page()
        self._add_footnotes(self._footnote_pieces(notes, self.page))

    def _footnote_pieces(self, notes: list[Block], page: OutPage) -> list[tuple[Piece, str]]:
        body = page.layout.body
        pieces = []
        for b in notes:
            flow: Flow | None = make_flow(b, page.theme)
            while flow is not None:
                piece, flow = flow.take(body[2] - body[0], 10_000, True)
                pieces.append((piece, b.id))
        return pieces

    def _add_footnotes(self, pieces: list[tuple[Piece, str]]) -> None:
        """Footnotes at the bottom of the body (above those already there), with a short rule on top."""
        if not pieces:
            return
        body = self.page.layout.body
        total = sum(p.height for p, _ in pieces) + 6
        top = self.foot_top - total
        for i, s in enumerate(self.slots):
            if self.bottom[i] > top - 8:
                self.bottom[i] = max(top - 8, s.bbox[1])
        self.page.placed.append(Placed(_footnote_rule(self.page.theme), body[0], top, body[2] - body[0], "",
                                        bottom_area=True))
        y = top + 6
        for p, bid in pieces:
            self.page.placed.append(Placed(p, body[0], y, body[2] - body[0], bid, bottom_area=True))
            y += p.height
        self.foot_top = top

    # -- pages and regions --------------------------------------------------------------------------------
    def _new_page(self) -> None:
        if self.pages_made >= MAX_PAGES_PER_PLAN_PAGE:
            raise RuntimeError(f"IR page {self.plan_no}: content needs more than {MAX_PAGES_PER_PLAN_PAGE} "
                               "PDF pages; a block cannot be laid out in its layout")
        self.page = OutPage(self.layout, self.theme, None if self.started else self.plan_no)
        self.out.append(self.page)
        self.pages_made += 1
        if self.layout_fresh:
            self.layout_fresh = False
            slots: list[Slot] = list(self.layout.slots)
        else:  # continuation pages keep the layout's furniture and style; the body is one full slot
            slots = [Slot(id="continuation", role="main", bbox=self.layout.body, accepts=list(ELEMENT_TYPES),
                          capacity=99)]
        self.foot_top = self.layout.body[3]
        self._set_slots(slots, fresh=True)
        self.placed_any = False

    def _set_slots(self, slots: list[Slot], fresh: bool) -> None:
        self.slots = slots
        self.cursor = [s.bbox[1] for s in slots]
        self.tops = [s.bbox[1] for s in slots]
        self.bottom = [min(s.bbox[3], self.foot_top - 8) if self.foot_top < self.page.layout.body[3] else s.bbox[3]
                       for s in slots]
        self.count = [0] * len(slots)
        self.fresh_ok = [fresh] * len(slots)
        self.slot_i = 0

    def _used_bottom(self) -> float | None:
        """Lowest point of the page's content (footnotes excluded); None on an empty page."""
        ys = [pl.y + pl.piece.height for pl in self.page.placed if not pl.bottom_area]
        return max(ys) if ys else None

    def _fill(self) -> float:
        """Share of the body height that the current page's content covers (small gaps closed)."""
        body = self.page.layout.body
        spans = sorted((pl.y, pl.y + pl.piece.height) for pl in self.page.placed)
        covered, cur = 0.0, None
        for a, b in spans:
            if cur is not None and a <= cur[1] + FILL_GAP:
                cur[1] = max(cur[1], b)
                continue
            if cur is not None:
                covered += cur[1] - cur[0]
            cur = [a, b]
        if cur is not None:
            covered += cur[1] - cur[0]
        return covered / max(body[3] - body[1], 1.0)

    def _open_region(self, notes: list[tuple[Piece, str]] | None = None) -> bool:
        """Replace the page's remaining slots by the full-width space below its content (and above its
        footnotes, plus ``notes`` to add); False when that space is too small or already the current slot."""
        body = self.page.layout.body
        used = self._used_bottom()
        top = body[1] if used is None else used + self.page.theme.size * 0.9
        note_h = sum(p.height for p, _ in notes) + 6 if notes else 0.0
        bottom = self.foot_top - note_h - 8
        if bottom - top < MIN_REGION:
            return False
        if len(self.slots) == 1 and self.slots[0].id == "region" and abs(self.tops[0] - top) < 0.05:
            return False
        self._add_footnotes(notes or [])
        region = Slot(id="region", role="main", bbox=(body[0], round(top, 2), body[2], round(self.foot_top - 8, 2)),
                      accepts=list(ELEMENT_TYPES), capacity=99)
        self._set_slots([region], fresh=used is None)
        return True

    def _body_width(self) -> float:
        body = self.page.layout.body
        return body[2] - body[0]

    # -- placing blocks -----------------------------------------------------------------------------------
    def _accepting_later(self, i: int, element: str) -> bool:
        return any(element in s.accepts for s in self.slots[i + 1:])

    def _wider_later(self, i: int, element: str) -> bool:
        return any(element in s.accepts and s.width > self.slots[i].width + 1 for s in self.slots[i + 1:])

    def _taller_later(self, i: int, element: str, avail: float) -> bool:
        return any(element in s.accepts and self.bottom[k] - self.cursor[k] > avail + 1
                   for k, s in enumerate(self.slots) if k > i)

    def _advance(self) -> None:
        """Leave the current slot. An untouched slot whose slots above it are all finished moves up to just
        below their used content, so a half-filled top band or column row leaves no hole."""
        self.slot_i += 1
        gap = self.page.theme.size * 0.9
        for j in range(self.slot_i, len(self.slots)):
            t = self.slots[j]
            if self.cursor[j] != self.tops[j]:
                continue
            above = [k for k, s in enumerate(self.slots) if k != j and s.bbox[3] <= t.bbox[1] + 1
                     and s.bbox[0] < t.bbox[2] and t.bbox[0] < s.bbox[2]]
            if not above or any(k >= self.slot_i for k in above):
                continue
            new_top = max(self.cursor[k] - (gap if self.cursor[k] > self.tops[k] else 0.0)
                          + (t.bbox[1] - self.slots[k].bbox[3]) for k in above)
            if new_top < self.tops[j]:
                self.cursor[j] = self.tops[j] = new_top

    def _put(self, i: int, piece: Piece, block_id: str) -> None:
        """Lay ``piece`` out at slot ``i``'s position and move that position below it, one gap on."""
        s = self.slots[i]
        self.page.placed.append(Placed(piece, s.bbox[0], self.cursor[i], s.width, block_id))
        self.cursor[i] += piece.height + self.page.theme.size * 0.9
        self.placed_any = self.started = True

    def _place_in_sidebar(self, flow: Flow) -> bool:
        """Annotations go to a sidebar when the layout has one with room: a parallel track next to the main
        column that does not move the reading position."""
        for i, s in enumerate(self.slots):
            if s.role != "sidebar" or flow.element not in s.accepts or self.count[i] >= s.capacity:
                continue
            avail = self.bottom[i] - self.cursor[i]
            piece, rest = flow.take(s.width, avail, False)
            if piece is None or rest is not None or piece.height > avail + 0.5:
                continue
            self._put(i, piece, flow.block_id)
            self.count[i] += 1
            return True
        return False

    def _room_after(self, following: Block | None, width: float, avail: float) -> bool:
        """Whether the start of ``following`` fits in ``avail`` points of a ``width`` slot: a heading stays
        with the first lines or rows of what it heads (three lines where nothing follows on its IR page)."""
        if following is None or following.type in ("annotation", "footnote", "text_block", "list", "heading"):
            return avail >= 3 * self.page.theme.line_h
        piece, _ = make_flow(following, self.page.theme).take(width, avail, False)
        return piece is not None and piece.height <= avail + 0.5

    def place(self, block: Block, following: Block | None = None) -> None:
        """Lay ``block`` out in the next slots with room; ``following``: the next block of its IR page, which a
        heading keeps with."""
        flow: Flow | None = make_flow(block, self.page.theme)
        if flow.element == "annotation" and self._place_in_sidebar(flow):
            return
        while flow is not None:
            placed = False
            while self.slot_i < len(self.slots):
                i = self.slot_i
                s = self.slots[i]
                el = flow.element
                if el not in s.accepts or s.width < flow.min_width and self._wider_later(i, el):
                    self._advance()
                    continue
                if flow.counts and self.count[i] >= s.capacity and self._accepting_later(i, el):
                    self._advance()
                    continue
                avail = self.bottom[i] - self.cursor[i]
                fresh = self.fresh_ok[i] and self.cursor[i] <= self.tops[i] + 1e-6
                piece, rest = flow.take(s.width, avail, fresh)
                if piece is not None and flow.keep_with_next and not fresh and not self._room_after(
                        following, s.width, avail - piece.height - self.page.theme.size * 0.9):
                    piece = None
                if piece is not None and piece.height > avail + 0.5 and (
                        self.placed_any or self._taller_later(i, el, avail)):
                    piece = None  # it would run over the slot's end: a later slot or the next page
                if piece is not None and s.width < min(flow.min_width, self._body_width()) - 0.5:
                    piece = None  # too narrow here: below the content, full width, or the next page
                if piece is None:
                    self._advance()
                    continue
                self._put(i, piece, flow.block_id)
                if rest is None:
                    if flow.counts:
                        self.count[i] += 1
                    flow = None
                    placed = True
                    break
                flow = rest
                self._advance()
            if placed:
                return
            if flow is not None:
                if self._open_region():
                    continue
                if not self.placed_any:
                    self._force(flow)  # nothing takes it on an empty page: use the widest slot
                    return
                self._new_page()
                flow = flow.retheme(self.page.theme)

    def _force(self, flow: Flow) -> None:
        """Last resort for a block its layout does not accept: the widest slot, page after page."""
        while flow is not None:
            i = max(range(len(self.slots)), key=lambda k: (self.slots[k].width, -k))
            s = self.slots[i]
            piece, rest = flow.take(s.width, self.bottom[i] - self.cursor[i], True)
            assert piece is not None
            self._put(i, piece, flow.block_id)
            flow = rest
            if flow is not None:
                self._new_page()
                flow = flow.retheme(self.page.theme)
        self.slot_i = len(self.slots)  # continue after it on a fresh page if more comes


def _opens_section(blocks: list[Block]) -> bool:
    """An IR page whose first block is a level-1 heading starts a section (on a page of its own)."""
    first = next((b for b in blocks if b.type != "footnote"), None)
    return first is not None and first.type == "heading" and first.level == 1


def _opens_own_page(blocks: list[Block]) -> bool:
    """An IR page that opens a section whose text speaks alone (``ir.vocab.SPEAKS_ALONE``: an auditor's report,
    financial statements, their notes): printed from the top of a page, never below another section's end."""
    body = [b for b in blocks if b.type not in ("footnote", "annotation")]
    return _opens_section(blocks) and len(body) > 1 and getattr(body[1], "genre_block", "") in SPEAKS_ALONE


def paginate(doc: DocumentIR, layouts: list[Layout]) -> list[OutPage]:
    """The flow pass: the blocks of each IR page (in its layout) laid out on PDF pages; a page left empty
    (its content moved on) is dropped and hands its IR page number on."""
    out: list[OutPage] = []
    pager = _Pager(out)
    run_on = not any(p.role == "contents" for p in doc.pages)  # sections follow one another (RUN_ON_BELOW)
    for plan, layout in zip(doc.pages, layouts, strict=True):
        notes = [b for b in plan.blocks if b.type == "footnote"]
        pager.begin(layout, theme_for(layout), plan.page_no, notes, _opens_section(plan.blocks), run_on,
                    _opens_own_page(plan.blocks))
        body = [b for b in plan.blocks if b.type != "footnote"]
        for i, b in enumerate(body):  # a page of notes alone has no body
            pager.place(b, body[i + 1] if i + 1 < len(body) else None)
    kept: list[OutPage] = []
    for page in out:
        if page.placed:
            kept.append(page)
        elif page.plan_page_no is not None and page is not out[-1]:
            nxt = out[out.index(page) + 1]
            nxt.plan_page_no = nxt.plan_page_no or page.plan_page_no
    return kept


def _footnote_rule(theme: Theme) -> Piece:
    def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
        ctx.hline(x, x + min(140.0, w / 3), y + 2, theme.rule, 0.6)

    return Piece(6.0, draw)


__all__ = ["FLOWS", "OutPage", "Placed", "make_flow", "paginate"]
