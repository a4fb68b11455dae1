"""Business prose from templates filled with the domain's vocabulary and the document's facts.

Three kinds of text:
- section openers and connective paragraphs (no facts): plain literal spans;
- commentary that restates facts owned by a table/chart on the same page: literal spans, so QA
  provenance points at the owning cell or point (and the element mix stays as specified);
- QA-bearing text blocks (contacts, deadlines, references, action lists, footnotes) that own their
  facts: fact spans embedded in sentences.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Annotated

from pydantic import BeforeValidator, Field, model_validator

from synthdocqa.generation.catalogue import Entry, load
from synthdocqa.generation.catalogue import template as template_type
from synthdocqa.ir.arithmetic_rules import PERCENTAGE_POINTS, unit_for_count
from synthdocqa.ir.blocks import (
    FigureBlock,
    FootnoteBlock,
    HeadingBlock,
    ListBlock,
    Span,
    TableBlock,
    TextBlock,
)
from synthdocqa.ir.facts import Derivation, Fact
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.values import NumberValue

from . import discourse, standing
from .book import YEAR_RECIPES, DocContext, fs, lit
from .calendar import period_end, period_months
from .issuer_books import budget_envelope, fx_rate
from .tables import action_owner_and_due, change_mode, change_span, metric_fact, whole
from .wording import article, lower_common, plural, verb

TERMS_RECIPES = {"purchase_order"}
"""Genres whose general text may state payment terms against an invoice (an invoice states its own in its
payment-terms block; a contract in its clauses)."""

FILL = ("org", "topic", "topic2", "dept", "dept_lc", "year", "period", "item_kind", "item_kinds", "role", "noun",
        "this_noun", "This_noun", "records", "currency", "month_year", "figures_basis",
        "topic_is", "topic_was", "topic_remains", "a_item_kind")
"""The placeholders ``_fill`` provides to every template it fills: ``topic_is``, ``topic_was``, ``topic_remains``
are the verbs agreeing with ``{topic}`` as their subject ("recalls are measured"), ``a_item_kind`` the item kind
with its article ("an audit area"), all from ``wording`` (inflect)."""
AGREEING = {"topic_is": ("topic", "is"), "topic_was": ("topic", "was"), "topic_remains": ("topic", "remains"),
            "subject_was": ("subject", "was")}
"""Agreement placeholders: the verb each is and the placeholder whose phrase is its subject."""
EXHIBIT = ("top", "low", "top_text", "low_text", "metric_lc")
"""What ``commentary`` adds for the sentence on a table's or chart's highest and lowest values."""

Fill = template_type(*FILL)
Subsection = template_type(*FILL, "subject", "Subject", "subject_was")
TableComment = template_type(*FILL, *EXHIBIT)
ChartComment = template_type(*FILL, *EXHIBIT, "series")
TotalComment = template_type("metric_lc", "total_text", "item_kinds")
ReferenceSentence = template_type("Ref", "ref", "What", "what", "verb")
AppendixPointer = template_type(*FILL, "letter")


def _pool(kind: object) -> object:
    """A list of templates, never empty (a register draws from each of its pools)."""
    return Annotated[tuple[kind, ...], Field(min_length=1)]  # type: ignore[valid-type]


class ReportText(Entry):
    """A management report's voice: ``Register`` pools of the default register."""

    openers: _pool(Fill)
    openers_more: _pool(Fill)
    subsection_openers: _pool(Subsection)
    interpretations: _pool(Fill)
    interpretations_more: _pool(Fill)
    lead_ins: _pool(Fill)
    tails: _pool(Fill)


def _choices(kind: object) -> object:
    """A pool whose ``[a|b]`` word choices stand for each combination (``discourse.expand``, at load)."""
    return Annotated[tuple[kind, ...], Field(min_length=1), BeforeValidator(discourse.expanded)]  # type: ignore[valid-type]


class ExhibitText(Entry):
    """What the prose says of a table or chart: the sentence that refers to it and those on its values (a
    long archive refers to sixty tables: its word choices keep any skeleton to two uses)."""

    reference_sentences: _choices(ReferenceSentence)
    table_comments: _choices(TableComment)
    neutral_table_comments: _choices(TableComment)
    total_comment: _choices(TotalComment)
    mean_comment: _choices(TotalComment)
    chart_comments: _choices(ChartComment)
    category_comments: _choices(ChartComment)
    dated_rows_comments: _choices(template_type("n", "first", "last"))


class MinutesText(Entry):
    openers: _pool(Fill)
    discussion: _pool(Fill)
    remarks: _pool(Fill)
    lead_ins: _pool(Fill)
    subsection_openers: _pool(Subsection)


class ResearchText(Entry):
    openers: _pool(Fill)
    remarks: _pool(Fill)
    exhibit_bound: _pool(Fill)
    discussion: _pool(Fill)
    sections: dict[str, _pool(Fill)]
    lead_ins: _pool(Fill)
    tails: _pool(Fill)
    subsection_openers: _pool(Subsection)

    @model_validator(mode="after")
    def _bound_are_remarks(self) -> ResearchText:
        stray = [t for t in self.exhibit_bound if t not in self.remarks]
        if stray:  # a remark edited in one list and not the other would silently leave the exhibit-bound pool
            raise ValueError(f"exhibit_bound lists {stray[0]!r}, which is not one of the remarks")
        return self


