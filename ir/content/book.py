"""The per-document fact book and context: ids, entities, facts and the document's value formats.

Every fact is created here, with the exact text that will be drawn, so builders cannot produce a
fact whose text differs from its span. Ids are sequential in creation order (``f0001``, ``b001``,
``e001``); creation order is a pure function of (spec, index).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..blocks import Span
from ..domains import Domain, Recipe
from ..facts import Derivation, Entity, Fact
from ..rng import Rng
from ..values import (
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
from .formats import DocFormat, group, percent_text


class FactBook:
    """Accumulates entities and facts of one document."""

    def __init__(self, fmt: DocFormat) -> None:
        self.fmt = fmt
        self.facts: list[Fact] = []
        self.by_id: dict[str, Fact] = {}
        self.entities: list[Entity] = []
        self._blocks = 0

    # ---------------------------------------------------------------- ids
    def block_id(self) -> str:
        self._blocks += 1
        return f"b{self._blocks:03d}"

    def entity(self, kind: str, name: str, role: str = "", **attributes: str) -> Entity:
        e = Entity(id=f"e{len(self.entities) + 1:03d}", kind=kind, name=name, role=role, attributes=attributes)
        self.entities.append(e)
        return e

    def add(self, label: str, value, text: str, *, subject: str | None = None, attribute: str = "",
            period: str = "", derivation: Derivation | None = None, group: str = "") -> Fact:
        f = Fact(id=f"f{len(self.facts) + 1:04d}", label=label, subject=subject, attribute=attribute,
                 period=period, value=value, text=text, derivation=derivation, group=group)
        self.facts.append(f)
        self.by_id[f.id] = f
        return f

    # ---------------------------------------------------------------- typed helpers
    def money(self, label: str, amount: Decimal, *, decimals: int | None = None, **kw) -> Fact:
        places = self.fmt.money_decimals if decimals is None else decimals
        amount = amount.quantize(Decimal(1).scaleb(-places))
        return self.add(label, MoneyValue(amount=amount, currency=self.fmt.currency),
                        self.fmt.money(amount, places), **kw)

    def money_compact(self, label: str, amount: Decimal, scale: str, **kw) -> Fact:
        return self.add(label, MoneyValue(amount=amount, currency=self.fmt.currency, scale=scale),
                        self.fmt.money_compact(amount, scale), **kw)

    def number(self, label: str, value: Decimal, unit: str, places: int = 0, **kw) -> Fact:
        value = value.quantize(Decimal(1).scaleb(-places))
        return self.add(label, NumberValue(value=value, unit=unit), group(value, places), **kw)

    def percent(self, label: str, value: Decimal, **kw) -> Fact:
        value = value.quantize(Decimal("0.1"))
        return self.add(label, PercentValue(value=value), percent_text(value), **kw)

    def date(self, label: str, d: dt.date, text: str | None = None, **kw) -> Fact:
        return self.add(label, DateValue(value=d), text or self.fmt.date(d), **kw)

    def person(self, label: str, e: Entity, **kw) -> Fact:
        return self.add(label, PersonValue(name=e.name, entity_id=e.id), e.name, subject=e.id, **kw)

    def org(self, label: str, e: Entity, **kw) -> Fact:
        return self.add(label, OrganisationValue(name=e.name, entity_id=e.id), e.name, subject=e.id, **kw)

    def ident(self, label: str, value: str, scheme: str = "", **kw) -> Fact:
        return self.add(label, IdentifierValue(value=value, scheme=scheme), value, **kw)

    def text(self, label: str, value: str, **kw) -> Fact:
        return self.add(label, TextValue(value=value), value, **kw)

    def boolean(self, label: str, value: bool, text: str, **kw) -> Fact:
        return self.add(label, BooleanValue(value=value), text, **kw)


def fs(f: Fact) -> Span:
    """The span that draws a fact."""
    return Span(text=f.text, fact_ids=[f.id])


def lit(text: str) -> Span:
    return Span(text=text)


@dataclass
class DocContext:
    """What every builder of one document shares: vocabulary, formats, cast and calendar."""

    domain: Domain
    recipe: Recipe
    fmt: DocFormat
    book: FactBook
    issuer: Entity
    counterparties: list[Entity]
    people: list[Entity]
    year: int
    anchor: dt.date
    id_counter: dict[str, int] = field(default_factory=dict)
    page: int = 1
    memo: dict[Any, Any] = field(default_factory=dict)

    def remember(self, key: Any, make: Callable[[], Any]) -> Any:
        """The document-wide value of ``key`` (made once): the same quantity never gets two values."""
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def number(self, kind: str) -> int:
        """Running numbers of tables/figures (``Table 3``), so captions are unique in a document."""
        n = self.id_counter.get(f"#{kind}", 0) + 1
        self.id_counter[f"#{kind}"] = n
        return n

    def person(self, rng: Rng) -> Entity:
        return rng.choice(self.people)

    def counterparty(self, rng: Rng) -> Entity:
        return rng.choice(self.counterparties)

    def reference(self, prefix: str | None = None) -> str:
        """Document-unique identifiers like ``INV-2026-00042``."""
        p = prefix or self.domain.id_prefix
        n = self.id_counter.get(p, 0) + 1
        self.id_counter[p] = n
        return f"{p}-{self.year}-{(n * 7919 + self.anchor.toordinal()) % 90000 + 10000:05d}"

    def day(self, offset: int) -> dt.date:
        return self.anchor + dt.timedelta(days=offset)

    def periods(self, rng: Rng) -> tuple[str, str]:
        """Two consecutive reporting periods for a comparison."""
        kind = rng.choice(("fy", "q", "h"))
        y = self.year
        if kind == "fy":  # plain years: "2025" is what readers (and the QA period matcher) recognise
            return f"{y - 1}", f"{y}"
        if kind == "h":
            return f"H1 {y - 1}", f"H1 {y}"
        q = rng.integers(2, 5)
        return f"Q{q - 1} {y}", f"Q{q} {y}"
