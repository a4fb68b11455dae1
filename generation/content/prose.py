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

from .book import YEAR_RECIPES, DocContext, fs, lit
from .calendar import period_end, period_months
from .quantities import draw_value
from .tables import action_owner_and_due, change_mode, change_span, metric_fact, whole
from .wording import lower_common, plural

TERMS_RECIPES = {"purchase_order"}
"""Genres whose general text may state payment terms against an invoice (an invoice states its own in its
payment-terms block; a contract in its clauses)."""

OPENERS = (
    "This section sets out how {org} managed {topic} during {period}, and where the {dept} team expects "
    "pressure in the coming quarters.",
    "The {dept} function reviewed {topic} and {topic2} across every {item_kind}. The results below are "
    "reconciled to the {dept_lc} ledger and were discussed with the responsible owners.",
    "Management continued to prioritise {topic}. Progress was uneven: several {item_kinds} improved, while "
    "others were affected by {topic2} and will need closer follow-up.",
    "Following the review by the {role}, the scope of {this_noun} was extended to include {topic2}. The "
    "findings are summarised below together with the agreed actions.",
    "{org} reports {topic} on a consistent basis each period. {figures_basis} not add up exactly because of "
    "rounding.",
    "The {dept} team monitors {topic} against the targets approved by the board. Where a {item_kind} fell "
    "short, the owner has committed to a recovery plan with dated milestones.",
    "During the period the organisation focused on {topic}, {topic2} and the quality of its reporting. {This_noun} "
    "{records} the position at {month_year}.",
    "Stakeholders asked for clearer reporting on {topic}. In response, the {dept} team now publishes the "
    "breakdown by {item_kind} shown on this page.",
    "Risks related to {topic2} remain elevated. The {role} has asked each {item_kind} to confirm its "
    "controls and to report exceptions within ten working days.",
    "The information in {this_noun} was prepared by the {dept} team from source systems and reviewed by "
    "the {role} before release.",
)

OPENERS_MORE = (
    "Compared with the previous period, the position on {topic} has stabilised, although the {dept} team "
    "flags {topic2} as the main uncertainty for the next two quarters.",
    "Each {item_kind} submitted its figures through the standard reporting template; late or incomplete "
    "returns were followed up by the {role}.",
    "The approach is deliberately conservative: where estimates were required, the {dept} team used the "
    "lower end of the agreed range and documented the judgement.",
    "Two themes stand out this period: sustained attention to {topic}, and the growing cost of {topic2}.",
    "No material changes were made to definitions or scope since the last {noun}, so the figures are "
    "directly comparable.",
    "Feedback from the {dept} team and from external partners has been incorporated where it improves the "
    "clarity of the {noun}.",
    "This part of the {noun} should be read together with the supporting schedules held by the {dept} "
    "function, which contain the transaction-level detail.",
    "{org} remains committed to transparent reporting on {topic}. Where targets were missed, the reasons "
    "and the corrective steps are stated plainly.",
)

RECIPE_OPENERS = {
    "audit_memo": ("Our review covered the design and operating effectiveness of controls over {topic} for "
                   "the period to {month_year}.",
                   "This memo records the observations of the internal audit team and the responses agreed "
                   "with management."),
    "policy_document": ("This policy applies to all employees, contractors and agents of {org} who are "
                        "involved in {topic}.",
                        "Breaches of this policy may result in disciplinary action and must be reported to the "
                        "{role} without delay."),
    "compliance_report": ("Controls were tested on a sample basis in line with the annual compliance plan "
                          "approved by the audit committee.",),
    "board_minutes": ("The committee received the report of the {role} and discussed {topic} at length.",),
    "invoice": ("Thank you for your business. Please find below the charges for services delivered by {org} "
                "during the period.",),
    "purchase_order": ("Please supply the goods and services listed below in accordance with the terms of "
                       "the framework agreement and the delivery schedule.",),
    "contract_summary": ("This summary sets out the principal commercial terms; in case of conflict the "
                         "signed agreement prevails.",),
    "research_report": ("We analyse {topic} using operational data collected across every {item_kind}, and "
                        "we test whether differences persist once we allow for {topic2}.",),
    "incident_report": ("The incident was detected by routine monitoring and escalated to the {role} within "
                        "the agreed response time.",),
    "grant_application": ("The project will address {topic} in partnership with local organisations, with "
                          "outcomes measured against a published baseline.",),
    "scanned_archive": ("The enclosed records were retrieved from the archive for retention review and are "
                        "reproduced as filed.",),
}


TABLE_COMMENTS = (
    "As the table shows, {top} recorded the highest {metric_lc} at {top_text}, while {low} recorded the "
    "lowest at {low_text}.",
    "{top} led on {metric_lc} ({top_text}); {low} trailed at {low_text} and is under review.",
    "The spread between {top} ({top_text}) and {low} ({low_text}) reflects differences in {topic}.",
)
NEUTRAL_TABLE_COMMENTS = (
    TABLE_COMMENTS[0],
    "{top} was highest on {metric_lc} ({top_text}) and {low} lowest ({low_text}).",
    "The figures range from {low_text} ({low}) to {top_text} ({top}).",
)
"""What a table shows without a manager's verdict ("... trailed and is under review"): for minutes and research."""
TOTAL_COMMENT = "In total, {metric_lc} amounted to {total_text} for the period."
MEAN_COMMENT = "On average, {metric_lc} stood at {total_text} across the {item_kinds} listed."
CHART_COMMENTS = (  # over time: the series is an item (a proper name, kept as written)
    "The chart shows {metric_lc} for {series}: the peak of {top_text} was reached in {top}.",
    "For {series}, {metric_lc} moved between {low_text} and {top_text} over the period shown in the chart.",
)
CATEGORY_COMMENTS = (  # by item: the categories are items
    "In the chart, {top} shows the highest {metric_lc} ({top_text}) and {low} the lowest ({low_text}).",
    "{top} leads the chart on {metric_lc} at {top_text}; {low} is lowest at {low_text}.",
)


