"""Questions on a document's structure: where its sections start, read from its table of contents.

A reader of a long report finds a section through the contents page; "On which page does the section on
supplier onboarding start?" needs the contents (or a search of the whole document) and its answer is the
page the contents give, which the renderer settled to the page the heading is drawn on
(``generation.content.front_matter``). The contents table is a finding aid, not an exhibit: the other QA
variants leave it alone (``generation.content.front_matter.is_contents``).
"""

from __future__ import annotations

from dataclasses import dataclass

from synthdocqa.ir.answers import answer_for_value
from synthdocqa.ir.blocks import FigureBlock, TableBlock
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.rng import Rng

from ..content.front_matter import NUMBERED_HEADING, contents_table, heading_text, is_contents
from .claims import Claim, Draft
from .context import QAContext, lc
from .naming import describe
from .phrasing import pick

CONTENTS_QUESTIONS = (
    "On which page does the section on {name} start?",
    "According to the table of contents, on what page does section {num} ({name}) begin?",
    "Which page does the table of contents give for section {num}, {name}?",
    "On what page does the part of the document headed '{title}' start?",
    "Where in the document does section {num} on {name} begin (page number)?",
)


APPENDIX_QUESTIONS = (
    "On which page does {num} ({name}) start?",
    "According to the table of contents, on what page does {num} begin?",
    "Which page does the table of contents give for {num}, {name}?",
    "On what page does the part of the document headed '{title}' start?",
    "Where does {num}, {name}, begin (page number)?",
)


@dataclass(frozen=True)
class ContentsRow:
    """One row of the contents: the numbered heading and the fact of its page."""

    title: str
    fact: Fact

    @property
    def appendix(self) -> bool:
        return self.title.startswith("Appendix ")

    @property
    def number(self) -> str:
        """"3.2", or "Appendix A"."""
        return " ".join(self.title.split(" ")[:2 if self.appendix else 1])

    @property
    def name(self) -> str:
        rest = self.title.removeprefix(self.number + " ")
        return rest[0].lower() + rest[1:] if not rest.split(" ")[0].isupper() else rest


def contents_rows(ctx: QAContext) -> list[ContentsRow]:
    """The drawn rows of the contents, in order (none without a contents page)."""
    table = contents_table(ctx.doc)
    if table is None:
        return []
    out = []
    for row in table.rows:
        fid = row[1].fact_ids[0] if row[1].fact_ids else None
        if fid is not None and ctx.drawn(fid):
            out.append(ContentsRow(row[0].text, ctx.facts[fid]))
    return out


def contents_lookup(ctx: QAContext, row: ContentsRow, rng: Rng) -> Draft | None:
    """On which page a section starts, as the contents give it."""
    q = pick(rng, APPENDIX_QUESTIONS if row.appendix else CONTENTS_QUESTIONS, name=row.name, num=row.number, title=row.title)
    claim = Claim(f"{'' if row.appendix else 'Section '}{row.title} starts on page {row.fact.text}.", answer_for_value(row.fact.value),
                  [row.fact.id])
    return Draft("lookup", "text", q, answer_for_value(row.fact.value), row.fact.text, [claim])


CROSS_REFERENCE_QUESTIONS = {
    "table": ("What does the table that section {num} refers to give for the {d}?",
              "Section {num} ({name}) refers to a table. What is the {d} there?",
              "According to the table discussed in section {num}, what is the {d}?",
              "In the table that the section on {name} points to, what is the {d}?",
              "Section {num} ({name}) points to a table: what is the {d} in it?"),
    "figure": ("What does the chart that section {num} refers to show for the {d}?",
               "Section {num} ({name}) refers to a chart. What is the {d} there?",
               "According to the chart discussed in section {num}, what is the {d}?",
               "In the chart that the section on {name} points to, what is the {d}?",
               "Section {num} ({name}) points to a chart: what is the {d} in it?"),
}


@dataclass(frozen=True)
class SectionExhibit:
    """The one table (or the one chart) that a numbered section or subsection discusses."""

    section: ContentsRow
    block: TableBlock | FigureBlock

    @property
    def kind(self) -> str:
        return "table" if isinstance(self.block, TableBlock) else "figure"


def section_exhibits(ctx: QAContext) -> list[SectionExhibit]:
    """Each numbered section (its subsections included) or subsection that holds exactly one table or
    exactly one chart, with that exhibit: "the table that section 4.2 refers to" names it without its
    number. Appendices are left out (they are schedules, not discussed in a section's text)."""
    rows = {r.title: r for r in contents_rows(ctx)}
    held: dict[str, list] = {}
    current: str | None = None
    for _, b in ctx.doc.blocks():
        if b.type == "heading" and NUMBERED_HEADING.match(heading_text(b)):
            current = heading_text(b)
            held.setdefault(current, [])
        elif current is not None and isinstance(b, (TableBlock, FigureBlock)) and not is_contents(b):
            held[current].append(b)
    out = []
    for title, row in rows.items():
        if row.appendix or title not in held:
            continue
        inside = [b for t, bs in held.items() for b in bs
                  if t == title or t.startswith(row.number + ".") and not rows.get(t, row).appendix]
        for kind in (TableBlock, FigureBlock):
            of = [b for b in inside if isinstance(b, kind)]
            if len(of) == 1 and ctx.points(of[0]):
                out.append(SectionExhibit(row, of[0]))
    return out


def cross_reference(ctx: QAContext, item: SectionExhibit, rng: Rng) -> Draft | None:
    """A value of the exhibit a section refers to, the exhibit named by its section, not its number: the
    reader finds the section (through the contents or the running headers), then its table or chart."""
    facts = [p.fact for p in ctx.points(item.block)]
    if not facts:
        return None
    f = rng.choice(facts)
    q = pick(rng, CROSS_REFERENCE_QUESTIONS[item.kind], d=lc(describe(f)), num=item.section.number,
             name=item.section.name)
    return Draft("lookup", item.kind, q, answer_for_value(f.value), f.text, [ctx.claim_fact(f)])


__all__ = ["ContentsRow", "SectionExhibit", "contents_lookup", "contents_rows", "cross_reference",
           "section_exhibits"]
