"""render_document: a DocumentIR -> PDF bytes + RenderMap, page by page into the assigned layouts.

Two passes. The flow pass places each IR page's blocks into the slots of its layout in reading order
(a block goes to the next slot that accepts its element type and still has room; a slot whose capacity
is used is skipped when a later slot on the page also accepts the type). What does not fit is split
(paragraphs between lines, tables between rows with the header repeated, forms between rows) and
carried to the next slot or to a continuation page: same layout furniture and style, with the body as
one full-width slot (as a long table or appendix continues in real documents). Footnotes sit at the bottom of
the first PDF page of their IR page. The draw pass then draws furniture (with "Page i of n") and pieces,
recording a SpanBox for every drawn fact-bearing fragment. Facts referenced by blocks but absent from the
RenderMap are listed in ``dropped_fact_ids`` (never expected; derived facts that no block draws are not
"dropped", they were never to be drawn).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from reportlab.pdfgen.canvas import Canvas

from ir.blocks import Block, block_fact_ids
from ir.document import DocumentIR
from ir.rendermap import RenderedPage, RenderMap
from ir.rng import Rng

from .assign import assign_layouts
from .layouts import ELEMENT_TYPES, Layout, LayoutLibrary, Slot, default_library
from .pdf_blocks import HeadingFlow, TableFlow, footnote_flow, list_flow, text_flow
from .pdf_charts import FigureFlow
from .pdf_chrome import DocInfo, draw_footer, draw_header
from .pdf_ctx import DrawCtx
from .pdf_flow import Flow, Piece
from .pdf_theme import Theme, theme_for
from .pdf_widgets import AnnotationFlow, FormFlow

MAX_PAGES_PER_PLAN_PAGE = 60


@dataclass
class RenderResult:
    pdf: bytes
    render_map: RenderMap
    placements: list[Placement] = field(default_factory=list)  # layout boxes of block pieces (diagnostics)


@dataclass(frozen=True)
class Placement:
    """Where a piece of a block was laid out: PDF page and the box reserved for it (points, top-left)."""

    page_no: int
    block_id: str
    bbox: tuple[float, float, float, float]


@dataclass
class _Placed:
    piece: Piece
    x: float
    y: float
    width: float
    block_id: str


@dataclass
class _OutPage:
    layout: Layout
    theme: Theme
    plan_page_no: int | None
    placed: list[_Placed] = field(default_factory=list)


def make_flow(block: Block, theme: Theme) -> Flow:
    theme = theme.for_text(block.model_dump_json())
    match block.type:
        case "heading":
            return HeadingFlow(block, theme)
        case "text_block":
            return text_flow(block, theme)
        case "list":
            return list_flow(block, theme)
        case "table":
            return TableFlow(block, theme)
        case "figure":
            return FigureFlow(block, theme)
        case "form":
            return FormFlow(block, theme)
        case "annotation":
            return AnnotationFlow(block, theme)
        case "footnote":
            return footnote_flow(block, theme)
    raise ValueError(f"block {block.id}: unknown block type {block.type!r}")


def doc_info(doc: DocumentIR) -> DocInfo:
    org = next((e for e in doc.entities if e.kind == "organisation"), None)
    name = org.name if org else doc.domain.replace("_", " ").title() + " Group"
    attrs = org.attributes if org else {}
    rng = Rng(doc.seed, doc.seed_path).fork("letterhead")
    street = attrs.get("address") or f"{rng.integers(10, 990)} {rng.choice(_STREETS)}"
    city = attrs.get("city") or rng.choice(_CITIES)
    phone = f"Tel. +1 ({rng.integers(200, 990)}) 555-{rng.integers(1000, 9999)}"
    return DocInfo(doc_id=doc.doc_id, title=doc.title, organisation=name, address=f"{street}\n{city}\n{phone}",
                   logo_seed=Rng(doc.seed, doc.seed_path).fork("logo").child_seed() % (2**31),
                   reference=doc.doc_id.upper())


_STREETS = ("Harbour Street", "Market Square", "Innovation Drive", "King's Road", "Riverside Avenue", "Main Street",
            "Park Lane", "Station Road", "Commerce Way", "Elm Court")
_CITIES = ("London EC2A 4NE", "Boston, MA 02110", "Toronto, ON M5H 2N2", "Dublin D02 X285", "Chicago, IL 60606",
           "Sydney NSW 2000", "Edinburgh EH2 2AD", "Denver, CO 80202")


class _Pager:
    """Fills slots of successive PDF pages for one IR page."""

    def __init__(self, out: list[_OutPage], layout: Layout, theme: Theme, plan_page_no: int) -> None:
        self.out = out
        self.layout = layout
        self.theme = theme
        self.plan_page_no = plan_page_no
        self.pages_made = 0
        self._new_page()

    def _new_page(self) -> None:
        if self.pages_made >= MAX_PAGES_PER_PLAN_PAGE:
            raise RuntimeError(f"IR page {self.plan_page_no}: content needs more than {MAX_PAGES_PER_PLAN_PAGE} "
                               "PDF pages; a block cannot be laid out in its layout")
        self.page = _OutPage(self.layout, self.theme, self.plan_page_no if self.pages_made == 0 else None)
        self.out.append(self.page)
        self.pages_made += 1
        if self.pages_made == 1:
            self.slots: list[Slot] = list(self.layout.slots)
        else:  # continuation pages keep the layout's furniture and style; the body is one full slot
            self.slots = [Slot(id="continuation", role="main", bbox=self.layout.body, accepts=list(ELEMENT_TYPES),
                               capacity=99)]
        self.cursor = [s.bbox[1] for s in self.slots]
        self.tops = [s.bbox[1] for s in self.slots]
        self.bottom = [s.bbox[3] for s in self.slots]
        self.count = [0] * len(self.slots)
        self.slot_i = 0
        self.placed_any = False

    def reserve_bottom(self, height: float) -> float:
        """Reserve ``height`` at the bottom of the body (footnotes); returns the top y of the reservation."""
        body_bottom = self.layout.body[3]
        top = body_bottom - height
        for i, s in enumerate(self.slots):
            if self.bottom[i] > top - 8:
                self.bottom[i] = max(top - 8, s.bbox[1])
        return top

    def _accepting_later(self, i: int, element: str) -> bool:
        return any(element in s.accepts for s in self.slots[i + 1:])

    def _advance(self) -> None:
        """Leave the current slot. An untouched slot whose slots above it are all finished moves up to just
        below their used content, so a half-filled top band or column row leaves no hole."""
        self.slot_i += 1
        gap = self.theme.size * 0.9
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

    def _place_in_sidebar(self, flow: Flow) -> bool:
        """Annotations go to a sidebar when the layout has one with room: a parallel track next to the main
        column that does not move the reading position."""
        for i, s in enumerate(self.slots):
            if s.role != "sidebar" or flow.element not in s.accepts or self.count[i] >= s.capacity:
                continue
            avail = self.bottom[i] - self.cursor[i]
            piece, rest = flow.take(s.width, avail, False)
            if piece is None or rest is not None:
                continue
            self.page.placed.append(_Placed(piece, s.bbox[0], self.cursor[i], s.width, flow.block_id))
            self.cursor[i] += piece.height + self.theme.size * 0.9
            self.count[i] += 1
            self.placed_any = True
            return True
        return False

    def place(self, flow: Flow) -> None:
        gap = self.theme.size * 0.9
        if flow.element == "annotation" and self._place_in_sidebar(flow):
            return
        while flow is not None:
            placed = False
            while self.slot_i < len(self.slots):
                i = self.slot_i
                s = self.slots[i]
                el = flow.element
                if el not in s.accepts or s.width < flow.min_width and self._accepting_later(i, el):
                    self._advance()
                    continue
                if flow.counts and self.count[i] >= s.capacity and self._accepting_later(i, el):
                    self._advance()
                    continue
                avail = self.bottom[i] - self.cursor[i]
                fresh = self.cursor[i] <= self.tops[i] + 1e-6
                piece, rest = flow.take(s.width, avail, fresh)
                if piece is not None and flow.keep_with_next and not fresh and piece.height + 3 * \
                        self.theme.line_h > avail:
                    piece = None
                if piece is None:
                    self._advance()
                    continue
                self.page.placed.append(_Placed(piece, s.bbox[0], self.cursor[i], s.width, flow.block_id))
                self.cursor[i] += piece.height + gap
                self.placed_any = True
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
                if not self.placed_any:
                    self._force(flow)  # nothing accepts it on an empty page: use the widest slot
                    return
                self._new_page()

    def _force(self, flow: Flow) -> None:
        """Last resort for a block its layout does not accept: the widest slot, page after page."""
        while flow is not None:
            i = max(range(len(self.slots)), key=lambda k: (self.slots[k].width, -k))
            s = self.slots[i]
            piece, rest = flow.take(s.width, self.bottom[i] - self.cursor[i], True)
            assert piece is not None
            self.page.placed.append(_Placed(piece, s.bbox[0], self.cursor[i], s.width, flow.block_id))
            self.cursor[i] += piece.height + self.theme.size * 0.9
            self.placed_any = True
            flow = rest
            if flow is not None:
                self._new_page()
        self.slot_i = len(self.slots)  # continue after it on a fresh page if more comes


def render_document(doc: DocumentIR, library: LayoutLibrary | None = None) -> RenderResult:
    """Render the IR into PDF bytes (invariant, byte-identical for the same IR) and its RenderMap."""
    lib = library or default_library()
    layout_ids = assign_layouts(doc, lib)
    out: list[_OutPage] = []
    for plan, lid in zip(doc.pages, layout_ids, strict=True):
        layout = lib.by_id(lid)
        theme = theme_for(layout)
        pager = _Pager(out, layout, theme, plan.page_no)
        notes = [b for b in plan.blocks if b.type == "footnote"]
        if notes:
            bw = layout.body[2] - layout.body[0]
            pieces = []
            for b in notes:
                flow: Flow | None = make_flow(b, theme)
                while flow is not None:
                    piece, flow = flow.take(bw, 10_000, True)
                    pieces.append((piece, b.id))
            total = sum(p.height for p, _ in pieces) + 6
            top = pager.reserve_bottom(total)
            pager.page.placed.append(_Placed(_footnote_rule(theme), layout.body[0], top, bw, ""))
            y = top + 6
            for p, bid in pieces:
                pager.page.placed.append(_Placed(p, layout.body[0], y, bw, bid))
                y += p.height
        for b in plan.blocks:
            if b.type != "footnote":
                pager.place(make_flow(b, theme))
        if pager.page.placed == [] and pager.pages_made > 1:  # a continuation page left empty
            out.pop()

    info = doc_info(doc)
    buf = io.BytesIO()
    first = out[0].layout
    c = Canvas(buf, pagesize=(first.width, first.height), invariant=1, pageCompression=1)
    c.setTitle(doc.title)
    c.setAuthor(info.organisation)
    c.setSubject(doc.topic_brief[:200])
    c.setCreator("synthdocqa")
    c.setProducer("synthdocqa")
    rmap = RenderMap(doc_id=doc.doc_id)
    placements: list[Placement] = []
    total = len(out)
    for n, page in enumerate(out, start=1):
        lay = page.layout
        c.setPageSize((lay.width, lay.height))
        ctx = DrawCtx(c, lay.width, lay.height, n)
        chrome = page.theme.for_text(info.title + info.organisation + info.address + info.reference)
        draw_header(ctx, chrome, info, n)
        draw_footer(ctx, chrome, info, n, total)
        for pl in page.placed:
            pl.piece.draw(ctx, pl.x, pl.y, pl.width)
            if pl.block_id:
                placements.append(Placement(n, pl.block_id, (round(pl.x, 2), round(pl.y, 2),
                                                             round(pl.x + pl.width, 2), round(pl.y + pl.piece.height, 2))))
        rmap.spans.extend(ctx.spans)
        rmap.pages.append(RenderedPage(page_no=n, width=lay.width, height=lay.height, layout_id=lay.id,
                                       plan_page_no=page.plan_page_no))
        c.showPage()
    c.save()
    drawn = rmap.drawn_fact_ids()
    wanted: list[str] = []
    for _, b in doc.blocks():
        wanted += [f for f in block_fact_ids(b) if f not in wanted]
    rmap.dropped_fact_ids = [f for f in wanted if f not in drawn]
    return RenderResult(pdf=buf.getvalue(), render_map=rmap, placements=placements)


def _footnote_rule(theme: Theme) -> Piece:
    def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
        ctx.hline(x, x + min(140.0, w / 3), y + 2, theme.rule, 0.6)

    return Piece(6.0, draw)


__all__ = ["Placement", "RenderResult", "make_flow", "render_document"]
