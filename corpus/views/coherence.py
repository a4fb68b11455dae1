"""Coherence: whether the figures of one organisation can all be true at once (lint kind ``coherence``).

``verify`` proves each figure is its world's answer; this asks what an auditor or an analyst checks by
reading, figure against figure, whether or not the figures came from a world:

- ``implied_ratio``: two printed figures of one item and period that the catalogue relates
  (``generation/catalogue/world.yaml``: revenue and units sold, claims and units, fees and hours billed)
  imply a ratio (a unit price, a claim rate) outside the catalogue's range, at the precision printed (the
  interval the two rounded figures allow must meet the range: EUR 64 a car does not);
- ``measure_applies``: a measure printed for an item it does not exist for (bed occupancy of Outpatients);
- ``same_figure``: one quantity (measure, items, period) printed with two values in one document (a chart's
  label against its table's cell) or in two documents of one issuer, beyond what the coarser of the two
  printed precisions allows, or a label that shows a non-zero quantity as zero ("$0K" for $460); across an
  issuer's documents also each financial statement line of a period (a balance by its date);
- ``period_after_date``: a figure reported for a period that has not ended by the document's date, or a
  text "as at" a day after it (minutes of 15 March 2024 hearing the position as at April 2024);
- ``standing_text``: standing text the document contradicts ("unaudited" in a document that carries an
  independent auditor's opinion).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from synthdocqa.generation.content.calendar import MONTHS, period_end
from synthdocqa.generation.content.genre.statements import BS_LINES, LINE_NAMES
from synthdocqa.generation.domains import LENSES, get_domain
from synthdocqa.generation.world import applies, world_catalogue
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.values import SCALE_FACTOR
from synthdocqa.ir.world import IssuerWorld, money_step

Problem = tuple[str, str, int | None]
"""(check, detail, page number or None)."""

RATIO_SLACK = 0.02
"""The catalogue's ranges are the factor's; a period's implied ratio is a mean of months inside it, so only
rounding moves it out: 2 % beyond the range is a defect, not noise."""


def _amount(f: Fact) -> Decimal | None:
    v = f.value
    if v.kind == "money":
        return v.amount * SCALE_FACTOR[v.scale]
    return v.value if v.kind in ("number", "percent") else None


def half_step(f: Fact, world: IssuerWorld | None = None) -> Decimal:
    """What rounding may have moved the fact by: half the printed step of a chart's label; a money flow of the
    world a whole booking step (``ir.world.money_step``: the difference of two rounded running totals); 3
    significant figures for the world's other larger figures; the last printed place otherwise."""
    v = f.value
    x = _amount(f)
    assert x is not None
    if v.kind == "money" and v.scale:
        return Decimal(1).scaleb(v.amount.as_tuple().exponent) * SCALE_FACTOR[v.scale] / 2
    if v.kind == "money" and f.query is not None and world is not None:
        try:
            m = world.measure(f.query.measure)
        except KeyError:
            m = None
        if m is not None and m.behaviour == "flow":
            return Decimal(money_step(m)) * len(f.query.items)
    places = Decimal(1).scaleb(x.as_tuple().exponent) / 2
    if f.query is not None and f.quantity == "count":
        places = Decimal(1)  # a count of whole events: each period's count may be one off its share of the year
    if f.query is not None and x.copy_abs() >= 20 and v.kind != "percent":
        return max(places, Decimal(1).scaleb(x.copy_abs().adjusted() - 2) / 2)
    return places


def _page_of(doc: DocumentIR) -> dict[str, int]:
    from synthdocqa.ir.blocks import block_fact_ids

    out: dict[str, int] = {}
    for page in doc.pages:
        for b in page.blocks:
            for fid in block_fact_ids(b):
                out.setdefault(fid, page.page_no)
    return out


def _relations(doc: DocumentIR, measure: str):
    """The catalogue's relation of a world measure key (``slug`` or ``<lens>.<slug>``), and its measures' keys."""
    lens, _, slug = measure.rpartition(".")
    cat = world_catalogue()
    table = cat.lenses.get(lens, {}) if lens else cat.domains.get(doc.domain, {})
    if lens and lens in LENSES:
        metrics = (*LENSES[lens].metrics, *(LENSES[lens].heavy_metrics or ()))
    else:
        metrics = get_domain(doc.domain).metrics
    by_slug = {m.slug: m for m in metrics}
    metric = by_slug.get(slug)
    if metric is None or metric.name not in table:
        return None, None
    key = {m.name: (f"{lens}.{m.slug}" if lens else m.slug) for m in metrics}
    return table[metric.name], key