class AppendixText(Entry):
    pointers: _pool(AppendixPointer)
    intros: _pool(Fill)


def _says(*facts: str, words: tuple[str, ...] = ()) -> object:
    """A QA-bearing sentence: ``facts`` are printed as the facts' own spans, each exactly once; ``words`` are
    filled in as text."""
    return template_type(*words, once=facts)


class Moved(Entry):
    up: str
    down: str
    flat: str


class QaText(Entry):
    """The sentences of the paragraphs that state facts of their own (``_spans`` prints them)."""

    contact: _says("name", "phone", "email", words=("this_noun", "role"))
    contact_reply: _says(words=("days",))
    deadline: _says("opens", "closes", "approver", words=("topic", "role"))
    reference: _says("ref", "version", "issued", "start", "end", words=("This_noun", "was", "covers", "issuer"))
    reference_undated: _says("ref", "version", "issued", words=("This_noun", "was", "issuer"))
    envelope: _says("envelope")
    terms: _says("due", "days", "issued", "ref", words=("issuer", "counterparty"))
    action_titles: _pool(str)
    action_item: _says("action", "owner", "due")
    footnote_cutoff: _says("cutoff")
    footnote_cutoff_audited: _says("cutoff")
    footnote_fx: _says("rate", words=("currency",))
    parties: _says("name", "address", words=("This_noun", "is", "concerns", "issuer", "role"))
    finding_share: _says("share", "top_value", "total", words=("top", "metric_lc", "n", "item_kinds", "year"))
    finding_change: _says("before", "after", "change",
                          words=("metric_lc", "moved", "n", "item_kinds", "year0", "year1"))
    moved: Moved


class ProseText(Entry):
    """``catalogue/prose.yaml``: the words of this module's sentences, by the register or block that writes them."""

    report: ReportText
    recipe_openers: dict[str, _pool(Fill)]
    exhibits: ExhibitText
    minutes: MinutesText
    research: ResearchText
    appendix: AppendixText
    standing_text: dict[str, _pool(Fill)]
    qa_text: QaText


TEXT = load("prose.yaml", ProseText)
"""The standing text, validated once per process: a misspelt key, a wrong type or a placeholder no caller
fills fails here, naming the file and the key, not in the document that first draws the template."""

OPENERS = TEXT.report.openers
OPENERS_MORE = TEXT.report.openers_more
SUBSECTION_OPENERS = TEXT.report.subsection_openers
INTERPRETATIONS = TEXT.report.interpretations
INTERPRETATIONS_MORE = TEXT.report.interpretations_more
LEAD_INS = TEXT.report.lead_ins
TAILS = TEXT.report.tails
RECIPE_OPENERS = TEXT.recipe_openers

REFERENCE_SENTENCES = TEXT.exhibits.reference_sentences
TABLE_COMMENTS = TEXT.exhibits.table_comments
NEUTRAL_TABLE_COMMENTS = TEXT.exhibits.neutral_table_comments
TOTAL_COMMENT = TEXT.exhibits.total_comment
MEAN_COMMENT = TEXT.exhibits.mean_comment
CHART_COMMENTS = TEXT.exhibits.chart_comments
CATEGORY_COMMENTS = TEXT.exhibits.category_comments
DATED_ROWS_COMMENTS = TEXT.exhibits.dated_rows_comments

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

APPENDIX_POINTERS = TEXT.appendix.pointers
APPENDIX_INTROS = TEXT.appendix.intros
STANDING_TEXT = TEXT.standing_text
QA_TEXT = TEXT.qa_text


def _spans(sentence: str, facts: dict[str, Span], **words: object) -> list[Span]:
    """``sentence`` (a ``QaText`` template) as spans: each fact placeholder its fact's span, the words between
    them literal text (the catalogue checked that every fact is printed once)."""
    return discourse.sentence(sentence, {name: [span] for name, span in facts.items()}, words)


def _fill(template: str, ctx: DocContext, rng: Rng, **extra: str) -> str:
    d = ctx.domain
    t1, t2 = rng.sample(d.topics, 2)
    dept = rng.choice(d.departments)
    values = dict(org=ctx.issuer.name, topic=t1, topic2=t2, dept=dept, dept_lc=lower_common(dept),
                  year=ctx.focus[-4:], period=ctx.focus,  # a quarterly report's year is its quarter's
                  item_kind=d.item_kind, item_kinds=plural(d.item_kind), role=rng.choice(d.roles), noun=ctx.recipe.noun, this_noun=ctx.recipe.this_noun,
                  This_noun=ctx.recipe.this_noun.capitalize(), records=verb(ctx.recipe.noun, "records"), currency=ctx.fmt.currency,
                  month_year=f"{ctx.anchor:%B %Y}",
                  figures_basis=f"Figures are stated in {ctx.fmt.currency} unless noted otherwise and may"
                  if any(m.kind == "money" for m in d.metrics) else "Figures may",  # no currency where no money
                  a_item_kind=article(d.item_kind))
    values.update(extra)
    for name, (subject, singular) in AGREEING.items():  # the verb agrees with the phrase filled in as its subject
        if subject in values and name not in extra:
            values[name] = verb(values[subject], singular)
    return template.format(**values)


