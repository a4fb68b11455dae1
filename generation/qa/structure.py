"""Questions on a document's structure: where its sections start, read from its table of contents.

A reader of a long report finds a section through the contents page; "On which page does the section on
supplier onboarding start?" needs the contents (or a search of the whole document) and its answer is the
page the contents give, which the renderer settled to the page the heading is drawn on
(``generation.content.front_matter``). The contents table is a finding aid, not an exhibit: the other QA
variants leave it alone (``generation.content.front_matter.is_contents``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ir.answers import answer_for_value
from ir.facts import Fact
from ir.rng import Rng

from ..content.front_matter import contents_table
from .claims import Claim, Draft
from .context import QAContext
from .phrasing import pick

CONTENTS_QUESTIONS = (
    "On which page does the section on {name} start?",
    "According to the table of contents, on what page does section {num} ({name}) begin?",
    "Which page does the table of contents give for section {num}, {name}?",
    "On what page does the part of the document headed '{title}' start?",
    "Where in the document does section {num} on {name} begin (page number)?",
)


@dataclass(frozen=True)
class ContentsRow:
    """One row of the contents: the numbered heading and the fact of its page."""

    title: str
    fact: Fact

    @property
    def number(self) -> str:
        return self.title.split(" ", 1)[0]

    @property
    def name(self) -> str:
        rest = self.title.split(" ", 1)[1]
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
    q = pick(rng, CONTENTS_QUESTIONS, name=row.name, num=row.number, title=row.title)
    claim = Claim(f"Section {row.title} starts on page {row.fact.text}.", answer_for_value(row.fact.value),
                  [row.fact.id])
    return Draft("lookup", "text", q, answer_for_value(row.fact.value), row.fact.text, [claim])


__all__ = ["ContentsRow", "contents_lookup", "contents_rows"]