def ratio_problems(doc: DocumentIR) -> list[Problem]:
    """``implied_ratio``: every printed pair the catalogue relates, within its range at printed precision."""
    cells: dict[tuple[str, str, int, int], dict[str, list[Fact]]] = defaultdict(lambda: defaultdict(list))
    for f in doc.facts:
        q = f.query
        if q is not None and len(q.items) == 1 and not q.share_of and (f.value.kind != "money" or not f.value.scale):
            cells[(q.items[0], q.period, q.start, q.months)][q.measure].append(f)
    page = _page_of(doc)
    out: list[Problem] = []
    for (item, _period, _start, months), printed in cells.items():
        for measure, f, by_measure in ((m, f, {k: v[-1] for k, v in printed.items()})
                                       for m, fs in printed.items() for f in fs):
            spec, key = _relations(doc, measure)
            if spec is None or key is None:
                continue
            names = (spec.per,) if spec.per else spec.ratio or ()
            others = [by_measure.get(key[n]) for n in names]
            if any(o is None for o in others):
                continue
            if spec.per:
                base = others[0]
                assert base is not None
                lo, hi = spec.bounds(item)
                stock = doc.world is not None and _is_stock(doc, base)
                per_period = Decimal(1) / months if stock else Decimal(1)  # a stock's factor accrues by the month
                a, da = _amount(f), half_step(f, doc.world)
                b, db = _amount(base), half_step(base, doc.world)
                assert a is not None and b is not None
                if b - db <= 0:
                    continue
                scale = Decimal(str(spec.scale)) * per_period
                least = max(a - da, Decimal(0)) / (b + db) * scale
                most = (a + da) / (b - db) * scale
                slack = Decimal(str(RATIO_SLACK)) + (Decimal("0.15") if stock else 0)  # a stock moves in the period
                if most < Decimal(str(lo)) * (1 - slack) or least > Decimal(str(hi)) * (1 + slack):
                    ratio = a / b * scale
                    out.append(("implied_ratio", f"{f.label} ({f.text}) over {base.label} ({base.text}) is "
                                f"{_fmt(ratio)} {spec.unit or 'per unit'}; the catalogue allows {_fmt(lo)}-"
                                f"{_fmt(hi)}", page.get(f.id)))
            else:
                num, den = others
                assert num is not None and den is not None
                a, b = _amount(num), _amount(den)
                x, dx = _amount(f), half_step(f, doc.world)
                assert a is not None and b is not None and x is not None
                db, dn = half_step(den, doc.world), half_step(num, doc.world)
                if b - db <= 0:
                    continue
                s = Decimal(str(spec.scale))
                least, most = max(a - dn, Decimal(0)) / (b + db) * s, (a + dn) / (b - db) * s
                if x + dx < least * (1 - Decimal(str(RATIO_SLACK))) or x - dx > most * (1 + Decimal(str(RATIO_SLACK))):
                    out.append(("implied_ratio", f"{f.label} ({f.text}) is not {num.label} ({num.text}) over "
                                f"{den.label} ({den.text}) = {_fmt(a / b * s)}", page.get(f.id)))
    return out


def _is_stock(doc: DocumentIR, f: Fact) -> bool:
    assert doc.world is not None and f.query is not None
    try:
        return doc.world.measure(f.query.measure).behaviour == "stock"
    except KeyError:
        return False


def _fmt(x) -> str:
    x = float(x)
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:,.4g}"


def applies_problems(doc: DocumentIR) -> list[Problem]:
    """``measure_applies``: no measure printed for an item it does not exist for."""
    trade = get_domain(doc.domain)
    page = _page_of(doc)
    out: list[Problem] = []
    for f in doc.facts:
        q = f.query
        if q is None or "." in q.measure:
            continue
        metric = next((m for m in trade.metrics if m.slug == q.measure), None)
        if metric is None:
            continue
        for item in q.items:
            if not applies(trade, metric, item):
                out.append(("measure_applies", f"{f.label} ({f.text}): {item} has no {metric.name.lower()}",
                            page.get(f.id)))
    return out


_BALANCES = frozenset(LINE_NAMES[line][1] for line in BS_LINES)
_STATEMENT_LINES = frozenset(name for _, name in LINE_NAMES.values())
_STATEMENT_LABEL = re.compile("^(?:" + "|".join(re.escape(title) for title, _ in LINE_NAMES.values())
                              + r") (?:at|for) ")