def _fill(template: str, ctx: DocContext, rng: Rng, **extra: str) -> str:
    d = ctx.domain
    t1, t2 = rng.sample(d.topics, 2)
    dept = rng.choice(d.departments)
    values = dict(org=ctx.issuer.name, topic=t1, topic2=t2, dept=dept, dept_lc=lower_common(dept),
                  year=ctx.focus[-4:], period=ctx.focus,  # a quarterly report's year is its quarter's
                  item_kind=d.item_kind, item_kinds=plural(d.item_kind), role=rng.choice(d.roles), noun=ctx.recipe.noun, this_noun=ctx.recipe.this_noun,
                  This_noun=ctx.recipe.this_noun.capitalize(), records="record" if ctx.recipe.plural_noun else "records", currency=ctx.fmt.currency,
                  month_year=f"{ctx.anchor:%B %Y}",
                  figures_basis=f"Figures are stated in {ctx.fmt.currency} unless noted otherwise and may"
                  if any(m.kind == "money" for m in d.metrics) else "Figures may")  # no currency where no money
    values.update(extra)
    return template.format(**values)


_NUMBERED = re.compile(r"^\d+(\.\d+)*\.?\s+")
"""A section number before a heading's words ("5 Results", "6.1 Value for money")."""


def heading(ctx: DocContext, text: str, level: int = 1) -> HeadingBlock:
    ctx.memo["heading"] = _NUMBERED.sub("", text)  # the section of the text that follows (``Register.sections``)
    return HeadingBlock(id=ctx.book.block_id(), level=level, spans=[lit(text)])


def opener(ctx: DocContext, rng: Rng, n_sentences: int = 2) -> TextBlock:
    reg = register(ctx)
    own_section = (reg.sections or {}).get(ctx.memo.get("heading", ""))
    picks = _fresh(ctx, rng, own_section or reg.openers, 1 if reg.one_item else n_sentences)  # one: the rest remark
    said: set[str] = ctx.remember("own_openers", set)  # a genre's own opening is said once a document
    own = [t for t in RECIPE_OPENERS.get(ctx.recipe.slug, ()) if t not in said]
    if own and not own_section and rng.bernoulli(0.5):
        picks = [rng.choice(own)] + picks[1:]
        said.add(picks[0])
    if reg.one_item:  # one item is opened once: who presented it, then what was said of it
        item = _item(ctx, rng)
        text = [_fill(picks[0], ctx, rng, **item), *remarks(ctx, rng, n_sentences - 1, reg.reflections, item)]
        bid = ctx.book.block_id()
        heading = ctx.memo.get("heading", "")
        if ctx.recipe.slug in FINDINGS and heading in FINDINGS[ctx.recipe.slug]:
            said = finding(ctx, bid, FINDINGS[ctx.recipe.slug][heading], heading.lower())
            if said:
                return TextBlock(id=bid, spans=[lit(" ".join(text[:1]) + " "), *said,
                                                *([lit(" " + " ".join(text[1:]))] if text[1:] else [])])
        return TextBlock(id=bid, spans=[lit(" ".join(text))])
    return TextBlock(id=ctx.book.block_id(), spans=[lit(" ".join(_fill(t, ctx, rng) for t in picks))])


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
        return [lit(f"{top} alone accounted for "), fs(f_share), lit(f" of {metric_lc} across the {n} {kinds} in {y1} ("),
                fs(f_top), lit(" of "), fs(f_all), lit(").")]
    before = whole(ctx, metric, y0)[1]
    f0 = metric_fact(ctx, metric, before, f"Total {metric_lc} of the {n} {kinds} in {y0} stated in the {where}",
                     attribute=metric.slug, period=y0, group=bid, items=list(d.items))
    f1 = metric_fact(ctx, metric, total, f"Total {metric_lc} of the {n} {kinds} in {y1} stated in the {where}",
                     attribute=metric.slug, period=y1, group=bid, items=list(d.items))
    moved = "rose" if total > before else "fell" if total < before else "was unchanged"
    return [lit(f"Across the {n} {kinds}, {metric_lc} {moved} from "), fs(f0), lit(f" in {y0} to "), fs(f1),
            lit(f" in {y1}, a change of "),
            change_span(ctx, metric, "pct", f0, f1, f"the {n} {kinds}", y0, y1, bid, f" stated in the {where}"),
            lit(".")]


SUBSECTION_OPENERS = (
    "This part of the {noun} turns to {subject}. The {dept} team sets out the position at {month_year} and "
    "the points the {role} asked to be followed up.",
    "{Subject} was reviewed with each {item_kind} during the period. The figures that follow are the basis "
    "for the actions agreed with the owners.",
    "Work on {subject} continued through {period}. Where results fell short of plan, the reasons are given "
    "with the exhibits that show them.",
    "The {role} reports on {subject} every quarter. This subsection summarises that reporting and what it "
    "means for {topic2}.",
)


