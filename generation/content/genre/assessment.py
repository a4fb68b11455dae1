"""Genre blocks of assessments and their reports: a risk register and its heat map, an inspection's details,
checklist and findings, a compliance report's control tests and attestation, an incident's summary, timeline,
impact and root cause, a research report's study design and references, and the sign-off of an assessment.

Blocks of one document that describe the same thing share it through ``DocContext.remember``: the heat map
counts the register's risks (``("risk", "register")``), the findings of an inspection are its failed checks
(``("inspection", "checklist")``), a compliance report's findings are its controls with exceptions
(``("compliance", "controls")``), and an incident's summary, timeline, impact and root cause tell one
incident (``("incident", "times")``). Whichever of them is built first draws the shared data; the others
read it, so the order of the sections never changes what is printed. Where a block counts facts another
block printed (the heat map's cells over the register's ratings) it states ``count`` derivations over
them when those facts are in the document, and plain counts otherwise.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import ROUND_HALF_EVEN, Decimal

from synthdocqa.ir.blocks import (
    Block,
    FigureBlock,
    FormBlock,
    FormField,
    ListBlock,
    Series,
    Span,
    TableBlock,
    TextBlock,
)
from synthdocqa.ir.facts import Derivation, Entity, Fact
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.world import WorldQuery

from ...domains import Domain
from ..book import DocContext, fs, lit
from ..calendar import period_end, period_months
from ..names import person_name
from ..wording import lower_common, plural
from . import Builder, registers

TENTH = Decimal("0.1")


# ---------------------------------------------------------------- shared helpers

def _claim(ctx: DocContext, options: list[str]) -> str:
    """The first of ``options`` no caption or title of the document says yet (claimed), else the first
    one with the document's month (then a running letter) added."""
    for text in options:
        if ctx.caption_free(text):
            return ctx.claim_caption(text)
    base = f"{options[0]}, {ctx.anchor:%B %Y}"
    text, k = base, 0
    while not ctx.caption_free(text):
        k += 1
        text = f"{base} ({chr(ord('a') + (k - 1) % 26)}{'' if k <= 26 else k})"
    return ctx.claim_caption(text)


def _table_caption(ctx: DocContext, options: list[str]) -> str:
    """``Table N. <caption>``: report genres number their exhibits."""
    return f"Table {ctx.number('table')}. {_claim(ctx, options)}"


def _band_query(ctx: DocContext, rows_data: list, band: str, n: int):
    """The number of the issuer's risks ``rows_data`` (by id) whose scores fall in ``band``, as its world holds
    it (the count follows from the risks' booked scores; booked under the risks it counts)."""
    ids = ",".join(sorted(r["id"] for r in rows_data))
    got, query = registers.standing(ctx, "risk.in_band", f"{ids}: {band}", lambda r: n)
    assert got == n
    return query


def _count_fact(ctx: DocContext, label: str, operands: list[Fact], unit: str, bid: str, attribute: str) -> Fact:
    """A count of ``operands`` (a ``count`` derivation over them, over none for a count of nothing)."""
    der = Derivation(op="count", operands=[f.id for f in operands])  # none: a count of nothing
    return ctx.book.number(label, Decimal(len(operands)), unit, quantity="count", derivation=der, group=bid,
                           attribute=attribute)


def _sum_fact(ctx: DocContext, label: str, parts: list[Fact], unit: str, bid: str, attribute: str,
              quantity: str = "count") -> Fact:
    total = sum((p.value.value for p in parts), Decimal(0))
    return ctx.book.number(label, total, unit, quantity=quantity, group=bid, attribute=attribute,
                           derivation=Derivation(op="sum", operands=[p.id for p in parts]))


def _counted(f: Fact, one: str, many: str) -> list[Span]:
    """``3 findings`` / ``1 finding``: the count's span and its noun in agreement."""
    return [fs(f), lit(f" {one if f.value.value == 1 else many}")]


def _share(part: int, total: int) -> Decimal:
    return (Decimal(part) / Decimal(total) * 100).quantize(TENTH, rounding=ROUND_HALF_EVEN)


def _alive(ctx: DocContext, refs: dict) -> bool:
    """Whether remembered ``{key: (fact id, label)}`` still name facts of the document (a block built and
    rolled back leaves ids that later facts may reuse)."""
    return bool(refs) and all(ctx.book.by_id.get(fid) is not None and ctx.book.by_id[fid].label == label
                              for fid, label in refs.values())


def _others(people: list[Entity], *taken: Entity) -> list[Entity]:
    ids = {e.id for e in taken}
    return [p for p in people if p.id not in ids] or list(people)


def _first_lower(text: str) -> str:
    """An imperative or a heading-cased phrase inside a sentence: only its first letter lowered (names inside
    it keep their case)."""
    first = text.split(" ")[0]
    if first.isupper() and len(first) > 1:
        return text
    return text[:1].lower() + text[1:]


# ---------------------------------------------------------------- risk register and heat map

RISK_TEMPLATES = (
    "Loss of a key supplier for {item}",
    "Failure of controls over {topic}",
    "Adverse movement in {topic} affecting {item}",
    "Failure to {action}",
    "Regulatory breach relating to {topic}",
    "Key person dependency in the {dept} team",
    "Cyber attack disrupting the systems that support {topic}",
    "Data quality errors in {topic} reporting",
    "Insufficient capacity at {item}",
    "Fraud or misstatement in {topic}",
    "Business interruption at {item}",
    "Contractual dispute with {counterparty}",
    "Staff shortages in {dept}",
    "Health and safety incident at {item}",
    "Delay in {topic} improvements planned for {item}",
)
IMPACT_NAMES = ("Insignificant", "Minor", "Moderate", "Major", "Severe")
LIKELIHOOD_NAMES = ("Rare", "Unlikely", "Possible", "Likely", "Almost certain")
BANDS = (("High", 15, 25), ("Medium", 8, 14), ("Low", 1, 7))


def band_of(rating: int) -> str:
    return next(name for name, lo, hi in BANDS if lo <= rating <= hi)


def _fill_risk(template: str, ctx: DocContext, rng: Rng) -> str:
    d = registers.trade(ctx)
    return template.format(item=rng.choice(d.items), topic=rng.choice(d.topics),
                           action=_first_lower(rng.choice(d.actions)), dept=rng.choice(d.departments),
                           counterparty=ctx.counterparty(rng).name)


def risk_rows(ctx: DocContext, rng: Rng) -> list[dict]:
    """The document's risks (chosen once): some of the issuer's register (``registers.risks``: the reference,
    what the risk is and its owner are the issuer's), with their scores at the last full year's review (the
    world's bookings: likelihood, impact and the likelihood after controls, which controls reduce; the impact
    stays)."""
    def make() -> list[dict]:
        r = rng.fork("risk_register")
        register = registers.risks(ctx, lambda t, rr: _fill_risk(t, ctx, rr), RISK_TEMPLATES)
        chosen = sorted(r.sample(range(len(register)), r.integers(5, 11)))
        rows = []
        for k in chosen:
            risk = register[k]
            scores = registers.risk_scores(ctx, risk["id"])
            rows.append(dict(id=risk["id"], text=risk["text"], owner=ctx.people[risk["owner"]],
                             queries={key: q for key, (_, q) in scores.items()},
                             **{key: int(v) for key, (v, _) in scores.items()}))
        return rows
    return ctx.remember(("risk", "register"), make)


