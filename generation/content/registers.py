"""The registers: the ways a genre's running text is written (``Register``), each a set of sentence pools.

A management report explains its figures (``REPORT_REGISTER``, the default); minutes record who said what, a
research report states what was studied and found, as "we" (``REGISTERS``, by recipe). ``register`` gives a
document its register (without "unaudited" where the document never calls its figures so: ``audited``);
``remarks`` draws sentences of comment from its pools.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from synthdocqa.ir.rng import Rng

from . import standing
from .book import DocContext
from .prose_text import TEXT, _fill, _fresh
from .wording import lower_common

OPENERS = TEXT.report.openers
OPENERS_MORE = TEXT.report.openers_more
SUBSECTION_OPENERS = TEXT.report.subsection_openers
INTERPRETATIONS = TEXT.report.interpretations
INTERPRETATIONS_MORE = TEXT.report.interpretations_more
LEAD_INS = TEXT.report.lead_ins
TAILS = TEXT.report.tails

TABLE_COMMENTS = TEXT.exhibits.table_comments
NEUTRAL_TABLE_COMMENTS = TEXT.exhibits.neutral_table_comments

MINUTES_OPENERS = TEXT.minutes.openers
MINUTES_DISCUSSION = TEXT.minutes.discussion
MINUTES_REMARKS = TEXT.minutes.remarks
MINUTES_LEAD_INS = TEXT.minutes.lead_ins
MINUTES_SUBSECTION_OPENERS = TEXT.minutes.subsection_openers

RESEARCH_OPENERS = TEXT.research.openers
RESEARCH_REMARKS = TEXT.research.remarks
RESEARCH_EXHIBIT_BOUND = frozenset(TEXT.research.exhibit_bound)
RESEARCH_GENERAL = tuple(t for t in RESEARCH_REMARKS if t not in RESEARCH_EXHIBIT_BOUND)
"""The remarks that read as well in a paragraph of their own, far from any exhibit."""
RESEARCH_DISCUSSION = TEXT.research.discussion
RESEARCH_SECTIONS = TEXT.research.sections
RESEARCH_LEAD_INS = TEXT.research.lead_ins
RESEARCH_TAILS = TEXT.research.tails
RESEARCH_SUBSECTION_OPENERS = TEXT.research.subsection_openers


@dataclass(frozen=True)
class Register:
    """The sentence pools of one way of writing: section openers, remarks on an exhibit's figures, general
    reflections (no exhibit presupposed), subsection openers, and the lead-ins and tails a remark may take."""

    openers: tuple[str, ...]
    remarks: tuple[str, ...]
    reflections: tuple[str, ...]
    subsection_openers: tuple[str, ...]
    lead_ins: tuple[str, ...]
    tails: tuple[str, ...]
    one_item: bool = False
    """A paragraph keeps to one item: one topic (and its second topic), one speaker, one team throughout (minutes
    minute an item at a time; a report's remarks range over the organisation's topics)."""
    decorate: tuple[str, ...] | None = None
    """The templates that take the lead-ins and tails (all by default)."""
    table_comments: tuple[str, ...] = TABLE_COMMENTS
    """What the sentence after a table says of its highest and lowest rows."""
    sections: dict[str, tuple[str, ...]] | None = None
    """Openers of their own for the sections so headed (an abstract states what was found)."""
    other_on_repeat: bool = False
    """A sentence already printed is replaced by another template of the pool (not by another lead-in or tail
    of the same one: a template without slots would print the same words again)."""
    unwritten: frozenset[str] = frozenset()
    """The kinds of QA-bearing paragraph (``text_element``) the genre never writes (a research report has no
    action list with owners and due dates, no application window)."""


REPORT_REGISTER = Register(OPENERS + OPENERS_MORE, INTERPRETATIONS + INTERPRETATIONS_MORE,
                           INTERPRETATIONS + INTERPRETATIONS_MORE, SUBSECTION_OPENERS, LEAD_INS, TAILS)
"""A management report's voice: the organisation explains its figures (the default)."""
REGISTERS: dict[str, Register] = {
    "board_minutes": Register(MINUTES_OPENERS, MINUTES_REMARKS, MINUTES_DISCUSSION, MINUTES_SUBSECTION_OPENERS,
                              MINUTES_LEAD_INS, (), one_item=True, table_comments=NEUTRAL_TABLE_COMMENTS),
    "research_report": Register(RESEARCH_OPENERS, RESEARCH_REMARKS, RESEARCH_DISCUSSION + RESEARCH_GENERAL,
                                RESEARCH_SUBSECTION_OPENERS, RESEARCH_LEAD_INS, RESEARCH_TAILS, decorate=RESEARCH_REMARKS,
                                sections=RESEARCH_SECTIONS, other_on_repeat=True, one_item=True,
                                table_comments=NEUTRAL_TABLE_COMMENTS, unwritten=frozenset({"actions", "deadline"})),
}
"""Genres that do not write as a management report, by recipe: minutes record who said what (no tails: a minute
ends with what was said or agreed); a research report states what was studied and found, as "we"."""

