"""The issuer's registers, from which its assessments and minutes print their figures: the risk register (each
risk's reference, what it is, its owner and its scores), the control library and the tests of its controls, the
constitution of its committee and the votes at its meetings, the terms of its policies and the design of its
studies. Their data is ``catalogue/registers.yaml``; the figures are bookings of the issuer's world
(``DocContext.booked``, measures in ``catalogue/booked/``), so two documents of one issuer that print the same
risk, control test, resolution or policy term print the same value.

What identifies a thing here is the same in every document of the issuer: a risk's reference (R-07) and what it
is are drawn from the issuer's stream (``issuer_stream``), not the document's; a control's identifier (AC-02)
names one control of the issuer's library; a resolution is keyed by the committee's meeting (its date) and its
number. A draw reads nothing but its key's stream, the issuer's stream and other bookings (drawn the same way),
so which document asks first never changes a value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from functools import cache

from synthdocqa.ir.rng import Rng
from synthdocqa.ir.world import WorldQuery

from ... import catalogue
from ...domains import Domain
from ..book import DocContext
from ..calendar import period_months

Draw = Callable[[Rng], object]
Range = tuple[int, int]


# ---------------------------------------------------------------- data (catalogue/registers.yaml)

class RisksData(catalogue.Entry):
    size: int
    likelihood: tuple[int, ...]
    impact: tuple[int, ...]
    reduction: tuple[int, ...]


class Frequency(catalogue.Entry):
    per_year: Range
    sample: Range


class Control(catalogue.Entry):
    prefix: str
    text: str
    frequency: str


class ControlsData(catalogue.Entry):
    tolerable_rates: tuple[float, ...]
    exceptions: tuple[int, ...]
    untested: tuple[int, ...]
    frequencies: dict[str, Frequency]
    library: tuple[Control, ...]


class CommitteeData(catalogue.Entry):
    members: Range
    present_at_least: int
    majority_quorum: float
    apologies: Range
    carried: float
    amounts: dict[str, tuple[float, float]]


class PolicyData(catalogue.Entry):
    deadlines: dict[str, tuple[int, ...]]
    retention_years: tuple[int, ...]
    review_months: tuple[int, ...]
    approval_threshold: tuple[float, float]


class StudyData(catalogue.Entry):
    confidence: tuple[float, ...]
    population: Range
    sample_share: tuple[float, float]
    response_share: tuple[float, float]


class IncidentsData(catalogue.Entry):
    severity: tuple[int, ...]
    duration: Range
    restoration_target: dict[int, int]


class RegistersFile(catalogue.Entry):
    risks: RisksData
    controls: ControlsData
    committee: CommitteeData
    policy: PolicyData
    study: StudyData
    incidents: IncidentsData


@cache
def data() -> RegistersFile:
    """``catalogue/registers.yaml`` (once per process)."""
    return catalogue.load("registers.yaml", RegistersFile)


def issuer_stream(ctx: DocContext, *key: object) -> Rng:
    """The issuer's own stream for ``key`` (the same in every document of the issuer)."""
    assert ctx.world is not None
    return ctx.world.rng.fork("registers", *key)


def trade(ctx: DocContext) -> Domain:
    """The issuer's trade (what its registers speak of, whatever lens a document is built through)."""
    assert ctx.world is not None
    return ctx.world.trade


def year_of(ctx: DocContext) -> tuple[int, str]:
    """(first month, label) of the issuer's year a standing term is set for: the year of issue."""
    return ctx.year * 12, f"as set for {ctx.year}"


def standing(ctx: DocContext, slug: str, item: str, draw: Draw) -> tuple[Decimal, WorldQuery]:
    """A term set for the year (a committee's constitution, a policy's deadline): booked over the issuer's year
    of issue."""
    start, label = year_of(ctx)
    return ctx.booked(slug, item, start, 12, label, draw)


