"""What arithmetic means something on which quantity: the rules QA derivations and the lint share.

Every numeric fact carries a semantic type (``ir.vocab.Quantity``) decided when its value is made:

- ``amount``: an additive amount (money, tonnes, kWh): sums, means, shares, differences, percent changes.
- ``count``: a count of things (additive like an amount; its unit agrees in number: "1 incident").
- ``duration``: hours, days (additive).
- ``rate``: a percentage or a per-unit rate (default rate, occupancy %): never summed; a difference of
  two rates is in percentage points; no percent change of a rate.
- ``ratio``: a ratio (current ratio, cost per unit): like a rate, but its difference keeps its unit.
- ``index``: an index or score (NPS, satisfaction 1-5): mean and difference; no sum, no share.
- ``date``: dates: days between.
"""

from __future__ import annotations

from .vocab import Quantity

ADDITIVE: frozenset[Quantity] = frozenset({"amount", "count", "duration"})

ALLOWED_OPS: dict[Quantity, frozenset[str]] = {
    "amount": frozenset({"sum", "mean", "difference", "percent_change", "ratio", "share", "max", "min"}),
    "count": frozenset({"sum", "mean", "difference", "percent_change", "ratio", "share", "max", "min", "count"}),
    "duration": frozenset({"sum", "mean", "difference", "percent_change", "ratio", "share", "max", "min"}),
    "rate": frozenset({"mean", "difference", "max", "min"}),
    "ratio": frozenset({"mean", "difference", "max", "min"}),
    "index": frozenset({"mean", "difference", "max", "min"}),
    "date": frozenset({"days_between", "max", "min"}),
}
for _q in ("amount", "count", "duration", "rate", "ratio", "index"):
    # a figure quoted elsewhere, a product (quantity x unit price, likelihood x impact) and a percentage of an
    # amount (tax at a stated rate, a weighted score) mean something whatever the quantity of their operands
    ALLOWED_OPS[_q] = ALLOWED_OPS[_q] | {"quote", "product", "percent_of"}
del _q
PERCENTAGE_POINTS = "percentage points"


def quantity_allows(quantity: Quantity | None, op: str) -> bool:
    """Whether ``op`` over facts of this quantity means something (None: not a quantity, nothing allowed)."""
    return quantity is not None and op in ALLOWED_OPS[quantity]


def difference_unit(quantity: Quantity, unit: str) -> str:
    """Unit of a difference: a difference of two percentages is in percentage points."""
    if quantity == "rate" and unit in ("%", "percent", ""):
        return PERCENTAGE_POINTS
    return unit


IRREGULAR_SINGULARS = {"people": "person", "children": "child", "men": "man", "women": "woman", "staff": "staff",
                       "data": "data", "series": "series"}


def unit_for_count(unit: str, value: float) -> str:
    """``1 incident``, ``2 incidents``, ``1 breach``, ``1 person``: a count's unit agrees in number."""
    if not unit or abs(value) != 1:
        return unit
    head, _, last = unit.rpartition(" ")
    return f"{head} {singular(last)}" if head else singular(last)


def singular(word: str) -> str:
    """The singular of an English plural noun (the regular rules and a few irregular words)."""
    low = word.lower()
    if low in IRREGULAR_SINGULARS:
        return word[:1] + IRREGULAR_SINGULARS[low][1:] if word[:1].isupper() else IRREGULAR_SINGULARS[low]
    if low.endswith("ies") and len(word) > 3:  # "entries" -> "entry"
        return word[:-3] + "y"
    if low.endswith(("ches", "shes", "sses", "xes", "zes")):  # "breaches" -> "breach"
        return word[:-2]
    if low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
