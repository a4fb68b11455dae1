"""The referee of a document's derived facts: every ``Fact.derivation`` recomputed from its operands.

A table total is the sum of its cells, a line amount is quantity x unit price, tax is the subtotal at the
stated rate, a balance sheet's total equity and liabilities equals its total assets, a cash-flow statement's
closing cash is the opening cash plus the net change. The builders state these as derivations; this module
recomputes each from the operands' values, so a document whose numbers do not reconcile is caught by
``corpus.verify`` and by the planner's tests, whichever block kind printed them.

Rounding: results that are not exact in the places a fact shows (a mean, a product of a rate, a tax) are
compared after rounding half-even to those places; shares (largest remainder, summing to 100.0) within one
step of 0.1.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_HALF_EVEN, Decimal

from .answers import numeric
from .facts import Fact
from .values import SCALE_FACTOR, DateValue
from .world import IssuerWorld, evaluate

TENTH = Decimal("0.1")


def _places_of(d: Decimal) -> Decimal:
    """The unit of the last place a value shows (``12.50`` -> 0.01, ``300`` -> 1)."""
    return Decimal(1).scaleb(min(0, d.as_tuple().exponent))


def _rounded_to(exact: Decimal, shown: Decimal) -> Decimal:
    return exact.quantize(_places_of(shown), rounding=ROUND_HALF_EVEN)


def derivation_problem(f: Fact, facts: dict[str, Fact]) -> str | None:
    """Why ``f`` does not follow from its derivation's operands (None: it does, or it has none)."""
    d = f.derivation
    if d is None:
        return None
    ops = [facts.get(o) for o in d.operands]
    if any(o is None for o in ops):
        return f"{f.id}: derivation cites an unknown fact"
    if d.op == "days_between":
        if len(ops) != 2 or not all(isinstance(o.value, DateValue) for o in ops):
            return f"{f.id}: days_between needs two dates"
        days = Decimal(abs((ops[1].value.value - ops[0].value.value).days))
        return None if numeric(f.value) == days else f"{f.id}: {numeric(f.value)} days != {days}"
    if d.op == "count":
        return None if numeric(f.value) == len(ops) else f"{f.id}: count {numeric(f.value)} != {len(ops)}"
    got = numeric(f.value)
    vals = [numeric(o.value) for o in ops]
    if got is None or any(v is None for v in vals):
        return f"{f.id}: {d.op} of a value that is not a number"
    name = f"{f.id} ({f.label})"
    match d.op:
        case "quote":
            if len(vals) != 1:
                return f"{name}: a quote has one operand"
            want = vals[0]
        case "sum":
            want = sum(vals, Decimal(0))
            if {o.value.kind for o in ops} != {f.value.kind}:
                return f"{name}: a total of {sorted({o.value.kind for o in ops})} is a {f.value.kind}"
        case "difference":
            want = vals[0] - vals[1]
        case "product":
            want = _rounded_to(vals[0] * vals[1], got)
        case "percent_of":
            want = _rounded_to(vals[0] * vals[1] / 100, got)
        case "ratio":
            if vals[1] == 0:
                return f"{name}: ratio to zero"
            want = _rounded_to(vals[0] / vals[1], got)
        case "mean":
            exact = sum(vals, Decimal(0)) / len(vals)
            if abs(got - exact) > _places_of(got) / 2:
                return f"{name}: mean {got} != {exact:.4f} rounded"
            return None
        case "max":
            want = max(vals)
        case "min":
            want = min(vals)
        case "share":
            part, total = vals
            exact = part / total * 100
            return None if abs(got - exact) < TENTH else f"{name}: share {got} is not {exact:.3f} rounded"
        case "percent_change":
            a, b = vals
            if a == 0:
                return f"{name}: percent change from zero"
            want = ((b - a) / a * 100).quantize(TENTH, rounding=ROUND_HALF_EVEN)
        case _:
            return f"{name}: unknown derivation {d.op}"
    return None if got == want else f"{name}: {d.op} gives {want}, the fact says {got}"


def derivation_problems(facts: Iterable[Fact]) -> list[str]:
    """Every derived fact that does not follow from its operands (empty: the document reconciles)."""
    index = {f.id: f for f in facts}
    return [p for f in index.values() if (p := derivation_problem(f, index)) is not None]


__all__ = ["DOCUMENT_ATTRIBUTES", "derivation_problem", "derivation_problems", "unsourced_problems", "world_problems"]


def world_problems(facts: Iterable[Fact], world: IssuerWorld | None) -> list[str]:
    """Every fact whose value is not the answer of its query to the document's world, at the precision the
    fact prints (a chart's "EUR 5.4 million" is the world's value in millions, rounded to one place). A stored
    driver edited after generation shows here as the facts that no longer follow from it."""
    out: list[str] = []
    for f in facts:
        q = f.query
        if q is None:
            continue
        if world is None:
            out.append(f"{f.id} ({f.label}): queries a world the document does not hold")
            continue
        try:
            want = evaluate(world, q)
        except (KeyError, ValueError, ZeroDivisionError) as err:
            out.append(f"{f.id} ({f.label}): its query {q.measure}/{','.join(q.items)} {q.period} cannot be "
                       f"asked of the world: {err}")
            continue
        v = f.value
        world_value = want
        if v.kind == "money":
            got, want = v.amount, want / SCALE_FACTOR[v.scale]
        elif v.kind in ("number", "percent"):
            got = v.value
        else:
            out.append(f"{f.id} ({f.label}): a {v.kind} fact cannot answer a query of the world")
            continue
        if want.quantize(Decimal(1).scaleb(got.as_tuple().exponent)) != got:
            out.append(f"{f.id} ({f.label}): prints {f.text!r}, the world's {q.measure} of "
                       f"{', '.join(q.items)} in {q.period} is {world_value.normalize():f}")
    return out


DOCUMENT_ATTRIBUTES = frozenset({"start_page"})
"""Numeric facts about the document itself rather than its issuer (the page a section starts on, which the
contents table prints and ``verify`` checks against the rendered pages)."""


def unsourced_problems(facts: Iterable[Fact]) -> list[str]:
    """Every number that is neither a query of the issuer's world, nor derived from other facts, nor a fact
    about the document itself: a number drawn inside one document, which no other document of its issuer has
    to agree with (IR schema 1.6 on: one world, many views)."""
    return [f"{f.id} ({f.label}): {f.text!r} is drawn in the document, not asked of its issuer's world"
            for f in facts if f.value.kind in ("money", "number", "percent") and f.query is None
            and f.derivation is None and f.attribute not in DOCUMENT_ATTRIBUTES]