def log_share(rng: Rng, domain: Domain, lo: float, hi: float) -> Decimal:
    """An amount between ``lo`` and ``hi`` of the trade's largest money measure (log-uniform), to two significant
    figures (amounts people decide on)."""
    money = [m for m in domain.metrics if m.kind == "money" and m.quantity == "amount"]
    top = money[0].high if money else 2_000_000.0
    x = math.exp(rng.uniform(math.log(top * lo), math.log(top * hi)))
    step = 10 ** max(0, int(math.log10(max(x, 1.0))) - 1)
    return Decimal(max(1, int(round(x / step))) * step)


# ---------------------------------------------------------------- risk register

def risks(ctx: DocContext, fill: Callable[[str, Rng], str], templates: tuple[str, ...]) -> list[dict]:
    """The issuer's register: every reference (R-01 ..) with what the risk is (``fill`` of a template) and the
    index of its owner in the issuer's people, drawn from the issuer's stream."""
    def make() -> list[dict]:
        r = issuer_stream(ctx, "risks")
        texts: list[str] = []
        order = r.shuffled(templates)
        while len(texts) < data().risks.size:
            template = order[len(texts) % len(order)]
            for _ in range(8):
                text = fill(template, r)
                if text not in texts:
                    break
            texts.append(text)  # a repeat after eight tries stays: a register may hold two risks alike
        return [dict(id=f"R-{no:02d}", text=text, owner=r.integers(0, len(ctx.people)))
                for no, text in enumerate(texts, start=1)]
    return ctx.remember(("registers", "risks"), make)


def risk_scores(ctx: DocContext, rid: str) -> dict[str, tuple[Decimal, WorldQuery]]:
    """Risk ``rid``'s scores at the review of the last full year: likelihood before controls, impact and
    likelihood after controls (never above it)."""
    d = data().risks
    period = str(ctx.cal.fy)
    start, months = period_months(period)  # type: ignore[misc]
    assert ctx.world is not None
    world = ctx.world

    def before(r: Rng) -> int:
        return r.choice(d.likelihood)

    def after(r: Rng) -> int:
        return max(1, int(world.book("risk.likelihood_before", rid, start, months, before)) - r.choice(d.reduction))

    return {"likelihood": ctx.booked("risk.likelihood_before", rid, start, months, period, before),
            "impact": ctx.booked("risk.impact", rid, start, months, period, lambda r: r.choice(d.impact)),
            "residual_likelihood": ctx.booked("risk.likelihood_after", rid, start, months, period, after)}


# ---------------------------------------------------------------- control library and tests of controls

CONTROL_MEASURES = ("operated", "sample_drawn", "samples_tested", "exceptions")


def control_library(ctx: DocContext) -> list[dict]:
    """The issuer's controls: identifier (its prefix and a number rising through the library), what it does and
    how often it runs."""
    def make() -> list[dict]:
        r = issuer_stream(ctx, "controls")
        d = trade(ctx)
        numbers: dict[str, int] = {}
        out = []
        for c in data().controls.library:
            numbers[c.prefix] = numbers.get(c.prefix, 0) + r.integers(1, 4)
            text = c.text.format(topic=r.choice(d.topics), check=r.choice(d.checks), item_kind=d.item_kind,
                                 item=r.choice(d.items))
            out.append(dict(id=f"{c.prefix}-{numbers[c.prefix]:02d}", text=text, frequency=c.frequency))
        return out
    return ctx.remember(("registers", "controls"), make)


def _half_draws(ctx: DocContext, cid: str, frequency: str, start: int) -> dict[str, Draw]:
    """The draws of control ``cid``'s figures in the half year from month ``start``: each reads the others'
    bookings of the same half, so exceptions <= tested <= drawn <= operated whichever is asked first."""
    assert ctx.world is not None
    world, d = ctx.world, data().controls
    f = d.frequencies[frequency]
    year, half = divmod(start, 12)
    half //= 6

    def operated(r: Rng) -> int:
        if f.per_year[1] == 1:  # an annual control runs in one half of the year, the issuer's
            return int(issuer_stream(ctx, "annual run", cid, year).integers(0, 2) == half)
        return (r.integers(f.per_year[0], f.per_year[1] + 1) + half) // 2

    def drawn(r: Rng) -> int:
        ran = int(world.book("controls.operated", cid, start, 6, draws["operated"]))
        year_sample = issuer_stream(ctx, "sample", cid, year).integers(f.sample[0], f.sample[1] + 1)
        share = (year_sample + 1) // 2 if half == 0 else year_sample // 2  # the two halves take the year's sample
        return min(ran, max(share, 1)) if ran else 0

    def tested(r: Rng) -> int:
        n = int(world.book("controls.sample_drawn", cid, start, 6, draws["sample_drawn"]))
        return n - (r.choice(d.untested) if n >= 10 else 0)

    def exceptions(r: Rng) -> int:
        return min(int(world.book("controls.samples_tested", cid, start, 6, draws["samples_tested"])),
                   r.choice(d.exceptions))

    draws: dict[str, Draw] = {"operated": operated, "sample_drawn": drawn, "samples_tested": tested,
                              "exceptions": exceptions}
    return draws