def subsection_opener(ctx: DocContext, rng: Rng, subject: str) -> TextBlock:
    """The first paragraph of a subsection: what it is about (its heading's subject)."""
    lc = lower_common(subject)  # "ESG data quality" keeps its capitals
    return TextBlock(id=ctx.book.block_id(), spans=[lit(_fill(rng.choice(register(ctx).subsection_openers), ctx, rng,
                                                               subject=lc, Subject=subject))])


REFERENCE_SENTENCES = (
    "{Ref} sets out {what}.",
    "{What} {verb} shown in {ref}.",
    "{Ref} gives {what}.",
    "The figures for {what} are in {ref}.",
)
INTERPRETATIONS = (
    "The {dept} team attributes the pattern mainly to {topic} and expects it to persist into the next period.",
    "Management considers the position consistent with the plan approved at the start of {year}.",
    "Where a {item_kind} fell outside the expected range, the {role} has asked for an explanation before the "
    "next review.",
    "These figures are unaudited and may be restated once the year-end review of {topic2} is complete.",
    "The trend will be monitored together with {topic2}, which affects the same {item_kinds}.",
    "No adjustments were made to the prior-period figures shown for comparison.",
    "The {role} reviewed these results with the {dept} team and agreed that no change of approach is needed.",
    "Readers should note that {topic} is measured on the same basis as in the previous {noun}.",
    "The differences are larger than in earlier periods, which the {dept} team links to changes in {topic2}.",
    "Part of the movement reflects timing: several items booked late in the period will reverse in the next.",
    "The {role} has asked for a short note on each exception, to be tabled at the next meeting.",
    "Taken together, the results support the priorities set out at the start of {this_noun}.",
    "The figures were reconciled to the source systems by the {dept} team before publication.",
    "A more detailed breakdown is held by the {dept} function and is available on request.",
    "The position is broadly in line with peers, although {topic} remains an area of attention.",
    "Two {item_kinds} account for most of the change; the others moved within their usual range.",
    "The {dept} team will revisit the assumptions behind these figures when the {topic2} review reports.",
    "Targets for the coming year take these results as their starting point.",
    "Where estimates were needed, the {dept} team used the method applied in previous periods.",
    "The results were discussed with the owners concerned, who have confirmed the figures.",
    "Any change to the basis of preparation will be disclosed in the next {noun}.",
    "The {role} regards the spread between the highest and lowest results as the main point to address.",
    "Further work on {topic} is planned and its effect should be visible in the next reporting cycle.",
    "The underlying data are collected monthly and reviewed each quarter by the {dept} team.",
)
INTERPRETATIONS_MORE = (
    "The {dept} team sees no reason to change the targets set for {topic}.",
    "Most of the improvement came in the second half of the period.",
    "The {role} noted that {topic} was affected by factors outside the organisation's control.",
    "Results for {topic2} were weaker than expected and are being looked at in more detail.",
    "The figures include the effect of the reorganisation of the {dept} function earlier in {year}.",
    "Comparatives have been prepared on the same basis and need no restatement.",
    "The {dept} team expects the position on {topic} to be clearer once the current review is complete.",
    "Variations of this size are within the tolerance agreed with the {role}.",
    "The {role} has proposed that {topic} be reported monthly rather than quarterly from next year.",
    "Performance on {topic} has now improved for three consecutive periods.",
    "The gap between the best and the weakest {item_kind} narrowed compared with the previous period.",
    "A small number of late corrections were processed after the cut-off and are reflected here.",
    "The {dept} team has written to the owners of the weakest results to agree a recovery plan.",
    "No single {item_kind} accounts for more than a modest part of the change.",
    "Seasonal effects explain part of the pattern, as in previous years.",
    "The {role} will report on progress with {topic2} at the next review.",
    "These results were presented to the leadership team in {month_year}.",
    "Work on {topic2} continues and its first results are expected within the year.",
    "The effect of {topic} on these figures is expected to ease over the coming months.",
    "Definitions follow those used in earlier periods, so the figures are directly comparable.",
    "Where a result depends on estimates, the {dept} team has stated the basis in its working papers.",
    "The {role} considers the overall picture satisfactory, with {topic} the one exception.",
    "Feedback from the {item_kinds} concerned has been taken into account in the commentary.",
    "The position will be reassessed once the results for the full year of {year} are available.",
    "The {dept} team flagged two results for follow-up; both have since been explained.",
    "Improvements in {topic} were partly offset by pressure on {topic2}.",
)
"""More remarks, for long narrative documents: with ``INTERPRETATIONS`` a pool of 50 sentences, and a lead-in
or a tail drawn for some (``remarks``), so a 40-page report does not say the same sentence twice."""
LEAD_INS = ("In {month_year}, ", "Against that background, ", "As in earlier periods, ", "On the {dept} team's reading, ",
            "For the period as a whole, ", "Looking ahead, ", "At the same time, ", "In the view of the {role}, ",
            "Compared with a year earlier, ", "Taken in isolation, ", "Across the {item_kinds}, ", "Overall, ")
"""Openings a remark may take (then its first word is written in lower case)."""
TAILS = (", and the {role} has been informed", ", as agreed with the {role}", ", according to the {dept} team",
         ", as reported in {month_year}", ", which the {dept} team will confirm at the next review",
         ", in line with the approach set out at the start of {year}")
"""Endings a short remark may take (before its full stop)."""

