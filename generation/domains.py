"""The 50 enterprise domains and the document recipes: the classes that hold them, built from the catalogue.

A domain carries the vocabulary a document of that field is written in: row labels for its tables
(``items``), the metrics it reports (with value kind, unit and a plausible range), job roles, departments,
discussion topics, action items and checkbox statements. A recipe is a kind of document (annual report,
invoice, audit memo, ...): its title pattern, the grammar of its sections and the domain tags it suits.
Recipes with no tags suit every domain.

The data itself is YAML in ``generation/catalogue/`` (package data), so it can be listed, diffed and
extended without touching the generators:

- ``domains/<slug>.yaml``, one file per domain: a domain is a page of vocabulary that is read, reviewed and
  added on its own, so a file each keeps a diff or an error to that domain's file, and the order of
  ``DOMAINS`` comes from ``ir.vocab.DOMAIN_SLUGS`` alone, with no second list to keep in step;
- ``recipes.yaml``: the recipes in ``ir.vocab.RECIPE_SLUGS`` order, in one file because they are read side
  by side and share their element and table mixes (YAML anchors);
- ``lenses.yaml`` (what a section reports on besides the issuer's trade), ``tags.yaml`` (a domain tag's
  style families, heavy industry) and ``metrics.yaml`` (metrics whose meaning their kind and unit do not
  give).

This module holds the files' schema (the ``*Entry`` models), the checks that span files and the frozen
classes the generators read. Everything is read and checked once, at import (``read_catalogue``): a
misspelt key, an unknown table kind, chart kind, element type, style family, tag or lens, a range whose low
is above its high or a missing domain fails there with a ``CatalogueError`` naming the file and the key
(``catalogue/recipes.yaml: recipes.annual_report.tables.regster: Input should be 'comparison', ...``),
never deep inside a document's planning.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Annotated, Literal, get_args

from pydantic import Field, StrictInt, StringConstraints, field_validator, model_validator

from synthdocqa.ir.vocab import (
    CHART_KINDS,
    DOMAIN_SLUGS,
    ELEMENT_TYPES,
    RECIPE_SLUGS,
    ChartKind,
    DomainSlug,
    ElementType,
    Quantity,
    RecipeSlug,
    StyleFamily,
    TableKind,
)
from synthdocqa.ir.world import Behaviour, MeasureKind

from . import catalogue
from .catalogue import Entry, error

MetricKind = MeasureKind
"""The value type of a metric (``ir.world.MeasureKind``: the world evaluates and rounds by it)."""
GenreClass = Literal["narrative", "report", "transactional"]

_QUANTITY_OF_KIND: dict[str, Quantity] = {"money": "amount", "count": "count", "percent": "rate"}
_DURATION_UNITS = frozenset({"hours", "days", "minutes"})


# ---------------------------------------------------------------- the files' schema

Text = Annotated[str, StringConstraints(min_length=1)]
Words = Annotated[tuple[Text, ...], Field(min_length=1)]
Number = Annotated[float, Field(strict=True)]
"""An int or a float, never a string or a boolean: YAML reads ``1e5`` as a string and ``no`` as false."""
Weight = Annotated[float, Field(strict=True, ge=0)]


class MetricEntry(Entry):
    """A metric as a file writes it: ``{name: Units sold, kind: count, low: 100, high: 200000, unit: vehicles}``
    (``low`` and ``high``: the plausible range of a value; ``unit``: of a number or a count)."""

    name: Text
    kind: MetricKind
    low: Number
    high: Number
    unit: str = ""

    @model_validator(mode="after")
    def _range(self) -> MetricEntry:
        if self.low > self.high:
            raise ValueError(f"{self.name}: low {self.low:.12g} is above high {self.high:.12g}")
        return self


def _distinct_names(metrics: tuple[MetricEntry, ...]) -> tuple[MetricEntry, ...]:
    names = [m.name for m in metrics]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"metric named twice: {twice}")
    return metrics


class DomainEntry(Entry):
    """``domains/<slug>.yaml``: the fields of ``Domain`` (its slug is the file's name; its style families
    are its tags', ``tags.yaml``)."""

    title: Text
    description: Text
    tags: Words
    item_kind: Text
    items: Words
    metrics: Annotated[tuple[MetricEntry, ...], Field(min_length=1)]
    roles: Words
    departments: Words
    topics: Words
    actions: Words
    checks: Words
    currency: Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
    id_prefix: Text
    org_words: Words
    entity_kinds: Words = ("person", "organisation")

    _metrics = field_validator("metrics")(_distinct_names)


class TagEntry(Entry):
    styles: Annotated[tuple[StyleFamily, ...], Field(min_length=1)]
    heavy: bool = False


class TagsFile(Entry):
    """``tags.yaml``: each domain tag's style families (in order) and whether its issuers run plants."""

    tags: dict[Text, TagEntry]


class SemanticsEntry(Entry):
    quantity: Quantity | None = None
    behaviour: Behaviour | None = None
    total_of: str = ""


class MetricsFile(Entry):
    """``metrics.yaml``: by metric name, what its kind and unit do not say (``metric_semantics``)."""

    metrics: dict[Text, SemanticsEntry]


class LensEntry(Entry):
    """A lens of ``lenses.yaml``: the fields of ``Lens``, or ``combines`` (other lenses whose sites, metrics
    and actions it reports on together) and its own topics."""

    combines: tuple[Text, ...] = ()
    item_kind: str = ""
    items: tuple[Text, ...] = ()
    heavy_items: tuple[Text, ...] = ()
    metrics: tuple[MetricEntry, ...] = ()
    heavy_metrics: tuple[MetricEntry, ...] = ()
    topics: Words
    actions: tuple[Text, ...] = ()

    _metrics = field_validator("metrics", "heavy_metrics")(_distinct_names)

    @model_validator(mode="after")
    def _own_or_combined(self) -> LensEntry:
        own = [k for k in ("item_kind", "items", "heavy_items", "metrics", "heavy_metrics", "actions")
               if getattr(self, k)]
        if self.combines and own:
            raise ValueError(f"a lens that combines others takes {own} from them")
        if not self.combines:
            missing = [k for k in ("item_kind", "metrics", "actions") if not getattr(self, k)]
            if missing:
                raise ValueError(f"missing {missing} (or `combines`)")
        return self


class LensesFile(Entry):
    """``lenses.yaml``: the lenses by slug."""

    lenses: dict[Text, LensEntry]

    @field_validator("lenses")
    @classmethod
    def _combined_lenses(cls, lenses: dict[str, LensEntry]) -> dict[str, LensEntry]:
        for slug, lens in lenses.items():
            parts = [lenses.get(p) for p in lens.combines]
            if None in parts or any(p.combines for p in parts if p):
                raise ValueError(f"{slug}.combines: {list(lens.combines)}: each must be a lens of its own "
                                 f"(one of {[s for s, e in lenses.items() if not e.combines]})")
            if len({(p.item_kind, p.items, p.heavy_items) for p in parts if p}) > 1:
                raise ValueError(f"{slug}.combines: {list(lens.combines)} report on different sites")
        return lenses


class SectionEntry(Entry):
    """A section of a recipe's grammar: the fields of ``Section``."""

    title: Text
    blocks: tuple[Text, ...] = ()
    required: bool = True
    prose: bool = False
    lens: str = ""
    weight: Annotated[float, Field(gt=0, le=4)] | None = None
    paragraphs: Annotated[int, Field(ge=0, le=20)] = 0


class RecipeEntry(Entry):
    """A recipe of ``recipes.yaml``: the fields of ``Recipe`` (its slug is its key); ``front_matter: false``
    and ``appendix: false`` keep a long document of it from a cover and contents, or from an appendix."""

    title: Text
    noun: Text
    description: Text
    title_pattern: Text
    genre_class: GenreClass
    front_matter: bool = True
    appendix: bool = True
    tags: tuple[Text, ...] = ()
    pages: tuple[StrictInt, StrictInt, StrictInt]
    elements: dict[ElementType, Weight] = {}
    charts: tuple[ChartKind, ...] = CHART_KINDS
    tables: dict[TableKind, Weight] = {}
    lens: str = ""
    grammar: Annotated[tuple[SectionEntry, ...], Field(min_length=1)]

    @field_validator("pages")
    @classmethod
    def _pages(cls, pages: tuple[int, int, int]) -> tuple[int, int, int]:
        if not 1 <= pages[0] <= pages[1] <= pages[2]:
            raise ValueError(f"{list(pages)}: must be min <= typical <= max, from 1 page")
        return pages


class RecipesFile(Entry):
    """``recipes.yaml``: the recipes in ``RECIPE_SLUGS`` order, and what the planner and lint read of all
    of them (the table kinds of a recipe that names none, the prose share of each genre class, the title of
    a long document's appendix)."""

    default_tables: dict[TableKind, Weight]
    prose_share: dict[GenreClass, tuple[Number, Number]]
    appendix_title: Text
    recipes: dict[RecipeSlug, RecipeEntry]

    @field_validator("prose_share")
    @classmethod
    def _every_class(cls, share: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
        missing = [c for c in get_args(GenreClass) if c not in share]
        if missing:
            raise ValueError(f"no share for {missing}")
        return share

    @field_validator("recipes")
    @classmethod
    def _in_vocab_order(cls, recipes: dict[str, RecipeEntry]) -> dict[str, RecipeEntry]:
        missing = [s for s in RECIPE_SLUGS if s not in recipes]
        if missing:
            raise ValueError(f"missing {missing} (ir.vocab.RECIPE_SLUGS)")
        if tuple(recipes) != RECIPE_SLUGS:
            raise ValueError(f"not in the order of ir.vocab.RECIPE_SLUGS: {list(RECIPE_SLUGS)}")
        return recipes


# ---------------------------------------------------------------- the classes the generators read

@dataclass(frozen=True)
class Metric:
    """A reported quantity: ``kind`` decides the value type, ``unit`` the unit of numbers, ``quantity`` the
    arithmetic that means something on it (``ir.arithmetic_rules``) and ``behaviour`` how it moves over time."""

    name: str
    kind: MetricKind
    low: float
    high: float
    unit: str = ""
    quantity: Quantity = "amount"
    behaviour: Behaviour = "flow"
    total_of: str = ""
    """a running total heads for this metric of the same item (cost to date -> contract value)"""

    @cached_property
    def slug(self) -> str:
        return "_".join("".join(c for c in w if c.isalnum()) for w in self.name.lower().split())

    @property
    def small_count(self) -> bool:
        """A count that is often in single digits: its change is stated in units, never in percent."""
        return self.quantity == "count" and self.high <= 200


def metric_semantics(name: str, kind: str, unit: str) -> tuple[Quantity, Behaviour]:
    """Semantic type and behaviour over time of a metric (kind and unit decide, the metrics named in
    ``metrics.yaml`` first)."""
    named = catalogue.load("metrics.yaml", MetricsFile).metrics.get(name)
    quantity, behaviour = (named.quantity, named.behaviour) if named else (None, None)
    if quantity is None:
        quantity = _QUANTITY_OF_KIND.get(kind) or ("duration" if unit in _DURATION_UNITS else "amount")
    if behaviour is None:
        behaviour = "level" if quantity in ("rate", "ratio", "index") else "flow"
    return quantity, behaviour


@dataclass(frozen=True)
class Domain:
    slug: DomainSlug
    title: str
    description: str
    tags: tuple[str, ...]
    item_kind: str
    items: tuple[str, ...]
    metrics: tuple[Metric, ...]
    roles: tuple[str, ...]
    departments: tuple[str, ...]
    topics: tuple[str, ...]
    actions: tuple[str, ...]
    checks: tuple[str, ...]
    currency: str
    id_prefix: str
    org_words: tuple[str, ...]
    style_families: tuple[StyleFamily, ...]
    entity_kinds: tuple[str, ...] = ("person", "organisation")

    @property
    def recipes(self) -> tuple[RecipeSlug, ...]:
        return tuple(r.slug for r in RECIPES if not r.tags or set(r.tags) & set(self.tags))

    def metric(self, slug: str) -> Metric | None:
        return next((m for m in self.metrics if m.slug == slug or m.name == slug), None)


@dataclass(frozen=True)
class Section:
    """One section of a genre's grammar: its heading, the genre blocks it holds (built at its start, in this
    order: ``generation.content.genre``) and whether every document of the genre has it."""

    title: str
    blocks: tuple[str, ...] = ()
    required: bool = True
    prose: bool = False
    """a section of text (a letter, a background, an outlook): written, with no general tables or charts"""
    lens: str = ""
    """what the section's general content reports on when it is not the issuer's trade (``LENSES``; "" for
    the recipe's own lens, or the trade)"""
    weight: float | None = None
    """the section's share of the document's body pages against a full section's 1.0 (a research report's
    results run longer than its introduction); None: the planner's default (a third for short sections such as
    an abstract, see ``planner.SHORT_SECTIONS``)"""
    paragraphs: int = 0
    """how many paragraphs of text the section holds at most (an abstract is one); 0: as many as its pages take"""


def T(title: str, *blocks: str, lens: str = "") -> Section:
    """A required section of text (opening with ``blocks``, if any: a scope's table of controls); ``T``,
    ``S`` and ``O`` write a grammar in code (a test's), as ``recipes.yaml`` does in data."""
    return Section(title, tuple(blocks), prose=True, lens=lens)


def S(title: str, *blocks: str, lens: str = "") -> Section:
    """A required section holding ``blocks``."""
    return Section(title, tuple(blocks), lens=lens)


def O(title: str, *blocks: str, prose: bool = False) -> Section:  # noqa: E743 - the grammar's "optional"
    """An optional section (a document of the genre leaves it out now and then)."""
    return Section(title, tuple(blocks), required=False, prose=prose)


@dataclass(frozen=True)
class Recipe:
    """A kind of document. Besides its title and sections it says what fits it: its length in pages
    (``pages``: min, typical, max), how its blocks lean (``elements``: multipliers of the spec's element mix),
    which charts it may hold and which table kinds it uses (weights; empty: the planner's defaults)."""

    slug: RecipeSlug
    title: str
    noun: str
    description: str
    title_pattern: str
    grammar: tuple[Section, ...]
    tags: tuple[str, ...] = ()
    pages: tuple[int, int, int] = (4, 12, 40)
    elements: dict[ElementType, float] = field(default_factory=dict)
    charts: tuple[ChartKind, ...] = CHART_KINDS
    tables: dict[TableKind, float] = field(default_factory=dict)
    lens: str = ""
    """what the recipe's sections report on by default (``LENSES``; "": the issuer's trade)"""
    genre_class: GenreClass = "report"
    """narrative genres are read as text with exhibits, transactional ones as tables and forms"""
    front_matter_allowed: bool = True
    """False: never a cover and contents, however long (a scanned archive, a dashboard)"""
    appendix_allowed: bool = True
    """False: no appendix even with a contents page (minutes and briefings)"""

    @property
    def sections(self) -> tuple[str, ...]:
        """The section headings of the grammar, in order (title patterns: ``{Item_kind} Performance``)."""
        return tuple(sec.title for sec in self.grammar)

    @property
    def genre_blocks(self) -> frozenset[str]:
        """Every genre block kind the grammar holds (lint allows no other)."""
        return frozenset(b for sec in self.grammar for b in sec.blocks)

    @property
    def generic_elements(self) -> frozenset[ElementType]:
        """The general element kinds the genre's sections are filled with besides their genre blocks: a
        form only where the genre files forms (a form pack, a claim, a training record), never in a report."""
        return frozenset(e for e in ELEMENT_TYPES if self.element_weight(e) > 0)

    @property
    def keeps_register(self) -> bool:
        """Whether the genre keeps a ledger: its appendix is the register of postings (a report's holds its data
        tables, and its text speaks of no postings)."""
        return self.tables.get("register", 0) > 0

    @property
    def plural_noun(self) -> bool:
        """Whether the document's noun takes a plural verb ("these minutes are issued")."""
        from .content.wording import is_plural  # inflect (generation.content imports this module)

        return is_plural(self.noun)

    @property
    def this_noun(self) -> str:
        """The document referring to itself: "this policy", "these minutes"."""
        return f"{'these' if self.plural_noun else 'this'} {self.noun}"

    @property
    def prose_share(self) -> tuple[float, float]:
        """The range of the share of a rendered page's content area that paragraphs cover (lint checks
        each document of the recipe against it)."""
        return PROSE_SHARE[self.genre_class]

    @property
    def front_matter(self) -> bool:
        """Whether a long document of the recipe opens with a cover and a table of contents and numbers its
        sections (a report does; an invoice, a log, an archive file or a form pack does not)."""
        return self.genre_class != "transactional" and self.pages[1] >= 12 and self.front_matter_allowed

    @property
    def appendix(self) -> str:
        """The title of the appendix a long document of the recipe ends with ("" for none): reports with a
        contents page carry their long schedules there, minutes and briefings do not."""
        return APPENDIX_TITLE if self.front_matter and self.appendix_allowed else ""

    def lens_of(self, section: Section) -> str:
        """The lens a section of this recipe is seen through ("" for the issuer's trade)."""
        return section.lens or self.lens

    def fits(self, n_pages: int) -> bool:
        return self.pages[0] <= n_pages <= self.pages[2]

    def element_weight(self, element: ElementType) -> float:
        if element == "figure" and not self.charts:
            return 0.0
        return self.elements.get(element, 1.0)


APPENDIX_MIN_PAGES = 16
"""A document of a recipe with an appendix this long ends with one (two pages from 40 pages on)."""
FRONT_MATTER_MIN_PAGES = 8
"""A document of a front-matter recipe this long has a cover page and a table of contents."""


@dataclass(frozen=True)
class Lens:
    """What a section reports on when it is not the issuer's trade. A sustainability report's Resources
    report energy, water and waste by site and its People headcount and turnover by department, whatever
    the issuer sells: seen through a lens (``view``), the domain keeps its name, people, departments,
    checks and currency and takes the lens's row labels, metrics, topics and actions, so the section's
    general tables, charts and paragraphs speak of the section's subject. ``items`` empty: the domain's
    departments are the rows. Issuers of energy or industry (``HEAVY_TAGS``) run plants, not offices:
    they get ``heavy_items`` and ``heavy_metrics`` where the lens has them. The ranges are narrow (within
    10x: drawn uniformly, ``dynamics.level_range``) so that no site uses a hundred times the water of another
    while its energy is the smallest."""

    slug: str
    item_kind: str
    items: tuple[str, ...]
    metrics: tuple[Metric, ...]
    topics: tuple[str, ...]
    actions: tuple[str, ...]
    heavy_items: tuple[str, ...] = ()
    heavy_metrics: tuple[Metric, ...] = ()


def view(domain: Domain, lens: str) -> Domain:
    """``domain`` seen through the lens named ``lens`` ("": the domain itself)."""
    if not lens:
        return domain
    return _view(domain, LENSES[lens])


@cache
def _view(domain: Domain, lens: Lens) -> Domain:
    heavy = any(t in domain.tags for t in HEAVY_TAGS)
    items = (lens.heavy_items if heavy and lens.heavy_items else lens.items) or domain.departments
    metrics = lens.heavy_metrics if heavy and lens.heavy_metrics else lens.metrics
    return replace(domain, item_kind=lens.item_kind, items=items, metrics=metrics, topics=lens.topics,
                   actions=lens.actions)


# ---------------------------------------------------------------- reading the catalogue

@dataclass(frozen=True)
class Catalogue:
    """Everything the catalogue's files hold, checked across files and built into the classes above."""

    domains: tuple[Domain, ...]
    recipes: tuple[Recipe, ...]
    lenses: dict[str, Lens]
    heavy_tags: tuple[str, ...]
    default_tables: dict[TableKind, float]
    prose_share: dict[GenreClass, tuple[float, float]]
    appendix_title: str


def _first_unknown(names: Sequence[str], known: Collection[str]) -> tuple[int, str] | None:
    return next(((i, n) for i, n in enumerate(names) if n not in known), None)


def _metrics(file: str, where: str, entries: tuple[MetricEntry, ...]) -> tuple[Metric, ...]:
    """The metrics of a domain or a lens, with their semantics; a running total needs the metric it heads
    for beside it."""
    named = catalogue.load("metrics.yaml", MetricsFile).metrics
    names = {e.name for e in entries}
    out = []
    for i, e in enumerate(entries):
        total_of = named[e.name].total_of if e.name in named else ""
        if total_of and total_of not in names:
            raise error(file, f"{where}[{i}]", f"{e.name} is a running total of {total_of!r} (metrics.yaml), "
                                               f"which is not a metric here")
        quantity, behaviour = metric_semantics(e.name, e.kind, e.unit)
        out.append(Metric(name=e.name, kind=e.kind, low=e.low, high=e.high, unit=e.unit, quantity=quantity,
                          behaviour=behaviour, total_of=total_of))
    return tuple(out)


def _lenses() -> dict[str, Lens]:
    entries = catalogue.load("lenses.yaml", LensesFile).lenses
    own = {slug: Lens(slug, e.item_kind, e.items, _metrics("lenses.yaml", f"lenses.{slug}.metrics", e.metrics),
                      e.topics, e.actions, heavy_items=e.heavy_items,
                      heavy_metrics=_metrics("lenses.yaml", f"lenses.{slug}.heavy_metrics", e.heavy_metrics))
           for slug, e in entries.items() if not e.combines}
    out = {}
    for slug, e in entries.items():
        if not e.combines:
            out[slug] = own[slug]
            continue
        parts = [own[p] for p in e.combines]
        out[slug] = Lens(slug, parts[0].item_kind, parts[0].items, tuple(m for p in parts for m in p.metrics),
                         e.topics, tuple(a for p in parts for a in p.actions), heavy_items=parts[0].heavy_items,
                         heavy_metrics=tuple(m for p in parts for m in p.heavy_metrics))
    return out


def _domains(tags: dict[str, TagEntry]) -> tuple[Domain, ...]:
    folder = catalogue.HERE / "domains"
    stray = sorted(p.name for p in folder.glob("*.yaml") if p.stem not in DOMAIN_SLUGS)
    if stray:
        raise error(f"domains/{stray[0]}", "(file)", "not a domain of ir.vocab.DOMAIN_SLUGS (a new domain's slug "
                                                      "goes there first)")
    out = []
    for slug in DOMAIN_SLUGS:
        file = f"domains/{slug}.yaml"
        e = catalogue.load(file, DomainEntry)
        if bad := _first_unknown(e.tags, tags):
            raise error(file, f"tags[{bad[0]}]", f"unknown tag {bad[1]!r}; allowed (tags.yaml): {list(tags)}")
        styles = tuple(dict.fromkeys(s for t in e.tags for s in tags[t].styles))
        out.append(Domain(slug=slug, title=e.title, description=e.description, tags=e.tags, item_kind=e.item_kind,
                          items=e.items, metrics=_metrics(file, "metrics", e.metrics), roles=e.roles,
                          departments=e.departments, topics=e.topics, actions=e.actions, checks=e.checks,
                          currency=e.currency, id_prefix=e.id_prefix, org_words=e.org_words,
                          style_families=styles, entity_kinds=e.entity_kinds))
    return tuple(out)


def _recipes(file: RecipesFile, tags: dict[str, TagEntry], lenses: dict[str, Lens]) -> tuple[Recipe, ...]:
    out = []
    for slug, e in file.recipes.items():
        where = f"recipes.{slug}"
        if bad := _first_unknown(e.tags, tags):
            raise error("recipes.yaml", f"{where}.tags[{bad[0]}]",
                        f"unknown tag {bad[1]!r}; allowed (tags.yaml): {list(tags)}")
        lens_keys = [("lens", e.lens)] + [(f"grammar[{i}].lens", s.lens) for i, s in enumerate(e.grammar)]
        for key, lens in lens_keys:
            if lens and lens not in lenses:
                raise error("recipes.yaml", f"{where}.{key}", f"unknown lens {lens!r}; allowed (lenses.yaml): "
                                                              f"{list(lenses)}")
        grammar = tuple(Section(s.title, s.blocks, required=s.required, prose=s.prose, lens=s.lens, weight=s.weight,
                                paragraphs=s.paragraphs) for s in e.grammar)
        out.append(Recipe(slug, e.title, e.noun, e.description, e.title_pattern, grammar, tags=e.tags,
                          pages=e.pages, elements=dict(e.elements), charts=e.charts, tables=dict(e.tables),
                          lens=e.lens, genre_class=e.genre_class, front_matter_allowed=e.front_matter,
                          appendix_allowed=e.appendix))
    return tuple(out)


def read_catalogue() -> Catalogue:
    """Read, check and build the whole catalogue (the files are parsed once per process: ``catalogue.load``)."""
    tags = catalogue.load("tags.yaml", TagsFile).tags
    named = catalogue.load("metrics.yaml", MetricsFile).metrics
    lenses = _lenses()
    domains = _domains(tags)
    recipes_file = catalogue.load("recipes.yaml", RecipesFile)
    recipes = _recipes(recipes_file, tags, lenses)
    used = {m.name for d in domains for m in d.metrics}
    used |= {m.name for lens in lenses.values() for m in lens.metrics + lens.heavy_metrics}
    for name in named:
        if name not in used:
            raise error("metrics.yaml", f"metrics.{name}", "no domain or lens has a metric of this name")
    return Catalogue(domains=domains, recipes=recipes, lenses=lenses,
                     heavy_tags=tuple(t for t, e in tags.items() if e.heavy),
                     default_tables=dict(recipes_file.default_tables), prose_share=dict(recipes_file.prose_share),
                     appendix_title=recipes_file.appendix_title)


CATALOGUE = read_catalogue()
DOMAINS: tuple[Domain, ...] = CATALOGUE.domains
RECIPES: tuple[Recipe, ...] = CATALOGUE.recipes
LENSES: dict[str, Lens] = CATALOGUE.lenses
"""The lenses recipes name (``Recipe.lens``, ``Section.lens``), by slug."""
HEAVY_TAGS: tuple[str, ...] = CATALOGUE.heavy_tags
"""Domain tags of issuers whose sites are plants and whose footprint is an industry's."""
DEFAULT_TABLES: dict[TableKind, float] = CATALOGUE.default_tables
"""The table kinds of a recipe that names none."""
PROSE_SHARE: dict[GenreClass, tuple[float, float]] = CATALOGUE.prose_share
"""Share of the content area that paragraphs cover, by genre class: narrative genres are mostly prose."""
APPENDIX_TITLE: str = CATALOGUE.appendix_title
DOMAIN_BY_SLUG: dict[str, Domain] = {d.slug: d for d in DOMAINS}
RECIPE_BY_SLUG: dict[str, Recipe] = {r.slug: r for r in RECIPES}


def get_domain(slug: str) -> Domain:
    try:
        return DOMAIN_BY_SLUG[slug]
    except KeyError:
        raise KeyError(f"unknown domain {slug!r}") from None


def get_recipe(slug: str) -> Recipe:
    try:
        return RECIPE_BY_SLUG[slug]
    except KeyError:
        raise KeyError(f"unknown recipe {slug!r}") from None


def grammar_table() -> str:
    """The recipes' grammars as a markdown table (docs/genres.md holds it; a test keeps the two equal)."""
    lines = ["| recipe | sections in order (optional in brackets; text: a section of text, no general exhibits; "
             "lens: what its general content reports on, `generation.domains.LENSES`) | "
             "genre blocks (required in their section) |",
             "|---|---|---|"]
    for r in RECIPES:
        secs = ", ".join((sec.title if sec.required else f"[{sec.title}]") + (" (text)" if sec.prose else "")
                         + (f" (lens: {sec.lens})" if sec.lens else "") for sec in r.grammar)
        if r.lens:
            secs += f"; other sections: lens {r.lens}"
        blocks = "; ".join(f"{sec.title}: {', '.join(f'`{b}`' for b in sec.blocks)}" for sec in r.grammar
                           if sec.blocks)
        lines.append(f"| {r.slug} | {secs} | {blocks} |")
    return "\n".join(lines) + "\n"


__all__ = ["APPENDIX_MIN_PAGES", "APPENDIX_TITLE", "CATALOGUE", "DEFAULT_TABLES", "DOMAINS", "DOMAIN_BY_SLUG",
           "FRONT_MATTER_MIN_PAGES", "HEAVY_TAGS", "LENSES", "PROSE_SHARE", "RECIPES", "RECIPE_BY_SLUG",
           "Behaviour", "Catalogue", "Domain", "DomainEntry", "GenreClass", "Lens", "LensEntry", "LensesFile",
           "Metric", "MetricEntry", "MetricKind", "MetricsFile", "O", "Recipe", "RecipeEntry", "RecipesFile", "S",
           "Section", "SectionEntry", "T", "TagsFile", "get_domain", "get_recipe", "grammar_table",
           "metric_semantics", "read_catalogue", "view"]