AUDITED_BLOCK = "auditor_opinion"
"""The genre block of an independent auditor's report: a document that carries one never calls its own figures
unaudited (lint kind coherence, ``standing_text``)."""
_AUDITED: dict[int, Register] = {}


def audited(ctx: DocContext) -> bool:
    """Whether the document never calls its figures unaudited: it carries an independent auditor's report, or its
    genre states no audit status (``standing.yaml``: an invoice, a policy)."""
    return AUDITED_BLOCK in ctx.recipe.genre_blocks or not standing.allows(ctx, "audit_status")


def _without_unaudited(pool: tuple[str, ...] | None) -> tuple[str, ...] | None:
    return None if pool is None else tuple(t for t in pool if "unaudited" not in t.lower())


def register(ctx: DocContext) -> Register:
    reg = REGISTERS.get(ctx.recipe.slug, REPORT_REGISTER)
    if not audited(ctx):
        return reg
    if id(reg) not in _AUDITED:
        _AUDITED[id(reg)] = replace(reg, remarks=_without_unaudited(reg.remarks),
                                    reflections=_without_unaudited(reg.reflections),
                                    decorate=_without_unaudited(reg.decorate))
    return _AUDITED[id(reg)]


def _item(ctx: DocContext, rng: Rng) -> dict[str, str]:
    """One paragraph's item, for a register that keeps to one (``Register.one_item``): its topics, speaker, team."""
    d = ctx.domain
    t1, t2 = rng.sample(d.topics, 2)
    dept = rng.choice(d.departments)
    return dict(topic=t1, topic2=t2, role=rng.choice(d.roles), dept=dept, dept_lc=lower_common(dept))


def remarks(ctx: DocContext, rng: Rng, n: int, pool: tuple[str, ...] | None = None,
            item: dict[str, str] | None = None) -> list[str]:
    """``n`` sentences of comment from ``pool`` (the register's remarks on figures by default): templates the
    document has not used yet (``_fresh``), some with a lead-in or a tail, and never a sentence the document has
    already printed (``remembered``). A register that keeps to one item (``Register.one_item``) writes of
    ``item`` (or one drawn here), and starts no paragraph with a lead-in."""
    printed: set[str] = ctx.remember("printed_remarks", set)
    reg = register(ctx)
    if reg.one_item and item is None:
        item = _item(ctx, rng)
    out = []
    pool = reg.remarks if pool is None else pool
    for k, t in enumerate(_fresh(ctx, rng, pool, n)):
        for attempt in range(4):  # a sentence already printed takes another lead-in or tail (or other words)
            if attempt and (item or reg.other_on_repeat):  # said again: another template of the pool
                t = ctx.template(rng, pool)
                if t is None:
                    break
            decorate = reg.decorate is None or t in reg.decorate
            text = _fill(t, ctx, rng, **(item or {}))
            if decorate and reg.lead_ins and not t.startswith("{") and rng.bernoulli(0.4) and not t.startswith("In ") \
                    and not (reg.one_item and k == 0 and attempt == 0):
                text = _fill(rng.choice(reg.lead_ins), ctx, rng) + text[0].lower() + text[1:]
            if decorate and reg.tails and ";" not in text and len(text) < 110 and rng.bernoulli(0.3):
                text = text[:-1] + _fill(rng.choice(reg.tails), ctx, rng) + "."
            if text not in printed:
                break
        if t is None:
            continue
        printed.add(text)
        out.append(text)
    return out