MINUTES_OPENERS = (
    "The {role} introduced the report on {topic} and took questions from members.",
    "The committee received the report of the {dept} team on {topic} for the period to {month_year}.",
    "The paper had been circulated in advance and was taken as read.",
    "The {role} summarised the position on {topic} and invited comments from members.",
    "The {role} presented an update on {topic}, the first since the committee's review of {topic2}.",
    "The {role} reported that work on {topic} was on schedule and that no new issues had arisen since the last "
    "meeting.",
    "The {role} explained the main changes since the last report; members welcomed the progress on {topic}.",
    "The committee considered a paper from the {dept} team on {topic}.",
    "The {role} gave an oral update on {topic}; a written report would follow for the next meeting.",
    "The {role} reminded members that {topic} had been identified as a priority for the year.",
    "The {role} drew attention to {topic2}, which remained the main risk, and to the steps taken since the last "
    "meeting.",
    "The committee received a short report on {topic} from the {dept} team, which the {role} introduced.",
    "The {role} took members through the main points of the paper on {topic}.",
    "Members had asked at the last meeting for more detail on {topic}; the {role} presented it.",
    "The committee discussed {topic} at some length.",
    "The {role} said that {topic} and {topic2} were now reported together, as the committee had asked.",
)
"""How the minutes of a meeting open an item: who presented what, in the past tense and the third person (a
minute records a meeting; it does not manage anything)."""

MINUTES_DISCUSSION = (
    "Members asked about {topic2}; the {role} said that a fuller update would come to the next meeting.",
    "A member asked whether pressure on {topic2} would affect the plan for the coming year. The {role} replied "
    "that the position would be clearer once the current review was complete.",
    "It was agreed that the {dept} team would circulate a short note on {topic2} before the next meeting.",
    "The committee asked the {role} to bring proposals on {topic2} to a future meeting.",
    "Members asked how {topic} compared with the position a year earlier; the {role} agreed to include the "
    "comparison in the next report.",
    "In discussion, members noted that {topic} had been affected by factors outside the organisation's control.",
    "A member asked who owned the follow-up on {topic2}; the {role} confirmed that the {dept} team did.",
    "The committee asked the {role} to confirm the position on {topic2} in writing.",
    "It was agreed to keep {topic} under review.",
    "Members welcomed the progress on {topic} and asked that it be sustained.",
    "A member asked whether the {dept} team had the resources it needed for {topic}; the {role} said that this "
    "would be looked at in the budget round.",
    "The {role} undertook to report back on {topic2} at the next meeting.",
    "Members asked that the risks around {topic2} be added to the risk register.",
    "The committee noted the report.",
    "A member asked when {topic} would be back on plan; the {role} expected it to be by the end of the year.",
    "The {role} said that staff had been consulted on the changes to {topic}.",
    "Members agreed that {topic} should come back to the committee once the review of {topic2} had reported.",
    "The committee thanked the {role} for the update.",
    "A member noted that {topic2} had been raised at the previous two meetings and asked for a firm date; the "
    "{role} agreed to provide one.",
    "The {role} confirmed that no decision was needed from the committee at this stage.",
    "Members discussed whether {topic} should be reported monthly; it was agreed to keep the quarterly cycle.",
    "The {role} said that the {dept} team would present a fuller report on {topic} later in the year.",
    "The {role} agreed to circulate the revised timetable for {topic} by e-mail.",
    "A member asked for the views of the {dept} team on {topic2}; the {role} said that they would be reported to "
    "the next meeting.",
    "Members noted the risks to {topic} set out in the paper.",
    "The committee agreed that the {role} should lead the work on {topic2}.",
    "A member asked whether the changes to {topic} had been explained to staff; the {role} confirmed that they "
    "had.",
    "The {role} said that a decision on {topic2} would be needed before the end of the year.",
)
"""What a meeting said of an item, as minuted: questions, answers, what was agreed (no exhibit presupposed)."""

MINUTES_REMARKS = (
    "The committee noted the figures.",
    "The {role} explained that most of the change came from two {item_kinds}.",
    "A member asked about the lowest result; the {role} said that the {item_kind} concerned had agreed a recovery "
    "plan.",
    "Members asked whether the figures were final. The {role} confirmed that they were unaudited and could be "
    "restated at the year end.",
    "It was agreed that the {dept} team would provide a breakdown by {item_kind} for the next meeting.",
    "The {role} confirmed that the figures had been prepared on the same basis as those presented at the last "
    "meeting.",
    "The committee asked for an explanation of each result outside the expected range.",
    "The {role} advised that seasonal effects accounted for part of the pattern.",
    "A member questioned the effect of {topic2} on these results, and the {role} agreed to look into it.",
    "The committee agreed that no change of approach was needed at this stage.",
    "The {role} said that the spread between the highest and lowest results was the main point to address.",
    "Members asked that future reports show the trend over three years.",
    "The {role} said that the results had been discussed with the owners concerned, who had confirmed them.",
    "It was noted that the targets for the coming year would take these results as their starting point.",
    "In answer to a question, the {role} said that no adjustments had been made to the prior-period figures.",
    "A member asked whether the trend would persist; the {role} expected it to continue into the next period.",
    "The {role} reported that a small number of late corrections had been processed after the cut-off.",
    "Members noted that improvements in {topic} had been partly offset by pressure on {topic2}.",
    "The {role} noted that {topic} had now improved for three consecutive periods.",
    "In answer to a question, the {role} confirmed that the figures had been reconciled to the {dept_lc} ledger.",
    "A member asked how the figures compared with the budget; the {role} said that the variance was within the "
    "agreed tolerance.",
    "The committee thanked the {dept} team for the clarity of the report.",
    "A member asked why one {item_kind} had moved so much; the {role} said that it reflected a one-off item.",
    "The {role} pointed out that the figures for the last period were provisional.",
    "Members asked that the next report show the figures against target.",
    "The committee noted that the figures were in line with the plan.",
)
"""A meeting's comment on the figures of a paper before it, as minuted."""

