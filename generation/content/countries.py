"""Country conventions, one table: ``catalogue/countries.yaml`` read through ``country(name)``.

How a country writes addresses and phone numbers, the paper its offices print on, its currency, legal forms,
VAT or tax number, company registers, banks and IBAN layout, late-payment interest, governing law and audit
standards are one row of one file, so a document's issuer, its invoice, its contract and its auditor's report
agree on them and a new country is one entry (not a ``match`` in five modules). The generators read only
this module; what they draw from a row (the order of ``rng`` calls) is the row's identifier patterns.

Identifier patterns (``IdPattern``): literal text with draws in braces, drawn left to right from one stream:

- ``{d:N}``: N digits, one draw each; ``{n:LO-HI}``: one integer in [LO, HI) (``{n:LO-HI:W}`` zero-padded to
  W places); ``{a:N}``: N letters (``{a:N:ALPHABET}`` from ALPHABET);
- ``{name=...}`` names a draw for a check (``{check:rib}``, ``{check:es}``: the French RIB key and the Spanish
  control digits, computed from the draws named ``bank``, ``branch`` and ``account`` once all are drawn);
- ``{city}``, ``{city_code}``, ``{bank4}``, ``{tax_id}``: what the caller passes (each field says which).

A pattern with an unknown draw, a context name its caller does not pass, or a check without its draws fails at
load, naming the file and the key.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache
from typing import Annotated, Literal, NamedTuple

from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from synthdocqa.generation import catalogue
from synthdocqa.generation.catalogue import Entry
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import PageSize

LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"
"""The letters an identifier's ``{a:N}`` draws from unless it names its own (no I, O, Q)."""

_TOKEN = re.compile(r"\{([^{}]*)\}")
_DRAW = re.compile(r"^(?:(?P<name>[a-z_]+)=)?(?:d:(?P<d>\d+)|n:(?P<lo>\d+)-(?P<hi>\d+)(?::(?P<w>\d+))?"
                   r"|a:(?P<a>\d+)(?::(?P<alpha>[A-Z]+))?)$")


def _rib_key(bank: str, branch: str, account: str) -> str:
    """The French RIB key: 97 - (89 bank + 15 branch + 3 account) mod 97."""
    return f"{97 - (89 * int(bank) + 15 * int(branch) + 3 * int(account)) % 97:02d}"


def _es_control(bank: str, branch: str, account: str) -> str:
    """The two Spanish control digits: of "00" + bank + branch, then of the account (weights mod 11)."""
    weights = (1, 2, 4, 8, 5, 10, 9, 7, 3, 6)

    def digit(s: str) -> str:
        d = 11 - sum(int(c) * w for c, w in zip(s, weights, strict=True)) % 11
        return str({11: 0, 10: 1}.get(d, d))
    return digit("00" + bank + branch) + digit(account)


CHECKS = {"rib": _rib_key, "es": _es_control}
"""Check digits a pattern may compute (``{check:NAME}``) from its draws named bank, branch and account."""
CHECK_DRAWS = ("bank", "branch", "account")


class Part(NamedTuple):
    """One piece of a pattern: ``lit`` (text), ``ctx`` (a name the caller passes), ``check`` (a check's name),
    or a draw, ``digits`` (n), ``int`` (lo, hi, width) or ``letters`` (n, alphabet), perhaps ``name``d."""

    kind: str
    text: str = ""
    n: int = 0
    lo: int = 0
    hi: int = 0
    width: int = 0
    alphabet: str = LETTERS
    name: str = ""


