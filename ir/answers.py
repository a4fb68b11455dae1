"""Typed answers from fact values, their accepted surface forms, and exact derivation arithmetic.

Derived values are computed with Decimals and one rounding rule per operation, so a verifier can
recompute every derivation from its operands and compare strings.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import ROUND_HALF_EVEN, Decimal

from .arithmetic_rules import PERCENTAGE_POINTS, unit_for_count
from .qa_models import BooleanAnswer, DateAnswer, NumberAnswer, StringAnswer, TypedAnswer
from .values import (
    SCALE_FACTOR,
    BooleanValue,
    DateValue,
    IdentifierValue,
    MoneyValue,
    NumberValue,
    OrganisationValue,
    PercentValue,
    PersonValue,
    TextValue,
)

CURRENCY_SYMBOL = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹"}
TWO = Decimal("0.01")
ONE = Decimal("0.1")


def dec_str(d: Decimal) -> str:
    """Canonical decimal text: no exponent, no trailing zeros (``12.50`` -> ``12.5``)."""
    d = d.normalize() if d != 0 else Decimal(0)
    s = format(d, "f")
    return s


def numeric(value) -> Decimal | None:
    """The absolute numeric value of a number-like fact value (money, number, percent), else None."""
    if isinstance(value, MoneyValue | NumberValue):
        return value.absolute()
    if isinstance(value, PercentValue):
        return value.value
    return None


def unit_of(value) -> tuple[str, str]:
    """(unit, currency) of a number-like value."""
    if isinstance(value, MoneyValue):
        return "", value.currency
    if isinstance(value, NumberValue):
        return value.unit, ""
    if isinstance(value, PercentValue):
        return "%", ""
    return "", ""


def answer_for_value(value) -> TypedAnswer:
    if isinstance(value, MoneyValue | NumberValue | PercentValue):
        unit, cur = unit_of(value)
        return NumberAnswer(value=dec_str(numeric(value)), unit=unit, currency=cur)
    if isinstance(value, DateValue):
        return DateAnswer(value=value.value.isoformat())
    if isinstance(value, BooleanValue):
        return BooleanAnswer(value=value.value)
    if isinstance(value, PersonValue | OrganisationValue):
        return StringAnswer(value=value.name)
    if isinstance(value, IdentifierValue | TextValue):
        return StringAnswer(value=value.value)
    raise TypeError(f"no answer type for {type(value).__name__}")


def _grouped(d: Decimal, places: int | None = None) -> str:
    """Thousands-grouped text of a number, with all its decimals unless ``places`` is given (the canonical
    form never rounds: an exchange rate of 0.8123 reads 0.8123)."""
    if places is None:
        places = 0 if d == d.to_integral_value() else max(0, -d.normalize().as_tuple().exponent)
    q = Decimal(1).scaleb(-places) if places else Decimal(1)
    return f"{d.quantize(q, rounding=ROUND_HALF_EVEN):,.{places}f}"


def agreeing_unit(unit: str, d: Decimal) -> str:
    """A word unit agreeing in number with its value ("1 incident", "1 day", "2 incidents"); symbols
    ("%", "kWh", "ms") stay as they are."""
    if len(unit) < 3 or not unit.replace(" ", "").isalpha() or unit.isupper():
        return unit
    return unit_for_count(unit, float(d))


# The scale words of compact forms and their suffixes. "T" is trillion, never thousand; "bn" is billion.
SCALES: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("trillion", 10**12, ("T", "tn")),
    ("billion", 10**9, ("B", "bn")),
    ("million", 10**6, ("M",)),
    ("thousand", 10**3, ("K",)),
)
COMPACT_MAX_PLACES = 2
ANSWER_POLICY = ("exact: every accepted surface form of an answer denotes its value exactly; a compact form "
                 "(4.2M, 17.75 thousand) is accepted only when it is exact at the places it shows "
                 f"(at most {COMPACT_MAX_PLACES} after the point), rounded forms never; K = thousand, "
                 "M = million, B / bn = billion, T = trillion")


def compact_forms(d: Decimal) -> list[str]:
    """``4.2 million`` / ``4.2M`` at the largest scale the number reaches, only where that text denotes the
    number exactly (``17,750`` -> ``17.75K``; ``2,816.18`` has no compact form: ``2.8K`` is 2,800). An
    accepted answer must be true, so no form is rounded (see ``ANSWER_POLICY``)."""
    for name, factor, suffixes in SCALES:
        if abs(d) >= factor:
            scaled = d / factor  # exact: a power of ten, well inside the context precision
            if scaled != scaled.quantize(Decimal(1).scaleb(-COMPACT_MAX_PLACES)):
                return []
            text = dec_str(scaled)
            return [f"{text} {name}", *(f"{text}{s}" for s in suffixes)]
    return []


def number_forms(d: Decimal, unit: str = "", currency: str = "") -> list[str]:
    """Accepted surface forms of a number: grouped, plain, compact (``4.2M``) where exact, with
    unit/currency; a word unit agrees in number ("1 day"), a difference of percentages reads "3.2 percentage
    points". Every form parses back to ``d`` (``parse_number_form``)."""
    unit = agreeing_unit(unit, d)
    forms = [_grouped(d), dec_str(d)]
    if abs(d) >= 1000 and d == d.to_integral_value():
        forms.append(_grouped(d, 2))
    forms += compact_forms(d)
    out: list[str] = []
    for f in forms:
        if currency:
            sym = CURRENCY_SYMBOL.get(currency)
            out += [f"{f} {currency}", f"{currency} {f}"] + ([f"{sym}{f}"] if sym else [])
        elif unit == "%":
            out += [f"{f}%", f"{f} percent"]
        elif unit in (PERCENTAGE_POINTS, "percentage point"):
            out += [f"{f} {unit}", f"{f} pp", f"{f} points", f]
        elif unit:
            out += [f"{f} {unit}", f]
        else:
            out.append(f)
    return out