"""A statement line's own label ("Total assets at 31 December 2025", "Revenue for 2025", "Profit for the year
2025"), not an item's figure that shares its attribute ("Revenue of Van in 2025")."""


def _key(f: Fact, world: IssuerWorld | None = None) -> tuple | None:
    """What ``f`` is a printing of: its world query (a stock's by the month its period ends: the annual report's
    balance at 31 December and the quarterly's at the end of Q4 are one balance), or a financial statement line
    of a period printed without a query (a balance by its date)."""
    q = f.query
    if q is not None:
        if world is not None and not q.share_of and _behaviour(world, q.measure) == "stock":
            return (q.measure, tuple(q.items), "at end of", q.start + q.months)
        return (q.measure, tuple(q.items), q.start, q.months, tuple(q.share_of))
    if f.attribute in _STATEMENT_LINES and f.period and f.value.kind == "money" and _STATEMENT_LABEL.match(f.label):
        when = period_end(f.period) if f.attribute in _BALANCES else f.period
        return ("statement", f.attribute, str(when)) if when else None
    return None


def _behaviour(world: IssuerWorld, measure: str) -> str:
    try:
        return world.measure(measure).behaviour
    except KeyError:
        return ""


def same_figure_problem(f: Fact, g: Fact, wf: IssuerWorld | None = None, wg: IssuerWorld | None = None
                        ) -> str | None:
    """Why ``f`` and ``g`` (one quantity; ``wf``, ``wg``: their documents' worlds) cannot both be printed, or
    None."""
    a, b = _amount(f), _amount(g)
    if a is None or b is None:
        return None
    if (a == 0) != (b == 0) and max(abs(a), abs(b)) > 0:
        return f"{f.text} and {g.text} print one quantity, one of them as zero"
    slack = half_step(f, wf) + half_step(g, wg)
    if abs(a - b) > slack:
        return f"{f.text} and {g.text} print one quantity with two values"
    return None


def same_figure_problems(doc: DocumentIR) -> list[Problem]:
    """``same_figure`` within one document: every printing of a quantity of the world agrees with its first
    (the statements' own lines are tied within a document by derivations, which verify checks)."""
    first: dict[tuple, Fact] = {}
    page = _page_of(doc)
    out: list[Problem] = []
    for f in doc.facts:
        k = _key(f, doc.world) if f.query is not None else None
        if k is None:
            continue
        if k not in first:
            first[k] = f
            continue
        why = same_figure_problem(first[k], f, doc.world, doc.world)
        if why:
            out.append(("same_figure", f"{f.label}: {why}", page.get(f.id)))
    return out


_AS_AT = re.compile(r"\b(?:as at|as of|position at)\s+(?:(\d{1,2})\s+)?(" + "|".join(MONTHS) + r")[a-z]*\.?\s+"
                    r"(?:(\d{1,2}),\s+)?(\d{4})", re.IGNORECASE)
"""A text's "as at" date: "as at 31 March 2025", "As of March 31, 2025", "the position at April 2024"."""


def period_problems(doc: DocumentIR, pages: Iterable[tuple[int, str]]) -> list[Problem]:
    """``period_after_date``: no figure of a period not ended by the document's date, no text "as at" a day
    after it."""
    if doc.as_at is None:
        return []
    page = _page_of(doc)
    out: list[Problem] = []
    said: set[str] = set()
    for f in doc.facts:
        if f.query is None or f.query.period in said:
            continue
        end = period_end(f.query.period)
        if end is not None and end > doc.as_at:
            said.add(f.query.period)
            out.append(("period_after_date", f"{f.label} ({f.text}) reports {f.query.period}, which ends "
                        f"{end.isoformat()}, after the document's date {doc.as_at.isoformat()}", page.get(f.id)))
    for page_no, text in pages:
        for m in _AS_AT.finditer(" ".join(text.split())):
            month = MONTHS.index(m[2][:1].upper() + m[2][1:3].lower()) + 1
            day = int(m[1] or m[3] or 1)
            try:
                when = dt.date(int(m[4]), month, day)
            except ValueError:
                continue
            if when > doc.as_at:
                out.append(("period_after_date", f"{m[0]!r} is after the document's date {doc.as_at.isoformat()}",
                            page_no))
    return out


_AUDIT_OPINION = re.compile(r"independent auditors?\b|auditor'?s'? report", re.IGNORECASE)
_UNAUDITED = re.compile(r"\bunaudited\b", re.IGNORECASE)