def _parts(pattern: str) -> list[Part]:
    out: list[Part] = []
    at = 0
    for m in _TOKEN.finditer(pattern):
        if m.start() > at:
            out.append(Part("lit", pattern[at:m.start()]))
        body = m.group(1)
        d = _DRAW.match(body)
        if body.startswith("check:"):
            out.append(Part("check", body[len("check:"):]))
        elif d is None:
            out.append(Part("ctx", body))
        elif d.group("d") is not None:
            out.append(Part("digits", n=int(d.group("d")), name=d.group("name") or ""))
        elif d.group("lo") is not None:
            out.append(Part("int", lo=int(d.group("lo")), hi=int(d.group("hi")), width=int(d.group("w") or 0),
                            name=d.group("name") or ""))
        else:
            out.append(Part("letters", n=int(d.group("a")), alphabet=d.group("alpha") or LETTERS,
                            name=d.group("name") or ""))
        at = m.end()
    if at < len(pattern):
        out.append(Part("lit", pattern[at:]))
    return out


def id_pattern(*context: str, checks: bool = False) -> object:
    """The type of an identifier pattern whose caller passes ``context`` (and may compute check digits)."""
    def check(pattern: str) -> str:
        rest = _TOKEN.sub("", pattern)
        if "{" in rest or "}" in rest:
            raise ValueError(f"pattern {pattern!r} has a stray brace")
        parts = _parts(pattern)
        named = {p.name for p in parts if p.name}
        for p in parts:
            if p.kind == "ctx" and p.text not in context:
                raise ValueError(f"pattern {pattern!r} uses {{{p.text}}}: not a draw (d:N, n:LO-HI, a:N) nor one of "
                                 f"what its caller passes ({', '.join(context) or 'nothing'})")
            if p.kind == "check":
                if not checks or p.text not in CHECKS:
                    raise ValueError(f"pattern {pattern!r}: no check {p.text!r} here (checks: "
                                     f"{', '.join(CHECKS) if checks else 'none'})")
                if missing := [n for n in CHECK_DRAWS if n not in named]:
                    raise ValueError(f"pattern {pattern!r}: {{check:{p.text}}} needs draws named {', '.join(missing)}")
            if p.kind == "int" and p.lo >= p.hi:
                raise ValueError(f"pattern {pattern!r}: an empty range {p.lo}-{p.hi}")
        return pattern
    return Annotated[str, AfterValidator(check)]


def draw_id(pattern: str, rng: Rng, **context: str) -> str:
    """An identifier drawn from ``pattern`` (see the module doc), the draws in the order they are written."""
    out: list[str] = []
    named: dict[str, str] = {}
    checks: list[tuple[int, str]] = []
    for p in _parts(pattern):
        if p.kind == "lit":
            out.append(p.text)
            continue
        if p.kind == "ctx":
            out.append(context[p.text])
            continue
        if p.kind == "check":
            checks.append((len(out), p.text))
            out.append("")
            continue
        if p.kind == "digits":
            text = "".join(str(rng.integers(0, 10)) for _ in range(p.n))
        elif p.kind == "int":
            text = f"{rng.integers(p.lo, p.hi):0{p.width}d}" if p.width else str(rng.integers(p.lo, p.hi))
        else:
            text = "".join(p.alphabet[rng.integers(0, len(p.alphabet))] for _ in range(p.n))
        if p.name:
            named[p.name] = text
        out.append(text)
    for at, name in checks:
        out[at] = CHECKS[name](*(named[n] for n in CHECK_DRAWS))
    return "".join(out)


# ---------------------------------------------------------------- the table's shape

Iso2 = Annotated[str, Field(pattern=r"^[A-Z]{2}$")]
"""An ISO 3166 code, quoted in the file (``NO`` unquoted would be YAML's false, and fails here)."""
CurrencyCode = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
def _written(value: object) -> object:
    if not isinstance(value, str):  # 19.0 unquoted is a float (and 19 prints "19%", not "19.0%")
        raise ValueError("write a rate as a quoted string, with the places it is printed with (\"19.0\")")
    return value


Rate = Annotated[Decimal, BeforeValidator(_written), Field(ge=0, le=100)]
"""A rate in percent, a quoted string in the file ("19.0": its places are printed)."""


def _not_empty(kind: object) -> object:
    return Annotated[tuple[kind, ...], Field(min_length=1)]  # type: ignore[valid-type]