MINUTES_LEAD_INS = ("Under this item, ", "Later in the discussion, ", "At this point, ")
"""Openings a minuted remark may take (not one that opens with "In ...", nor a paragraph's first)."""

MINUTES_SUBSECTION_OPENERS = (
    "The committee turned to {subject}. The {role} presented the position as at {month_year}.",
    "Under this item the {role} reported on {subject} since the last meeting and took questions.",
    "The committee considered {subject}. Members asked the {role} about the effect on {topic2}.",
)


RESEARCH_OPENERS = (
    "We study {topic} across {item_kinds} and ask whether the differences persist once we allow for {topic2}.",
    "This section describes the records on {topic} and how they were collected.",
    "Our question is how the results for {topic} differ between {item_kinds}, and how much of the difference "
    "{topic2} can account for.",
    "We draw on the operational records of the {dept} team, which cover every {item_kind}.",
    "Earlier reviews of {topic} relied on small samples; we use the records of every {item_kind}.",
    "The analysis proceeds in three steps: we describe {topic}, compare the {item_kinds}, and test the role of "
    "{topic2}.",
    "We report estimates with their margins of error and do not interpret differences within them.",
    "The study was designed with the {dept} team, who also reviewed the definitions we use.",
    "The records on {topic} were extracted from the source systems in {month_year}.",
    "We focus on {topic} because the {item_kinds} differ most there.",
    "Our approach follows earlier work on {topic2}, adapted to the records available here.",
    "The sample covers every {item_kind} with complete records; incomplete ones are excluded.",
    "We define {topic} as the organisation's own reporting does, so that the results can be compared with it.",
    "This section sets out what the records show about {topic} and what they cannot show.",
    "We begin with the records on {topic} and then turn to {topic2}.",
    "Here we set out the evidence on {topic}, {item_kind} by {item_kind}.",
    "The comparisons below use the same definitions throughout, so that the {item_kinds} can be ranked.",
    "We summarise the evidence on {topic} before turning to its limitations.",
)
"""How a research report opens a section: what is studied, with what data, by what method (present tense,
the authors as "we")."""

RESEARCH_REMARKS = (
    "The differences between {item_kinds} on {topic} are larger than the margin of error.",
    "This pattern is consistent with the view that {topic2} can account for much of the variation.",
    "We cannot rule out that part of the difference reflects the way the {dept} team records {topic}.",
    "The result for {topic} holds when the two largest {item_kinds} are excluded.",
    "The estimates for {topic} are descriptive and do not by themselves establish a causal effect.",
    "Seasonal effects account for part of the pattern; we return to them in the discussion.",
    "The spread between the highest and lowest values is the main feature of these data.",
    "The figures for {topic} are unweighted; weighting by size changes the ranking only at the margin.",
    "These results on {topic} are in line with those reported for comparable organisations.",
    "A sensitivity check with the prior period's definitions gives the same ordering on {topic}.",
    "The series shows no structural break over the period covered.",
    "Missing values on {topic} were not imputed; the {item_kinds} affected are left out of this comparison.",
    "We interpret the smallest differences in {topic} with caution, as they are within sampling error.",
    "The association with {topic2} is weaker than expected and may reflect measurement error.",
    "Part of the movement in {topic} reflects timing: several records were entered late in the period.",
    "The {dept} team checked these figures against the source systems.",
    "The ordering of the {item_kinds} on {topic} is the same in both periods.",
    "Taken together, these results suggest that {topic} should receive closer attention than {topic2}.",
    "Differences of this size in {topic} would matter in practice if they persisted.",
    "The largest differences in {topic} come from a few {item_kinds}, which we examine separately below.",
    "The same ordering appears when we hold {topic2} constant.",
    "Most of the spread in {topic} lies between a handful of {item_kinds}; the rest cluster near the middle.",
    "The estimates on {topic} for the smallest {item_kinds} are the least precise and should be read with care.",
    "We find no sign that the pattern in {topic} is an artefact of the reporting template.",
    "The change in {topic} between periods is small relative to the differences between {item_kinds}.",
    "Outliers in the records on {topic} were checked against the source systems and kept where confirmed.",
    "Excluding the period's late entries changes none of the comparisons of {topic}.",
    "The gap between the highest and lowest {item_kind} is wider than in the earlier review.",
    "Where the records disagree, we use the figure confirmed by the {dept} team.",
    "The pattern is clearest for {topic} and weakest for {topic2}.",
)
"""A research report's comment on its own tables and charts: what the estimates show, how sure they are."""
RESEARCH_EXHIBIT_BOUND = frozenset({
    'This pattern is consistent with the view that {topic2} can account for much of the variation.',
    'Seasonal effects account for part of the pattern; we return to them in the discussion.',
    'The spread between the highest and lowest values is the main feature of these data.',
    'The series shows no structural break over the period covered.',
    'The {dept} team checked these figures against the source systems.',
    'Taken together, these results suggest that {topic} should receive closer attention than {topic2}.',
    'The largest differences in {topic} come from a few {item_kinds}, which we examine separately below.',
    'The gap between the highest and lowest {item_kind} is wider than in the earlier review.',
})
"""The remarks that point at the exhibit before them ("this pattern", "these figures", "examined below")."""
RESEARCH_GENERAL = tuple(t for t in RESEARCH_REMARKS if t not in RESEARCH_EXHIBIT_BOUND)
"""The remarks that read as well in a paragraph of their own, far from any exhibit."""