_NUMBERED = re.compile(r"^\d+(\.\d+)*\.?\s+")
"""A section number before a heading's words ("5 Results", "6.1 Value for money")."""


def heading(ctx: DocContext, text: str, level: int = 1) -> HeadingBlock:
    ctx.memo["heading"] = _NUMBERED.sub("", text)  # the section of the text that follows (``Register.sections``)
    return HeadingBlock(id=ctx.book.block_id(), level=level, spans=[lit(text)])


def opener(ctx: DocContext, rng: Rng, n_sentences: int = 2) -> TextBlock | None:
    """A section's opening paragraph: one sentence that says what the section is about (the genre's own opening
    once a document, or the register's), then what the world says (``discourse.sentences``): the rest of the
    paragraph states figures, not more framing. An abstract or a conclusion states the document's finding with
    its figures (``FINDINGS``). None once the document's text is spent (``TEXT_SPENT``)."""
    reg = register(ctx)
    own_section = (reg.sections or {}).get(ctx.memo.get("heading", ""))
    pool = own_section or reg.openers
    single = tuple(t for t in pool if ". " not in t)  # one framing sentence, not two: the figures say the rest
    pool = single or pool
    fresh = [t for t in pool if not ctx.template_uses().get(t)]
    picks = _fresh(ctx, rng, pool, 1) if fresh else []  # once every framing sentence is said, the figures alone
    said: set[str] = ctx.remember("own_openers", set)  # a genre's own opening is said once a document
    own = [t for t in RECIPE_OPENERS.get(ctx.recipe.slug, ()) if t not in said]
    if own and not own_section and rng.bernoulli(0.5):
        picks = [rng.choice(own)]
        said.add(picks[0])
    item = _item(ctx, rng) if reg.one_item else {}
    first = _fill(picks[0], ctx, rng, **item) if picks else ""
    bid = ctx.book.block_id()
    heading = ctx.memo.get("heading", "")
    if ctx.recipe.slug in FINDINGS and heading in FINDINGS[ctx.recipe.slug] and ctx.memo.get(discourse.TEXT_FACTS, True):
        found = finding(ctx, bid, FINDINGS[ctx.recipe.slug][heading], heading.lower())
        if found:
            return TextBlock(id=bid, spans=[*([lit(first + " ")] if first else []), *found], running=True)
    facts = discourse.sentences(ctx, rng, max(2, n_sentences - 1), None, bid, item.get("role"))
    if not first and not facts:  # nothing left to frame or to state: the register's general remarks
        said = remarks(ctx, rng, n_sentences, reg.reflections)
        if not said:  # every one said twice: the section opens on its figures
            ctx.memo[TEXT_SPENT] = True
            return None
        return TextBlock(id=bid, spans=[lit(" ".join(said))], running=True)
    return TextBlock(id=bid, spans=[*([lit(first + (" " if facts else ""))] if first else []), *facts], running=True)


FINDINGS: dict[str, dict[str, str]] = {"research_report": {"Abstract": "share", "Conclusion": "change"}}
"""Sections whose opening states a finding with its figures (what the tables later show in detail): an
abstract the largest part of the whole, a conclusion the change over the year."""


def _finding_metric(ctx: DocContext):
    """The measure a document's findings are stated in (made once): the first of its domain's additive
    measures whose whole is not zero in the last two full years."""
    def pick():
        fy = str(ctx.cal.fy)
        for m in ctx.domain.metrics:
            if change_mode(m) == "pct" and whole(ctx, m, fy)[2] and whole(ctx, m, str(ctx.cal.fy - 1))[1] > 0:
                return m
        return None
    return ctx.remember(("finding_metric", ctx.domain.item_kind), pick)


def finding(ctx: DocContext, bid: str, kind: str, where: str) -> list[Span]:
    """A finding stated with its figures, facts of the paragraph ``bid`` (the tables of the same measure and
    year print the same numbers: ``tables.whole``). ``share``: the largest part of the whole and its share;
    ``change``: the whole over the last two full years and the change. Said once in ``where`` (the abstract,
    the conclusion); empty after that, or when no measure of the domain has a whole to state."""
    metric = _finding_metric(ctx)
    said: set[str] = ctx.remember("findings_said", set)
    if metric is None or where in said:
        return []
    said.add(where)
    d, y0, y1 = ctx.domain, str(ctx.cal.fy - 1), str(ctx.cal.fy)
    n, kinds, metric_lc = len(d.items), plural(d.item_kind), lower_common(metric.name)
    values, total, shares = whole(ctx, metric, y1)
    book = ctx.book
    if kind == "share":
        top = sorted(values, key=lambda i: (-values[i], d.items.index(i)))[0]
        f_top = metric_fact(ctx, metric, values[top], f"{metric.name} of {top} in {y1} stated in the {where}",
                            attribute=metric.slug, period=y1, group=bid, items=top)
        f_all = metric_fact(ctx, metric, total, f"Total {metric_lc} of the {n} {kinds} in {y1} stated in the {where}",
                            attribute=metric.slug, period=y1, group=bid, items=list(d.items))
        f_share = book.percent(f"Share of {top} in the total of {metric_lc} in {y1} stated in the {where}",
                               shares[top], attribute=f"{metric.slug}_share", period=y1, group=bid,
                               derivation=Derivation(op="share", operands=[f_top.id, f_all.id]))
        return _spans(QA_TEXT.finding_share, {"share": fs(f_share), "top_value": fs(f_top), "total": fs(f_all)},
                      top=top, metric_lc=metric_lc, n=n, item_kinds=kinds, year=y1)
    before = whole(ctx, metric, y0)[1]
    f0 = metric_fact(ctx, metric, before, f"Total {metric_lc} of the {n} {kinds} in {y0} stated in the {where}",
                     attribute=metric.slug, period=y0, group=bid, items=list(d.items))
    f1 = metric_fact(ctx, metric, total, f"Total {metric_lc} of the {n} {kinds} in {y1} stated in the {where}",
                     attribute=metric.slug, period=y1, group=bid, items=list(d.items))
    way = QA_TEXT.moved
    moved = way.up if total > before else way.down if total < before else way.flat
    change = change_span(ctx, metric, "pct", f0, f1, f"the {n} {kinds}", y0, y1, bid, f" stated in the {where}")
    return _spans(QA_TEXT.finding_change, {"before": fs(f0), "after": fs(f1), "change": change},
                  metric_lc=metric_lc, moved=moved, n=n, item_kinds=kinds, year0=y0, year1=y1)