class City(Entry):
    """A city with the postcode districts that belong to it and its telephone area code."""

    name: str
    districts: _not_empty(str)
    area: str
    region: str = ""
    """A US state's code, written after the city."""
    sales_tax: Rate | None = None
    """Combined state and local sales tax where the country charges sales tax where goods are delivered."""


class TaxId(Entry):
    """The number a business is taxed under, as its invoices print it."""

    scheme: Literal["vat", "ein"]
    pattern: id_pattern()


class Applicant(Entry):
    """One register an applicant organisation (a grant application's) may be entered in."""

    label: str
    pattern: id_pattern("tax_id")
    scheme: str
    p: float | None = Field(default=None, gt=0, lt=1)
    """The chance of this register where the country has several (the last one takes the rest)."""


class Registers(Entry):
    """Registration numbers as each kind of document writes them."""

    contract: id_pattern("city", "city_code")
    """A party's company number on a contract summary (with the register's prefix)."""
    vendor: id_pattern()
    """A vendor's company registration number on a vendor assessment (the bare number)."""
    applicant: _not_empty(Applicant)

    @model_validator(mode="after")
    def _last_takes_the_rest(self) -> Registers:
        *first, last = self.applicant
        if last.p is not None or any(a.p is None for a in first):
            raise ValueError("applicant: every register but the last needs a chance p, the last none")
        return self


class Bank(Entry):
    name: str
    bic4: Annotated[str, Field(pattern=r"^[A-Z]{4}$")]
    """The first four letters of its BIC."""


class Iban(Entry):
    """How a domestic account number (BBAN) is written, and the IBAN's length."""

    length: int = Field(gt=4, le=34)
    bban: id_pattern("bank4", checks=True)


class LateInterest(Entry):
    """The late-payment interest the seller's law allows, and the sentence its invoices state it in (``{rate}``
    printed as the rate's own fact)."""

    rate: Rate
    sentence: catalogue.template(once=("rate",))
    recovery_charge: Decimal | None = None
    """The fixed sum (in EUR) the seller may claim for the costs of recovering each late payment, where its law
    sets one (the EU's Late Payment Directive: 40)."""


class LawOverride(Entry):
    name: str
    courts: str | None = None


class Law(Entry):
    """The law a contract is governed by and the courts that decide disputes (``{city}``: the party's)."""

    name: str
    courts: catalogue.template("city")
    courts_without_city: str | None = None
    by_region: dict[str, LawOverride] = {}
    by_city: dict[str, LawOverride] = {}


class Audit(Entry):
    """An auditor's report: the firm's name (``{a}``, ``{b}`` founders' surnames), the accounting framework,
    the auditing standards, and the report's tradition (us: GAAS and critical audit matters; uk: a senior
    statutory auditor signs; isa: the International Standards on Auditing)."""

    firm: catalogue.template("a", "b")
    framework: str
    standards: str
    style: Literal["us", "uk", "isa"]


class Country(Entry):
    """One row of the table (see the module doc)."""

    name: str
    iso2: Iso2
    currency: CurrencyCode
    region: Literal["europe", "north_america"]
    eu: bool
    paper: PageSize
    dial: Annotated[str, Field(pattern=r"^\+\d{1,3}$")]
    streets: _not_empty(str)
    cities: _not_empty(City)
    number_first: bool
    """Whether a street line puts the number first (``12 High Street``) or last (``Hauptstrasse 12``)."""
    postcode: str
    """Pattern of a postcode from a district: ``{d}`` the district, ``#`` a digit, ``@`` a letter."""
    locality: catalogue.template("city", "postcode", "region")
    """The line under the street."""
    phone: str = "{area} ### ####"
    """Pattern of a telephone number after the country code (``#`` a digit)."""
    letters: str = LETTERS
    """The letters a postcode's ``@`` draws from."""
    legal_forms: _not_empty(str)
    tax_id: TaxId
    vat_rate: Rate | None = None
    """The standard VAT rate (none where the country charges sales tax instead)."""
    registers: Registers
    banks: _not_empty(Bank)
    iban: Iban | None = None
    """None where accounts are not IBANs (a US account: routing and account number)."""
    late_interest: LateInterest
    law: Law
    audit: Audit

    @model_validator(mode="after")
    def _vat_has_a_rate(self) -> Country:
        if (self.tax_id.scheme == "vat") != (self.vat_rate is not None):
            raise ValueError("vat_rate: a country with VAT numbers needs its VAT rate, and only such a country")
        return self

    def city(self, name: str) -> City | None:
        return next((c for c in self.cities if c.name == name), None)