RESEARCH_DISCUSSION = (
    "The records cover one organisation, which limits how far the results on {topic} generalise.",
    "Further work could link {topic} to outcomes over a longer period.",
    "Our evidence on {topic2} is indirect: drawn from the records rather than observed.",
    "The results bear on decisions about {topic} in the coming year.",
    "Our conclusions on {topic} assume that recording practice did not change during the period.",
    "A follow-up study will test whether the pattern persists after the changes to {topic2}.",
    "We recommend that {topic} be reported by {item_kind} as a matter of routine.",
    "The main uncertainty concerns {topic2}, for which the records are incomplete.",
    "The analysis is descriptive: it shows where the {item_kinds} differ on {topic}, not why.",
    "Interviews with the {dept} team would help to explain the differences we find.",
    "Our measure of {topic} is narrower than some used elsewhere, which may understate the differences.",
    "The findings on {topic} are consistent across the subgroups we examined.",
    "We see no evidence that the results on {topic} are driven by a single {item_kind}.",
    "A longer series on {topic} would allow a test for trend, which the present data do not support.",
    "Comparisons with other organisations would show whether the pattern in {topic} is general.",
    "The records do not allow us to separate {topic} from {topic2} completely.",
    "Practitioners may find the comparison of {topic} between {item_kinds} more useful than the totals.",
    "The definitions we use for {topic} could be adopted in routine reporting at little cost.",
    "We see the results as a baseline against which later changes to {topic} can be judged.",
    "Some {item_kinds} reported late on {topic}, which narrows the period we can compare.",
    "The study was not designed to evaluate any single initiative on {topic2}.",
    "A replication with next year's records would test how stable these findings on {topic} are.",
)
"""What a research report says of its study as a whole: limitations, implications, further work."""

RESEARCH_SECTIONS: dict[str, tuple[str, ...]] = {
    "Abstract": (
        "This report examines {topic} across {item_kinds}, using the {dept} team's records for the period to "
        "{month_year}.",
        "We find that the {item_kinds} differ widely on {topic}, and that most of the difference remains once we "
        "allow for {topic2}.",
        "Using the records of every {item_kind}, we show that most of the difference in {topic} lies in a few "
        "{item_kinds}.",
        "The results suggest that routine reporting of {topic} by {item_kind} would help the {dept} team to act "
        "earlier.",
        "We conclude that less of the variation is due to {topic2} than is often assumed.",
    ),
    "Results": (
        "The {item_kinds} differ markedly on {topic}; the tables below give the detail.",
        "Differences on {topic} are larger than those on {topic2}.",
        "Most of the variation in {topic} lies between {item_kinds} rather than over time.",
        "Allowing for {topic2} narrows the differences but does not remove them.",
        "We report the results {item_kind} by {item_kind}, with the largest differences first.",
    ),
    "Conclusion": (
        "We set out to learn how far the {item_kinds} differ on {topic}; they differ widely.",
        "Our main finding is that the differences on {topic} persist once we allow for {topic2}.",
        "The practical implication is that {topic} should be tracked by {item_kind}, not only in total.",
        "Further work should follow the {item_kinds} with the weakest results over a longer period.",
        "These conclusions rest on one organisation's records and should be tested elsewhere.",
    ),
}
"""What a research report's abstract, results and conclusion open with: what it finds and concludes."""

RESEARCH_LEAD_INS = ("In this sample, ", "On these records, ", "For the period covered, ", "Across the {item_kinds}, ")
RESEARCH_TAILS = (", on the records available", ", within the limits of these data", ", as in the earlier review",
                  ", as the {dept} team also found")
"""What a research report's remarks on its figures may open or end with (not its general discussion)."""
RESEARCH_SUBSECTION_OPENERS = (
    "This subsection turns to {subject}. We describe the records first and then the estimates.",
    "We next consider {subject}, using the same records and definitions as above.",
    "We examine {subject} here for its bearing on {topic2}.",
)


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
    return AUDITED_BLOCK in ctx.recipe.genre_blocks


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
    """The prose about a table or chart: a sentence that refers to it by number, what it shows (its
    highest and lowest values, its total, quoted from its cells), and what the organisation makes of it;
    ``n_sentences`` in all. Literal text: QA provenance stays with the exhibit's cells."""
    ref = exhibit_ref(block)
    if ref is None:
        return None
    no, what = ref
    if not re.search(r"[,:\d]| by | per | of ", what):  # a plain name ("action tracker") takes its article:
        what = f"the {what}"  # "Table 4 gives the action tracker"
    template = rng.choice(REFERENCE_SENTENCES)
    head = what.split(",")[0].split(" by ")[0]
    is_plural = head.endswith("s") and not head.endswith("ss") and not re.match(  # "share of reports" is one
        r"(the )?(share|number|total|average|rate|level|mix|split|value) of ", head)
    sentences = [template.format(Ref=no, ref=no, what=what, What=what[0].upper() + what[1:],
                                 verb="are" if is_plural else "is")]
    said = commentary(ctx, rng, block)
    if said is not None:
        sentences.append(said.spans[0].text)
    sentences += remarks(ctx, rng, max(0, n_sentences - len(sentences)))
    return TextBlock(id=ctx.book.block_id(), spans=[lit(" ".join(sentences))])