def date_forms(d: dt.date) -> list[str]:
    return [d.isoformat(), f"{d.day} {d:%B %Y}", f"{d:%B} {d.day}, {d.year}", f"{d:%d/%m/%Y}", f"{d:%m/%d/%Y}",
            f"{d.day} {d:%b %Y}"]


def surface_forms(answer: TypedAnswer, drawn: str | None = None) -> list[str]:
    """Canonical form first, then the drawn text, then other accepted renderings (deduplicated)."""
    forms: list[str] = []
    if answer.kind == "number":
        forms = number_forms(Decimal(answer.value), answer.unit, answer.currency)
    elif answer.kind == "date":
        forms = date_forms(dt.date.fromisoformat(answer.value))
    elif answer.kind == "boolean":
        forms = ["yes", "true"] if answer.value else ["no", "false"]
    elif answer.kind == "string":
        forms = [answer.value]
    elif answer.kind == "list":
        forms = [", ".join(answer.value), "; ".join(answer.value)]
    elif answer.kind == "not_answerable":
        forms = ["not stated", "The document does not state this.", "unanswerable"]
    if drawn:
        forms.insert(1 if forms else 0, drawn)
    seen: set[str] = set()
    return [f for f in forms if not (f in seen or seen.add(f))]


# ----------------------------------------------------------------- reading forms back

_SCALE_WORDS = {name: factor for name, factor, _ in SCALES}
_SCALE_SUFFIXES = {s.lower(): factor for _, factor, sfx in SCALES for s in sfx} | {"k": 10**3, "m": 10**6}
_NUMBER = re.compile(r"(?P<num>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?P<suffix>[A-Za-z]{0,2})")