def control_figures(ctx: DocContext, control: dict, period: str) -> dict[str, tuple[Decimal, WorldQuery]]:
    """Control ``control``'s times operated, sample drawn, samples tested and exceptions in ``period`` (a year or
    a half): booked by half year, a year's the sum of its halves."""
    start, months = period_months(period)  # type: ignore[misc]
    halves = [start] if months == 6 else [start, start + 6]
    out: dict[str, tuple[Decimal, WorldQuery]] = {}
    for measure in CONTROL_MEASURES:
        slug = f"controls.{measure}"
        got = [ctx.booked(slug, control["id"], h, 6, period if months == 6 else f"H{(h % 12) // 6 + 1} {h // 12}",
                          _half_draws(ctx, control["id"], control["frequency"], h)[measure]) for h in halves]
        if len(got) == 1:
            out[measure] = got[0]
        else:
            assert ctx.world is not None
            out[measure] = (sum((v for v, _ in got), Decimal(0)),
                            ctx.world.booked_query(slug, [control["id"]], start, months, period))
    return out


def tolerable_rate(ctx: DocContext, period: str) -> tuple[Decimal, WorldQuery]:
    """The audit policy's tolerable exception rate over ``period``: one rate for all the issuer's tests."""
    rates = data().controls.tolerable_rates
    return ctx.booked_in("controls.tolerable_rate", "tests of controls", period,
                         lambda _r: issuer_stream(ctx, "tolerable rate").choice(rates))


# ---------------------------------------------------------------- committee, meetings and resolutions

COMMITTEE = "the committee"
"""The committee whose meetings the issuer minutes (one per issuer: its minutes do not say which department's
committee they are in a way a builder can read)."""


def constitution(ctx: DocContext) -> tuple[tuple[Decimal, WorldQuery], tuple[Decimal, WorldQuery]]:
    """The committee's voting members and quorum (a majority, or a third and at least three)."""
    d = data().committee
    start, _ = year_of(ctx)
    assert ctx.world is not None
    world = ctx.world

    def members(r: Rng) -> int:
        return r.integers(d.members[0], d.members[1] + 1)

    def quorum(r: Rng) -> int:
        m = int(world.book("governance.voting_members", COMMITTEE, start, 12, members))
        return m // 2 + 1 if r.bernoulli(d.majority_quorum) else max(3, -(-m // 3))

    return (standing(ctx, "governance.voting_members", COMMITTEE, members),
            standing(ctx, "governance.quorum", COMMITTEE, quorum))


def meeting_key(date) -> tuple[str, int, str]:
    """(item, month, label) of the committee's meeting on ``date``."""
    return f"{COMMITTEE}, meeting of {date.isoformat()}", date.year * 12 + date.month - 1, f"meeting of {date}"


def members_present(ctx: DocContext, date, apologies: int) -> tuple[Decimal, WorldQuery]:
    """How many voting members attended the meeting of ``date``: at least the quorum, at most the members who
    sent no apologies (``apologies`` is the most any meeting has: the catalogue's)."""
    (members, _), (quorum, _) = constitution(ctx)
    item, month, label = meeting_key(date)
    top = int(members) - apologies
    low = min(max(int(quorum), data().committee.present_at_least), top)
    return ctx.booked("governance.members_present", item, month, 1, label, lambda r: r.integers(low, top + 1))


