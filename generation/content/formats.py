"""How a document writes its values: one format per document, so every fact's ``text`` is the exact
string the renderer draws (``$4,200,000``, ``EUR 12,450.00``, ``14 March 2026``, ``12.5%``).

Formats use plain ASCII currency prefixes except ``$`` (every bundled font has it), so the text layer
of the PDF holds exactly these strings.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from synthdocqa.ir.rng import Rng

from .countries import currency as currency_conventions

DATE_STYLES = ("long", "iso", "us", "short")
SCALE_SUFFIX = {"thousand": "K", "million": "M", "billion": "B"}


@dataclass(frozen=True)
class DocFormat:
    currency: str
    date_style: str
    money_decimals: int

    @property
    def prefix(self) -> str:
        """What an amount is printed after: the currency's symbol (``$``), else its code and a space."""
        return currency_conventions(self.currency).symbol or f"{self.currency} "

    def money(self, amount: Decimal, decimals: int | None = None) -> str:
        places = self.money_decimals if decimals is None else decimals
        body = group(amount, places)
        if amount < 0:
            return f"-{self.prefix}{body.lstrip('-')}"
        return f"{self.prefix}{body}"

    def money_compact(self, amount: Decimal, scale: str) -> str:
        """``$4.2M`` / ``EUR 350K``: ``amount`` is already in ``scale`` units."""
        body = f"{dec_plain(amount)}{SCALE_SUFFIX[scale]}"
        return f"{self.prefix}{body}"

    def date(self, d: dt.date) -> str:
        return format_date(d, self.date_style)


def group(d: Decimal, places: int) -> str:
    q = Decimal(1).scaleb(-places)
    return f"{d.quantize(q, rounding=ROUND_HALF_EVEN):,.{places}f}"


def dec_plain(d: Decimal) -> str:
    d = d.normalize() if d != 0 else Decimal(0)
    return format(d, "f")


def number_text(value: Decimal, places: int) -> str:
    return group(value, places)


def percent_text(value: Decimal) -> str:
    """``12.5%`` with one decimal (the value is quantized to 0.1 before)."""
    return f"{value.quantize(Decimal('0.1'), rounding=ROUND_HALF_EVEN)}%"


def format_date(d: dt.date, style: str) -> str:
    if style == "long":
        return f"{d.day} {d:%B %Y}"
    if style == "iso":
        return d.isoformat()
    if style == "us":
        return f"{d:%B} {d.day}, {d.year}"
    if style == "short":
        return f"{d.day} {d:%b %Y}"
    raise ValueError(f"unknown date style {style!r}")


def stamp_date(d: dt.date) -> str:
    """Stamps print upper-case short dates: ``14 MAR 2026``."""
    return f"{d.day:02d} {d:%b %Y}".upper()


def choose_format(rng: Rng, currency: str, cents: bool = True) -> DocFormat:
    """The document's date style and money places. Only a document of transactions (an invoice, a claim, a
    log: ``cents``) may print cents; a report rounds its amounts and prints whole units, never
    ``GBP 32,000,000.00``."""
    style = rng.choice(currency_conventions(currency).date_styles)
    decimals = rng.choice((0, 0, 2))
    return DocFormat(currency=currency, date_style=style, money_decimals=decimals if cents else 0)