def subsection_opener(ctx: DocContext, rng: Rng, subject: str) -> TextBlock | None:
    """The first paragraph of a subsection: what it is about (its heading's subject); None once every opener
    of the register is said twice (the subsection then opens on its figures)."""
    lc = lower_common(subject)  # "ESG data quality" keeps its capitals
    template = ctx.template(rng, register(ctx).subsection_openers)
    if template is None:
        return None
    return TextBlock(id=ctx.book.block_id(), spans=[lit(_fill(template, ctx, rng, subject=lc, Subject=subject))],
                     running=True)


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
_EXHIBIT_NO = re.compile(r"^((?:Table|Figure) \d+)\. (.+)$")


def exhibit_ref(block) -> tuple[str, str] | None:
    """("Table 4", "research income by faculty, H1 2026") of a numbered table or figure (None otherwise)."""
    caption = block.caption if block.type == "table" else block.title
    m = _EXHIBIT_NO.match(caption)
    if not m:
        return None
    what = m.group(2)
    first = what.split(" ")[0]
    if not (first.isupper() and len(first) > 1):  # "Revenue by region" -> "revenue by region"; "EBITDA" stays
        what = what[0].lower() + what[1:]
    return m.group(1), what


_MENTION = re.compile(r"\b(?:Table|Figure) \d+\b")


def exhibit_ref_in(block: TextBlock) -> str | None:
    """The first "Table N" / "Figure N" a paragraph refers to (None when it refers to none)."""
    m = _MENTION.search(" ".join(s.text for s in block.spans))
    return m.group(0) if m else None


def first_sentence(block: TextBlock) -> TextBlock:
    """The paragraph cut to its first sentence (a discussion's reference to its exhibit)."""
    text = block.spans[0].text.split(". ")[0].rstrip(".") + "."
    return block.model_copy(update={"spans": [block.spans[0].model_copy(update={"text": text})]})


def discussion(ctx: DocContext, rng: Rng, block, n_sentences: int) -> TextBlock | None:
    """The prose about a table or chart: a sentence that refers to it by number and what it shows (its
    highest and lowest values, its total, quoted from its cells), at most ``n_sentences``. Literal text: QA
    provenance stays with the exhibit's cells, and the planner may hold it over to the next page or cut it to
    its reference. What the organisation makes of it is a paragraph of its own (``reflection`` on the
    exhibit's measure), placed only where it fits."""
    ref = exhibit_ref(block)
    if ref is None:
        return None
    no, what = ref
    if not re.search(r"[,:\d]| by | per | of ", what):  # a plain name ("action tracker") takes its article:
        what = f"the {what}"  # "Table 4 gives the action tracker"
    # an exhibit is always referred to: once every reference is said twice, the least said again
    template = ctx.template(rng, REFERENCE_SENTENCES) or rng.choice(REFERENCE_SENTENCES)
    head = what.split(",")[0].split(" by ")[0]
    sentences = [template.format(Ref=no, ref=no, what=what, What=what[0].upper() + what[1:],
                                 verb=verb(head, "is"))]  # "schedule of postings is", "order lines are"
    said = commentary(ctx, rng, block)
    printed: set[str] = ctx.used("sentence")  # one text: no sentence of it printed twice
    for line in re.split(r"(?<=\.) (?=[A-Z])", said.spans[0].text) if said is not None else ():
        if line not in printed:
            printed.add(line)
            sentences.append(line)
    return TextBlock(id=ctx.book.block_id(), spans=[lit(" ".join(sentences))], running=True)


def exhibit_metric(ctx: DocContext, block):
    """The domain measure a table's first numeric column or a chart's first series reports (None if none)."""
    label = ""
    if isinstance(block, TableBlock) and block.numeric_columns:
        j = block.numeric_columns[0]
        ids = [row[j].fact_ids[0] for row in block.rows if row[j].fact_ids]
        label = ctx.book.by_id[ids[0]].label if ids else ""
    elif isinstance(block, FigureBlock) and block.series[0].points[0].fact_ids:
        label = ctx.book.by_id[block.series[0].points[0].fact_ids[0]].label
    name = label.split(" of ")[0]
    return next((m for m in ctx.domain.metrics if m.name == name), None)


