"""The words of ``catalogue/prose.yaml`` and the helpers that fill them, shared by the modules that write prose.

``TEXT`` is the file, validated once per process (``ProseText``: the registers' pools, the exhibit text, the
standing and QA-bearing sentences); ``_fill`` fills a template with the domain's vocabulary, ``_fresh`` draws the
templates a document has used least, ``with_unit`` writes a figure as a sentence prints it. ``prose`` (openers,
reflections, the QA-bearing paragraphs), ``registers`` (the ways of writing) and ``exhibit_text`` (what the prose
says of a table or chart) all draw on them: this module sits below the three, so none of them imports another
in a cycle.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field, model_validator

from synthdocqa.generation.catalogue import Entry, load
from synthdocqa.generation.catalogue import template as template_type
from synthdocqa.ir.arithmetic_rules import PERCENTAGE_POINTS, unit_for_count
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.values import NumberValue

from . import discourse
from .book import DocContext
from .wording import article, lower_common, plural, verb

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
    """``catalogue/prose.yaml``: the words of the prose modules' sentences (``prose``, ``registers``,
    ``exhibit_text``), by the register or block that writes them."""

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