def standing_text_problems(pages: list[tuple[int, str]]) -> list[Problem]:
    """``standing_text``: "unaudited" in a document that carries an independent auditor's report."""
    if not any(_AUDIT_OPINION.search(t) for _, t in pages):
        return []
    return [("standing_text", "says its figures are unaudited, yet the document carries an independent "
             "auditor's report", no) for no, t in pages if _UNAUDITED.search(t)]


def coherence_problems(doc: DocumentIR, pages: list[tuple[int, str]]) -> list[Problem]:
    """Every coherence problem of one document (``pages``: each page's number and text)."""
    return [*ratio_problems(doc), *applies_problems(doc), *same_figure_problems(doc),
            *period_problems(doc, pages), *standing_text_problems(pages)]


def issuer_of(doc: DocumentIR) -> str:
    """The key of the organisation that issued ``doc``: its world's, else its issuer entity's name (a document
    that prints no figure of the world still prints its statements)."""
    if doc.world is not None:
        return doc.world.issuer
    return next((e.name for e in doc.entities if e.role == "issuer"), doc.doc_id)


def _printings(docs: Iterable[tuple[str, DocumentIR]]) -> dict[tuple, list[tuple[str, Fact, IssuerWorld | None]]]:
    """Every printing of a quantity, by (issuer, quantity), in document order."""
    seen: dict[tuple, list[tuple[str, Fact, IssuerWorld | None]]] = defaultdict(list)
    for doc_id, doc in docs:
        who = issuer_of(doc)
        for f in doc.facts:
            k = _key(f, doc.world)
            if k is not None and _amount(f) is not None:
                seen[(who, *k)].append((doc_id, f, doc.world))
    return seen


def same_world_problems(docs: Iterable[tuple[str, DocumentIR]]) -> list[tuple[str, str, str]]:
    """The part of the issuer's world each document stores, compared across its documents: an entry (a driver, a
    relation) is the same in all of them, and what the world booked for a period is one value (a risk scored 4 in
    the annual report and 3 in the risk assessment is two worlds). (doc_id, "same_world", detail)."""
    out: list[tuple[str, str, str]] = []
    first: dict[tuple, tuple[str, object]] = {}
    for doc_id, doc in docs:
        if doc.world is None:
            continue
        issuer = doc.world.issuer
        for e in doc.world.entries:
            if e.booked:
                for b in e.booked:
                    key = (issuer, e.measure, e.item, b.start, b.months)
                    seen_id, seen = first.setdefault(key, (doc_id, b.value))
                    if seen != b.value:
                        out.append((doc_id, "same_world", f"{e.measure}/{e.item} months {b.start}+{b.months}: "
                                    f"booked {b.value}, {seen} in {seen_id}"))
                continue
            key = (issuer, e.measure, e.item)
            body = (e.driver, e.relation)
            seen_id, seen = first.setdefault(key, (doc_id, body))
            if seen != body:
                out.append((doc_id, "same_world", f"{e.measure}/{e.item}: another driver than in {seen_id}"))
    return out


def issuer_problems(docs: Iterable[tuple[str, DocumentIR]]) -> list[tuple[str, str, str]]:
    """``same_figure`` across the documents of one issuer: (doc_id, check, detail) for every printing that
    disagrees with the issuer's first printing of the quantity in another document; and ``same_world``: the
    entries the documents store of their issuer's world agree."""
    docs = list(docs)
    out: list[tuple[str, str, str]] = same_world_problems(docs)
    for printings in _printings(docs).values():
        first_id, g, wg = printings[0]
        for doc_id, f, wf in printings[1:]:
            if doc_id == first_id:
                continue
            why = same_figure_problem(g, f, wg, wf)
            if why:
                out.append((doc_id, "same_figure", f"{f.label}: {why} (the first in {first_id})"))
    return out


def shared_figures(docs: Iterable[tuple[str, DocumentIR]]) -> tuple[int, int]:
    """(quantities printed in more than one document of their issuer, of those printed equal in all): what the
    note and docs/corpus.md count."""
    shared = equal = 0
    for printings in _printings(docs).values():
        if len({doc_id for doc_id, _, _ in printings}) < 2:
            continue
        shared += 1
        _, g, wg = printings[0]
        equal += all(same_figure_problem(g, f, wg, wf) is None for _, f, wf in printings[1:])
    return shared, equal


__all__ = ["coherence_problems", "issuer_problems", "same_figure_problem", "same_world_problems", "shared_figures"]