def reflection(ctx: DocContext, rng: Rng, n_sentences: int) -> TextBlock:
    """A paragraph of what the organisation makes of the exhibit it follows, or of the item in hand (minutes:
    their general discussion pool); no values: literal text."""
    return TextBlock(id=ctx.book.block_id(),
                     spans=[lit(" ".join(remarks(ctx, rng, n_sentences, register(ctx).reflections)))])


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
                t = rng.choice(pool)
            decorate = reg.decorate is None or t in reg.decorate
            text = _fill(t, ctx, rng, **(item or {}))
            if decorate and reg.lead_ins and not t.startswith("{") and rng.bernoulli(0.4) and not t.startswith("In ") \
                    and not (reg.one_item and k == 0 and attempt == 0):
                text = _fill(rng.choice(reg.lead_ins), ctx, rng) + text[0].lower() + text[1:]
            if decorate and reg.tails and ";" not in text and len(text) < 110 and rng.bernoulli(0.3):
                text = text[:-1] + _fill(rng.choice(reg.tails), ctx, rng) + "."
            if text not in printed:
                break
        printed.add(text)
        out.append(text)
    return out


def _fresh(ctx: DocContext, rng: Rng, pool: tuple[str, ...], n: int) -> list[str]:
    """``n`` templates of ``pool`` the document has not used yet (the pool starts over once all are used),
    so a sentence does not recur in one document while others are unused."""
    used: set[str] = ctx.remember(("used_templates", pool[0]), set)
    left = [t for t in pool if t not in used]
    if len(left) < n:
        used.clear()
        left = list(pool)
    picks = rng.sample(left, min(n, len(left)))
    used.update(picks)
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
            return None
        key = lambda c: c[1].value.absolute() if hasattr(c[1].value, "absolute") else c[1].value.value  # noqa: E731
        top, low = max(cells, key=key), min(cells, key=key)
        metric = _metric_of(top[1].label)
        text = _fill(rng.choice(register(ctx).table_comments), ctx, rng, top=top[0], low=low[0], top_text=with_unit(top[1]),
                     low_text=with_unit(low[1]), metric_lc=metric)
        last = block.rows[-1]
        if block.total_row and last[j].fact_ids:
            total = index[last[j].fact_ids[0]]  # a sum says "in total", an average row "on average"
            summed = last[0].text == "Total" or (total.derivation is not None and total.derivation.op == "sum")
            template = TOTAL_COMMENT if summed else MEAN_COMMENT
            if template is MEAN_COMMENT:  # "On average, average transit time ..." says it twice
                metric = metric.removeprefix("average ").removeprefix("mean ")
            text += " " + template.format(metric_lc=metric, total_text=with_unit(index[last[j].fact_ids[0]]),
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
        text = _fill(rng.choice(CHART_COMMENTS if over_time else CATEGORY_COMMENTS), ctx, rng, series=s.name,
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
    spans = [lit(f"Questions about {ctx.recipe.this_noun} should be addressed to "), fs(name),
             lit(f", {p.role}, on "), fs(phone), lit(" or by email to "), fs(email), lit(".")]
    if rng.bernoulli(0.5):
        spans.append(lit(f" Requests are normally answered within {rng.integers(2, 6)} working days."))
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
    return TextBlock(id=bid, spans=[
        lit(f"The review window for {topic} opens on "), fs(f1), lit(" and closes on "), fs(f2),
        lit(". Late submissions require written approval from "), fs(f3), lit(f" ({owner.role}).")])


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
    money = next((m for m in ctx.domain.metrics if m.kind == "money"), None)
    f_start = b.date(f"Start of the period covered by {ctx.recipe.this_noun}", start, attribute="period_start",
                     group=bid)
    f_end = b.date(f"End of the period covered by {ctx.recipe.this_noun}", end, attribute="period_end", group=bid)
    spans: list[Span] = [lit(f"{ctx.recipe.this_noun.capitalize()} (reference "), fs(ref), lit(", version "), fs(version),
                         lit(f") {'were' if ctx.recipe.plural_noun else 'was'} issued on "), fs(issued), lit(f" by {ctx.issuer.name} and {'cover' if ctx.recipe.plural_noun else 'covers'} the period "),
                         fs(f_start), lit(" to "), fs(f_end), lit(".")]
    if money is not None:
        envelope = ctx.remember("envelope", lambda: draw_value(rng, money, 0))
        val = b.money(f"Approved budget envelope stated in the {ctx.recipe.noun}", envelope,
                      decimals=0, attribute="budget_envelope", group=bid)
        spans += [lit(" The approved envelope for the activities described is "), fs(val), lit(".")]
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
    return TextBlock(id=bid, spans=[
        lit("Payment is due on "), fs(due), lit(", "), fs(days), lit(" days after the invoice date of "), fs(issued),
        lit(". Please quote reference "), fs(ref), lit(f" and remit to the account of {ctx.issuer.name}; queries from "
                                                     f"{cp.name} are handled by the accounts receivable team.")])


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
    title = rng.choice(("Agreed actions", "Next steps", "Actions arising"))
    repeat = ctx.number(f"list:{title}")
    if repeat > 1:  # titles stay unique in a document, so item labels (and list questions) name one list
        title = f"{title}, part {repeat}"
    for i, act in enumerate(acts):
        fa = b.text(f"Item {i + 1} of the list '{title}' on page {ctx.page}", act, attribute="action", group=bid)
        owner, due_d = action_owner_and_due(ctx, rng, act)
        fo = b.person(f"Owner of the action '{act}'", owner, attribute="owner", group=bid)
        due = b.date(f"Due date of the action '{act}'", due_d, attribute="due_date", group=bid)
        items.append([fs(fa), lit(" - owner: "), fs(fo), lit(", due "), fs(due)])
    return ListBlock(id=bid, ordered=rng.bernoulli(0.5), title=title, items=items)


def footnote(ctx: DocContext, rng: Rng, marker: str) -> FootnoteBlock:
    bid = ctx.book.block_id()
    b = ctx.book
    if ctx.fmt.currency == "USD" or rng.bernoulli(0.5):
        cut = ctx.remember("cutoff", lambda: ctx.day(-rng.integers(1, 20)))
        d = b.date("Cut-off date of the figures", cut, attribute="cutoff", group=bid)
        lead = "Figures reflect" if audited(ctx) else "Figures are unaudited and reflect"
        spans = [lit(f"{lead} transactions posted up to "), fs(d), lit(".")]
    else:
        rate = b.number(f"Exchange rate used ({ctx.fmt.currency} per USD)",
                        ctx.remember("fx", lambda: Decimal(str(round(rng.uniform(0.72, 0.98), 4)))), "", places=4,
                        attribute="fx_rate", group=bid, quantity="ratio")
        spans = [lit(f"Amounts in other currencies were translated at {ctx.fmt.currency} "), fs(rate),
                 lit(" per USD.")]
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
    return TextBlock(id=bid, spans=[
        lit(f"{ctx.recipe.this_noun.capitalize()} {'are' if ctx.recipe.plural_noun else 'is'} issued by {ctx.issuer.name} and "
            f"{'concern' if ctx.recipe.plural_noun else 'concerns'} its {cp.role} "), fs(name),
        lit(", whose registered address is "), fs(where), lit(".")])


APPENDIX_POINTERS = (
    "The detailed schedules behind the figures in {this_noun} are set out in Appendix {letter}.",
    "Supporting schedules, including the full register of postings for the period, are given in Appendix "
    "{letter}.",
    "Readers who need the underlying detail will find the full schedules in Appendix {letter}.",
)
APPENDIX_INTROS = (
    "This appendix sets out the schedules behind the figures discussed in the body of {this_noun}, as held "
    "by the {dept} team at {month_year}.",
    "The schedules in this appendix are extracted from the source systems maintained by the {dept} team. "
    "Each is followed by a short note of what it shows; the sections above discuss the figures.",
    "This appendix gives the detailed postings on which the sections above draw. Amounts are stated as "
    "recorded by the {dept} team.",
)


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


STANDING_TEXT: dict[str, tuple[str, ...]] = {
    "income_statement": (
        "The notes on the following pages form part of these financial statements.",
        "The financial statements were approved by the board of directors and signed on its behalf by the chair "
        "and the finance director.",
        "All amounts are stated in {currency}; comparative figures are those of the previous financial year.",
        "The statements are presented for the group; the parent company's own statements are filed separately.",
    ),
    "statement_notes": (
        "Basis of preparation. The financial statements have been prepared on the going concern basis and under "
        "the historical cost convention, except for financial instruments measured at fair value.",
        "Judgements and estimates. Preparing the financial statements requires judgements and estimates; those "
        "with the greatest effect concern revenue recognition and the recoverable amount of receivables.",
        "Events after the reporting period. No events have arisen since the year end that require adjustment to, "
        "or disclosure in, these financial statements.",
        "Related parties. Transactions with related parties were made on terms equivalent to those of an arm's "
        "length transaction.",
        "Going concern. The directors expect the group to have adequate resources to continue in operation for at "
        "least twelve months from the date these financial statements were approved.",
        "Financial risk management. The group's activities expose it to credit, liquidity and market risks; the "
        "board reviews and agrees the policies for managing each of them.",
        "Contingent liabilities. There were no contingent liabilities at the year end other than those arising in "
        "the ordinary course of business.",
    ),
    "auditor_opinion": (
        "This report is made solely to the members, as a body. Our audit work has been undertaken so that we "
        "might state to the members those matters we are required to state in an auditor's report.",
        "A further description of our responsibilities for the audit of the financial statements is available "
        "on the website of the audit regulator.",
    ),
}
"""The standing text of a section that speaks alone (the financial statements, their notes, the auditor's
report): what such pages carry besides their blocks, never a management comment."""


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


ONCE_A_DOCUMENT = frozenset({"contact", "reference", "terms"})
"""Paragraphs a document states once (who to ask, its own reference and period, its payment terms)."""


def text_element(ctx: DocContext, rng: Rng, marker: str, room: float = 560.0):
    """One QA-bearing text block that fits in ``room`` points (an action list gets as many items as fit)."""
    kinds = ["contact", "deadline", "reference", "actions", "footnote", "terms", "parties"]
    weights = [0.25, 0.2, 0.2, 0.2, 0.0 if ctx.recipe.genre_class == "transactional" else 0.15,  # a claim or an
               0.35 if ctx.recipe.slug in TERMS_RECIPES else 0.0, 0.12]  # invoice has no "figures are unaudited" note
    said: set[str] = ctx.remember("once_said", set)  # a document states its contact, reference and terms once
    unwritten = register(ctx).unwritten
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