TEXT_SPENT = "text_spent"
"""``DocContext.memo`` key set once the document's running text is spent: every subject discussed and every
remark said twice (``SKELETON_MAX``). The planner then fills pages with exhibits, not with more words."""


def reflection(ctx: DocContext, rng: Rng, n_sentences: int, metric=None) -> TextBlock | None:
    """A paragraph planned from the issuer's world (``discourse.paragraph``; on ``metric`` where one is given): a
    measure of one item against the earlier period and the other items, its driver and what is to be done, or
    two items side by side, an item's quarters, the items ranked. Where the document has discussed every
    subject, the register's general remarks (literal text); None once those are said too (``TEXT_SPENT``). A
    caller that may not print it takes a ``DocContext.checkpoint`` first and rolls back: its facts must not
    outlive it."""
    said = discourse.paragraph(ctx, rng, max(2, n_sentences), metric)
    if said is not None:
        return said
    lines = remarks(ctx, rng, n_sentences, register(ctx).reflections)
    if not lines:
        ctx.memo[TEXT_SPENT] = True
        return None
    return TextBlock(id=ctx.book.block_id(), spans=[lit(" ".join(lines))], running=True)


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


def _fresh(ctx: DocContext, rng: Rng, pool: tuple[str, ...], n: int) -> list[str]:
    """Up to ``n`` different templates of ``pool``, the document's least used first and none a third time
    (``DocContext.template``): fewer once the pool is said twice over."""
    picks: list[str] = []
    for _ in range(n):
        t = ctx.template(rng, [p for p in pool if p not in picks])
        if t is None:
            break
        picks.append(t)
    return picks


TIME_UNITS = frozenset({"seconds", "minutes", "hours", "days", "weeks", "months", "years"})


def with_unit(f: Fact) -> str:
    """A number as a sentence writes it: ``780 hours``, ``1 incident`` (a count's unit agrees in number)."""
    v = f.value
    if isinstance(v, NumberValue) and v.unit and v.unit != PERCENTAGE_POINTS:
        one_of_time = v.unit in TIME_UNITS and f.text.lstrip("-") == "1"  # "1 day", but "1.0 days"
        unit = unit_for_count(v.unit, float(v.value)) if f.quantity == "count" or one_of_time else v.unit
        return f"{f.text} {unit}"
    return f.text


def _metric_of(label: str) -> str:
    """The metric a value's label names (labels read "<metric> of <item> in <period>")."""
    return lower_common(label.split(" of ")[0])


def _dated_rows(ctx: DocContext, rng: Rng, block: TableBlock) -> TextBlock | None:
    """What a register keyed by date says at a glance (a ledger, a schedule of postings): how many entries,
    from which date to which (literal text: the dates are its cells'). None for any other table."""
    body = block.rows[:-1] if block.total_row else block.rows
    dates = [ctx.book.by_id[row[0].fact_ids[0]] for row in body if row[0].fact_ids]
    dates = [f for f in dates if f.value.kind == "date"]
    if len(dates) < 3 or len(dates) != len(body):
        return None
    first, last = min(dates, key=lambda f: f.value.value), max(dates, key=lambda f: f.value.value)
    said = ctx.template(rng, DATED_ROWS_COMMENTS)
    if said is None or first.value.value == last.value.value:
        return None
    text = said.format(n=len(dates), first=first.text, last=last.text)
    return TextBlock(id=ctx.book.block_id(), spans=[lit(text)])


