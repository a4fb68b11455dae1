"""Building an issuer's world (``ir.world``) from its stream and the catalogue's relations.

``IssuerWorldBuilder`` is the world of one issuer as its documents ask it: an entry (a driver, or a relation
to another measure of the item) is drawn the first time a document asks for it, from the issuer's stream
forked by (measure, item), so what an entry holds never depends on which document asked first or in which
order: the world is fixed by the issuer's seed before any document is planned, and materialised as far as
documents look at it. ``stored()`` is the part a document asked (recorded in its IR); ``corpus.verify``
evaluates the document's facts against it with ``ir.world.evaluate``.

The relations are data (``generation/catalogue/world.yaml``), validated on load against the domains'
measures: a relation naming a measure the domain does not have fails naming the file and key.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import cache

from pydantic import Field, model_validator

from synthdocqa.ir.rng import Rng
from synthdocqa.ir.world import (
    Booked,
    Entry,
    IssuerWorld,
    Measure,
    Relation,
    Trajectory,
    WorldQuery,
    evaluate,
    raw,
)

from . import catalogue
from .catalogue import CatalogueError
from .domains import DOMAINS, LENSES, Domain, Metric, get_domain

WORLD_FILE = "world.yaml"
BOOKED_DIR = "booked"
"""Catalogue folder of the measures the world books (``booked/<area>.yaml``: ``<area>.<name>`` in the world)."""


class RelationSpec(catalogue.Entry):
    """One measure that follows from another (see the header of ``catalogue/world.yaml``)."""

    per: str | None = None
    ratio: tuple[str, str] | None = None
    low: float | None = None
    high: float | None = None
    scale: float = Field(default=1.0, gt=0)
    growth: tuple[float, float] = (0.0, 0.03)
    unit: str = ""
    items: dict[str, tuple[float, float]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _shape(self) -> RelationSpec:
        if (self.per is None) == (self.ratio is None):
            raise ValueError("give exactly one of per and ratio")
        if self.per is not None:
            if self.low is None or self.high is None:
                raise ValueError("a per relation needs low and high (the factor's range)")
            for name, (lo, hi) in {"": (self.low, self.high), **self.items}.items():
                if not 0 <= lo <= hi:
                    raise ValueError(f"factor range {'of ' + name + ' ' if name else ''}[{lo}, {hi}] is not "
                                     "0 <= low <= high")
        if self.growth[0] > self.growth[1]:
            raise ValueError(f"growth range {list(self.growth)} is not low <= high")
        return self

    def bounds(self, item: str) -> tuple[float, float]:
        lo, hi = self.items.get(item, (self.low, self.high))
        assert lo is not None and hi is not None
        return float(lo), float(hi)


class WorldCatalogue(catalogue.Entry):
    domains: dict[str, dict[str, RelationSpec]] = Field(default_factory=dict)
    lenses: dict[str, dict[str, RelationSpec]] = Field(default_factory=dict)
    only: dict[str, dict[str, list[str]]] = Field(default_factory=dict)


def _check_names(cat: WorldCatalogue) -> None:
    """Every domain, lens, measure and item the file names exists (``CatalogueError`` naming the key)."""
    def fail(key: str, msg: str) -> None:
        raise CatalogueError(f"catalogue/{WORLD_FILE}: {key}: {msg}")

    def check(where: str, rels: dict[str, RelationSpec], metrics: Sequence[Metric], items: Sequence[str]) -> None:
        names = {m.name for m in metrics}
        for name, rel in rels.items():
            if name not in names:
                fail(f"{where}.{name}", f"no such measure; the measures are {sorted(names)}")
            for other in (rel.per,) if rel.per else rel.ratio or ():
                if other not in names:
                    fail(f"{where}.{name}", f"follows from {other!r}, which is not a measure here")
            for item in rel.items:
                if items and item not in items:
                    fail(f"{where}.{name}.items.{item}", "no such item")
            metric = next(m for m in metrics if m.name == name)
            if rel.per and metric.behaviour != "flow":  # the world sums a per relation's months: flows only
                fail(f"{where}.{name}", f"a per relation makes a flow; {name} is a {metric.behaviour}")
            if rel.per and rel.per in rels and rels[rel.per].ratio:
                fail(f"{where}.{name}", f"follows from {rel.per!r}, itself a ratio: follow from its parts")
    slugs = {d.slug for d in DOMAINS}
    for slug, rels in cat.domains.items():
        if slug not in slugs:
            fail(f"domains.{slug}", "no such domain")
        d = get_domain(slug)
        check(f"domains.{slug}", rels, d.metrics, d.items)
    for lens, rels in cat.lenses.items():
        if lens not in LENSES:
            fail(f"lenses.{lens}", f"no such lens; the lenses are {sorted(LENSES)}")
        lz = LENSES[lens]
        check(f"lenses.{lens}", rels, (*lz.metrics, *(lz.heavy_metrics or ())), ())
    for slug, measures in cat.only.items():
        if slug not in slugs:
            fail(f"only.{slug}", "no such domain")
        d = get_domain(slug)
        for name, items in measures.items():
            if d.metric(name) is None:
                fail(f"only.{slug}.{name}", "no such measure")
            bad = [i for i in items if i not in d.items]
            if bad:
                fail(f"only.{slug}.{name}", f"no such items {bad}")


@cache
def world_catalogue() -> WorldCatalogue:
    """The relations of ``catalogue/world.yaml``, validated against the domains (once per process)."""
    cat = catalogue.load(WORLD_FILE, WorldCatalogue)
    _check_names(cat)
    return cat


@cache
def booked_measure(slug: str) -> Measure:
    """The measure ``<area>.<name>`` of ``catalogue/booked/<area>.yaml`` (once per process): each entry of the file
    is an ``ir.world.Measure`` less its slug (name, kind, quantity, behaviour, low, high, unit), validated as one,
    so a booked measure and a driven one are the same contract."""
    area, _, name = slug.partition(".")
    if not name:
        raise KeyError(f"a booked measure is named <area>.<name>, not {slug!r}")
    file = f"{BOOKED_DIR}/{area}.yaml"
    table = _booked_file(file)
    if name not in table:
        raise catalogue.error(file, name, f"no such measure; the measures are {sorted(table)}")
    return table[name]


@cache
def _booked_file(file: str) -> dict[str, Measure]:
    data = catalogue.raw(file)
    if not isinstance(data, dict):
        raise catalogue.error(file, "(top level)", "a mapping of measure names")
    area = file.rsplit("/", 1)[-1].removesuffix(".yaml")
    out = {}
    for k, v in data.items():
        if not isinstance(v, dict):
            raise catalogue.error(file, str(k), "a mapping of the measure's fields")
        if "slug" in v:
            raise catalogue.error(file, f"{k}.slug", "the slug is <area>.<name>, not a field")
        try:
            out[str(k)] = catalogue.validate(file, {**v, "slug": f"{area}.{k}"}, Measure)
        except catalogue.CatalogueError as err:  # name the measure the field belongs to
            raise catalogue.CatalogueError(str(err).replace(f"catalogue/{file}: ", f"catalogue/{file}: {k}.", 1)) from None
    return out


def booked_areas() -> list[str]:
    """The areas of ``catalogue/booked/`` (the file stems)."""
    return sorted(p.stem for p in (catalogue.HERE / BOOKED_DIR).glob("*.yaml"))


def lens_of(trade: Domain, metric: Metric) -> str:
    """"" when ``metric`` is one of the trade's own measures, else the lens it comes from."""
    if any(m == metric for m in trade.metrics):
        return ""
    for slug, lens in LENSES.items():
        if metric in lens.metrics or metric in (lens.heavy_metrics or ()):
            return slug
    raise KeyError(f"measure {metric.name!r} is neither {trade.slug}'s nor a lens's")