def parse_number_form(text: str, unit: str = "", currency: str = "") -> Decimal | None:
    """The value a surface form of a number denotes, read as a person reads it (``$4.2M`` = 4,200,000,
    ``17.8T EUR`` = 17.8 trillion euros, ``12.5 percent`` = 12.5), or None if the text is not a form of a
    number in that unit and currency. Independent of ``number_forms``, so a test can hold one against the
    other."""
    t = " ".join(text.split())
    pre_ok = {"", "-"}
    post_ok = {""}
    if currency:
        sym = CURRENCY_SYMBOL.get(currency)
        pre_ok |= {f"{currency} ", f"-{currency} "} | ({sym, f"-{sym}"} if sym else set())
        post_ok |= {f" {currency}"}
    elif unit == "%":
        post_ok |= {"%", " percent"}
    elif unit in (PERCENTAGE_POINTS, "percentage point"):
        post_ok |= {" percentage points", " percentage point", " pp", " points", " point"}
    elif unit:
        post_ok |= {f" {unit}", f" {unit_for_count(unit, 1.0)}", f" {unit_for_count(unit, 2.0)}"}
    m = next((m for m in _NUMBER.finditer(t) if t[:m.start()] in pre_ok), None)
    if m is None:
        return None
    sign = -1 if t[:m.start()].startswith("-") else 1
    value = Decimal(m.group("num").replace(",", ""))
    suffix, rest = m.group("suffix"), t[m.end():]
    if suffix:
        factor = _SCALE_SUFFIXES.get(suffix.lower())
        if factor is None:
            return None
        value *= factor
    else:
        word = next((w for w in _SCALE_WORDS if rest.startswith(f" {w}")), None)
        if word:
            value *= _SCALE_WORDS[word]
            rest = rest[len(word) + 1:]
    if rest not in post_ok:
        return None
    return sign * value


def parse_date_form(text: str) -> dt.date | None:
    """The date a surface form denotes (the forms of ``date_forms``; day/month order as the form says)."""
    for fmt in ("%Y-%m-%d", "%d %B %Y", "%B %d, %Y", "%d %b %Y"):
        try:
            return dt.datetime.strptime(text.strip(), fmt).date()
        except ValueError:
            continue
    return None


def form_denotes(answer: TypedAnswer, form: str) -> bool:
    """Whether one accepted surface form of ``answer`` denotes its value (numbers exactly, dates as a day;
    a numeric day/month form is read both ways, since a reader cannot tell which order it is)."""
    if answer.kind == "number":
        return parse_number_form(form, answer.unit, answer.currency) == Decimal(answer.value)
    if answer.kind == "date":
        want = dt.date.fromisoformat(answer.value)
        if re.fullmatch(r"\d\d/\d\d/\d{4}", form.strip()):
            a, b, y = (int(x) for x in form.strip().split("/"))
            return want in {_date_or_none(y, b, a), _date_or_none(y, a, b)}
        return parse_date_form(form) == want
    return True


def _date_or_none(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


# ----------------------------------------------------------------- derivations

def derive(op: str, operands: list[Decimal | dt.date]) -> str:
    """The exact result string of a derivation (rounding rules are part of the contract: a mean and a tax
    (``percent_of``) to two places, a percent change and a share (part / whole x 100) to one, a product
    exact)."""
    if op == "days_between":
        a, b = operands
        return str(abs((b - a).days))
    nums = [Decimal(x) for x in operands]
    match op:
        case "sum":
            return dec_str(sum(nums, Decimal(0)))
        case "mean":
            return dec_str((sum(nums, Decimal(0)) / len(nums)).quantize(TWO, rounding=ROUND_HALF_EVEN))
        case "max":
            return dec_str(max(nums))
        case "min":
            return dec_str(min(nums))
        case "count":
            return str(len(nums))
        case "difference":
            return dec_str(nums[0] - nums[1])
        case "percent_change":
            if nums[0] == 0:
                raise ValueError("percent change from zero")
            return dec_str(((nums[1] - nums[0]) / nums[0] * 100).quantize(ONE, rounding=ROUND_HALF_EVEN))
        case "product":
            return dec_str(nums[0] * nums[1])
        case "percent_of":
            return dec_str((nums[0] * nums[1] / 100).quantize(TWO, rounding=ROUND_HALF_EVEN))
        case "share":
            if nums[1] == 0:
                raise ValueError("share of zero")
            return dec_str((nums[0] / nums[1] * 100).quantize(ONE, rounding=ROUND_HALF_EVEN))
        case "quote":
            return dec_str(nums[0])
    raise ValueError(f"unknown derivation op {op!r}")


def operand_value(value) -> Decimal | dt.date:
    if isinstance(value, DateValue):
        return value.value
    n = numeric(value)
    if n is None:
        raise TypeError(f"{type(value).__name__} cannot be a numeric operand")
    return n


__all__ = ["ANSWER_POLICY", "SCALE_FACTOR", "SCALES", "answer_for_value", "compact_forms", "date_forms", "dec_str",
           "derive", "form_denotes", "number_forms", "numeric", "operand_value", "parse_date_form",
           "parse_number_form", "surface_forms", "unit_of"]