def commentary(ctx: DocContext, rng: Rng, block) -> TextBlock | None:
    """A paragraph restating facts of a table or chart on the page (literal text, see module doc); names of
    items keep their case."""
    index = ctx.book.by_id
    if isinstance(block, TableBlock) and block.numeric_columns:
        j = block.numeric_columns[0]
        body = block.rows[:-1] if block.total_row else block.rows
        cells = [(row[0].text, index[row[j].fact_ids[0]]) for row in body if row[j].fact_ids
                 and not row[0].fact_ids]  # rows named by literal labels (not registers keyed by date)
        cells = [(lab, f) for lab, f in cells if f.value.kind in ("money", "number", "percent")
                 and not lab.startswith("Other ")]
        if len(cells) < 2:
            return _dated_rows(ctx, rng, block)
        key = lambda c: c[1].value.absolute() if hasattr(c[1].value, "absolute") else c[1].value.value  # noqa: E731
        top, low = max(cells, key=key), min(cells, key=key)
        metric = _metric_of(top[1].label)
        said = ctx.template(rng, register(ctx).table_comments)  # no skeleton a third time: no comment then
        if said is None:
            return None
        text = _fill(said, ctx, rng, top=top[0], low=low[0], top_text=with_unit(top[1]),
                     low_text=with_unit(low[1]), metric_lc=metric)
        last = block.rows[-1]
        if block.total_row and last[j].fact_ids:
            total = index[last[j].fact_ids[0]]  # a sum says "in total", an average row "on average"
            summed = last[0].text == "Total" or (total.derivation is not None and total.derivation.op == "sum")
            if not summed:  # "On average, average transit time ..." says it twice
                metric = metric.removeprefix("average ").removeprefix("mean ")
            template = ctx.template(rng, TOTAL_COMMENT if summed else MEAN_COMMENT)
            text += "" if template is None else " " + template.format(metric_lc=metric, total_text=with_unit(index[last[j].fact_ids[0]]),
                                          item_kinds=plural(ctx.domain.item_kind))
        return TextBlock(id=ctx.book.block_id(), spans=[lit(text)])
    if isinstance(block, FigureBlock) and block.chart != "pie":
        s = block.series[0]
        i_top = max(range(len(s.values)), key=lambda i: s.values[i])
        i_low = min(range(len(s.values)), key=lambda i: s.values[i])
        first = index[s.points[0].fact_ids[0]] if s.points[0].fact_ids else None
        if first is None or i_top == i_low:
            return None
        metric = _metric_of(first.label)
        over_time = block.categories[0] not in ctx.domain.items
        top_text, low_text = with_unit(index[s.points[i_top].fact_ids[0]]), with_unit(index[s.points[i_low].fact_ids[0]])
        said = ctx.template(rng, CHART_COMMENTS if over_time else CATEGORY_COMMENTS)
        if said is None:
            return None
        text = _fill(said, ctx, rng, series=s.name,
                     metric_lc=metric, top=block.categories[i_top], low=block.categories[i_low], top_text=top_text,
                     low_text=low_text)
        return TextBlock(id=ctx.book.block_id(), spans=[lit(text)])
    return None


# ------------------------------------------------------------------ QA-bearing text

def contact_paragraph(ctx: DocContext, rng: Rng) -> TextBlock:
    bid = ctx.book.block_id()
    b = ctx.book
    p = ctx.remember("contact", lambda: ctx.person(rng))
    name = b.person(f"Contact person for {ctx.recipe.this_noun}", p, group=bid, attribute="name")
    phone = b.text(f"Direct line of {p.name}", p.attributes["phone"], subject=p.id, attribute="direct_line",
                   group=bid)
    email = b.ident(f"Email address of {p.name}", p.attributes["email"], scheme="email", subject=p.id,
                    attribute="email", group=bid)
    spans = _spans(QA_TEXT.contact, {"name": fs(name), "phone": fs(phone), "email": fs(email)},
                   this_noun=ctx.recipe.this_noun, role=p.role)
    if rng.bernoulli(0.5):
        spans += _spans(" " + QA_TEXT.contact_reply, {}, days=rng.integers(2, 6))
    return TextBlock(id=bid, spans=spans)


def deadline_paragraph(ctx: DocContext, rng: Rng) -> TextBlock:
    bid = ctx.book.block_id()
    b = ctx.book
    topic = rng.choice(ctx.domain.topics)

    def window():
        start = ctx.day(rng.integers(-20, 40))
        return start, ctx.day((start - ctx.anchor).days + rng.integers(7, 60)), ctx.person(rng)

    start, end, owner = ctx.remember(("window", topic), window)
    f1 = b.date(f"Opening date of the {topic} review window", start, attribute="window_open", group=bid)
    f2 = b.date(f"Closing date of the {topic} review window", end, attribute="window_close", group=bid)
    f3 = b.person(f"Approver of late submissions for the {topic} review", owner, attribute="late_approver",
                  group=bid)
    return TextBlock(id=bid, spans=_spans(QA_TEXT.deadline, {"opens": fs(f1), "closes": fs(f2), "approver": fs(f3)},
                                          topic=topic, role=owner.role))


