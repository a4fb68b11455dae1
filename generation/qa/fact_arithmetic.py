"""Which arithmetic a question may do on a fact: its semantic type and the rules of ``ir.arithmetic_rules``.

The type is ``Fact.quantity`` when the IR sets it; otherwise it is read off the value (a percentage is a
rate, money an amount, a number of "hours" a duration, of "t/ha" a ratio, of "patents" a count). One
function decides it, so derivations and checks agree whichever way the IR was made.
"""

from __future__ import annotations

from collections.abc import Iterable

from synthdocqa.ir.arithmetic_rules import difference_unit, quantity_allows, unit_for_count
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.values import DateValue, MoneyValue, NumberValue, PercentValue
from synthdocqa.ir.vocab import Quantity

DURATION_UNITS = frozenset({"seconds", "minutes", "hours", "days", "weeks", "months", "years", "hrs", "mins"})
MEASURE_UNITS = frozenset({"tonnes", "t", "kg", "MWh", "kWh", "GWh", "tCO2e", "m3", "m³", "barrels", "sq m", "m2",
                           "ha", "km", "litres", "l", "GB", "TB"})
"""Additive physical measures (summing them across rows means something)."""


def quantity_of(f: Fact) -> Quantity | None:
    """The semantic type of a fact: ``Fact.quantity``, else inferred from its value; None if not a quantity."""
    if f.quantity is not None:
        return f.quantity
    v = f.value
    if isinstance(v, PercentValue):
        return "rate"
    if isinstance(v, MoneyValue):
        return "amount"
    if isinstance(v, DateValue):
        return "date"
    if isinstance(v, NumberValue):
        unit = v.unit.strip()
        if not unit:
            return "index"  # a bare number (a score, an exchange rate): comparable, never summed
        if "/" in unit or unit.lower().startswith("per "):
            return "ratio"
        if unit.lower() in DURATION_UNITS:
            return "duration"
        if unit in MEASURE_UNITS:
            return "amount"
        return "count"  # "patents", "incidents", "units": things counted
    return None


def shared_quantity(facts: Iterable[Fact]) -> Quantity | None:
    """The one semantic type of several facts (None when they differ or one is not a quantity)."""
    kinds = {quantity_of(f) for f in facts}
    return kinds.pop() if len(kinds) == 1 else None


def facts_allow(op: str, facts: Iterable[Fact]) -> bool:
    """Whether ``op`` over these facts means something (same semantic type, and ``ir.arithmetic_rules`` allows it)."""
    return quantity_allows(shared_quantity(facts), op)


def unit_of_difference(f: Fact, unit: str) -> str:
    """The unit of a difference of two values like ``f``: percentage points for two percentages."""
    q = quantity_of(f)
    return difference_unit(q, unit) if q is not None else unit


def counted(n: int | str, unit: str) -> str:
    """``1 day``, ``12 days``: a number with its unit agreeing in number."""
    try:
        value = float(n)
    except ValueError:
        value = 2.0
    return f"{n} {unit_for_count(unit, value)}" if unit else str(n)


def semantic_misuses(facts: dict[str, Fact], assertions: Iterable) -> list[str]:
    """Derivations that mean nothing for their operands' semantic type: a sum of rates, a percent change of
    a percentage, a difference of percentages not in percentage points, operands of different types.
    ``facts``: the document's facts by id; ``assertions``: its ``Assertion`` records."""
    problems = []
    for a in assertions:
        der = a.derivation
        if der is None:
            continue
        ops = [facts.get(op.fact_id) for op in der.operands]
        if any(f is None for f in ops):
            problems.append(f"{a.id}: {der.op} over an unknown fact")
            continue
        q = shared_quantity(ops)
        if not quantity_allows(q, der.op):
            problems.append(f"{a.id}: {der.op} over {q or 'values of different semantic types'} means nothing")
        elif der.op == "difference" and q == "rate" and a.value.kind == "number" and a.value.unit == "%":
            problems.append(f"{a.id}: a difference of two percentages in % (must be percentage points)")
    return problems