def build_risk_register(ctx: DocContext, rng: Rng) -> list[Block]:
    """The register: each risk's owner, likelihood and impact (1-5), its inherent rating (likelihood x impact)
    and its residual rating after controls (residual likelihood x impact)."""
    rows_data = risk_rows(ctx, rng)
    bid = ctx.book.block_id()
    book = ctx.book
    caption = _table_caption(ctx, ["Risk register", f"Risk register at {ctx.fmt.date(ctx.anchor)}",
                                   "Register of principal risks"])
    rows: list[list[Span]] = []
    refs: dict[str, tuple[str, str]] = {}
    residual_refs: dict[str, tuple[str, str]] = {}
    for r in rows_data:
        rid = r["id"]
        f_id = book.ident(f"Register number of the risk '{r['text']}'", rid, scheme="risk_id", group=bid,
                          attribute="risk_id")
        f_text = book.text(f"Description of risk {rid}", r["text"], group=bid, attribute="risk")
        f_owner = book.person(f"Owner of risk {rid}", r["owner"], group=bid, attribute="risk_owner")
        q = r["queries"]
        f_l = book.number(f"Likelihood score of risk {rid} before controls", Decimal(r["likelihood"]), "",
                          quantity="index", group=bid, attribute="likelihood", query=q["likelihood"])
        f_i = book.number(f"Impact score of risk {rid}", Decimal(r["impact"]), "", quantity="index", group=bid,
                          attribute="impact", query=q["impact"])
        f_inh = book.number(f"Inherent rating of risk {rid}", Decimal(r["likelihood"] * r["impact"]), "",
                            quantity="index", group=bid, attribute="inherent_rating",
                            derivation=Derivation(op="product", operands=[f_l.id, f_i.id]))
        f_rl = book.number(f"Likelihood score of risk {rid} after controls", Decimal(r["residual_likelihood"]), "",
                           quantity="index", group=bid, attribute="residual_likelihood",
                           query=q["residual_likelihood"])
        f_res = book.number(f"Residual rating of risk {rid}", Decimal(r["residual_likelihood"] * r["impact"]), "",
                            quantity="index", group=bid, attribute="residual_rating",
                            derivation=Derivation(op="product", operands=[f_rl.id, f_i.id]))
        refs[rid] = (f_inh.id, f_inh.label)
        residual_refs[rid] = (f_res.id, f_res.label)
        rows.append([fs(f_id), fs(f_text), fs(f_owner), fs(f_l), fs(f_i), fs(f_inh), fs(f_rl), fs(f_res)])
    ctx.memo[("risk", "register_facts")] = (refs, residual_refs)
    table = TableBlock(id=bid, caption=caption,
                       columns=["Risk ID", "Risk", "Owner", "Likelihood", "Impact", "Inherent rating",
                                "Residual likelihood", "Residual rating"],
                       rows=rows, numeric_columns=[3, 4, 5, 6, 7])
    key = TextBlock(id=ctx.book.block_id(), spans=[lit(
        "Likelihood and impact are scored from 1 to 5; a rating is likelihood x impact (High 15-25, Medium 8-14, "
        "Low 1-7). Residual ratings reflect the likelihood after existing controls.")])
    return [table, key]


def _register_facts(ctx: DocContext) -> tuple[dict, dict] | None:
    """The register's (inherent, residual) rating facts by risk id, when the register is in the document."""
    got = ctx.memo.get(("risk", "register_facts"))
    if got is None or not (_alive(ctx, got[0]) and _alive(ctx, got[1])):
        return None
    return got


def build_heat_map(ctx: DocContext, rng: Rng) -> list[Block]:
    """The register's risks by likelihood and impact before controls (a 5 x 5 grid of counts, with the count
    in each rating band before and after controls), or a bar chart of the risks by rating band before and after
    controls; counts over the register's rating facts where the register is printed."""
    rows_data = risk_rows(ctx, rng)
    facts = _register_facts(ctx)
    by_id = ctx.book.by_id

    def ratings(kind: int, ids: list[str]) -> list[Fact]:
        return [by_id[facts[kind][i][0]] for i in ids] if facts else []

    book = ctx.book
    if "bar" in ctx.recipe.charts and rng.bernoulli(0.3):
        bid = book.block_id()
        series = []
        for kind, (name, key) in enumerate((("Before controls", "likelihood"), ("After controls",
                                                                                 "residual_likelihood"))):
            pts, nums = [], []
            for band, lo, hi in BANDS:
                ids = [r["id"] for r in rows_data if lo <= r[key] * r["impact"] <= hi]
                when = "before" if kind == 0 else "after"
                label = f"Number of risks rated {band.lower()} ({lo}-{hi}) {when} controls"
                if facts:
                    f = _count_fact(ctx, label, ratings(kind, ids), "risks", bid, f"risks_{band.lower()}")
                else:
                    f = book.number(label, Decimal(len(ids)), "risks", quantity="count", group=bid,
                                    attribute=f"risks_{band.lower()}",
                                    query=_band_query(ctx, rows_data, f"{band} {when} controls", len(ids)))
                pts.append(fs(f))
                nums.append(float(f.value.value))
            series.append(Series(name=name, points=pts, values=nums))
        no = ctx.number("figure")
        title = _claim(ctx, ["Risks by rating band", "Risks by rating band before and after controls"])
        chart = FigureBlock(id=bid, chart="bar", title=f"Figure {no}. {title}",
                            categories=[f"{b} ({lo}-{hi})" for b, lo, hi in BANDS], series=series, unit_label="risks")
        tid = book.block_id()
        total = _sum_fact(ctx, "Number of risks assessed", [by_id[p.fact_ids[0]] for p in series[0].points],
                          "risks", tid, "risks_assessed")
        note = TextBlock(id=tid, spans=[lit("The chart counts "), *_counted(total, "risk", "risks"),
                                        lit(" by rating band (likelihood x impact, each scored 1-5).")])
        return [chart, note]
    bid = book.block_id()
    caption = _table_caption(ctx, ["Heat map of inherent risk ratings", "Risk heat map before controls"])
    rows: list[list[Span]] = []
    cells: dict[tuple[int, int], Fact] = {}
    for like in range(5, 0, -1):
        row = [lit(f"{like} {LIKELIHOOD_NAMES[like - 1]}")]
        for impact in range(1, 6):
            ids = [r["id"] for r in rows_data if r["likelihood"] == like and r["impact"] == impact]
            if not ids:
                row.append(lit("-"))
                continue
            label = f"Number of risks with likelihood {like} and impact {impact} before controls"
            if facts:
                f = _count_fact(ctx, label, ratings(0, ids), "risks", bid, "risks_in_cell")
            else:
                f = book.number(label, Decimal(len(ids)), "risks", quantity="count", group=bid,
                                attribute="risks_in_cell")
            cells[(like, impact)] = f
            row.append(fs(f))
        rows.append(row)
    table = TableBlock(id=bid, caption=caption,
                       columns=["Likelihood / Impact", *(f"{i} {IMPACT_NAMES[i - 1]}" for i in range(1, 6))],
                       rows=rows, numeric_columns=[1, 2, 3, 4, 5])
    tid = book.block_id()
    spans: list[Span] = [lit("Before controls: ")]
    bands_before = []
    for k, (band, lo, hi) in enumerate(BANDS):
        parts = [f for (like, impact), f in sorted(cells.items()) if lo <= like * impact <= hi]
        label = f"Number of risks rated {band.lower()} ({lo}-{hi}) before controls"
        f = _sum_fact(ctx, label, parts, "risks", tid, f"risks_{band.lower()}") if parts else \
            _count_fact(ctx, label, [], "risks", tid, f"risks_{band.lower()}")
        bands_before.append(f)
        spans += [fs(f), lit(f" {band.lower()} ({lo}-{hi}){', ' if k == 0 else ' and ' if k == 1 else ''}")]
    total = _sum_fact(ctx, "Number of risks assessed", bands_before, "risks", tid, "risks_assessed")
    spans += [lit(", "), *_counted(total, "risk", "risks"), lit(" in all. After controls: ")]
    for k, (band, lo, hi) in enumerate(BANDS):
        ids = [r["id"] for r in rows_data if lo <= r["residual_likelihood"] * r["impact"] <= hi]
        label = f"Number of risks rated {band.lower()} ({lo}-{hi}) after controls"
        if facts:
            f = _count_fact(ctx, label, ratings(1, ids), "risks", tid, f"residual_risks_{band.lower()}")
        else:
            f = book.number(label, Decimal(len(ids)), "risks", quantity="count", group=tid,
                            attribute=f"residual_risks_{band.lower()}",
                            query=_band_query(ctx, rows_data, f"{band} after controls", len(ids)))
        spans += [fs(f), lit(f" {band.lower()}{', ' if k == 0 else ' and ' if k == 1 else '.'}")]
    return [table, TextBlock(id=tid, spans=spans)]


# ---------------------------------------------------------------- sign-off and attestation

def _inspection_date(ctx: DocContext, rng: Rng) -> dt.date:
    return ctx.remember(("inspection", "date"), lambda: ctx.day(-rng.fork("inspection_date").integers(2, 15)))


def _inspector(ctx: DocContext, rng: Rng) -> Entity:
    return ctx.remember(("inspection", "inspector"), lambda: ctx.person(rng.fork("inspector")))


def build_sign_off(ctx: DocContext, rng: Rng) -> list[Block]:
    """Who prepared and who approved the assessment, their positions and dates (approved on or after
    prepared, both on or before the issue date), and the signature lines."""
    noun = ctx.recipe.noun
    inspection = ctx.recipe.slug == "inspection_report"
    if inspection:  # the inspector writes the report after the visit
        preparer = _inspector(ctx, rng)
        start = _inspection_date(ctx, rng)
        prepared = start + dt.timedelta(days=rng.integers(0, (ctx.anchor - start).days + 1))
    else:
        preparer = ctx.person(rng)
        prepared = ctx.day(-rng.integers(2, 21))
    approver = rng.choice(_others(ctx.people, preparer))
    approved = prepared + dt.timedelta(days=rng.integers(0, (ctx.anchor - prepared).days + 1))
    title = _claim(ctx, ["Sign-off", f"Sign-off of the {noun}", "Review and sign-off"])
    bid = ctx.book.block_id()
    b = ctx.book
    f_p = b.person(f"Person who prepared the {noun}", preparer, group=bid, attribute="prepared_by")
    f_pr = b.text(f"Position of {preparer.name}", preparer.role, subject=preparer.id, group=bid, attribute="position")
    f_pd = b.date(f"Date the {noun} was prepared", prepared, group=bid, attribute="prepared_date")
    f_a = b.person(f"Person who approved the {noun}", approver, group=bid, attribute="approved_by")
    f_ar = b.text(f"Position of {approver.name}", approver.role, subject=approver.id, group=bid, attribute="position")
    f_ad = b.date(f"Date the {noun} was approved", approved, group=bid, attribute="approved_date")
    fields = [FormField(label="Prepared by", value=fs(f_p), field_type="person"),
              FormField(label="Preparer's position", value=fs(f_pr)),
              FormField(label="Date prepared", value=fs(f_pd), field_type="date"),
              FormField(label="Approved by", value=fs(f_a), field_type="person"),
              FormField(label="Approver's position", value=fs(f_ar)),
              FormField(label="Date approved", value=fs(f_ad), field_type="date")]
    return [FormBlock(id=bid, title=title, fields=fields, signature_lines=["Prepared by", "Approved by"])]


