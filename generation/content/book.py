"""The per-document fact book and context: ids, entities, facts and the document's value formats.

Every fact is created here, with the exact text that will be drawn, so builders cannot produce a
fact whose text differs from its span, and with its semantic type (``Fact.quantity``: money is an
``amount`` unless said otherwise, percentages are ``rate``, dates ``date``; a plain number says what it is).
Ids are sequential in creation order (``f0001``, ``b001``, ``e001``); creation order is a pure function of
(spec, index).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from synthdocqa.ir import values
from synthdocqa.ir.blocks import Span
from synthdocqa.ir.facts import Derivation, Entity, Fact
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import Quantity
from synthdocqa.ir.world import IssuerWorld, WorldQuery

from ..domains import Domain, Recipe, get_domain, view
from ..world import IssuerWorldBuilder
from .calendar import Calendar, period_months
from .formats import DocFormat, group, percent_text
from .repeats import caption_text


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
            period: str = "", derivation: Derivation | None = None, group: str = "",
            quantity: Quantity | None = None, query: WorldQuery | None = None) -> Fact:
        f = Fact(id=f"f{len(self.facts) + 1:04d}", label=label, subject=subject, attribute=attribute,
                 period=period, value=value, quantity=quantity, text=text, derivation=derivation, group=group,
                 query=query)
        self.facts.append(f)
        self.by_id[f.id] = f
        return f

    def tie(self, fact_id: str, source_id: str) -> Fact:
        """Record that fact ``fact_id`` quotes fact ``source_id`` (the same value, printed elsewhere: a
        highlight quoting the statement it comes from, built before it), so the referee checks they agree."""
        f = self.by_id[fact_id].model_copy(update={"derivation": Derivation(op="quote", operands=[source_id])})
        self.facts[self.facts.index(self.by_id[fact_id])] = f
        self.by_id[fact_id] = f
        return f

    # ---------------------------------------------------------------- typed helpers
    def money(self, label: str, amount: Decimal, *, decimals: int | None = None, quantity: Quantity = "amount",
              **kw) -> Fact:
        places = self.fmt.money_decimals if decimals is None else decimals
        amount = amount.quantize(Decimal(1).scaleb(-places))
        return self.add(label, values.MoneyValue(amount=amount, currency=self.fmt.currency),
                        self.fmt.money(amount, places), quantity=quantity, **kw)

    def money_compact(self, label: str, amount: Decimal, scale: str, *, quantity: Quantity = "amount",
                      **kw) -> Fact:
        return self.add(label, values.MoneyValue(amount=amount, currency=self.fmt.currency, scale=scale),
                        self.fmt.money_compact(amount, scale), quantity=quantity, **kw)

    def number(self, label: str, value: Decimal, unit: str, places: int = 0, *, quantity: Quantity,
               **kw) -> Fact:
        value = value.quantize(Decimal(1).scaleb(-places))
        return self.add(label, values.NumberValue(value=value, unit=unit), group(value, places), quantity=quantity, **kw)

    def percent(self, label: str, value: Decimal, *, quantity: Quantity = "rate", **kw) -> Fact:
        value = value.quantize(Decimal("0.1"))
        return self.add(label, values.PercentValue(value=value), percent_text(value), quantity=quantity, **kw)

    def date(self, label: str, d: dt.date, text: str | None = None, **kw) -> Fact:
        return self.add(label, values.DateValue(value=d), text or self.fmt.date(d), quantity="date", **kw)

    def person(self, label: str, e: Entity, **kw) -> Fact:
        return self.add(label, values.PersonValue(name=e.name, entity_id=e.id), e.name, subject=e.id, **kw)

    def org(self, label: str, e: Entity, **kw) -> Fact:
        return self.add(label, values.OrganisationValue(name=e.name, entity_id=e.id), e.name, subject=e.id, **kw)

    def ident(self, label: str, value: str, scheme: str = "", **kw) -> Fact:
        return self.add(label, values.IdentifierValue(value=value, scheme=scheme), value, **kw)

    def text(self, label: str, value: str, **kw) -> Fact:
        return self.add(label, values.TextValue(value=value), value, **kw)

    def boolean(self, label: str, value: bool, text: str, **kw) -> Fact:
        return self.add(label, values.BooleanValue(value=value), text, **kw)


def fs(f: Fact) -> Span:
    """The span that draws a fact."""
    return Span(text=f.text, fact_ids=[f.id])


def lit(text: str) -> Span:
    return Span(text=text)


def _default_stream() -> Rng:
    return Rng(0).fork("doc", 0, "dynamics")


QUARTER_RECIPES = frozenset({"quarterly_report"})
"""Recipes that report on the last complete quarter rather than the last full year."""
YEAR_RECIPES = frozenset({"annual_report", "sustainability_report", "compliance_report"})
"""Recipes that report on the last full year and on no period after it (``DocContext.cal`` ends at its close: a
2024 annual report issued in October 2025 compares the halves and quarters of 2024, never H1 2025)."""


SKELETON_MAX = 2
"""A document says one sentence skeleton (a template, its facts and names aside) at most this often."""


@dataclass
class DocContext:
    """What every builder of one document shares: vocabulary, formats, cast and calendar.

    ``anchor`` is the document's "as at" (issue) date: it reports on periods complete by then
    (``cal``); ``year`` is the year of issue (in reference numbers), ``cal.fy`` the last full year.
    ``dyn`` is the document's own stream for what is not a figure of the issuer's world (a report date, a
    milestone plan). ``world`` is the issuer's world (``generation.world``): every value of a measure the
    document prints is a query of it (``metric_value``, ``metric_query``), and ``asked`` the entries the
    document asked, which its IR records (``world_record``).
    """

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
    dyn: Rng = field(default_factory=_default_stream)
    world: IssuerWorldBuilder | None = None
    asked: set[tuple] = field(default_factory=set)
    """World keys the document asked: (measure, item) of a driven entry, (measure, item, start, months) of a
    booking."""

    def __post_init__(self) -> None:
        self.cal = Calendar(self.anchor)
        if self.recipe.slug in YEAR_RECIPES:  # an annual report's periods are its year's: it closes its books at
            self.cal = Calendar(dt.date(self.cal.fy + 1, 1, 1))  # the year end, whenever it is issued
        if self.world is None:  # a document of its own issuer (tests, one-off plans)
            self.world = IssuerWorldBuilder("doc", self.dyn.fork("world"), get_domain(self.domain.slug),
                                            self.cal.fy * 12 + 6)

    @contextmanager
    def through(self, lens: str) -> Iterator[DocContext]:
        """Build with the issuer's domain seen through ``lens`` (``domains.view``; "": its trade itself), then
        return to the domain in use before: a sustainability report's People section tabulates headcount by
        department, its statements are built from the trade's own figures."""
        before = self.domain
        self.domain = view(get_domain(before.slug), lens)
        try:
            yield self
        finally:
            self.domain = before

    def remember(self, key: Any, make: Callable[[], Any]) -> Any:
        """The document-wide value of ``key`` (made once): the same quantity never gets two values."""
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    # ---------------------------------------------------------------- distinct content
    def used(self, kind: str) -> set:
        """What the document has already printed of ``kind`` (keys a builder must not print again: the
        (metric, periods) of a comparison, the actions of an action table ...)."""
        return self.remember(("used", kind), set)

    def caption_free(self, text: str) -> bool:
        """Whether no table caption, figure title or form title of the document says ``text`` yet (its
        ``Table N.`` number and case aside: ``repeats.caption_text``)."""
        return caption_text(text) not in self.used("caption")

    def claim_caption(self, text: str) -> str:
        """Record ``text`` as printed (a caption or title); returns it."""
        self.used("caption").add(caption_text(text))
        return text

    def template_uses(self) -> dict[str, int]:
        """How often the document's running text has used each sentence template (``template``)."""
        return self.remember("template_uses", dict)

    def template(self, rng: Rng, pool: Sequence[str]) -> str | None:
        """A sentence template of ``pool`` the document has used least (drawn among those): a skeleton is said a
        second time only once every other of the pool has been said, and never more than ``SKELETON_MAX``
        times a document (None then: the sentence is not written). A template counts once whichever pool
        holds it."""
        used = self.template_uses()
        least = min((used.get(t, 0) for t in pool), default=SKELETON_MAX)
        if least >= SKELETON_MAX:
            return None
        t = rng.choice([t for t in pool if used.get(t, 0) == least])
        used[t] = used.get(t, 0) + 1
        return t

    def checkpoint(self) -> tuple:
        """Where the document stands (facts, block ids, running numbers, captions, sentences printed and the
        templates they used, the world's entries asked), for ``rollback``."""
        return (len(self.book.facts), self.book._blocks, dict(self.id_counter), set(self.used("caption")),
                set(self.asked), set(self.used("sentence")), dict(self.template_uses()))

    def rollback(self, point: tuple) -> None:
        """Forget what was made since ``point``: a block built and then not used leaves no fact, id, number or
        caption behind, and its world entries are not recorded unless asked again; a sentence it printed is not
        printed and its template not used (what else it marked as used stays used; remembered values stay the
        document's values)."""
        n_facts, n_blocks, counters, captions, asked, sentences, uses = point
        self.asked.clear()
        self.asked.update(asked)
        for f in self.book.facts[n_facts:]:
            del self.book.by_id[f.id]
        del self.book.facts[n_facts:]
        self.book._blocks = n_blocks
        self.id_counter.clear()
        self.id_counter.update(counters)
        for now, then in ((self.used("caption"), captions), (self.used("sentence"), sentences),
                          (self.template_uses(), uses)):
            now.clear()
            now.update(then)

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
        """Identifiers like ``INV-2026-00042`` (``doc_reference`` is the document's own one)."""
        p = prefix or self.domain.id_prefix
        n = self.id_counter.get(p, 0) + 1
        self.id_counter[p] = n
        return f"{p}-{self.year}-{(n * 7919 + self.anchor.toordinal()) % 90000 + 10000:05d}"

    def doc_reference(self) -> str:
        """The document's one reference number: its title, its header and every sentence that cites it."""
        return self.remember("doc_reference", self.reference)

    def serial(self, prefix: str, width: int = 4) -> str:
        """Numbers of things inside the document (forms, ledger entries): ``EAF/2026/0042``, never shaped
        like the document's reference."""
        n = self.id_counter.get(f"serial:{prefix}", 0) + 1
        self.id_counter[f"serial:{prefix}"] = n
        low = 10 ** (width - 1)
        salt = sum(map(ord, prefix)) * 101 + self.anchor.toordinal() * 7
        return f"{prefix}/{self.year}/{(n * 6133 + salt) % (9 * low) + low}"

    def day(self, offset: int) -> dt.date:
        return self.anchor + dt.timedelta(days=offset)

    @property
    def by_quarter(self) -> bool:
        """Whether the document reports on a quarter (a quarterly report): its comparisons, shares and charts by
        item are of the quarter, not of the last full year."""
        return self.recipe.slug in QUARTER_RECIPES

    @property
    def focus(self) -> str:
        """The period the document reports on: the last complete quarter or full year."""
        return self.cal.quarters(1)[0] if self.by_quarter else str(self.cal.fy)

    def periods(self, rng: Rng) -> tuple[str, str]:
        """Two reporting periods to compare, both complete as at the anchor: consecutive years, the same
        half or quarter a year apart, or two consecutive quarters (always the quarter in a document that
        reports on one)."""
        kind = rng.choice(("fy", "q", "h"))
        if self.by_quarter:
            kind = "q"
        if kind == "fy":  # plain years: "2025" is what readers (and the QA period matcher) recognise
            return f"{self.cal.fy - 1}", f"{self.cal.fy}"
        if kind == "h":
            h = self.cal.half()
            return self.cal.year_ago(h), h
        q = self.cal.quarters(1)[0]
        if rng.integers(2, 5) == 4:
            return self.cal.year_ago(q), q
        return self.cal.previous(q), q

    # ---------------------------------------------------------------- values of the issuer's world
    def metric_query(self, metric, items, period: str) -> WorldQuery:
        """The question to the issuer's world whose answer is ``metric`` of ``items`` (one item, or the sum of
        several) over ``period``, as this document rounds it."""
        pm = period_months(period)
        if pm is None:
            raise ValueError(f"not a period: {period!r}")
        assert self.world is not None
        items = [items] if isinstance(items, str) else list(items)
        q = self.world.query(metric, items, pm[0], pm[1], period)  # one precision in all the issuer's documents
        self.asked.update((q.measure, item) for item in items)
        return q

    def metric_value(self, metric, item: str, period: str) -> Decimal:
        """The issuer's one value of ``metric`` for ``item`` over ``period``, rounded for display."""
        def make() -> Decimal:
            assert self.world is not None
            return self.world.value(self.metric_query(metric, item, period))
        assert self.world is not None  # keyed by the world's measure: a lens's headcount is not the trade's
        return self.remember(("metric", self.world.key(metric), item, period), make)

    def booked(self, slug: str, item: str, start: int, months: int, period: str,
               draw: Callable[[Rng], object]) -> tuple[Decimal, WorldQuery]:
        """What the issuer's world booked for (``slug``, ``item``) over the months (``IssuerWorldBuilder.book``;
        ``draw`` makes it the first time any document of the issuer asks) and the query whose answer it is:
        a figure that is not a closed-form driver of the world (a ledger posting, a statement line of the
        issuer's accounts, a risk's score) is still one value in all the issuer's documents."""
        assert self.world is not None
        value = self.world.book(slug, item, start, months, draw)
        self.asked.add((slug, item, start, months))  # this booking, not the others of the key
        return value, self.world.booked_query(slug, [item], start, months, period)

    def booked_in(self, slug: str, item: str, period: str,
                  draw: Callable[[Rng], object]) -> tuple[Decimal, WorldQuery]:
        """``booked`` over a period label ("FY2024", "Q3 2024", "Mar 2024")."""
        pm = period_months(period)
        if pm is None:
            raise ValueError(f"not a period: {period!r}")
        return self.booked(slug, item, pm[0], pm[1], period, draw)

    def world_record(self) -> IssuerWorld | None:
        """The part of the issuer's world this document asked (None when it printed no measure)."""
        if not self.asked:
            return None
        assert self.world is not None
        return self.world.stored(sorted(self.asked))