def relation_spec(trade: Domain, metric: Metric) -> RelationSpec | None:
    lens = lens_of(trade, metric)
    cat = world_catalogue()
    table = cat.lenses.get(lens, {}) if lens else cat.domains.get(trade.slug, {})
    return table.get(metric.name)


def applies(trade: Domain, metric: Metric, item: str) -> bool:
    """Whether ``metric`` exists for ``item`` in the issuer's trade (an outpatient clinic has no beds)."""
    only = world_catalogue().only.get(trade.slug, {}).get(metric.name)
    return only is None or item in only


def _log_uniform(rng: Rng, low: float, high: float) -> float:
    if low <= 0 or high / low <= 20:
        return rng.uniform(low, high)
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def level_range(metric: Metric | Measure) -> tuple[float, float]:
    """Where a driver's level is drawn: the top 2.5 decades of the range (no pile-up near zero)."""
    lo, hi = metric.low, metric.high
    floor = max(lo, 1.0) if metric.small_count else max(lo, hi / 300, 1e-6)
    return floor, hi


class IssuerWorldBuilder:
    """The world of one issuer (key ``issuer``, stream ``rng``, trade ``trade``), drawn entry by entry.

    ``ref`` is the issuer's reference month (year x 12 + month - 1): growth counts from it, and its year is
    the one whose totals a running total (cost to date) heads for.
    """

    def __init__(self, issuer: str, rng: Rng, trade: Domain, ref: int) -> None:
        self.issuer = issuer
        self.rng = rng
        self.trade = trade
        self.ref = ref
        self._metrics: dict[str, Metric] = {}
        self._measures: dict[str, Measure] = {}
        self._entries: dict[tuple[str, str], Entry] = {}
        self._booked: dict[tuple[str, str], dict[tuple[int, int], Decimal]] = {}
        self._booked_entries: dict[tuple[str, str], Entry] = {}
        self.memo: dict = {}
        """What the issuer's documents derive from its world once (its accounts by quarter): pure functions of the
        issuer's stream, kept here so every document of the issuer in this process reads the same."""

    # ---------------------------------------------------------------- the resolver ``ir.world`` evaluates
    def measure(self, slug: str) -> Measure:
        return self._measures[slug]

    def entry(self, measure: str, item: str) -> Entry:
        key = (measure, item)
        if key in self._booked:  # made again only when the key gets a new booking (evaluation asks it often)
            if key not in self._booked_entries:
                self._booked_entries[key] = Entry(measure=measure, item=item, booked=[
                    Booked(start=s, months=n, value=v) for (s, n), v in sorted(self._booked[key].items())])
            return self._booked_entries[key]
        if key not in self._entries:
            self._entries[key] = self._draw(self._metrics[measure], item)
        return self._entries[key]

    # ---------------------------------------------------------------- the builder's own
    def remember(self, key: tuple, make: Callable[[], object]):
        """``make()`` once per issuer and process (its accounts, its journal, its programme): ``make`` must be a pure
        function of the issuer's stream and world, so every document of the issuer reads the same."""
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def key(self, metric: Metric) -> str:
        """The measure's key in the world: its slug for the trade's measures, ``<lens>.<slug>`` for a lens's
        (a people lens's headcount by department is not corporate finance's headcount by region)."""
        lens = lens_of(self.trade, metric)
        slug = f"{lens}.{metric.slug}" if lens else metric.slug
        if slug not in self._measures:
            self._metrics[slug] = metric
            self._measures[slug] = Measure(slug=slug, name=metric.name, kind=metric.kind,  # type: ignore[arg-type]
                                           quantity=metric.quantity, behaviour=metric.behaviour, low=metric.low,
                                           high=metric.high, unit=metric.unit)
            spec = relation_spec(self.trade, metric)
            for other in (spec.per,) if spec and spec.per else (spec.ratio or ()) if spec else ():
                self.key(self._sibling(metric, other))
        return slug

    def _sibling(self, metric: Metric, name: str) -> Metric:
        lens = lens_of(self.trade, metric)
        if not lens:
            m = self.trade.metric(name)
        else:
            lz = LENSES[lens]
            pool = lz.heavy_metrics if metric in (lz.heavy_metrics or ()) else lz.metrics
            m = next((x for x in pool if x.name == name), None)
        if m is None:
            raise KeyError(f"{name!r} is not a measure next to {metric.name!r}")
        return m

    def _trajectory(self, rng: Rng, timing: Rng, m: Measure, total: float | None) -> Trajectory:
        b = m.behaviour
        if m.quantity == "rate":
            level = rng.uniform(m.low, m.high)
            growth = rng.uniform(-2.5, 2.5)  # percentage points a year
        else:
            level = _log_uniform(rng, *level_range(m))
            growth = {"flow": rng.uniform(-0.12, 0.22), "stock": rng.uniform(-0.08, 0.12)}.get(b,
                                                                                         rng.uniform(-0.06, 0.06))
        season = rng.uniform(0.0, 0.12) if b == "flow" else 0.0
        phase = rng.uniform(0.0, 2 * math.pi)
        sd = {"flow": 0.06, "stock": 0.015}.get(b, 0.5 if m.quantity == "rate" else 0.03)
        start = self.ref - timing.integers(6, 30)
        span = timing.integers(18, 48)
        if b == "cumulative":
            level = 100.0 if m.quantity == "rate" else (total * rng.uniform(0.85, 1.05) if total else level)
        return Trajectory(level=level, growth=growth, season=season, phase=phase, noise_seed=rng.child_seed(),
                          noise_sd=sd, start=start, span=span, ref=self.ref)

    def _draw(self, metric: Metric, item: str) -> Entry:
        slug = self.key(metric)
        m = self._measures[slug]
        rng = self.rng.fork("entry", slug, item)
        spec = relation_spec(self.trade, metric)
        if spec is None:
            total = None
            if metric.total_of:  # a running total heads for its measure's year (cost to date -> contract value)
                linked = self.key(self._sibling(metric, metric.total_of))
                year = (self.ref // 12) * 12
                total = raw(self, linked, item, year, 12)
            return Entry(measure=slug, item=item,
                         driver=self._trajectory(rng, self.rng.fork("timing", item), m, total))
        if spec.ratio is not None:
            of = [self.key(self._sibling(metric, n)) for n in spec.ratio]
            return Entry(measure=slug, item=item, relation=Relation(op="ratio", of=of, scale=spec.scale))
        lo, hi = spec.bounds(item)
        factor = Trajectory(level=_log_uniform(rng, lo, hi), growth=rng.uniform(*spec.growth), noise_seed=
                            rng.child_seed(), noise_sd=0.01, start=self.ref, span=1, ref=self.ref)
        base = self.key(self._sibling(metric, spec.per or ""))
        return Entry(measure=slug, item=item, relation=Relation(op="per", of=[base], factor=factor,
                                                                scale=spec.scale, low=lo, high=hi))

    def book(self, slug: str, item: str, start: int, months: int, draw: Callable[[Rng], object]) -> Decimal:
        """What the world books for (``slug``, ``item``) over ``months`` months from ``start``: ``draw`` is called
        once per issuer, with the issuer's stream forked by the key, and must depend on nothing but that stream
        and values of the world (so which document asks first cannot change it: documents built in other
        processes agree). A value outside the catalogue's range of the measure is refused."""
        if slug not in self._measures:
            self._measures[slug] = booked_measure(slug)
        key = (slug, item)
        if key in self._entries:
            raise KeyError(f"{slug}/{item} is driven by the world; it cannot also be booked")
        period = (start, months)
        books = self._booked.setdefault(key, {})
        if period not in books:
            value = Decimal(str(draw(self.rng.fork("booked", slug, item, start, months))))
            m = self._measures[slug]
            if not m.low <= value <= m.high:
                raise ValueError(f"{slug}/{item}: booked {value} outside the measure's range [{m.low}, {m.high}] "
                                 f"(catalogue/{BOOKED_DIR}/{slug.partition('.')[0]}.yaml)")
            books[period] = value
            self._booked_entries.pop(key, None)
        return books[period]

    def booked_query(self, slug: str, items: Sequence[str], start: int, months: int, period: str) -> WorldQuery:
        """The question whose answer is what the world booked for ``items`` over the months (booked before)."""
        return WorldQuery(measure=slug, items=list(items), period=period, start=start, months=months)

    def query(self, metric: Metric, items: Sequence[str], start: int, months: int, period: str,
              money_decimals: int = 0) -> WorldQuery:
        return WorldQuery(measure=self.key(metric), items=list(items), period=period, start=start, months=months,
                          money_decimals=money_decimals)

    def value(self, q: WorldQuery) -> Decimal:
        return evaluate(self, q)

    def stored(self, keys: Sequence[tuple] | None = None) -> IssuerWorld:
        """The entries asked so far (or those ``keys`` need), with what they follow from, as a contract. A key is
        (measure, item), or (measure, item, start, months) for one booking: a document records the bookings it
        asked, not those other documents of the issuer asked before it in this process (its IR must not depend
        on what else a worker planned)."""
        want = [*self._entries, *self._booked] if keys is None else [k for k in keys if len(k) == 2]
        periods: dict[tuple[str, str], set[tuple[int, int]]] = {}
        for k in keys or ():
            if len(k) == 4:
                periods.setdefault((k[0], k[1]), set()).add((k[2], k[3]))
        seen: dict[tuple[str, str], Entry] = {}
        for k, wanted in periods.items():
            books = self._booked[k]
            seen[k] = Entry(measure=k[0], item=k[1], booked=[Booked(start=s, months=n, value=books[(s, n)])
                                                             for s, n in sorted(wanted)])
        while want:
            k = want.pop()
            if k in seen:
                continue
            e = self.entry(*k)
            seen[k] = e
            if e.relation is not None:
                want.extend((o, k[1]) for o in e.relation.of)
        used = {k[0] for k in seen}
        return IssuerWorld(issuer=self.issuer, measures=[self._measures[s] for s in sorted(used)],
                           entries=[seen[k] for k in sorted(seen)])


__all__ = ["IssuerWorldBuilder", "RelationSpec", "booked_areas", "booked_measure", "WorldCatalogue", "applies", "lens_of", "relation_spec",
           "world_catalogue"]
