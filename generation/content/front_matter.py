"""The front matter of a long document: a cover page, a table of contents, numbered subsections.

A report of a front-matter recipe (``Recipe.front_matter``) long enough (``FRONT_MATTER_MIN_PAGES``) opens
with a cover (title, what the document is, who issued it and when, its reference) and a contents page,
and numbers its sections ("3 Findings") and subsections ("3.2 Supplier onboarding"). The contents list
every numbered heading with the page it starts on. The planner can only guess those pages (the IR page
of the heading); the renderer's flow pass may carry content on to continuation pages, so the printed
numbers are settled after a render (``start_pages``, ``with_start_pages``): render, read where each
heading landed, write those numbers into the contents' facts, render again until they agree.
"""

from __future__ import annotations

import re
from decimal import Decimal

from synthdocqa.ir.blocks import HeadingBlock, Span, TableBlock, TextBlock
from synthdocqa.ir.document import DocumentIR, PagePlan
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.values import NumberValue

from ..domains import Domain
from .book import DocContext, fs, lit

CONTENTS_TITLE = "Contents"
CONTENTS_COLUMNS = ["Section", "Page"]
NUMBERED_HEADING = re.compile(r"^(\d+(?:\.\d+)*|Appendix [A-Z]) \S")
"""A numbered section, subsection or appendix heading: "3 Findings", "3.2 Supplier onboarding",
"Appendix A Supporting schedules"."""
START_PAGE_LABEL = "Start page of section "


def cover(ctx: DocContext, title: str, brief: str) -> list:
    """The cover page: the title, what the document covers, and who issued it, when, under what reference."""
    b = ctx.book
    issuer = ctx.issuer
    city = issuer.attributes.get("city", "")
    where = f", {city}" if city else ""
    issued = (f"Issued by {issuer.name}{where}. Date of issue: {ctx.fmt.date(ctx.anchor)}. "
              f"Reference: {ctx.doc_reference()}.")
    return [HeadingBlock(id=b.block_id(), level=1, spans=[lit(title)]),
            TextBlock(id=b.block_id(), spans=[lit(brief)]),
            TextBlock(id=b.block_id(), spans=[lit(issued)])]


def contents_placeholder(ctx: DocContext) -> HeadingBlock:
    """The heading of the contents page (its table is added once the sections are planned)."""
    return HeadingBlock(id=ctx.book.block_id(), level=1, spans=[lit(CONTENTS_TITLE)])


def heading_text(block) -> str:
    return "".join(s.text for s in block.spans)


def numbered_headings(pages: list[PagePlan]) -> list[tuple[int, HeadingBlock]]:
    """(IR page, heading) of every numbered section and subsection heading, in reading order."""
    return [(page.page_no, b) for page in pages for b in page.blocks
            if b.type == "heading" and NUMBERED_HEADING.match(heading_text(b))]


def with_contents(ctx: DocContext, pages: list[PagePlan]) -> PagePlan:
    """Page 2 with its contents table: one row per numbered heading, the page a fact (the IR page until a
    render settles it)."""
    page = pages[1]
    bid = ctx.book.block_id()
    rows: list[list[Span]] = []
    for plan_page, h in numbered_headings(pages[2:]):
        text = heading_text(h)
        f = ctx.book.number(START_PAGE_LABEL + text, Decimal(plan_page), "", quantity="index",
                            attribute="start_page")
        rows.append([lit(text), fs(f)])
    table = TableBlock(id=bid, caption="", columns=list(CONTENTS_COLUMNS), rows=rows, numeric_columns=[1])
    return page.model_copy(update={"blocks": [*page.blocks, table],
                                   "layout_query": "page with a section heading and a table of contents"})


def subsection_topic(domain: Domain, rng: Rng, used: set[str]) -> str | None:
    """A subsection title from the domain's topics, not used before in the document (None when all are)."""
    left = [t for t in domain.topics if t not in used]
    if not left:
        return None
    topic = rng.choice(left)
    used.add(topic)
    return topic[0].upper() + topic[1:]


# ---------------------------------------------------------------- settling the page numbers after a render

def is_contents(block) -> bool:
    """Is ``block`` a table of contents (the uncaptioned Section/Page table of a contents page)?"""
    return block.type == "table" and block.columns == CONTENTS_COLUMNS and not block.caption


def contents_table(doc: DocumentIR) -> TableBlock | None:
    """The contents table of a document with front matter (None without one)."""
    if len(doc.pages) < 2:
        return None
    page = doc.pages[1]
    if not page.blocks or page.blocks[0].type != "heading" or heading_text(page.blocks[0]) != CONTENTS_TITLE:
        return None
    return next((b for b in page.blocks if is_contents(b)), None)


def start_pages(doc: DocumentIR, block_pages: dict[str, int]) -> dict[str, int]:
    """The rendered page each contents row should give, by its page fact id: where the heading it names
    was drawn (``block_pages``: block id -> first PDF page it was placed on)."""
    table = contents_table(doc)
    if table is None:
        return {}
    by_text = {heading_text(h): h.id for _, h in numbered_headings(doc.pages[2:])}
    out = {}
    for row in table.rows:
        heading = by_text.get(row[0].text)
        if heading is not None and heading in block_pages:
            out[row[1].fact_ids[0]] = block_pages[heading]
    return out


def printed_pages(doc: DocumentIR) -> dict[str, int]:
    """The page each contents row prints, by its page fact id."""
    table = contents_table(doc)
    if table is None:
        return {}
    facts = {f.id: f for f in doc.facts}
    return {row[1].fact_ids[0]: int(facts[row[1].fact_ids[0]].value.value) for row in table.rows}


def with_start_pages(doc: DocumentIR, pages: dict[str, int]) -> DocumentIR:
    """The IR with the contents' page facts (value, text and drawn span) set to ``pages``."""
    facts = [f.model_copy(update={"value": NumberValue(value=Decimal(pages[f.id]), unit=f.value.unit),
                                  "text": str(pages[f.id])}) if f.id in pages else f for f in doc.facts]
    table = contents_table(doc)
    rows = [[row[0], Span(text=str(pages.get(row[1].fact_ids[0], row[1].text)), fact_ids=row[1].fact_ids)]
            for row in table.rows]
    new_table = table.model_copy(update={"rows": rows})
    page2 = doc.pages[1].model_copy(update={"blocks": [new_table if b.id == table.id else b
                                                       for b in doc.pages[1].blocks]})
    return doc.model_copy(update={"facts": facts, "pages": [doc.pages[0], page2, *doc.pages[2:]]})


__all__ = ["CONTENTS_TITLE", "contents_table", "cover", "is_contents", "numbered_headings", "printed_pages", "start_pages",
           "subsection_topic", "with_contents", "with_start_pages"]