class Currency(Entry):
    """How a document in this currency writes money and dates, and the legal forms of an organisation
    whose country is not known (only the currency)."""

    symbol: str | None = None
    """Printed before the amount (``$4,200``); without one the code and a space (``EUR 4,200``)."""
    date_styles: _not_empty(Literal["long", "iso", "us", "short"])
    """The date styles a document draws from (a style listed twice is drawn twice as often)."""
    legal_forms: _not_empty(str)


class CountriesFile(Entry):
    """``catalogue/countries.yaml``."""

    default_country: str
    """The country of an organisation whose address does not say."""
    countries: Annotated[dict[str, Country], Field(min_length=1)]
    currencies: dict[CurrencyCode, Currency]
    other_currency: Currency
    """A currency the table does not list."""

    @model_validator(mode="before")
    @classmethod
    def _names_from_keys(cls, data: object) -> object:
        """A row's name is its key (written once)."""
        if isinstance(data, dict) and isinstance(data.get("countries"), dict):
            rows = data["countries"]
            data = {**data, "countries": {k: {"name": k, **v} if isinstance(v, dict) else v for k, v in rows.items()}}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> CountriesFile:
        if self.default_country not in self.countries:
            raise ValueError(f"default_country: {self.default_country!r} is not in countries")
        for name, c in self.countries.items():
            if c.name != name:
                raise ValueError(f"countries.{name}.name: {c.name!r} differs from its key")
            if c.currency not in self.currencies:
                raise ValueError(f"countries.{name}.currency: {c.currency!r} is not in currencies")
        codes = [c.iso2 for c in self.countries.values()]
        if len(set(codes)) != len(codes):
            raise ValueError("countries: two countries share an iso2 code")
        return self


FILE = "countries.yaml"


@cache
def table() -> CountriesFile:
    """The table, validated once per process."""
    return catalogue.load(FILE, CountriesFile)


def countries() -> dict[str, Country]:
    """Every country the content writes documents for, by name, in the table's order."""
    return table().countries


def country(name: str) -> Country:
    """The conventions of ``name`` (``KeyError`` naming the known countries if the table has no such row)."""
    try:
        return table().countries[name]
    except KeyError:
        raise KeyError(f"no country {name!r} in catalogue/{FILE} (it has {', '.join(table().countries)})") from None


def country_of(attributes: dict[str, str]) -> Country:
    """The country of an organisation from its address attributes (the table's default where they name none)."""
    return country(attributes.get("country") or table().default_country)


def by_iso2(code: str) -> Country:
    """The country of ISO 3166 code ``code`` (``KeyError`` if the table has none)."""
    found = next((c for c in table().countries.values() if c.iso2 == code), None)
    if found is None:
        raise KeyError(f"no country with iso2 {code!r} in catalogue/{FILE}")
    return found


def currency(code: str) -> Currency:
    """How documents in currency ``code`` write money and dates (``other_currency`` for one not listed)."""
    return table().currencies.get(code, table().other_currency)


def currencies() -> tuple[str, ...]:
    """The currencies of the table, in its order."""
    return tuple(table().currencies)


def countries_of_currency(code: str) -> tuple[str, ...]:
    """The countries that pay in ``code``, in the table's order (the default country for a currency none does)."""
    return tuple(n for n, c in countries().items() if c.currency == code) or (table().default_country,)


__all__ = ["City", "Country", "Currency", "by_iso2", "countries", "countries_of_currency", "country", "country_of",
           "currencies", "currency", "draw_id", "table"]