def resolution_number(date, i: int) -> str:
    """The number of the ``i``-th resolution of the meeting of ``date``: the committee numbers its resolutions
    through the year, at most four a meeting, one meeting a month."""
    return f"{date.year}/{(date.month - 1) * 4 + i + 1:02d}"


def votes(ctx: DocContext, date, i: int, present: int) -> dict[str, tuple[Decimal, WorldQuery]]:
    """For, against and abstentions on the ``i``-th resolution of the meeting of ``date`` (``present`` voting):
    they add up to the members present; the first (the minutes of the last meeting) is always carried, the others
    by a simple majority of the votes cast most of the time."""
    assert ctx.world is not None
    world, d = ctx.world, data().committee
    item, month, label = meeting_key(date)
    item = f"{item}, resolution {resolution_number(date, i)}"

    def abstain(r: Rng) -> int:
        return r.integers(0, 3) if present > 5 else r.integers(0, 2)

    def against(r: Rng) -> int:
        cast = present - int(world.book("governance.abstentions", item, month, 1, abstain))
        if i == 0 or r.bernoulli(d.carried):
            return r.integers(0, min(3, (cast - 1) // 2 + 1))
        return r.integers((cast + 1) // 2, cast + 1)

    def for_(r: Rng) -> int:
        return present - int(world.book("governance.abstentions", item, month, 1, abstain)) - \
            int(world.book("governance.votes_against", item, month, 1, against))

    return {"for": ctx.booked("governance.votes_for", item, month, 1, label, for_),
            "against": ctx.booked("governance.votes_against", item, month, 1, label, against),
            "abstain": ctx.booked("governance.abstentions", item, month, 1, label, abstain)}


def resolution_amount(ctx: DocContext, date, i: int, kind: str) -> tuple[Decimal, WorldQuery]:
    """The amount the ``i``-th resolution of the meeting of ``date`` states (a budget, a capital expenditure, a
    delegated limit, the cost of a review: ``kind``, the catalogue's range for it)."""
    item, month, label = meeting_key(date)
    lo, hi = data().committee.amounts[kind]
    return ctx.booked("governance.resolution_amount", f"{item}, resolution {resolution_number(date, i)} ({kind})",
                      month, 1, label, lambda r: log_share(r, trade(ctx), lo, hi))


# ---------------------------------------------------------------- policies

def policy_term(ctx: DocContext, topic: str, term: str) -> tuple[Decimal, WorldQuery]:
    """A term of the issuer's policy on ``topic`` set for the year: a deadline of its procedure (``term`` a key of
    the catalogue's deadlines), "retention", "review" (its review interval) or "threshold" (its approval
    threshold)."""
    d = data().policy
    item = f"policy on {topic}: {term}"
    if term == "retention":
        return standing(ctx, "governance.retention_period", item, lambda r: r.choice(d.retention_years))
    if term == "review":
        return standing(ctx, "governance.review_interval", item, lambda r: r.choice(d.review_months))
    if term == "threshold":
        return standing(ctx, "governance.approval_threshold", item,
                        lambda r: log_share(r, trade(ctx), *d.approval_threshold))
    return standing(ctx, "governance.deadline", item, lambda r: r.choice(d.deadlines[term]))


# ---------------------------------------------------------------- studies

def stratum(ctx: DocContext, study: str, name: str) -> dict[str, tuple[Decimal, WorldQuery]]:
    """The population of stratum ``name`` (the issuer's, in the year of the study), the sample the study
    ``study`` drew from it and the responses it received (responses <= sample <= population)."""
    assert ctx.world is not None
    world, d = ctx.world, data().study
    start, label = year_of(ctx)
    item = f"study {study}, {name}"

    def population(r: Rng) -> int:
        return r.integers(d.population[0], d.population[1] + 1)

    def sample(r: Rng) -> int:
        pop = int(world.book("studies.population", name, start, 12, population))
        return min(pop, max(40, int(pop * r.uniform(*d.sample_share))))

    def responses(r: Rng) -> int:
        return int(int(world.book("studies.sample_drawn", item, start, 12, sample)) * r.uniform(*d.response_share))

    return {"population": ctx.booked("studies.population", name, start, 12, label, population),
            "sample": ctx.booked("studies.sample_drawn", item, start, 12, label, sample),
            "responses": ctx.booked("studies.responses", item, start, 12, label, responses)}


def study_design(ctx: DocContext, study: str, responses: int, margin: Callable[[Decimal], Decimal]
                 ) -> tuple[tuple[Decimal, WorldQuery], tuple[Decimal, WorldQuery]]:
    """The confidence level of study ``study``'s estimates and the margin of error it gives (``margin`` of the
    confidence over the study's ``responses``). The margin is booked under the responses it follows from: two
    documents of one issuer that share a reference (issued the same day) are not one study's two margins."""
    start, label = year_of(ctx)
    item = f"study {study}"
    confidence = ctx.booked("studies.confidence_level", item, start, 12, label,
                            lambda r: r.choice(data().study.confidence))
    moe = ctx.booked("studies.margin_of_error", f"{item}, {responses} responses", start, 12, label,
                     lambda _r: margin(confidence[0]))
    return confidence, moe


# ---------------------------------------------------------------- incidents

def restoration_target(ctx: DocContext, level: int) -> tuple[Decimal, WorldQuery]:
    """The SLA's minutes to restore service in an incident of severity ``level``, for the year."""
    return standing(ctx, "incidents.restoration_target", f"severity {level}",
                    lambda _r: data().incidents.restoration_target[level])


def incident(ctx: DocContext, ref: str, day) -> dict[str, tuple[Decimal, WorldQuery]]:
    """Incident ``ref`` (on ``day``): its severity level and duration in minutes."""
    d = data().incidents
    month = day.year * 12 + day.month - 1
    return {"level": ctx.booked("incidents.severity", ref, month, 1, f"incident {ref}", lambda r: r.choice(d.severity)),
            "duration": ctx.booked("incidents.duration", ref, month, 1, f"incident {ref}",
                                   lambda r: r.integers(d.duration[0], d.duration[1] + 1))}


def incident_impact(ctx: DocContext, ref: str, day, scale: float) -> dict[str, tuple[Decimal, WorldQuery] | None]:
    """Incident ``ref``'s customers affected, transactions failed and costs (lost revenue, ``scale`` the trade's
    smallest money measure; service credits where it breached the SLA, else None; recovery and overtime), each
    drawn from its severity and duration."""
    assert ctx.world is not None
    world = ctx.world
    month, label = day.year * 12 + day.month - 1, f"incident {ref}"
    got = incident(ctx, ref, day)
    level, duration = int(got["level"][0]), int(got["duration"][0])

    def tens(x: float) -> int:
        return max(10, int(round(x / 10)) * 10)

    def customers(r: Rng) -> int:
        return int(r.integers(40, 400) * (5 - level) * (1 + duration // 120))

    def lost(r: Rng) -> int:
        return tens(scale * r.uniform(0.01, 0.08) * (5 - level))

    out: dict[str, tuple[Decimal, WorldQuery] | None] = {
        "customers": ctx.booked("incidents.customers_affected", ref, month, 1, label, customers),
        "failed": ctx.booked("incidents.transactions_failed", ref, month, 1, label, lambda r: int(
            int(world.book("incidents.customers_affected", ref, month, 1, customers)) * r.uniform(1.3, 4.5))),
        "lost": ctx.booked("incidents.lost_revenue", ref, month, 1, label, lost),
        "credits": None,
        "recovery": ctx.booked("incidents.recovery_costs", ref, month, 1, label,
                               lambda r: tens(r.uniform(1500, 12000) * (1 + duration / 240)))}
    if duration > int(restoration_target(ctx, level)[0]):
        out["credits"] = ctx.booked("incidents.service_credits", ref, month, 1, label, lambda r: tens(
            float(world.book("incidents.lost_revenue", ref, month, 1, lost)) * r.uniform(0.1, 0.4)))
    return out


__all__ = ["COMMITTEE", "constitution", "control_figures", "control_library", "data", "incident", "incident_impact", "issuer_stream",
           "members_present", "policy_term", "resolution_amount", "resolution_number", "restoration_target", "risk_scores", "risks",
           "stratum", "study_design", "tolerable_rate", "votes"]