def reference_paragraph(ctx: DocContext, rng: Rng) -> TextBlock:
    bid = ctx.book.block_id()
    b = ctx.book
    ver_v, start, end = ctx.remember("doc_reference_details", lambda: (
        f"{rng.integers(1, 5)}.{rng.integers(0, 10)}", ctx.day(-rng.integers(90, 370)),
        ctx.day(-rng.integers(1, 60))))
    if "attestation" in ctx.recipe.genre_blocks:  # a compliance report covers the period its officer attests
        from .genre.assessment import attestation_period
        _, start, end = attestation_period(ctx, rng)
    elif ctx.by_quarter or ctx.recipe.slug in YEAR_RECIPES:  # a quarterly or annual report its quarter or year
        first, _ = period_months(ctx.focus)  # type: ignore[misc]
        start, end = dt.date(first // 12, first % 12 + 1, 1), period_end(ctx.focus)
    ref_v = ctx.doc_reference()
    ref = b.ident(f"Reference number of {ctx.recipe.this_noun}", ref_v, scheme="reference", group=bid)
    version = b.text(f"Version of {ctx.recipe.this_noun}", ver_v, attribute="version", group=bid)
    issued = b.date(f"Issue date of {ctx.recipe.this_noun}", ctx.anchor, attribute="issue_date", group=bid)
    said = {"ref": fs(ref), "version": fs(version), "issued": fs(issued)}
    template = QA_TEXT.reference_undated  # a genre that covers no period (minutes record a meeting) says none
    if standing.allows(ctx, "period_covered"):
        f_start = b.date(f"Start of the period covered by {ctx.recipe.this_noun}", start, attribute="period_start",
                         group=bid)
        f_end = b.date(f"End of the period covered by {ctx.recipe.this_noun}", end, attribute="period_end",
                       group=bid)
        said.update(start=fs(f_start), end=fs(f_end))
        template = QA_TEXT.reference
    spans = _spans(template, said, This_noun=ctx.recipe.this_noun.capitalize(), was=verb(ctx.recipe.noun, "was"),
                   covers=verb(ctx.recipe.noun, "covers"), issuer=ctx.issuer.name)
    # the board's envelope for the last full year (none without a money flow), in the genres that spend one
    envelope = budget_envelope(ctx) if standing.allows(ctx, "envelope") else None
    if envelope is not None:
        val = b.money(f"Approved budget envelope stated in the {ctx.recipe.noun}", envelope[0],
                      decimals=0, attribute="budget_envelope", group=bid, query=envelope[1])
        spans += _spans(" " + QA_TEXT.envelope, {"envelope": fs(val)})
    return TextBlock(id=bid, spans=spans)


def terms_paragraph(ctx: DocContext, rng: Rng) -> TextBlock:
    """Payment terms: invoice date < due date, and the day count derived from both."""
    bid = ctx.book.block_id()
    b = ctx.book
    net, issued_d, ref_v, cp = ctx.remember("terms", lambda: (
        rng.choice((14, 30, 30, 45, 60)),
        ctx.anchor if ctx.recipe.slug == "invoice" else ctx.day(-rng.integers(0, 31)),  # an invoice is dated
        ctx.serial("PMT", 5), ctx.counterparty(rng)))                                 # the day it is issued
    issued = b.date("Invoice date stated in the payment terms", issued_d, attribute="invoice_date", group=bid)
    due = b.date("Payment due date", ctx.day((issued_d - ctx.anchor).days + net), attribute="due_date", group=bid)
    days = b.number("Payment term in days", Decimal(net), "days", attribute="payment_term", group=bid,
                    quantity="duration", derivation=Derivation(op="days_between", operands=[issued.id, due.id]))
    ref = b.ident("Payment reference to quote", ref_v, scheme="reference", group=bid)
    return TextBlock(id=bid, spans=_spans(QA_TEXT.terms, {"due": fs(due), "days": fs(days), "issued": fs(issued),
                                                          "ref": fs(ref)}, issuer=ctx.issuer.name, counterparty=cp.name))


def unlisted_actions(ctx: DocContext) -> list[str]:
    """The domain's actions no list or action log of the document has named yet."""
    taken = ctx.used("listed_actions") | ctx.used("actions")
    return [a for a in ctx.domain.actions if a not in taken]


def action_list(ctx: DocContext, rng: Rng, max_items: int = 5) -> ListBlock:
    bid = ctx.book.block_id()
    b = ctx.book
    n = rng.integers(3, min(5, len(ctx.domain.actions)) + 1)
    fresh = unlisted_actions(ctx)  # a document lists an action once (a second list of the same actions is a repeat)
    acts = rng.sample(fresh if len(fresh) >= 2 else list(ctx.domain.actions), max(2, min(n, max_items, len(fresh) or n)))
    ctx.used("listed_actions").update(acts)
    items = []
    title = rng.choice(QA_TEXT.action_titles)
    repeat = ctx.number(f"list:{title}")
    if repeat > 1:  # titles stay unique in a document, so item labels (and list questions) name one list
        title = f"{title}, part {repeat}"
    for i, act in enumerate(acts):
        fa = b.text(f"Item {i + 1} of the list '{title}' on page {ctx.page}", act, attribute="action", group=bid)
        owner, due_d = action_owner_and_due(ctx, rng, act)
        fo = b.person(f"Owner of the action '{act}'", owner, attribute="owner", group=bid)
        due = b.date(f"Due date of the action '{act}'", due_d, attribute="due_date", group=bid)
        items.append(_spans(QA_TEXT.action_item, {"action": fs(fa), "owner": fs(fo), "due": fs(due)}))
    return ListBlock(id=bid, ordered=rng.bernoulli(0.5), title=title, items=items)


def footnote(ctx: DocContext, rng: Rng, marker: str) -> FootnoteBlock:
    bid = ctx.book.block_id()
    b = ctx.book
    if ctx.fmt.currency == "USD" or rng.bernoulli(0.5) or not standing.allows(ctx, "currency_note"):
        cut = ctx.remember("cutoff", lambda: ctx.day(-rng.integers(1, 20)))
        d = b.date("Cut-off date of the figures", cut, attribute="cutoff", group=bid)
        template = QA_TEXT.footnote_cutoff_audited if audited(ctx) else QA_TEXT.footnote_cutoff
        spans = _spans(template, {"cutoff": fs(d)})
    else:
        fx, q_fx = fx_rate(ctx, ctx.fmt.currency)
        rate = b.number(f"Exchange rate used ({ctx.fmt.currency} per USD)", fx, "", places=4,
                        attribute="fx_rate", group=bid, quantity="ratio", query=q_fx)
        spans = _spans(QA_TEXT.footnote_fx, {"rate": fs(rate)}, currency=ctx.fmt.currency)
    return FootnoteBlock(id=bid, marker=marker, spans=spans)


def parties_paragraph(ctx: DocContext, rng: Rng) -> TextBlock:
    """A counterparty and its registered address (the one address that organisation has in the document;
    the issuer's own address is on the letterhead). One address per paragraph, so no two cities run
    together in one block of text."""
    bid = ctx.book.block_id()
    b = ctx.book
    cp = ctx.remember(("parties", ctx.page), lambda: ctx.counterparty(rng))
    name = b.org(f"{cp.role.capitalize()} named with its address on page {ctx.page}", cp, attribute="name",
                 group=bid)
    where = b.text(f"Registered address of {cp.name}", cp.attributes["full"], subject=cp.id,
                   attribute="registered_address", group=bid)
    agree = {"is": verb(ctx.recipe.noun, "is"), "concerns": verb(ctx.recipe.noun, "concerns")}
    return TextBlock(id=bid, spans=_spans(QA_TEXT.parties, {"name": fs(name), "address": fs(where)}, **agree,
                                          This_noun=ctx.recipe.this_noun.capitalize(), issuer=ctx.issuer.name,
                                          role=cp.role))


def _of_postings(templates: tuple[str, ...], ctx: DocContext) -> tuple[str, ...]:
    """The templates that fit the appendix: "postings" only where it holds a register of them (a ledger-keeping
    genre's; a report's appendix holds its data tables)."""
    if ctx.recipe.keeps_register:
        return templates
    return tuple(t for t in templates if "postings" not in t)


def appendix_pointer(ctx: DocContext, rng: Rng, letter: str) -> TextBlock:
    """The sentence of the introduction that says where the appendix is."""
    return TextBlock(id=ctx.book.block_id(), spans=[lit(_fill(rng.choice(_of_postings(APPENDIX_POINTERS, ctx)), ctx,
                                                                rng, letter=letter))])


def appendix_intro(ctx: DocContext, rng: Rng) -> TextBlock:
    """What the appendix holds and where it comes from."""
    return TextBlock(id=ctx.book.block_id(), spans=[lit(_fill(rng.choice(_of_postings(APPENDIX_INTROS, ctx)), ctx,
                                                                rng))])


def standing_text(ctx: DocContext, rng: Rng, kind: str) -> TextBlock:
    """A paragraph of ``kind``'s standing text the document has not printed yet (``STANDING_TEXT``); the pointer
    to the notes only where the genre has notes (a quarterly's financial summary has none); a standing note
    numbered after the genre's own (``Note 3 Basis of preparation. ...``)."""
    notes = any("statement_notes" in sec.blocks for sec in ctx.recipe.grammar)
    pool = tuple(t for t in STANDING_TEXT[kind] if notes or "the notes" not in t.lower())
    picks = _fresh(ctx, rng, pool, 1)
    said = " ".join(_fill(t, ctx, rng) for t in picks)
    if kind == "statement_notes":  # a note of its own, numbered on from the notes the genre wrote (1 and 2)
        numbers = ctx.remember(("standing_note_numbers",), lambda: iter(range(3, 10_000)))
        said = f"Note {next(numbers)} {said}"
    return TextBlock(id=ctx.book.block_id(), spans=[lit(said)])


ONCE_A_DOCUMENT = frozenset({"contact", "reference", "terms", "deadline"})
"""Paragraphs a document states once (who to ask, its own reference and period, its payment terms, its one review
window: a second would print the same window and approver again)."""


def text_element(ctx: DocContext, rng: Rng, marker: str, room: float = 560.0):
    """One QA-bearing text block that fits in ``room`` points (an action list gets as many items as fit)."""
    kinds = ["contact", "deadline", "reference", "actions", "footnote", "terms", "parties"]
    weights = [0.25, 0.2, 0.2, 0.2, 0.0 if ctx.recipe.genre_class == "transactional" else 0.15,  # a claim or an
               0.35 if ctx.recipe.slug in TERMS_RECIPES else 0.0, 0.12]  # invoice has no "figures are unaudited" note
    said: set[str] = ctx.remember("once_said", set)  # a document states its contact, reference and terms once
    unwritten = register(ctx).unwritten | {k for k, rule in (("deadline", "review_window"), ("actions", "actions"))
                                            if not standing.allows(ctx, rule)}  # standing text of other genres
    weights = [0.0 if k in said or k in unwritten or k == "actions" and len(unlisted_actions(ctx)) < 2 else w
               for k, w in zip(kinds, weights, strict=True)]
    kind = rng.choice(kinds, p=weights)
    if kind in ONCE_A_DOCUMENT:
        said.add(kind)
    if kind == "parties" and not all("full" in o.attributes for o in ctx.counterparties):
        kind = "contact"  # organisations without addresses (hand-made contexts)
    if kind == "parties":
        return parties_paragraph(ctx, rng)
    if kind == "terms":
        return terms_paragraph(ctx, rng)
    if kind == "contact":
        return contact_paragraph(ctx, rng)
    if kind == "deadline":
        return deadline_paragraph(ctx, rng)
    if kind == "reference":
        return reference_paragraph(ctx, rng)
    if kind == "actions":
        return action_list(ctx, rng, int((room - 26) // 28))
    return footnote(ctx, rng, marker)