ATTESTER_WORDS = ("Compliance", "Chief", "Head", "Director", "Officer")


def attestation_period(ctx: DocContext, rng: Rng) -> tuple[str, dt.date, dt.date]:
    """The period the compliance report covers (the last full year, or the last half): label, start, end."""
    def make():
        period = str(ctx.cal.fy) if rng.fork("attestation_period").bernoulli(0.7) else ctx.cal.half()
        start, _ = period_months(period)  # type: ignore[misc]
        return period, dt.date(start // 12, start % 12 + 1, 1), period_end(period)
    return ctx.remember(("compliance", "period"), make)


def build_attestation(ctx: DocContext, rng: Rng) -> list[Block]:
    """The officer's statement over the period covered (organisation, start and end dates) and the form
    with the attesting officer, title, date and place, signed."""
    period, start, end = attestation_period(ctx, rng)
    d = ctx.domain
    t1, t2 = rng.sample(d.topics, 2)
    b = ctx.book
    tid = b.block_id()
    f_org = b.org("Organisation covered by the compliance attestation", ctx.issuer, group=tid, attribute="organisation")
    f_s = b.date(f"Start of the period covered by the compliance attestation ({period})", start, group=tid,
                 attribute="period_start", period=period)
    f_e = b.date(f"End of the period covered by the compliance attestation ({period})", end, group=tid,
                 attribute="period_end", period=period)
    text = TextBlock(id=tid, spans=[
        lit("I attest that, to the best of my knowledge and belief, "), fs(f_org),
        lit(f" maintained controls over {t1} and {t2} that were designed and operated effectively for the period "),
        fs(f_s), lit(" to "), fs(f_e),
        lit(f", except for the findings reported in {ctx.recipe.this_noun}, and that the information in it is "
            "complete and accurate in all material respects.")])
    pool = [p for p in ctx.people if any(w in p.role for w in ATTESTER_WORDS)] or list(ctx.people)
    officer = rng.choice(pool)
    signed = max(end + dt.timedelta(days=1), ctx.day(-rng.integers(0, 15)))  # signed as the report is issued
    title = _claim(ctx, ["Attestation", "Attestation by the responsible officer", "Compliance attestation"])
    fid = b.block_id()
    f_o = b.person("Officer giving the compliance attestation", officer, group=fid, attribute="attesting_officer")
    f_t = b.text(f"Position of {officer.name}", officer.role, subject=officer.id, group=fid, attribute="position")
    f_d = b.date("Date of the compliance attestation", signed, group=fid, attribute="attestation_date")
    f_pl = b.text("Place where the compliance attestation was signed", ctx.issuer.attributes.get("city", "Head office"),
                  group=fid, attribute="place")
    form = FormBlock(id=fid, title=title, fields=[
        FormField(label="Attesting officer", value=fs(f_o), field_type="person"),
        FormField(label="Title", value=fs(f_t)),
        FormField(label="Date", value=fs(f_d), field_type="date"),
        FormField(label="Place", value=fs(f_pl))], signature_lines=["Signature"])
    return [text, form]


# ---------------------------------------------------------------- incidents

SEVERITY_NAMES = {1: "Critical", 2: "High", 3: "Medium", 4: "Low"}
TIMELINE_FIRST = ("Monitoring alert: error rate on {item} above threshold",
                  "Service desk receives first user reports of failures on {item}",
                  "Automated health check for {item} fails")
TIMELINE_MIDDLE = ("Incident logged and triaged by the service desk",
                   "Severity {sev} declared; incident manager assigned",
                   "Bridge call opened with the {dept} on-call team",
                   "Impact confirmed for {item} users",
                   "First customer update published on the status page",
                   "Recent change identified as the likely cause",
                   "Decision taken to roll back the change",
                   "Rollback started",
                   "Workaround applied; service partly restored",
                   "Error rates back within normal limits",
                   "Final customer update published")
TIMELINE_LAST = ("Service restored and incident resolved", "Service confirmed stable; incident resolved")


def incident(ctx: DocContext, rng: Rng) -> dict:
    """The document's incident (drawn once): severity, detection and resolution (same day, so the timeline's
    HH:MM times ascend), the service affected, the people and the timeline's entries."""
    def make() -> dict:
        r = rng.fork("incident")
        r.choice((1, 2, 2, 3, 3, 4))  # was the level: the world's (``registers.incident``), after the day
        scheme = r.choice(("P", "Sev"))
        r.integers(35, 12 * 60 + 1)  # was the duration
        day = ctx.day(-r.integers(3, 30))
        booked = registers.incident(ctx, ctx.doc_reference(), day)
        level, duration = int(booked["level"][0]), int(booked["duration"][0])
        sev = f"P{level}" if scheme == "P" else f"Sev {level}"
        start = r.integers(0, 24 * 60 - duration)
        detected = dt.datetime.combine(day, dt.time(0)) + dt.timedelta(minutes=start)
        resolved = detected + dt.timedelta(minutes=duration)
        n = r.integers(6, 11)
        middle_idx = sorted(r.sample(range(len(TIMELINE_MIDDLE)), n - 2))
        offsets = sorted(r.sample(range(1, duration), n - 2))
        item = r.choice(ctx.domain.items)
        dept = r.choice(ctx.domain.departments)
        reporter, manager = r.sample(ctx.people, 2)
        fill = dict(item=item, dept=dept, sev=sev)
        events = [r.choice(TIMELINE_FIRST).format(**fill)]
        events += [TIMELINE_MIDDLE[i].format(**fill) for i in middle_idx]
        events.append(r.choice(TIMELINE_LAST))
        times = [detected, *(detected + dt.timedelta(minutes=o) for o in offsets), resolved]
        return dict(level=level, severity=f"{sev} - {SEVERITY_NAMES[level]}", sev=sev, duration=duration, day=day,
                    duration_query=booked["duration"][1],
                    detected=detected, resolved=resolved, item=item, dept=dept, reporter=reporter, manager=manager,
                    events=events, times=times, middle=middle_idx)
    return ctx.remember(("incident", "times"), make)


def _when(ctx: DocContext, t: dt.datetime) -> str:
    return f"{ctx.fmt.date(t.date())} {t:%H:%M}"


def _tie_duration(ctx: DocContext, f: Fact) -> Fact:
    """The incident's duration is printed by the summary and the impact: the second quotes the first."""
    key = ("incident", "duration_fact")
    got = ctx.memo.get(key)
    if got is not None and _alive(ctx, {"d": got}) and got[0] != f.id:
        return ctx.book.tie(f.id, got[0])
    ctx.memo[key] = (f.id, f.label)
    return f


def build_incident_summary(ctx: DocContext, rng: Rng) -> list[Block]:
    """Reference, service affected, severity, detected and resolved (date and time), duration in minutes
    (the difference of the two times), reporter, incident manager and status."""
    inc = incident(ctx, rng)
    ref = ctx.doc_reference()
    title = _claim(ctx, ["Incident summary", f"Incident summary {ref}"])
    b = ctx.book
    bid = b.block_id()
    fields = [
        FormField(label="Incident reference", value=fs(b.ident("Reference of the incident", ref, scheme="reference",
                                                               group=bid, attribute="incident_reference")),
                  field_type="identifier"),
        FormField(label=f"{ctx.domain.item_kind.capitalize()} affected",
                  value=fs(b.text(f"{ctx.domain.item_kind.capitalize()} affected by incident {ref}", inc["item"],
                                  group=bid, attribute="affected"))),
        FormField(label="Severity", value=fs(b.text(f"Severity of incident {ref}", inc["severity"], group=bid,
                                                    attribute="severity"))),
        FormField(label="Detected", value=fs(b.text(f"Date and time incident {ref} was detected",
                                                    _when(ctx, inc["detected"]), group=bid, attribute="detected"))),
        FormField(label="Resolved", value=fs(b.text(f"Date and time incident {ref} was resolved",
                                                    _when(ctx, inc["resolved"]), group=bid, attribute="resolved"))),
    ]
    dur = b.number(f"Duration of incident {ref} in minutes", Decimal(inc["duration"]), "minutes",
                   quantity="duration", group=bid, attribute="duration_minutes", query=inc["duration_query"])
    dur = _tie_duration(ctx, dur)
    fields.append(FormField(label="Duration (minutes)", value=fs(dur), field_type="number"))
    fields.append(FormField(label="Reported by", value=fs(b.person(f"Person who reported incident {ref}",
                                                                   inc["reporter"], group=bid,
                                                                   attribute="reported_by")), field_type="person"))
    fields.append(FormField(label="Incident manager", value=fs(b.person(f"Incident manager of incident {ref}",
                                                                        inc["manager"], group=bid,
                                                                        attribute="incident_manager")),
                            field_type="person"))
    status = rng.choice(("Closed", "Resolved - post-incident review pending"))
    fields.append(FormField(label="Status", value=fs(b.text(f"Status of incident {ref}", status, group=bid,
                                                            attribute="incident_status"))))
    return [FormBlock(id=bid, title=title, fields=fields)]


def build_incident_timeline(ctx: DocContext, rng: Rng) -> list[Block]:
    """Time (HH:MM, ascending, from detection to resolution), event and who acted (a person or a team)."""
    inc = incident(ctx, rng)
    ref = ctx.doc_reference()
    b = ctx.book
    bid = b.block_id()
    day = ctx.fmt.date(inc["detected"].date())
    caption = _table_caption(ctx, [f"Timeline of events on {day}", f"Incident timeline, {day}",
                                   f"Timeline of incident {ref}"])
    rows: list[list[Span]] = []
    n = len(inc["events"])
    for k, (t, event) in enumerate(zip(inc["times"], inc["events"], strict=True)):
        hhmm = f"{t:%H:%M}"
        f_t = b.text(f"Time of '{event}' (incident {ref})", hhmm, group=bid, attribute="event_time")
        f_e = b.text(f"Event at {hhmm} in incident {ref}", event, group=bid, attribute="event")
        who_label = f"Person or team responsible for '{event}' (incident {ref})"
        if k == 0:
            f_w = b.text(who_label, "Monitoring" if event.startswith(("Monitoring", "Automated")) else "Service Desk",
                         group=bid, attribute="actor")
        elif "incident manager" in event or k == n - 1:
            f_w = b.person(who_label, inc["manager"], group=bid, attribute="actor")
        elif "customer update" in event:
            f_w = b.text(who_label, "Communications team", group=bid, attribute="actor")
        elif "triaged" in event:
            f_w = b.text(who_label, "Service Desk", group=bid, attribute="actor")
        elif rng.bernoulli(0.45):
            f_w = b.person(who_label, rng.choice(_others(ctx.people, inc["manager"])), group=bid, attribute="actor")
        else:
            f_w = b.text(who_label, f"{inc['dept']} on-call team", group=bid, attribute="actor")
        rows.append([fs(f_t), fs(f_e), fs(f_w)])
    return [TableBlock(id=bid, caption=caption, columns=["Time", "Event", "By"], rows=rows)]


def _money_scale(domain: Domain) -> Decimal:
    money = [m for m in domain.metrics if m.kind == "money"]
    return Decimal(str(min(m.low for m in money))) if money else Decimal(100000)


def build_incident_impact(ctx: DocContext, rng: Rng) -> list[Block]:
    """Customers affected, failed transactions, minutes unavailable (the incident's duration), the SLA's
    restoration target and whether it was breached, whether a regulator must be notified, and the estimated
    cost by component with its total."""
    inc = incident(ctx, rng)
    ref = ctx.doc_reference()
    level, duration = inc["level"], inc["duration"]
    impact = registers.incident_impact(ctx, ref, inc["day"], float(_money_scale(registers.trade(ctx))))
    (customers, q_customers), (failed, q_failed) = impact["customers"], impact["failed"]  # type: ignore[misc]
    target, q_target = registers.restoration_target(ctx, level)
    breached = duration > target
    notify = level <= 2 and customers >= 1000
    b = ctx.book
    bid = b.block_id()
    caption = _table_caption(ctx, [f"Impact of incident {ref}", "Impact assessment", "Business impact"])
    f_c = b.number(f"Customers or users affected by incident {ref}", customers, "customers", quantity="count",
                   group=bid, attribute="customers_affected", query=q_customers)
    f_f = b.number(f"Transactions failed during incident {ref}", failed, "transactions", quantity="count",
                   group=bid, attribute="transactions_failed", query=q_failed)
    f_u = b.number(f"Minutes of service unavailability in incident {ref}", Decimal(duration), "minutes",
                   quantity="duration", group=bid, attribute="unavailable_minutes", query=inc["duration_query"])
    f_u = _tie_duration(ctx, f_u)
    f_t = b.number(f"Restoration target for a {inc['sev']} incident under the SLA, in minutes", target,
                   "minutes", quantity="duration", group=bid, attribute="restoration_target", query=q_target)
    f_b = b.boolean(f"Whether incident {ref} breached the SLA", breached, "Yes" if breached else "No", group=bid,
                    attribute="sla_breached")
    f_n = b.boolean(f"Whether incident {ref} must be notified to the regulator", notify, "Yes" if notify else "No",
                    group=bid, attribute="regulatory_notification")
    rows = [[lit("Customers or users affected"), fs(f_c)], [lit("Transactions failed"), fs(f_f)],
            [lit("Service unavailable (minutes)"), fs(f_u)], [lit("SLA restoration target (minutes)"), fs(f_t)],
            [lit("SLA breached"), fs(f_b)], [lit("Regulatory notification required"), fs(f_n)]]
    costs = []
    for name, cost in (("Lost revenue (estimate)", impact["lost"]), ("Service credits payable", impact["credits"]),
                       ("Recovery and overtime costs", impact["recovery"])):
        if cost is None:
            continue
        f = b.money(f"{name.split(' (')[0]} from incident {ref}", cost[0], group=bid, attribute="incident_cost",
                    query=cost[1])
        costs.append(f)
        rows.append([lit(name), fs(f)])
    total = sum((c.value.amount for c in costs), Decimal(0))
    f_tot = b.money(f"Total estimated cost of incident {ref}", total, group=bid, attribute="incident_cost_total",
                    derivation=Derivation(op="sum", operands=[c.id for c in costs]))
    rows.append([lit("Total estimated cost"), fs(f_tot)])
    return [TableBlock(id=bid, caption=caption, columns=["Impact", "Assessment"], rows=rows, numeric_columns=[1])]


ROOT_CAUSES = ("a configuration error in the load balancer serving {item}",
               "an expired TLS certificate on the {item} integration gateway",
               "a database index dropped during a schema migration for {item}",
               "exhaustion of the connection pool on the {item} application servers",
               "a faulty firmware update on the storage array supporting {item}",
               "an incorrect firewall rule applied to the {item} network segment",
               "a scheduling job for {item} that was disabled during maintenance and not re-enabled")
CONTRIBUTING = ("The change was approved without a tested rollback plan.",
                "Alert thresholds for {item} were set above the level at which users were affected.",
                "Peer review of the change did not include the {dept} team.",
                "Out-of-hours on-call cover was a single engineer.",
                "Monitoring did not cover the dependency that failed.",
                "The change was scheduled outside the agreed maintenance window.")


def build_root_cause(ctx: DocContext, rng: Rng) -> list[Block]:
    """The root cause (the failed component, the change that introduced it, its date and approver) and the
    contributing factors (one of them dated: the last review of the runbook)."""
    inc = incident(ctx, rng)
    b = ctx.book
    ref = ctx.doc_reference()
    change_day = inc["detected"].date() - dt.timedelta(days=rng.integers(0, 7))
    change_ref = f"CHG-{change_day.year}-{rng.integers(100, 10000):04d}"
    cause = rng.choice(ROOT_CAUSES).format(item=inc["item"])
    approver = rng.choice(_others(ctx.people, inc["manager"]))
    tid = b.block_id()
    f_cause = b.text(f"Root cause of incident {ref}", cause, group=tid, attribute="root_cause")
    f_chg = b.ident(f"Change that introduced the root cause of incident {ref}", change_ref, scheme="change",
                    group=tid, attribute="change_reference")
    f_day = b.date(f"Date change {change_ref} was implemented", change_day, group=tid, attribute="change_date")
    f_app = b.person(f"Approver of change {change_ref}", approver, group=tid, attribute="change_approver")
    text = TextBlock(id=tid, spans=[lit("The root cause was "), fs(f_cause), lit(", introduced by change "), fs(f_chg),
                                    lit(", implemented on "), fs(f_day), lit(" and approved by "), fs(f_app),
                                    lit(".")])
    lid = b.block_id()
    review = change_day - dt.timedelta(days=rng.integers(120, 700))
    topic = rng.choice(ctx.domain.topics)
    f_rev = b.date(f"Date the runbook for {inc['item']} was last reviewed before incident {ref}", review, group=lid,
                   attribute="runbook_review")
    items = [[lit(t.format(item=inc["item"], dept=inc["dept"]))] for t in rng.sample(CONTRIBUTING, rng.integers(2, 4))]
    items.insert(rng.integers(0, len(items) + 1),
                 [lit(f"The runbook for {inc['item']} had last been reviewed on "), fs(f_rev),
                  lit(f" and did not cover {topic}.")])
    return [text, ListBlock(id=lid, title="Contributing factors", items=items)]


# ---------------------------------------------------------------- inspections

INSPECTION_CHECKS = ("Fire exits clear and signed", "Fire extinguishers in date", "First aid kit stocked",
                     "Emergency lighting tested", "Walkways clear and marked", "Electrical panels closed and accessible",
                     "Safety data sheets available", "Training records up to date", "Waste segregated and labelled",
                     "Safety signage legible", "Actions from the previous inspection closed",
                     "Fire alarm test recorded this week", "Evacuation plan displayed", "Hazardous substances stored securely")
SITE_CHECKS = ("PPE worn in designated areas", "Spill kit available", "Machine guards in place",
               "Lifting equipment certified", "Permit-to-work records complete", "Ladders inspected and tagged",
               "Eyewash station checked")
INDUSTRIAL = ("manufactur", "oil", "energy", "mining", "construction", "renewable", "water", "shipping", "automotive",
              "aviation", "agri", "food", "supply", "warehous", "environment", "facilities", "pharma", "quality",
              "research", "transit", "municipal")
"""Domains whose sites have plant and machinery (their inspections also check guards, lifting gear, PPE)."""
PASS_COMMENTS = ("Verified on site", "Records seen", "Checked with the supervisor", "Sampled three entries")
FAIL_COMMENTS = ("not in place at the time of the visit", "evidence could not be produced",
                 "partly complete; two records missing", "out of date", "damaged and not reported",
                 "obstructed by stored materials")
NA_COMMENTS = ("Not applicable at this site", "Equipment not in use", "Area closed for refurbishment")
INSPECTION_TYPES = (("Routine", 150, 365), ("Follow-up", 30, 90), ("Statutory", 330, 400))
CONDITIONS = ("Dry, overcast", "Clear and dry", "Light rain; outdoor areas wet", "Normal operating conditions",
              "Site in full production", "Reduced operations; night shift not running")


def build_inspection_details(ctx: DocContext, rng: Rng) -> list[Block]:
    """Site and its address, inspection date, inspector, inspection type, conditions, previous inspection
    (earlier), next inspection due (after the issue date) and the inspection's reference number."""
    when = _inspection_date(ctx, rng)
    inspector = _inspector(ctx, rng)
    kind, lo, hi = rng.choice(INSPECTION_TYPES)
    previous = when - dt.timedelta(days=rng.integers(lo, hi + 1))
    interval = {"Routine": 182, "Follow-up": 90, "Statutory": 365}[kind]
    following = when + dt.timedelta(days=interval)
    title = _claim(ctx, ["Inspection details", f"Inspection details, {ctx.issuer.name}"])
    b = ctx.book
    bid = b.block_id()
    f_site = b.org("Organisation whose site was inspected", ctx.issuer, group=bid, attribute="site")
    f_addr = b.text(f"Address of the site of {ctx.issuer.name} inspected", ctx.issuer.attributes["full"],
                    subject=ctx.issuer.id, group=bid, attribute="site_address")
    f_d = b.date("Date of the inspection", when, group=bid, attribute="inspection_date")
    f_i = b.person("Inspector who carried out the inspection", inspector, group=bid, attribute="inspector")
    f_k = b.text("Type of the inspection", kind, group=bid, attribute="inspection_type")
    f_c = b.text("Conditions during the inspection", rng.choice(CONDITIONS), group=bid, attribute="conditions")
    f_p = b.date("Date of the previous inspection", previous, group=bid, attribute="previous_inspection")
    f_n = b.date("Due date of the next inspection", following, group=bid, attribute="next_inspection")
    f_r = b.ident("Reference number of the inspection", ctx.serial("INS"), scheme="inspection", group=bid,
                  attribute="inspection_reference")
    fields = [FormField(label="Site", value=fs(f_site)), FormField(label="Address", value=fs(f_addr)),
              FormField(label="Inspection date", value=fs(f_d), field_type="date"),
              FormField(label="Inspector", value=fs(f_i), field_type="person"),
              FormField(label="Inspection type", value=fs(f_k)), FormField(label="Conditions", value=fs(f_c)),
              FormField(label="Previous inspection", value=fs(f_p), field_type="date"),
              FormField(label="Next inspection due", value=fs(f_n), field_type="date"),
              FormField(label="Reference no.", value=fs(f_r), field_type="identifier")]
    return [FormBlock(id=bid, title=title, fields=fields)]


def checklist_rows(ctx: DocContext, rng: Rng) -> list[dict]:
    """The inspection's checks (drawn once): check, result (Pass / Fail / N/A) and comment; 1-4 fail."""
    def make() -> list[dict]:
        r = rng.fork("checklist")
        n = r.integers(8, 15)
        own = r.sample(ctx.domain.checks, min(len(ctx.domain.checks), r.integers(2, 5)))
        pool = INSPECTION_CHECKS + (SITE_CHECKS if any(k in ctx.domain.slug for k in INDUSTRIAL) else ())
        checks = own + r.sample(pool, n - len(own))
        n_fail = r.integers(1, 5)
        n_na = r.integers(0, 3)
        marks = ["Fail"] * n_fail + ["N/A"] * n_na
        marks += ["Pass"] * (n - len(marks))
        rows = []
        for check, result in zip(checks, r.shuffled(marks), strict=True):
            if result == "Fail":
                comment = r.choice(FAIL_COMMENTS).capitalize()
            elif result == "N/A":
                comment = r.choice(NA_COMMENTS)
            else:
                comment = r.choice(PASS_COMMENTS) if r.bernoulli(0.5) else ""
            rows.append(dict(check=check, result=result, comment=comment))
        return rows
    return ctx.remember(("inspection", "checklist"), make)


def failed_checks(ctx: DocContext, rng: Rng) -> list[dict]:
    """The checks that failed (the inspection's findings)."""
    return ctx.remember(("inspection", "failed"),
                        lambda: [row for row in checklist_rows(ctx, rng) if row["result"] == "Fail"])


def build_inspection_checklist(ctx: DocContext, rng: Rng) -> list[Block]:
    """Item no., check, result and comment for each check, then the counts of each result and their total."""
    rows_data = checklist_rows(ctx, rng)
    failed_checks(ctx, rng)
    b = ctx.book
    bid = b.block_id()
    caption = _table_caption(ctx, ["Inspection checklist results", "Checklist results", "Results of the checks"])
    rows: list[list[Span]] = []
    by_result: dict[str, list[Fact]] = {"Pass": [], "Fail": [], "N/A": []}
    for k, row in enumerate(rows_data, start=1):
        f_r = b.text(f"Result of the inspection check '{row['check']}'", row["result"], group=bid,
                     attribute="check_result")
        by_result[row["result"]].append(f_r)
        comment = lit("")
        if row["comment"]:
            comment = fs(b.text(f"Inspector's comment on the check '{row['check']}'", row["comment"], group=bid,
                                attribute="check_comment"))
        rows.append([lit(str(k)), lit(row["check"]), fs(f_r), comment])
    table = TableBlock(id=bid, caption=caption, columns=["Item no.", "Check", "Result", "Comment"], rows=rows)
    tid = b.block_id()
    counts = [_count_fact(ctx, f"Number of inspection checks {word}", by_result[res], "checks", tid, attr)
              for res, word, attr in (("Pass", "passed", "checks_passed"), ("Fail", "failed", "checks_failed"),
                                      ("N/A", "not applicable", "checks_not_applicable"))]
    total = _sum_fact(ctx, "Number of inspection checks made", counts, "checks", tid, "checks_total")
    summary = TextBlock(id=tid, spans=[lit("Summary: "), fs(counts[0]), lit(" passed, "), fs(counts[1]),
                                       lit(" failed and "), fs(counts[2]), lit(" not applicable, of "),
                                       *_counted(total, "check", "checks"), lit(".")])
    return [table, summary]


# ---------------------------------------------------------------- compliance control tests

def control_rows(ctx: DocContext, rng: Rng) -> list[dict]:
    """The controls tested (chosen once): some of the issuer's library (``registers.control_library``) that
    operated in the period covered, each with its figures there (the world's bookings: times operated, sample
    drawn, samples tested, exceptions, with their queries), exception rate and result (Ineffective above the
    issuer's tolerable exception rate)."""
    def make() -> list[dict]:
        r = rng.fork("controls")
        period = attestation_period(ctx, rng)[0]
        tolerable = tolerable_rate(ctx, rng)[0]
        library = registers.control_library(ctx)
        picks = sorted(r.sample(range(len(library)), r.integers(5, 10)))
        rows = []
        for k in picks:
            c = library[k]
            figures = registers.control_figures(ctx, c, period)
            tested, exceptions = int(figures["samples_tested"][0]), int(figures["exceptions"][0])
            if not tested:  # did not run in the period (an annual control in the other half)
                continue
            rate = _share(exceptions, tested)
            rows.append(dict(id=c["id"], text=c["text"], frequency=c["frequency"], figures=figures, samples=tested,
                             exceptions=exceptions, rate=rate,
                             result="Effective" if rate <= tolerable else "Ineffective"))
        return rows
    return ctx.remember(("compliance", "controls"), make)


def tolerable_rate(ctx: DocContext, rng: Rng) -> tuple[Decimal, WorldQuery]:
    """The issuer's tolerable exception rate over the period covered (its audit policy)."""
    return registers.tolerable_rate(ctx, attestation_period(ctx, rng)[0])


TEST_METHODS = ("Inspection of evidence", "Re-performance", "Inquiry and observation", "Inspection and re-performance")


def build_test_scope(ctx: DocContext, rng: Rng) -> list[Block]:
    """The scope of the testing: each control tested (the same controls as the results, ``control_rows``) with
    its owner, how often it runs, how it was tested, how many times it ran in the period and the sample taken
    (the sample the results report); then how many controls are in scope."""
    rows_data = control_rows(ctx, rng)
    period = attestation_period(ctx, rng)[0]
    b = ctx.book
    bid = b.block_id()
    caption = _table_caption(ctx, [f"Controls in scope and testing approach, {period}", f"Scope of testing, {period}"])
    r = rng.fork("scope")
    rows: list[list[Span]] = []
    drawn: list[Fact] = []
    for row in rows_data:
        cid, figures = row["id"], row["figures"]
        f_o = b.text(f"Owner of control {cid}", r.choice(ctx.domain.departments), group=bid,
                     attribute="control_owner")
        f_f = b.text(f"Frequency of control {cid}", row["frequency"], group=bid, attribute="control_frequency")
        f_m = b.text(f"Test method for control {cid}", r.choice(TEST_METHODS), group=bid, attribute="test_method")
        (ran, q_ran), (n_drawn, q_drawn) = figures["operated"], figures["sample_drawn"]
        f_p = b.number(f"Times control {cid} operated in {period}", ran, "occurrences", quantity="count", group=bid,
                       attribute="control_population", period=period, query=q_ran)
        f_s = b.number(f"Sample drawn for control {cid} in {period}", n_drawn, "samples", quantity="count",
                       group=bid, attribute="sample_drawn", period=period, query=q_drawn)
        drawn.append(f_s)
        rows.append([lit(cid), fs(f_o), fs(f_f), fs(f_m), fs(f_p), fs(f_s)])
    table = TableBlock(id=bid, caption=caption,
                       columns=["Control ID", "Owner", "Frequency", "Test method", "Population", "Sample"],
                       rows=rows, numeric_columns=[4, 5])
    tid = b.block_id()
    f_n = _count_fact(ctx, f"Number of controls in scope of the testing for {period}", drawn, "controls", tid,
                      "controls_in_scope")
    ref = caption.split(". ")[0]
    note = TextBlock(id=tid, spans=[
        lit(f"{ref} lists the "), *_counted(f_n, "control", "controls"),
        lit(f" in the scope of {ctx.recipe.this_noun}, as they operated in {period}. Each was tested on a sample "
            "drawn at random from the times it operated, the sample growing with how often the control runs; the "
            "results follow in the next section.")])
    return [table, note]


def build_control_tests(ctx: DocContext, rng: Rng) -> list[Block]:
    """Control ID, control, samples tested, exceptions, exception rate (share of the samples) and result, with
    the totals of samples and exceptions; then the tolerable rate, the overall rate and the controls rated
    effective."""
    rows_data = control_rows(ctx, rng)
    period = attestation_period(ctx, rng)[0]
    b = ctx.book
    bid = b.block_id()
    caption = _table_caption(ctx, [f"Results of control testing, {period}", f"Controls tested in {period}"])
    rows: list[list[Span]] = []
    samples, exceptions, results, ids = [], [], [], []
    for row in rows_data:
        cid = row["id"]
        f_id = b.ident(f"Identifier of the control '{row['text']}'", cid, scheme="control", group=bid,
                       attribute="control_id")
        f_c = b.text(f"Description of control {cid}", row["text"], group=bid, attribute="control")
        f_s = b.number(f"Samples tested for control {cid} in {period}", Decimal(row["samples"]), "samples",
                       quantity="count", group=bid, attribute="samples_tested", period=period,
                       query=row["figures"]["samples_tested"][1])
        f_e = b.number(f"Exceptions found in testing control {cid} in {period}", Decimal(row["exceptions"]),
                       "exceptions", quantity="count", group=bid, attribute="control_exceptions", period=period,
                       query=row["figures"]["exceptions"][1])
        f_r = b.percent(f"Exception rate of control {cid} in {period}", row["rate"], group=bid,
                        attribute="exception_rate", period=period,
                        derivation=Derivation(op="share", operands=[f_e.id, f_s.id]))
        f_res = b.text(f"Test result of control {cid} in {period}", row["result"], group=bid, attribute="test_result")
        samples.append(f_s)
        exceptions.append(f_e)
        results.append(f_res)
        ids.append(f_id)
        rows.append([fs(f_id), fs(f_c), fs(f_s), fs(f_e), fs(f_r), fs(f_res)])
    t_s = _sum_fact(ctx, f"Total samples tested across the controls in {period}", samples, "samples", bid,
                    "samples_tested_total")
    t_e = _sum_fact(ctx, f"Total exceptions found across the controls in {period}", exceptions, "exceptions", bid,
                    "control_exceptions_total")
    rows.append([lit("Total"), lit(""), fs(t_s), fs(t_e), lit(""), lit("")])
    table = TableBlock(id=bid, caption=caption,
                       columns=["Control ID", "Control", "Samples tested", "Exceptions", "Exception rate", "Result"],
                       rows=rows, total_row=True, numeric_columns=[2, 3, 4])
    tid = b.block_id()
    tolerable, q_tol = tolerable_rate(ctx, rng)
    f_tol = b.percent(f"Tolerable exception rate for the control tests in {period}", tolerable, group=tid,
                      attribute="tolerable_rate", period=period, query=q_tol)
    f_all = b.percent(f"Overall exception rate of the controls tested in {period}",
                      _share(int(t_e.value.value), int(t_s.value.value)), group=tid, attribute="overall_exception_rate",
                      period=period, derivation=Derivation(op="share", operands=[t_e.id, t_s.id]))
    effective = [f for f in results if f.value.value == "Effective"]
    f_eff = _count_fact(ctx, f"Number of controls rated effective in {period}", effective, "controls", tid,
                        "controls_effective")
    f_n = _count_fact(ctx, f"Number of controls tested in {period}", ids, "controls", tid, "controls_tested")
    note = TextBlock(id=tid, spans=[
        lit("A control is rated Ineffective when its exception rate exceeds the tolerable rate of "), fs(f_tol),
        lit(". Exceptions made up "), fs(f_all), lit(" of all samples tested; "), fs(f_eff), lit(" of "),
        *_counted(f_n, "control", "controls"), lit(" were rated Effective.")])
    return [table, note]


# ---------------------------------------------------------------- findings

SEVERITIES = ("Critical", "Major", "Minor", "Observation")
DUE_DAYS = {"Critical": (7, 15), "Major": (21, 46), "Minor": (45, 91), "Observation": (60, 121)}
INSPECTION_ACTIONS = ("Rectify and confirm with photographic evidence", "Replace or repair and record in the log",
                      "Brief the shift teams and record attendance", "Update the local procedure and re-inspect",
                      "Assign an owner and add to the weekly site check")
CONTROL_ACTIONS = ("Remediate the exceptions and re-test the control", "Redesign the control and document it",
                   "Retrain the control operators and re-test", "Add a monthly management review of the control")
OBSERVATIONS = ("Documentation of {topic} procedures could be clearer",
                "Evidence of {topic} reviews is held in several places",
                "Ownership of {topic} controls is not recorded in the control library",
                "Training records for {topic} are kept manually")


def finding_rows(ctx: DocContext, rng: Rng) -> list[dict]:
    """The findings (drawn once): an inspection's failed checks; a compliance report's controls with
    exceptions and an observation or two; otherwise observations on the domain's topics."""
    def make() -> list[dict]:
        r = rng.fork("findings")
        out = []
        if ctx.recipe.slug == "inspection_report":
            for row in failed_checks(ctx, rng):
                out.append(dict(text=f"{row['check']}: {_first_lower(row['comment'])}",
                                severity=r.choice(("Critical", "Major", "Major", "Minor", "Minor")),
                                action=r.choice(INSPECTION_ACTIONS)))
        else:
            if ctx.recipe.slug == "compliance_report":
                for row in control_rows(ctx, rng):
                    if row["exceptions"] == 0:
                        continue
                    if row["result"] == "Effective":
                        sev = "Minor"
                    else:  # well above the tolerable rate: critical now and then
                        sev = r.choice(("Critical", "Major")) if row["rate"] >= 2 * tolerable_rate(ctx, rng)[0] else "Major"
                    verb = "did not operate effectively" if row["result"] == "Ineffective" else \
                        "operated with exceptions"
                    out.append(dict(text=f"Control {row['id']} ({_first_lower(row['text'])}) {verb}", severity=sev,
                                    action=r.choice(CONTROL_ACTIONS)))
            topics = r.sample(ctx.domain.topics, min(len(ctx.domain.topics), r.integers(1, 3) + max(0, 2 - len(out))))
            for topic, template in zip(topics, r.sample(OBSERVATIONS, len(topics)), strict=False):
                out.append(dict(text=template.format(topic=topic), severity="Observation",
                                action=f"Consolidate the {topic} documentation and confirm owners"))
        for row in out:
            lo, hi = DUE_DAYS[row["severity"]]
            row["due"] = ctx.day(r.integers(lo, hi))
            row["owner"] = ctx.person(r)
        out.sort(key=lambda row: SEVERITIES.index(row["severity"]))
        return out[:12]
    return ctx.remember(("findings", "rows"), make)


def build_findings_by_severity(ctx: DocContext, rng: Rng) -> list[Block]:
    """Finding no., finding, severity, action required, due date (sooner for higher severity) and owner,
    then the number of findings of each severity and their total."""
    rows_data = finding_rows(ctx, rng)
    b = ctx.book
    noun = ctx.recipe.noun
    bid = b.block_id()
    caption = _table_caption(ctx, ["Findings by severity", "Findings and required actions", "Summary of findings"])
    rows: list[list[Span]] = []
    by_sev: dict[str, list[Fact]] = {s: [] for s in SEVERITIES}
    for k, row in enumerate(rows_data, start=1):
        no = f"F-{k:02d}"
        f_no = b.ident(f"Number of the finding '{row['text']}'", no, scheme="finding", group=bid, attribute="finding_no")
        f_t = b.text(f"Finding {no} of the {noun}", row["text"], group=bid, attribute="finding")
        f_s = b.text(f"Severity of finding {no}", row["severity"], group=bid, attribute="severity")
        f_a = b.text(f"Action required for finding {no}", row["action"], group=bid, attribute="action_required")
        f_d = b.date(f"Due date of the action for finding {no}", row["due"], group=bid, attribute="finding_due")
        f_o = b.person(f"Owner of finding {no}", row["owner"], group=bid, attribute="finding_owner")
        by_sev[row["severity"]].append(f_s)
        rows.append([fs(f_no), fs(f_t), fs(f_s), fs(f_a), fs(f_d), fs(f_o)])
    table = TableBlock(id=bid, caption=caption,
                       columns=["Finding no.", "Finding", "Severity", "Action required", "Due date", "Owner"],
                       rows=rows)
    tid = b.block_id()
    counts = [_count_fact(ctx, f"Number of {sev.lower()} findings of the {noun}", by_sev[sev], "findings", tid,
                          f"findings_{sev.lower()}") for sev in SEVERITIES]
    total = _sum_fact(ctx, f"Number of findings of the {noun}", counts, "findings", tid, "findings_total")
    spans: list[Span] = [lit("By severity: ")]
    for k, (sev, f) in enumerate(zip(SEVERITIES, counts, strict=True)):
        word = sev.lower() if sev != "Observation" else ("observation" if f.value.value == 1 else "observations")
        spans += [fs(f), lit(f" {word}{', ' if k < 2 else ' and ' if k == 2 else ''}")]
    spans += [lit("; "), *_counted(total, "finding", "findings"), lit(" in total.")]
    return [table, TextBlock(id=tid, spans=spans)]


# ---------------------------------------------------------------- research: study design and references

SUBJECTS = (("health", "patients"), ("clinical", "patients"), ("pharma", "patients"), ("education", "students"),
            ("retail", "customers"), ("ecommerce", "customers"), ("hospitality", "guests"),
            ("customer_service", "customers"), ("telecom", "customers"), ("banking", "customers"),
            ("insurance", "policyholders"), ("human_resources", "employees"), ("payroll", "employees"),
            ("procurement", "suppliers"), ("supply_chain", "suppliers"), ("public", "residents"),
            ("municipal", "residents"), ("transit", "passengers"), ("nonprofit", "beneficiaries"),
            ("aviation", "passengers"), ("marketing", "consumers"), ("media", "readers"))
METHODS = ("Stratified random sample; online questionnaire", "Stratified random sample; telephone interviews",
           "Stratified sample with proportional allocation; web survey")
ANALYSES = ("Weighted logistic regression", "Panel regression with fixed effects", "Difference-in-differences",
            "Weighted descriptive statistics and chi-square tests", "Multilevel regression by stratum")
Z_OF = {Decimal("90.0"): 1.645, Decimal("95.0"): 1.96, Decimal("99.0"): 2.576}


def survey_subjects(domain: Domain) -> str:
    return next((who for key, who in SUBJECTS if key in domain.slug), "firms")


def margin_of_error(confidence: Decimal, n: int) -> Decimal:
    """The margin of error (percent, worst case p = 0.5) of a sample of ``n`` at ``confidence``."""
    return Decimal(str(Z_OF[confidence] * math.sqrt(0.25 / n) * 100)).quantize(TENTH, rounding=ROUND_HALF_EVEN)


def build_study_design(ctx: DocContext, rng: Rng) -> list[Block]:
    """The sample by stratum (population, sample drawn, responses, response rate = responses / sample) with
    totals, and the design: method, analysis, data collection start and end, confidence level, margin of
    error and the overall response rate."""
    d = ctx.domain
    who = survey_subjects(d)
    strata = rng.sample(d.items, min(len(d.items), rng.integers(3, 6)))
    b = ctx.book
    bid = b.block_id()
    kind = d.item_kind.capitalize()
    caption = _table_caption(ctx, [f"Sample and response by {d.item_kind}", "Sample and method",
                                   f"Survey sample by {d.item_kind}"])
    rows: list[list[Span]] = []
    pops, samples, responses = [], [], []
    study = ctx.doc_reference()
    for s in strata:
        figures = registers.stratum(ctx, study, s)
        (pop, q_pop), (drawn, q_drawn), (got, q_got) = (figures[k] for k in ("population", "sample", "responses"))
        f_p = b.number(f"Population of {who} in {s} in the study", pop, who, quantity="count", group=bid,
                       attribute="stratum_population", query=q_pop)
        f_s = b.number(f"{who.capitalize()} sampled in {s} in the study", drawn, who, quantity="count",
                       group=bid, attribute="stratum_sample", query=q_drawn)
        f_r = b.number(f"Responses received from {s} in the study", got, "responses", quantity="count",
                       group=bid, attribute="stratum_responses", query=q_got)
        f_rate = b.percent(f"Response rate in {s} in the study", _share(int(got), int(drawn)), group=bid,
                           attribute="stratum_response_rate",
                           derivation=Derivation(op="share", operands=[f_r.id, f_s.id]))
        pops.append(f_p)
        samples.append(f_s)
        responses.append(f_r)
        rows.append([lit(s), fs(f_p), fs(f_s), fs(f_r), fs(f_rate)])
    t_p = _sum_fact(ctx, f"Total population of {who} in the study", pops, who, bid, "population_total")
    t_s = _sum_fact(ctx, f"Total {who} sampled in the study", samples, who, bid, "sample_total")
    t_r = _sum_fact(ctx, "Total responses received in the study", responses, "responses", bid, "responses_total")
    rows.append([lit("Total"), fs(t_p), fs(t_s), fs(t_r), lit("")])
    table = TableBlock(id=bid, caption=caption,
                       columns=[kind, f"Population ({who})", "Sample drawn", "Responses", "Response rate"], rows=rows,
                       total_row=True, numeric_columns=[1, 2, 3, 4])
    end = ctx.day(-rng.integers(45, 150))
    start = end - dt.timedelta(days=rng.integers(21, 91))
    n = int(t_r.value.value)
    (confidence, q_conf), (moe, q_moe) = registers.study_design(ctx, study, n, lambda c: margin_of_error(c, n))
    title = _claim(ctx, ["Study design", "Method and sample design"])
    fid = b.block_id()
    fields = [
        FormField(label="Method", value=fs(b.text("Sampling method of the study", rng.choice(METHODS), group=fid,
                                                  attribute="method"))),
        FormField(label="Analysis", value=fs(b.text("Analysis method of the study", rng.choice(ANALYSES), group=fid,
                                                    attribute="analysis"))),
        FormField(label="Data collection start", value=fs(b.date("Start of data collection for the study", start,
                                                                 group=fid, attribute="period_start")),
                  field_type="date"),
        FormField(label="Data collection end", value=fs(b.date("End of data collection for the study", end,
                                                               group=fid, attribute="period_end")),
                  field_type="date"),
        FormField(label="Confidence level", value=fs(b.percent("Confidence level of the study's estimates", confidence,
                                                               group=fid, attribute="confidence_level",
                                                               query=q_conf))),
        FormField(label="Margin of error (+/-)", value=fs(b.percent("Margin of error of the study's estimates", moe,
                                                                     group=fid, attribute="margin_of_error",
                                                                     query=q_moe))),
        FormField(label="Overall response rate", value=fs(b.percent(
            "Overall response rate of the study", _share(n, int(t_s.value.value)), group=fid,
            attribute="overall_response_rate", derivation=Derivation(op="share", operands=[t_r.id, t_s.id])))),
    ]
    return [table, FormBlock(id=fid, title=title, fields=fields)]


JOURNALS = (("finance", ("Journal of Corporate Finance", "Journal of Financial Economics")),
            ("banking", ("Journal of Banking & Finance", "Journal of Financial Intermediation")),
            ("insurance", ("Journal of Risk and Insurance", "The Geneva Papers on Risk and Insurance")),
            ("asset", ("Financial Analysts Journal", "Journal of Portfolio Management")),
            ("accounting", ("Journal of Accounting Research", "Accounting, Organizations and Society")),
            ("audit", ("Auditing: A Journal of Practice & Theory",)),
            ("tax", ("National Tax Journal", "Journal of Public Economics")),
            ("health", ("Health Services Research", "Health Affairs")),
            ("pharma", ("Clinical Pharmacology & Therapeutics", "Drug Safety")),
            ("clinical", ("Trials", "Contemporary Clinical Trials")),
            ("legal", ("Journal of Law and Economics", "Journal of Empirical Legal Studies")),
            ("human_resources", ("Human Resource Management Journal", "Personnel Psychology")),
            ("payroll", ("Industrial Relations", "Journal of Labor Economics")),
            ("procurement", ("Journal of Purchasing and Supply Management",)),
            ("supply", ("Journal of Supply Chain Management", "International Journal of Production Economics")),
            ("logistics", ("Transportation Research Part E", "International Journal of Logistics Management")),
            ("warehous", ("International Journal of Production Research",)),
            ("manufactur", ("Journal of Operations Management", "International Journal of Production Economics")),
            ("quality", ("Quality Management Journal", "Total Quality Management & Business Excellence")),
            ("energy", ("Energy Policy", "The Energy Journal")), ("oil", ("Energy Economics", "Resources Policy")),
            ("renewable", ("Renewable Energy", "Energy Policy")),
            ("esg", ("Journal of Cleaner Production", "Business Strategy and the Environment")),
            ("information", ("MIS Quarterly", "Information Systems Research")),
            ("cyber", ("Computers & Security", "Journal of Cybersecurity")),
            ("telecom", ("Telecommunications Policy", "Information Economics and Policy")),
            ("real_estate", ("Real Estate Economics", "Journal of Property Research")),
            ("construction", ("Construction Management and Economics", "Journal of Construction Engineering and "
                                                                       "Management")),
            ("facilities", ("Facilities", "Journal of Facilities Management")),
            ("retail", ("Journal of Retailing", "Journal of Retailing and Consumer Services")),
            ("ecommerce", ("Electronic Commerce Research and Applications", "Journal of Retailing")),
            ("hospitality", ("Tourism Management", "International Journal of Hospitality Management")),
            ("aviation", ("Journal of Air Transport Management", "Transportation Research Part A")),
            ("shipping", ("Maritime Economics & Logistics", "Maritime Policy & Management")),
            ("automotive", ("International Journal of Automotive Technology and Management",)),
            ("agri", ("American Journal of Agricultural Economics", "Food Policy")),
            ("food", ("Food Policy", "British Food Journal")),
            ("education", ("Studies in Higher Education", "Higher Education")),
            ("public", ("Public Administration Review", "Journal of Public Administration Research and Theory")),
            ("municipal", ("Urban Affairs Review", "Local Government Studies")),
            ("transit", ("Transport Policy", "Transportation Research Part A")),
            ("nonprofit", ("Nonprofit and Voluntary Sector Quarterly", "Voluntas")),
            ("media", ("Journal of Media Economics", "Digital Journalism")),
            ("marketing", ("Journal of Marketing", "Journal of Marketing Research")),
            ("customer", ("Journal of Service Research", "Journal of Service Management")),
            ("research", ("Research Policy", "R&D Management")), ("mining", ("Resources Policy",)),
            ("water", ("Water Research", "Water Resources Management")),
            ("environment", ("Journal of Environmental Management", "Environmental Science & Policy")),
            ("government", ("Journal of Public Procurement",)),
            ("privacy", ("International Data Privacy Law", "Computer Law & Security Review")))
GENERAL_JOURNALS = ("Management Science", "Strategic Management Journal", "Journal of Management Studies",
                    "Academy of Management Journal")
REFERENCE_TITLES = ("{Topic} and organisational performance: evidence from {item_kind} data",
                    "Measuring {topic}: a panel study of {item_kinds}",
                    "The effect of {topic} on {topic2}",
                    "{Topic} under uncertainty: lessons from {domain}",
                    "Does {topic} matter? A cross-country analysis",
                    "{Topic}, {topic2} and firm outcomes",
                    "A framework for assessing {topic} in {domain}",
                    "Drivers of {topic}: a longitudinal study",
                    "Managing {topic} at scale: survey evidence",
                    "{Topic} and {topic2}: a review of the evidence")


def _author(rng: Rng) -> tuple[str, str]:
    """(surname, initials) of an author: ``("Whitfield", "D. M.")``."""
    given, surname = person_name(rng).split(" ", 1)
    initials = f"{given[0]}."
    if rng.bernoulli(0.35):
        initials += f" {rng.choice('ABCDEFGHJKLMNPRSTW')}."
    return surname, initials


def _authors_text(authors: list[tuple[str, str]]) -> str:
    names = [f"{s}, {i}" for s, i in authors]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def build_references(ctx: DocContext, rng: Rng) -> list[Block]:
    """5-8 journal articles in one style (authors, year, title, journal, volume(issue), pages), ordered by
    first author; the year of each is a fact (on or before the year of issue)."""
    d = ctx.domain
    journals = [j for key, js in JOURNALS if key in d.slug for j in js]
    journals = list(dict.fromkeys(journals)) + list(GENERAL_JOURNALS)
    n = rng.integers(5, 9)
    refs: list[dict] = []
    titles: list[str] = []
    for template in rng.shuffled(REFERENCE_TITLES)[:n]:
        t1, t2 = rng.sample(d.topics, 2)
        title = template.format(Topic=t1[:1].upper() + t1[1:], topic=t1, topic2=t2, item_kind=d.item_kind,
                                item_kinds=plural(d.item_kind), domain=lower_common(d.title))
        if title in titles:
            continue
        titles.append(title)
        authors: list[tuple[str, str]] = []
        for _ in range(rng.choice((1, 2, 2, 3))):
            a = _author(rng)
            if all(a[0] != s for s, _ in authors):  # co-authors have different surnames
                authors.append(a)
        year = ctx.anchor.year - rng.integers(0, 16)
        first = rng.integers(1, 400)
        refs.append(dict(authors=authors, year=year, title=title,
                         journal=rng.choice(journals[:4]) if rng.bernoulli(0.7) else rng.choice(journals),
                         volume=max(1, year - 1960 - rng.integers(0, 20)), issue=rng.integers(1, 7), first=first,
                         last=first + rng.integers(12, 30)))
    refs.sort(key=lambda r: (r["authors"][0][0], r["year"], r["title"]))
    b = ctx.book
    bid = b.block_id()
    items = []
    for r in refs:
        f_y = b.text(f"Publication year of '{r['title']}'", str(r["year"]), group=bid, attribute="publication_year")
        items.append([lit(f"{_authors_text(r['authors'])} ("), fs(f_y),
                      lit(f"). {r['title']}. {r['journal']}, {r['volume']}({r['issue']}), {r['first']}-{r['last']}.")])
    return [ListBlock(id=bid, ordered=True, items=items)]


BLOCKS: dict[str, Builder] = {
    "risk_register": build_risk_register,
    "heat_map": build_heat_map,
    "sign_off": build_sign_off,
    "attestation": build_attestation,
    "incident_summary": build_incident_summary,
    "incident_timeline": build_incident_timeline,
    "incident_impact": build_incident_impact,
    "root_cause": build_root_cause,
    "inspection_details": build_inspection_details,
    "inspection_checklist": build_inspection_checklist,
    "findings_by_severity": build_findings_by_severity,
    "control_tests": build_control_tests,
    "test_scope": build_test_scope,
    "study_design": build_study_design,
    "references": build_references,
}
