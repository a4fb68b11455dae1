"""render_document: a DocumentIR -> PDF bytes + RenderMap, page by page into the assigned layouts.

Two passes. The flow pass (``renderers.pdf.pager``) lays each IR page's blocks out in the slots of its
layout, splitting what does not fit and carrying it on to the next slot, the space below the page's
content or a continuation page. The draw pass then draws furniture (with "Page i of n") and pieces,
recording a SpanBox for every drawn fact-bearing fragment. Facts referenced by blocks but absent from the
RenderMap are listed in ``dropped_fact_ids`` (never expected; derived facts that no block draws are not
"dropped", they were never to be drawn). ``renderers.layout.layout_checks`` checks the result.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass, field

from reportlab.pdfgen.canvas import Canvas

from synthdocqa.ir.blocks import block_fact_ids
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.rendermap import BlockBox, RenderedPage, RenderMap
from synthdocqa.ir.rng import Rng

from ..layout.assign import assign_layouts
from ..layout.layouts import Layout, LayoutLibrary, default_library
from .chrome import DocInfo, draw_footer, draw_header
from .ctx import DrawCtx
from .pager import paginate


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


def doc_info(doc: DocumentIR) -> DocInfo:
    org = next((e for e in doc.entities if e.kind == "organisation"), None)
    name = org.name if org else doc.domain.replace("_", " ").title() + " Group"
    attrs = org.attributes if org else {}
    rng = Rng(doc.seed, doc.seed_path).fork("letterhead")
    # The organisation's one identity (street, locality, country, phone from the same country table);
    # the seeded fallback only serves IRs made without an address.
    street = attrs.get("street") or attrs.get("address") or f"{rng.integers(10, 990)} {rng.choice(_STREETS)}"
    locality = attrs.get("locality") or attrs.get("city") or rng.choice(_CITIES)
    if attrs.get("country") and attrs["country"] not in locality:
        locality = f"{locality}, {attrs['country']}"
    phone = f"Tel. {attrs['phone']}" if attrs.get("phone") else \
        f"Tel. +1 ({rng.integers(200, 990)}) 555-{rng.integers(1000, 9999)}"
    return DocInfo(doc_id=doc.doc_id, title=doc.title, organisation=name, address=f"{street}\n{locality}\n{phone}",
                   logo_seed=Rng(doc.seed, doc.seed_path).fork("logo").child_seed() % (2**31),
                   reference=doc.reference or doc.doc_id.upper(), confidential=doc.confidential)


_STREETS = ("Harbour Street", "Market Square", "Innovation Drive", "King's Road", "Riverside Avenue", "Main Street",
            "Park Lane", "Station Road", "Commerce Way", "Elm Court")
_CITIES = ("London EC2A 4NE", "Boston, MA 02110", "Toronto, ON M5H 2N2", "Dublin D02 X285", "Chicago, IL 60606",
           "Sydney NSW 2000", "Edinburgh EH2 2AD", "Denver, CO 80202")


CONTINUATION_HEADER = {"letterhead": "running_title", "logo_block": "running_title"}
"""The header of a document's later pages where its first page has a letterhead (as in real documents: the
letterhead on page one, a running title after); other variants run on every page."""


def house_layouts(doc: DocumentIR, layouts: list[Layout]) -> list[Layout]:
    """One house style per document: every page on the document's paper (``DocumentIR.page_size``) in the
    style of its first page's layout (heading and body fonts, colours, table style, rules) and inside its
    furniture (margins, footer, and its header, or a running title after a letterhead); each page keeps the
    arrangement of slots retrieval chose for it, except the front matter (cover, contents), set full width. Forms, stamps and handwriting keep their own faces."""
    house = layouts[0].style
    first = layouts[0].frame(doc.page_size)
    later = layouts[0].frame(doc.page_size, CONTINUATION_HEADER.get(layouts[0].header))
    out = [lay.in_house(doc.page_size, house, first if i == 0 else later) for i, lay in enumerate(layouts)]
    roles = [page.role for page in doc.pages]
    return [lay.full_width() if i < len(roles) and roles[i] != "body" else lay for i, lay in enumerate(out)]


_NUMBERED = re.compile(r"^(\d+|Appendix [A-Z]) \S")
"""A numbered section or an appendix heading ("3 Findings", "Appendix A Supporting schedules")."""


def running_sections(doc: DocumentIR, out: list) -> list[str]:
    """The section each PDF page's running header names: the first numbered section that starts on the
    page, else the one running on from before ("" before the first, and in documents without numbered
    sections)."""
    heads = {b.id: "".join(s.text for s in b.spans) for _, b in doc.blocks()
             if b.type == "heading" and b.level == 1 and _NUMBERED.match("".join(s.text for s in b.spans))}
    names, current = [], ""
    for page in out:
        starting = [heads[pl.block_id] for pl in page.placed if pl.block_id in heads]
        names.append(starting[0] if starting else current)
        if starting:
            current = starting[-1]
    return names


def render_document(doc: DocumentIR, library: LayoutLibrary | None = None) -> RenderResult:
    """Render the IR into PDF bytes (invariant, byte-identical for the same IR) and its RenderMap."""
    lib = library or default_library()
    out = paginate(doc, house_layouts(doc, [lib.by_id(lid) for lid in assign_layouts(doc, lib)]))

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
    sections = running_sections(doc, out)
    for n, page in enumerate(out, start=1):
        lay = page.layout
        c.setPageSize((lay.width, lay.height))
        ctx = DrawCtx(c, lay.width, lay.height, n)
        chrome = page.theme.for_text(info.title + info.organisation + info.address + info.reference)
        draw_header(ctx, chrome, info, n, sections[n - 1])
        draw_footer(ctx, chrome, info, n, total)
        for pl in page.placed:
            pl.piece.draw(ctx, pl.x, pl.y, pl.width)
            if pl.block_id:
                placements.append(Placement(n, pl.block_id, (round(pl.x, 2), round(pl.y, 2),
                                                             round(pl.x + pl.width, 2), round(pl.y + pl.piece.height, 2))))
        rmap.spans.extend(ctx.spans)
        rmap.pages.append(RenderedPage(page_no=n, width=lay.width, height=lay.height, layout_id=lay.id,
                                       plan_page_no=page.plan_page_no, body=list(lay.body)))
        c.showPage()
    c.save()
    types = {b.id: b.type for _, b in doc.blocks()}
    rmap.blocks = [BlockBox(block_id=pl.block_id, block_type=types.get(pl.block_id, "footnote"), page_no=pl.page_no,
                            bbox=list(pl.bbox)) for pl in placements]
    drawn = rmap.drawn_fact_ids()
    wanted: list[str] = []
    for _, b in doc.blocks():
        wanted += [f for f in block_fact_ids(b) if f not in wanted]
    rmap.dropped_fact_ids = [f for f in wanted if f not in drawn]
    return RenderResult(pdf=buf.getvalue(), render_map=rmap, placements=placements)


__all__ = ["Placement", "RenderResult", "render_document"]
