"""The seeded planner: ``plan_document(spec, index)`` depends only on (spec, index).

Streams: ``Rng(spec.seed).fork("doc", index)`` and named children of it (``"recipe"``, ``"pages"``,
``"tier"``, ``"cast"``, ``"country"``, ``"dynamics"``, ``"page", p`` -> ``"block", k`` ...). The domain of
document ``i`` comes from a seeded shuffle of the domains per cycle (``Rng(seed).fork("domain_order",
cycle)``), so any 100 consecutive documents cover the 50 domains twice and planning one document alone
gives the same IR as planning it inside a corpus.

Length first, then the recipe that fits it: the page count comes from ``spec.pages`` at a quantile that
spreads evenly over the documents (``page_quantile``: a corpus's pages per document follow the spec even for
a handful of documents), then the recipe among the domain's recipes whose page range holds
that count, weighted by ``spec.recipe_mix`` and by how close the count is to the recipe's typical length.
An invoice is never 23 pages long: long documents are annual reports, research reports, archives.

Content schedule: each page gets a heading (section start or running sub-heading), sometimes an
opening paragraph, then about ``spec.blocks_per_page`` QA-bearing blocks whose element types are drawn
from ``spec.element_mix``. A block that does not fit the page's remaining height is carried to the next
page, so the realised mix follows the spec. A QA-bearing block is one that owns facts
(``Fact.group == block.id``); headings, openers and commentary own none.

Steps: ``plan_document`` makes the document's choices once (``_document``: a ``_Doc``), lays out its pages in
order (``_page``: ``_front_page``, ``_section_page`` or ``_appendix_page``) over the state that runs from one
page to the next (``_Run``), then ends the text (``_finish``). A page of the text is the steps that
``_section_page`` lists, over the page's own ``_Page``; they draw from the page's structure stream one after
another, so their order is part of the byte contract. The steps that fill the page (its QA-bearing blocks, the
discussion of its exhibits, what the last page left, the text at its foot) are in ``page_fill``.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from statistics import NormalDist

from synthdocqa.ir import ids
from synthdocqa.ir.blocks import ELEMENT_OF_BLOCK
from synthdocqa.ir.document import DocumentIR, PagePlan, PerturbationProfile
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.spec import REFERENCE_ELEMENT_MIX, CorpusSpec, PageCountDist
from synthdocqa.ir.vocab import DEVICES, SPEAKS_ALONE, TIERS, DomainSlug, ElementType

from .content import discourse, exhibit_text, front_matter, genre, prose, standing, tables
from .content.book import DocContext, FactBook
from .content.countries import currencies
from .content.formats import choose_format
from .content.names import (
    COUNTRIES,
    address,
    country_for,
    email_for,
    org_name,
    paper_of,
    person_name,
    phone_number,
)
from .content.sizing import PAGE_BUDGET, block_height, table_height
from .content.wording import lower_common
from .domains import (
    APPENDIX_MIN_PAGES,
    DOMAIN_BY_SLUG,
    DOMAINS,
    FRONT_MATTER_MIN_PAGES,
    RECIPE_BY_SLUG,
    Domain,
    Recipe,
    Section,
    get_domain,
    view,
)
from .page_fill import (
    EXHIBITS,
    LAST_PAGE_REFERENCE,
    _fill_foot,
    _fill_page,
    _place,
    _place_fresh,
    _place_held,
    _place_owed,
    weighted,
)
from .world import IssuerWorldBuilder

MAX_CARRY = 2
APPENDIX_LETTER = "A"
SECTION_ROOM = 150.0
"""Room (points) a page keeps for each further section it holds (heading, opening, a paragraph)."""
CLOSING_BLOCKS = frozenset({"next_meeting", "signature_block", "sign_off", "letter_signoff", "declarations",
                            "attestation", "review_date", "references"})
"""Genre blocks that close their section (a signature, the next meeting, the review date): they stand at the
foot of the section's last page, after its text."""
OPTIONAL_SECTION_P = 0.7
"""How often a document of a genre has one of the grammar's optional sections."""
LENGTH_FIT_SIGMA = 0.7
"""Width (natural log of pages) of the preference for recipes whose typical length is near the count."""
ELEMENT_DRAW_ORDER: tuple[ElementType, ...] = tuple(REFERENCE_ELEMENT_MIX)
"""The order in which a page's element types are drawn from ``spec.element_mix`` (table, figure, form,
annotation, text): part of the byte contract, deliberately not ``ir.vocab.ELEMENT_TYPES``'s order."""


# ---------------------------------------------------------------- document-level choices

def check_spec(spec: CorpusSpec) -> None:
    """A spec built without validation (``model_construct``) is validated again before planning: the
    names it uses must exist, its sizes lie within limits (``ValueError`` naming the field)."""
    CorpusSpec.model_validate(spec.model_dump())


def domain_for(spec: CorpusSpec, index: int) -> Domain:
    pool = list(spec.domains) if spec.domains else [d.slug for d in DOMAINS]
    cycle, pos = divmod(index, len(pool))
    order = Rng(spec.seed).fork("domain_order", cycle).shuffled(pool)
    return DOMAIN_BY_SLUG[order[pos]]


def recipe_for(spec: CorpusSpec, domain: Domain, rng: Rng, n_pages: int | None = None) -> Recipe:
    """The recipe of a document of ``n_pages`` pages: one whose page range holds the count (when the
    domain and the spec allow one), weighted by ``spec.recipe_mix`` and by closeness to its typical length."""
    names = list(domain.recipes)
    if spec.recipes:
        allowed = [r for r in names if r in spec.recipes]
        names = allowed or list(spec.recipes)
    recipes = [RECIPE_BY_SLUG[n] for n in names]
    if n_pages is None:
        return rng.choice(recipes)
    fit = [r for r in recipes if r.fits(n_pages)] or recipes
    mix = spec.recipe_mix or {}

    def weight(r: Recipe) -> float:
        closeness = math.exp(-(math.log(n_pages / r.pages[1]) ** 2) / (2 * LENGTH_FIT_SIGMA ** 2))
        return (mix.get(r.slug, 0.0) if mix else 1.0) * max(closeness, 1e-6)

    weights = [weight(r) for r in fit]
    if sum(weights) <= 0:  # the mix names none of the recipes that fit: length alone decides
        weights = [max(math.exp(-(math.log(n_pages / r.pages[1]) ** 2) / (2 * LENGTH_FIT_SIGMA ** 2)), 1e-6)
                   for r in fit]
    return rng.choice(fit, p=weights)


def fit_pages(spec: CorpusSpec, recipe: Recipe, n_pages: int) -> int:
    """The page count clamped into the recipe's range (within the spec's bounds when they overlap)."""
    lo, hi = max(recipe.pages[0], spec.pages.min), min(recipe.pages[2], spec.pages.max)
    if lo > hi:  # the spec asks for lengths this recipe never has: the spec wins
        return n_pages
    return min(max(n_pages, lo), hi)


def page_count(dist: PageCountDist, rng: Rng) -> int:
    """Clipped log-normal whose (unclipped) mean is ``dist.mean`` (one free draw)."""
    return pages_at(dist, NormalDist().cdf(rng.normal()))


def pages_at(dist: PageCountDist, u: float) -> int:
    """The page count at quantile ``u`` of the clipped log-normal whose (unclipped) mean is ``dist.mean``."""
    if dist.sigma == 0:
        return min(max(round(dist.mean), dist.min), dist.max)
    mu = math.log(dist.mean) - dist.sigma ** 2 / 2
    z = NormalDist().inv_cdf(min(max(u, 1e-9), 1 - 1e-9))
    n = round(math.exp(mu + dist.sigma * z))
    return int(min(max(n, dist.min), dist.max))


PAGE_BLOCK = 10
"""Documents per stratified block of page counts: each block of ten takes each tenth of the distribution once."""


def page_quantile(spec: CorpusSpec, index: int) -> float:
    """Where document ``index`` sits in the page-count distribution, stratified so that a handful of
    documents already has about the spec's mean pages (a free draw per document would not): each block of
    ``PAGE_BLOCK`` documents takes each tenth of the distribution once, in antithetic pairs (documents
    2k and 2k+1 sit at u and 1 - u), so every even prefix of a block is balanced too."""
    block, k = divmod(index, PAGE_BLOCK)
    stream = Rng(spec.seed).fork("doc", "page_quantiles", block)
    tenth = stream.shuffled(range(PAGE_BLOCK // 2))[k // 2]
    u = (tenth + 0.25 + 0.5 * stream.fork("pair", k // 2).random()) / PAGE_BLOCK  # the middle of its tenth
    return u if k % 2 == 0 else 1.0 - u


def issuer_for(spec: CorpusSpec, index: int) -> str:
    """The key of the organisation that issues document ``index``: the domain and which of its issuers.

    Every cycle of the domain order holds each domain of the pool once, so the k-th document of a domain is
    the one of cycle k, and ``spec.docs_per_issuer`` consecutive ones go to one issuer (the reference
    corpus's 100 documents over 50 domains: 50 issuers with two documents each). Why several documents per
    issuer: an enterprise's documents are read against each other (the quarterly against the annual
    report, the minutes against both), and only documents of one world can be checked that way."""
    pool = list(spec.domains) if spec.domains else [d.slug for d in DOMAINS]
    cycle = index // len(pool)
    return f"{domain_for(spec, index).slug}-{cycle // spec.docs_per_issuer}"


def issuer_rng(spec: CorpusSpec, index: int) -> Rng:
    """The stream of document ``index``'s issuer: its name, country, people, year and world, the same for
    every document it issues."""
    return Rng(spec.seed).fork("issuer", issuer_for(spec, index))


def doc_rng(spec: CorpusSpec, index: int) -> Rng:
    """The root stream of document ``index``; every choice about the document forks from it."""
    return Rng(spec.seed).fork("doc", index)


def recipe_and_pages(spec: CorpusSpec, index: int) -> tuple[Recipe, int]:
    """The recipe and page count of document ``index`` (cheap: no content is built)."""
    root = doc_rng(spec, index)
    drawn = pages_at(spec.pages, page_quantile(spec, index))
    recipe = recipe_for(spec, domain_for(spec, index), root.fork("recipe"), drawn)
    return recipe, fit_pages(spec, recipe, drawn)


def planned_page_count(spec: CorpusSpec, index: int) -> int:
    """The page count ``plan_document`` gives document ``index`` (cheap: no content is built)."""
    return recipe_and_pages(spec, index)[1]


def kept_sections(recipe: Recipe, rng: Rng) -> tuple[Section, ...]:
    """The sections of the recipe's grammar a document has: every required one, an optional one now and then."""
    return tuple(sec for sec in recipe.grammar if sec.required or rng.bernoulli(OPTIONAL_SECTION_P))


SPEAKS_FIRST = frozenset({"memo_header", "contract_parties", "cover_letter", "invoice_header",
                          "order_header", "claimant"})
"""Genre blocks that open their section (the memo's header, the parties, the letter): the
section's general text follows them, never stands above them."""


def _voice(section: Section) -> str:
    """"alone", "first" or "" (general text opens the section) for a section's first genre block."""
    first = section.blocks[0] if section.blocks else ""
    return "alone" if first in SPEAKS_ALONE else "first" if first in SPEAKS_FIRST else ""


def _closing_only(section: Section) -> bool:
    """Whether a section is its closing blocks alone (signatures, a sign-off): it opens with no general text."""
    return bool(section.blocks) and all(b in CLOSING_BLOCKS for b in section.blocks)


def _record_only(section: Section) -> bool:
    """Whether a section is a closing record and nothing else (the next meeting, signatures, an attestation): its
    page holds no general text. A letter is text that closes with its sign-off, not such a record."""
    return _closing_only(section) and not set(section.blocks) & LETTER_BLOCKS


LETTER_BLOCKS = frozenset({"letter_signoff"})
"""Closing blocks that sign a section of text (a chief executive's letter) rather than stand for it."""


def genre_blocks(ctx: DocContext, rng: Rng, section: Section) -> list:
    """The genre blocks a section opens with, in the grammar's order (each from its own stream)."""
    out: list = []
    for kind in section.blocks:
        if kind not in genre.GENRE_BLOCKS:
            continue
        with ctx.through(ctx.recipe.lens_of(section)):  # as the section sees the issuer (a compliance report's
            built = genre.build(kind, ctx, rng.fork("genre", kind))  # remediation plan: compliance actions)
        said = " ".join(sp.text for b in built if b.type == "text_block" for sp in b.spans)
        for b in list(built):  # a numbered exhibit is referred to, like every exhibit of the document
            ref = exhibit_text.exhibit_ref(b) if b.type in ("table", "figure") else None
            if ref is not None and not re.search(rf"\b{ref[0]}\b", said):
                c = exhibit_text.discussion(ctx, rng.fork("genre", kind), b, 1)
                if c is not None:
                    built.insert(built.index(b) + 1, c)
        out += built
    return out


AGENDA_RECIPES = frozenset({"board_minutes"})
"""Genres whose sections are the items of a meeting's agenda, numbered "1." to "n." (minutes are cited by
item), the topics discussed under an item "3.1", "3.2"."""

SHORT_SECTIONS = ("abstract", "summary", "letter", "key messages", "purpose", "attestation", "sign-off",
                  "approval", "signatures", "conclusion", "declarations", "recommendation", "next", "decisions",
                  "references", "outlook", "matters arising", "scope")
"""Sections that run a page or less in a real document (an abstract, a sign-off, minutes' matters arising): a
third of a full one. Patterns searched in the heading (lower case)."""


def sections_on_pages(sections: tuple[str, ...], n_pages: int,
                      weights: tuple[float | None, ...] | None = None) -> list[list[int]]:
    """The sections each of ``n_pages`` body pages holds, in the genre's order: one a page (a section running
    over several pages, see ``section_pages``) where there are pages enough, else several a page, shared
    evenly, so a three-page policy still has all six of its sections rather than three of them."""
    if n_pages >= len(sections):
        pages = [[s] for s in section_pages(sections, n_pages, weights)]
    else:
        pages = _shared_runs(sections, n_pages) or [
            list(range(p * len(sections) // n_pages, (p + 1) * len(sections) // n_pages)) for p in range(n_pages)]
    if len(pages) > 1 and RUNS_INTO_NEXT.search(sections[pages[0][-1]].lower()) and pages[1][0] == pages[0][-1] + 1:
        pages[0] = [*pages[0], pages[1][0]]  # the next section starts below it and runs on
    return pages


RUNS_INTO_NEXT = re.compile(r"^(\d+\.? )?attendance$")
"""A first section too short for a page of its own (the attendance of minutes): the next section starts on its
page, below it, as the next item of minutes is typed."""


def _shared_runs(sections: tuple[str, ...], n_pages: int) -> list[list[int]] | None:
    """Pages for more sections than pages where some have fixed pages (``FIXED_PAGES``: an auditor's report,
    the financial statements, minutes' closing items): each of those on a page of its own, the others sharing
    the remaining pages in order, each run between two such sections on pages of its own. ``None`` where no
    section has fixed pages or the pages are too few for it."""
    alone = [i for i, s in enumerate(sections) if _fixed_pages(s)]
    runs: list[list[int]] = []  # the runs of sections that share, between the ones that speak alone
    for i in range(len(sections)):
        if i in alone:
            continue
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    left = n_pages - len(alone)
    if not alone or left < len(runs):
        return None
    shares = [1] * len(runs)  # a page each, the rest by length, never more pages than a run has sections
    for _ in range(left - len(runs)):
        j = max((j for j in range(len(runs)) if shares[j] < len(runs[j])),
                key=lambda j: (len(runs[j]) / shares[j], -j), default=None)
        if j is None:
            return None
        shares[j] += 1
    pages: list[list[int]] = []
    for i in range(len(sections)):
        if i in alone:
            pages.append([i])
        elif runs and runs[0][0] == i:
            run, k = runs.pop(0), shares.pop(0)
            pages += [run[q * len(run) // k:(q + 1) * len(run) // k] for q in range(k)]
    assert len(pages) == n_pages and all(pages), (sections, n_pages, pages)
    return pages


FIXED_PAGES = (("auditor", 1), ("notes to the financial statements", 1), ("financial statements", 2),
               ("financial summary", 2), (r"^(\d+\.? )?attendance$", 1), (r"^(resolutions|actions|next meeting)$", 1),
               (r"^(attestation|signatures|sign-off|declarations)$", 1))
"""Sections whose genre blocks are their whole text, with the pages that text takes (an auditor's report one,
the three financial statements two, their notes one, the attendance of minutes one; minutes' resolutions,
action log and next meeting one each, though the meeting's text runs on in them; an attestation, signatures, a
sign-off or declarations one, their statement and the signed form): never more pages under their
heading, which would hold nothing but a line of standing text or the same discussion again. The first pattern
found in a heading (lower case) counts."""


def _fixed_pages(section: str) -> int:
    return next((k for key, k in FIXED_PAGES if re.search(key, section.lower())), 0)


def section_pages(sections: tuple[str, ...], n_pages: int, own: tuple[float | None, ...] | None = None) -> list[int]:
    """The section each of ``n_pages`` body pages belongs to: pages shared by weight (a section's own weight
    where its grammar gives one, ``Section.weight``; else short sections a third of the others), one-page
    sections none beyond their own, every section at least one page while there are pages, in the genre's
    order."""
    fixed = [_fixed_pages(s) for s in sections]
    own = own or (None,) * len(sections)
    weights = [0.0 if k else w if w is not None else 1 / 3 if any(re.search(p, s.lower()) for p in SHORT_SECTIONS)
               else 1.0 for s, k, w in zip(sections, fixed, own, strict=True)]
    free, need = sum(weights), sum(fixed)
    if need and n_pages > need + sum(w > 0 for w in weights):  # the fixed sections get their pages' share
        total = free * n_pages / (n_pages - need)
        weights = [k * total / n_pages if k else w for k, w in zip(fixed, weights, strict=True)]
    else:  # too few pages: a fixed section no more than its own page
        weights = [1e-6 if k else w for k, w in zip(fixed, weights, strict=True)]
    total = sum(weights)
    if total <= 0:  # every section fixed (no grammar has this): shared evenly
        weights, total = [1.0] * len(weights), float(len(weights))
    bounds, acc = [], 0.0
    for w in weights:
        acc += w
        bounds.append(acc / total * n_pages)
    out = []
    for p in range(n_pages):
        sec = next(i for i, b in enumerate(bounds) if p + 0.5 < b + 1e-9)
        out.append(sec)
    # every section starts on a page of its own while pages allow (no section skipped)
    if n_pages >= len(sections):
        out = sorted(out)
        starts = {s: out.index(s) for s in set(out)}
        missing = [s for s in range(len(sections)) if s not in starts]
        for s in missing:  # take a page from the longest run
            longest = max(set(out), key=out.count)
            j = len(out) - 1 - out[::-1].index(longest) if longest < s else out.index(longest)
            out[j] = s
            out = sorted(out)
    return out


# ---------------------------------------------------------------- cast and context

def _org_attributes(rng: Rng, country: str, fmt_currency: str) -> dict[str, str]:
    """Where an organisation sits: one address (street, city, postcode, country that belong together) and a
    switchboard number in its city."""
    attrs = address(rng.fork("address"), country)
    attrs["phone"] = phone_number(rng.fork("phone"), fmt_currency, country, attrs["city"])
    return attrs


def _cast(domain: Domain, fmt_currency: str, rng: Rng, book: FactBook, country: str, places: Rng) -> tuple:
    """The issuer, its counterparties and its people. ``places`` is the stream of addresses and phone
    numbers; an organisation's address comes from its own child of it."""
    issuer_attrs = _org_attributes(places.fork("org", 0), country, fmt_currency)
    issuer = book.entity("organisation", org_name(rng, domain.org_words, fmt_currency, country),
                         role="issuer", **issuer_attrs)
    names: set[str] = {issuer.name}
    cps = []
    for k in range(rng.integers(3, 6)):
        here = places.fork("org", k + 1)
        cp_country = country if here.bernoulli(0.75) else here.choice(sorted(COUNTRIES))
        n = org_name(rng, domain.org_words, fmt_currency, cp_country)
        for _attempt in range(20):  # distinct names within a document
            if n not in names:
                break
            n = org_name(rng, domain.org_words, fmt_currency, cp_country)
        names.add(n)
        cps.append(book.entity("organisation", n, role=rng.choice(("supplier", "customer", "partner", "contractor")),
                               **_org_attributes(here, cp_country, fmt_currency)))
    people = []
    roles = rng.shuffled(domain.roles)
    for i in range(rng.integers(min(4, len(roles)), len(roles) + 1)):  # one person per role
        n = person_name(rng)
        for _attempt in range(30):
            if n not in names:
                break
            n = person_name(rng)
        names.add(n)
        phone = phone_number(places.fork("person", i), fmt_currency, country, issuer_attrs["city"])
        people.append(book.entity("person", n, role=roles[i % len(roles)], phone=phone,
                                  email=email_for(n, issuer.name), department=rng.choice(domain.departments)))
    return issuer, cps, people


def _title(recipe: Recipe, ctx: DocContext, rng: Rng) -> tuple[str, dict[str, str]]:
    d = ctx.domain
    topic = rng.choice(d.topics)
    rng.integers(1, 5)  # was the quarter: the reported quarter is now the last complete one
    q, q_year = ctx.cal.quarter()
    values = dict(
        org=ctx.issuer.name, year=str(ctx.cal.fy), year_next=str(ctx.year + 1), quarter=str(q),
        quarter_year=str(q_year), quarter_label=f"Q{q} {q_year}", ident=ctx.doc_reference(), domain=d.title,
        topic_title=topic.title(),
        counterparty=ctx.counterparties[0].name, item=rng.choice(d.items), month_year=f"{ctx.anchor:%B %Y}",
        dept=rng.choice(d.departments), item_kind=d.item_kind, Item_kind=d.item_kind.capitalize(),
        item_kind_title=d.item_kind.title(),
    )
    return recipe.title_pattern.format(**values), values


# ---------------------------------------------------------------- blocks

def _appendix_page(ctx: DocContext, rng: Rng, page_no: int, opens: bool, title: str, style_family: str) -> PagePlan:
    """A page of the appendix: its heading and introduction on the first, then a schedule (a long register,
    which belongs here rather than in the text) sized to the page, and the sentence that refers to it."""
    blocks: list = []
    if opens:
        blocks += [prose.heading(ctx, f"Appendix {APPENDIX_LETTER} {title}", 1),
                   prose.appendix_intro(ctx, rng.fork("appendix", 0))]
    room = PAGE_BUDGET - sum(block_height(b) for b in blocks) - LAST_PAGE_REFERENCE
    if ctx.recipe.keeps_register:  # a ledger-keeping genre: the long register of postings
        table = tables.register_table(ctx, rng.fork("appendix", 1), max(4, int((room - table_height(0)) // 17)))
        blocks.append(table)
        said = exhibit_text.discussion(ctx, rng.fork("appendix", 2), table, 1)
        if said is not None:
            blocks.append(said)
    else:  # a report: the detailed data tables of its own kinds, as many as the page holds
        n = 0
        while room >= table_height(3) and n < 4:
            trng = rng.fork("appendix", 1 + n)
            kind = "share" if n % 2 and ctx.recipe.tables.get("share", 0) > 0 else "comparison"
            rows = int((room - table_height(0) - LAST_PAGE_REFERENCE) // 17) - 1  # its summary row, its reference
            table = tables.TABLE_BUILDERS[kind](ctx, trng, max(3, min(12, rows)))
            blocks.append(table)
            room -= block_height(table)
            said = exhibit_text.discussion(ctx, trng, table, 1)
            if said is not None:  # every exhibit is referred to: the sentence that names it at least
                said = said if block_height(said) <= room else exhibit_text.first_sentence(said)
                blocks.append(said)
                room -= block_height(said)
            n += 1
    return PagePlan(page_no=page_no, blocks=blocks, layout_query=_describe_page(blocks, style_family))


def _describe_page(blocks: list, style_family: str) -> str:
    parts: list[str] = []
    for b in blocks:
        t = b.type
        if t == "heading":
            parts.append("a section heading" if b.level == 1 else "a sub-heading")
        elif t == "text_block":
            parts.append("a paragraph of text")
        elif t == "list":
            parts.append(f"a list of {len(b.items)} items")
        elif t == "footnote":
            parts.append("a footnote")
        elif t == "table":
            width = "wide " if len(b.columns) >= 4 else ""
            parts.append(f"a {width}table of {len(b.rows)} rows")
        elif t == "figure":
            parts.append(f"a {b.chart} chart")
        elif t == "form":
            parts.append(f"a form with {len(b.fields)} fields and {len(b.checkboxes)} checkboxes")
        elif t == "annotation":
            parts.append({"stamp": "a rotated stamp", "handwritten_note": "a handwritten note",
                          "signature": "a signature", "highlight": "a highlighted passage"}[b.kind])
    merged: list[str] = []
    for p in parts:  # collapse consecutive paragraphs
        if merged and p == "a paragraph of text" and merged[-1] in ("a paragraph of text", "paragraphs of text"):
            merged[-1] = "paragraphs of text"
        else:
            merged.append(p)
    body = ", ".join(merged[:-1]) + (" and " + merged[-1] if len(merged) > 1 else merged[0] if merged else "")
    return f"page with {body}, {style_family} style"


# ---------------------------------------------------------------- the planner

@functools.lru_cache(maxsize=16)
def shared_world(seed: int, issuer: str, trade: DomainSlug, ref: int) -> IssuerWorldBuilder:
    """The world of ``issuer``, one per process for all its documents (its entries do not depend on which
    document asks first, so sharing it only saves drawing them again)."""
    return IssuerWorldBuilder(issuer, Rng(seed).fork("issuer", issuer, "world"), get_domain(trade), ref)


def document_context(root: Rng, domain: Domain, recipe: Recipe, issuer: Rng | None = None,
                     issuer_key: str = "") -> tuple[DocContext, str]:
    """The context every builder of a document shares (its formats, calendar, issuer, counterparties and
    people) and the issuer's country. What belongs to the organisation (its name, country, currency, house
    formats, people, counterparties, year and world) is drawn from the issuer's stream ``issuer``, so every
    document it issues has the same; the document's own day of issue from its root stream. Without an
    issuer stream the document is its own issuer."""
    iss = root if issuer is None else issuer
    cal = iss.fork("calendar")
    currency = domain.currency if cal.bernoulli(0.8) else cal.choice(currencies())
    fmt = choose_format(iss.fork("format"), currency, cents=recipe.genre_class == "transactional")
    year = 2023 + cal.integers(0, 4)
    day = cal if issuer is None else root.fork("calendar")
    anchor = dt.date(year, day.integers(1, 13), day.integers(1, 29))
    book = FactBook(fmt)
    country = country_for(iss.fork("country"), currency)
    organisation, cps, people = _cast(domain, currency, iss.fork("cast"), book, country, iss.fork("places"))
    world = None if issuer is None else shared_world(issuer.seed, issuer_key, domain.slug, (year - 1) * 12 + 6)
    ctx = DocContext(domain=domain, recipe=recipe, fmt=fmt, book=book, issuer=organisation, counterparties=cps,
                     people=people, year=year, anchor=anchor, dyn=iss.fork("dynamics"), world=world)
    return ctx, country


@dataclass(frozen=True)
class _Doc:
    """What a document decides once, before its first page, and every page step reads: its recipe, length and
    context, its sections and the pages they fall on. One argument instead of twenty, so that each step of the
    planner says in its signature that it reads the document and never changes it."""

    spec: CorpusSpec
    index: int
    root: Rng
    domain: Domain
    recipe: Recipe
    n_pages: int
    tier: str
    device: str
    style_family: str
    ctx: DocContext
    country: str
    title: str
    brief: str
    kept: tuple[Section, ...]
    sections: list[str]
    """The kept sections' headings, numbered where the document or the agenda numbers them."""
    structured: bool
    """A cover and a table of contents before numbered sections (and maybe an appendix after them)."""
    agenda: bool
    mix: dict[str, float]
    """The spec's element mix as the recipe weights it."""
    narrative: bool
    transactional: bool
    """Its genre blocks speak for themselves (a claim, an order): a section holding them has no opening text."""
    first_body: int
    n_appendix: int
    per_section: int
    """At most this many subsections a section (the domain's topics shared out among the sections)."""
    section_at: list[list[int]]
    """The sections each body page holds (``sections_on_pages``): the first may run on from the last page."""


@dataclass
class _Run:
    """What runs on from one page to the next: the pages planned so far and what an earlier page left to a later
    one. Every page step reads and updates it; a page's own working state is a ``_Page``."""

    subsections: list[int]
    """Subsections opened so far, per section (they are numbered "2.1", "2.2" ...)."""
    pages: list[PagePlan] = field(default_factory=list)
    prev_section: int = -1
    """The section the last page ended in (-1 before the first body page)."""
    carried: list[str] = field(default_factory=list)
    """Element types drawn for a page that did not fit it: the next page draws them first (``MAX_CARRY``)."""
    footnotes: list[int] = field(default_factory=lambda: [0])
    """The last footnote number used (a one-element list: the builders number footnotes through it)."""
    pending: list = field(default_factory=list)
    """Genre blocks of a started section not placed yet: they open the next page."""
    closing: list = field(default_factory=list)
    """Closing genre blocks of the running section (a signature, the next meeting): they end its last page."""
    held_prose: list = field(default_factory=list)
    """The discussion of an exhibit that did not fit below it: it opens the next page."""
    owed: list = field(default_factory=list)
    """Paragraphs of figures owed to the last exhibit that did not fit below it, as ``(measure, sentences,
    stream)``: written when the next page opens (a paragraph of facts is written where it is printed, never held
    or cut)."""
    used_topics: set[str] = field(default_factory=set)


@dataclass
class _Page:
    """A body page while it is laid out: its streams, its sections (``sec`` may run on from the last page,
    ``more_sections`` start below it), the blocks placed so far and the height left for more."""

    p: int
    prng: Rng
    ps: Rng
    """The page's structure stream, drawn sequentially by the steps in their order (a block's content has
    its own stream, ``prng.fork("block", i)``)."""
    sec: int
    more_sections: list[int]
    blocks: list = field(default_factory=list)
    room: float = PAGE_BUDGET
    closes: list = field(default_factory=list)
    """The running section's closing blocks when they end on this page (room is kept for them)."""
    alone: bool = False
    """The page is the last of a section that speaks alone (an auditor's report): nothing else is drawn on it."""


def _document(spec: CorpusSpec, index: int) -> _Doc:
    """The document-level choices of document ``index``, each from its own named child of the document's stream:
    recipe and length, tier and device, style, context, title, brief and the sections kept of the grammar."""
    check_spec(spec)
    if index < 0:
        raise ValueError(f"index must be >= 0, got {index}")
    root = doc_rng(spec, index)
    domain = domain_for(spec, index)
    recipe, n_pages = recipe_and_pages(spec, index)
    tier = weighted(root.fork("tier"), spec.tier_mix, TIERS)
    device = weighted(root.fork("device"), spec.device_mix, DEVICES)
    style_family = root.fork("style").choice(domain.style_families)
    ctx, country = document_context(root, domain, recipe, issuer_rng(spec, index), issuer_for(spec, index))
    title, values = _title(recipe, ctx, root.fork("title"))
    t1, t2 = root.fork("brief").sample(view(domain, recipe.lens).topics, 2)
    brief = (f"{recipe.description} issued by {ctx.issuer.name} ({lower_common(domain.title)}), covering {t1} and "
             f"{t2} in {ctx.cal.fy}.")
    kept = kept_sections(recipe, root.fork("grammar"))
    sections = [sec.title.format(**values) for sec in kept]
    structured = recipe.front_matter and n_pages >= FRONT_MATTER_MIN_PAGES
    agenda = recipe.slug in AGENDA_RECIPES
    if structured:  # numbered sections after a cover and a table of contents
        sections = [f"{i} {name}" for i, name in enumerate(sections, start=1)]
    elif agenda:  # the items of the agenda, as minutes number them
        sections = [f"{i}. {name}" for i, name in enumerate(sections, start=1)]
    mix = {e: w * recipe.element_weight(e) for e, w in spec.element_mix.items()}
    if sum(mix.values()) <= 0:  # the recipe rules out every element the spec asks for: the spec wins
        mix = dict(spec.element_mix)
    ctx.memo[discourse.TEXT_FACTS] = mix.get("text", 0.0) > 0  # no text in the mix: paragraphs ask no questions
    first_body = 3 if structured else 1
    n_appendix = 0 if not (structured and recipe.appendix and n_pages >= APPENDIX_MIN_PAGES) else \
        2 if n_pages >= 2 * APPENDIX_MIN_PAGES + 8 else 1  # the long schedules, after the sections
    return _Doc(
        spec=spec, index=index, root=root, domain=domain, recipe=recipe, n_pages=n_pages, tier=tier, device=device,
        style_family=style_family, ctx=ctx, country=country, title=title, brief=brief, kept=kept,
        sections=sections, structured=structured, agenda=agenda, mix=mix,
        narrative=recipe.genre_class == "narrative", transactional=recipe.genre_class == "transactional",
        first_body=first_body, n_appendix=n_appendix, per_section=max(1, len(domain.topics) // len(sections)),
        section_at=sections_on_pages(tuple(sec.title for sec in kept), n_pages - first_body + 1 - n_appendix,
                                     tuple(sec.weight for sec in kept)))


def plan_document(spec: CorpusSpec, index: int) -> DocumentIR:
    """The complete content plan of document ``index`` of ``spec`` (layouts and scan params left open): the
    document's choices, then its pages one by one in order (a page continues what the last one left), then
    what is left ends the text."""
    doc = _document(spec, index)
    run = _Run(subsections=[0] * len(doc.sections))
    for p in range(1, doc.n_pages + 1):
        run.pages.append(_page(doc, run, p))
    return _finish(doc, run)


def _page(doc: _Doc, run: _Run, p: int) -> PagePlan:
    """Page ``p``: a front page, a page of the text or a page of the appendix. Its streams are forked here so
    that every kind of page draws from ``("page", p)`` whatever came before it."""
    prng = doc.root.fork("page", p)
    doc.ctx.page = p
    ps = prng.fork("structure")  # page structure, drawn sequentially; block content has its own stream
    if doc.structured and p < doc.first_body:
        return _front_page(doc, p)
    if p > doc.n_pages - doc.n_appendix:
        doc.ctx.domain = view(doc.domain, doc.recipe.lens)  # the schedules of the recipe's own subject
        opens = p == doc.n_pages - doc.n_appendix + 1
        return _appendix_page(doc.ctx, prng, p, opens, doc.recipe.appendix, doc.style_family)
    return _section_page(doc, run, p, prng, ps)


def _front_page(doc: _Doc, p: int) -> PagePlan:
    """The cover (page 1) or the contents page (page 2) of a structured document; the contents are filled in
    once the body is planned (``_finish``), as they list its pages."""
    ctx = doc.ctx
    front = front_matter.cover(ctx, doc.title, doc.brief) if p == 1 else [front_matter.contents_placeholder(ctx)]
    return PagePlan(page_no=p, blocks=front, role="cover" if p == 1 else "contents",
                    layout_query=_describe_page(front, doc.style_family))


def _section_page(doc: _Doc, run: _Run, p: int, prng: Rng, ps: Rng) -> PagePlan:
    """A page of the text, top to bottom: the running or a new section opens it, QA-bearing blocks fill it, the
    first section ends and later ones start below, text fills its foot. The steps run in this order because
    they draw from ``ps`` one after another (a reordering would change every later draw of the page)."""
    ctx = doc.ctx
    sec, *more_sections = doc.section_at[p - doc.first_body]
    page = _Page(p=p, prng=prng, ps=ps, sec=sec, more_sections=more_sections)
    if p == 1:
        page.blocks.append(prose.heading(ctx, doc.title, 1))
    ctx.domain = view(doc.domain, doc.recipe.lens_of(doc.kept[sec]))  # what the page's general content reports on
    _close_section(doc, run, sec)
    placed_genre = _open_page(doc, run, page)
    run.prev_section = more_sections[-1] if more_sections else sec
    body_end = p == doc.n_pages - doc.n_appendix  # the last page of the text (an appendix has no discussion)
    ends_section = body_end or doc.section_at[p + 1 - doc.first_body][0] != run.prev_section
    page.closes = run.closing if ends_section or more_sections else []  # room kept for the section's closing blocks
    page.room -= sum(block_height(b) for b in page.blocks + page.closes) + SECTION_ROOM * len(more_sections)
    demand, spare = _demand(doc, run, page, placed_genre)
    before_alone = not body_end and ends_section and \
        _voice(doc.kept[doc.section_at[p + 1 - doc.first_body][0]]) == "alone"  # the next page speaks alone
    _fill_page(doc, run, page, demand, spare, last_page=body_end, no_next=body_end or before_alone)
    _end_first_section(doc, run, page)
    closed = _later_sections(doc, run, page)
    ends_alone = _voice(doc.kept[run.prev_section]) == "alone"  # the page's last section: no comment after it
    _fill_foot(doc, run, page, closed, ends_alone, body_end, body_end or before_alone)
    return _end_page(doc, run, page)


def _close_section(doc: _Doc, run: _Run, sec: int) -> None:
    """Where a section that speaks alone starts or ends, the last section ends on the last page: an auditor's
    report or a statement starts on a page of its own, and its own blocks stay on its pages. The last section's
    pending blocks go there whole (onto a page of their own when the renderer finds it full), a discussion that
    does not fit by its reference alone."""
    if not (sec != run.prev_section and run.pages and (run.pending or run.held_prose) and
            (_voice(doc.kept[sec]) == "alone" or _voice(doc.kept[run.prev_section]) == "alone")):
        return
    tail = [*run.pages[-1].blocks, *run.pending]
    for t in run.held_prose:
        left = PAGE_BUDGET - sum(block_height(b) for b in tail)
        short = exhibit_text.first_sentence(t) if exhibit_text.exhibit_ref_in(t) is not None else None
        tail.append(t if block_height(t) <= left or short is None else short)
    run.pages[-1] = run.pages[-1].model_copy(update={"blocks": tail,
                                                     "layout_query": _describe_page(tail, doc.style_family)})
    run.pending, run.held_prose = [], []


def _open_page(doc: _Doc, run: _Run, page: _Page) -> int:
    """The top of a page of the text: what the last page left of its section, then a new section or a
    subsection of the running one, then the discussion held over and the genre blocks that fit. Returns how many
    of the running section's genre blocks the page holds: they are its exhibits, so fewer are drawn."""
    ctx, kept, sec, blocks, ps = doc.ctx, doc.kept, page.sec, page.blocks, page.ps
    starts = sec != run.prev_section
    continued = _place(blocks, run.pending, force=starts)  # the last section's, continued
    placed_genre = continued if not starts else 0  # a new section's exhibits are its own to draw
    if starts:
        _start_section(doc, run, page)
    elif kept[sec].blocks:  # a section of genre blocks has no subsections on general topics
        pass
    elif ps.bernoulli(0.5):
        _subsection(doc, run, page)
    _place_held(blocks, run.held_prose)  # the discussion of the last page's exhibit, where it did not fit there
    run.held_prose = []
    _place_owed(doc, run, blocks)
    placed_genre += _place(blocks, run.pending)
    if doc.narrative and not any(b.type == "text_block" for b in blocks) and not _record_only(kept[sec]):
        # a narrative page reads as text (minutes' next meeting is its own line and the signatures)
        own = kept[sec].blocks[0] if _voice(kept[sec]) == "alone" and kept[sec].blocks else None
        said = (prose.standing_text(ctx, ps, own) if own in prose.STANDING_TEXT  # a statement's page
                else prose.opener(ctx, ps, ps.integers(3, 6)))
        if said is not None:
            blocks.append(said)
    return placed_genre


def _start_section(doc: _Doc, run: _Run, page: _Page) -> None:
    """A section starting at the top of the page: the discussion of the last page's exhibit ends the last
    section above it, then its heading, its opening paragraph (after the record where the record speaks first),
    its genre blocks (the closing ones wait for its last page, the others for room on this one)."""
    ctx, kept, sec, blocks, ps = doc.ctx, doc.kept, page.sec, page.blocks, page.ps
    _place_held(blocks, run.held_prose)
    run.held_prose = []
    _place_owed(doc, run, blocks)
    blocks.append(prose.heading(ctx, doc.sections[sec], 1 if page.p > 1 else 2))
    opener = None
    if (doc.narrative or kept[sec].prose or ps.bernoulli(0.7)) and not (doc.transactional and kept[sec].blocks) \
            and not _closing_only(kept[sec]) and _voice(kept[sec]) != "alone":
        opener = prose.opener(ctx, ps, ps.integers(2, 4) if doc.narrative else ps.integers(1, 3))
    if opener is not None and _voice(kept[sec]) != "first":
        blocks.append(opener)
    if doc.n_appendix and page.p == doc.first_body:  # the introduction says where the schedules are
        blocks.append(prose.appendix_pointer(ctx, ps, APPENDIX_LETTER))
    built = genre_blocks(ctx, page.prng, kept[sec])
    run.pending += [b for b in built if b.genre_block not in CLOSING_BLOCKS]
    if opener is not None and _voice(kept[sec]) == "first":  # the record first, the text after it
        run.pending.append(opener)
    run.closing += [b for b in built if b.genre_block in CLOSING_BLOCKS]


def _subsection(doc: _Doc, run: _Run, page: _Page) -> None:
    """A subsection of the running section on a page it continues: a heading on a topic of the domain not used
    yet (numbered when the sections are) and its opening, at most ``per_section`` a section."""
    sec = page.sec
    topic = front_matter.subsection_topic(doc.ctx.domain, page.ps, run.used_topics)
    if topic is not None and run.subsections[sec] < doc.per_section:
        run.subsections[sec] += 1
        label = f"{sec + 1}.{run.subsections[sec]} {topic}" if doc.structured or doc.agenda else topic
        page.blocks.append(prose.heading(doc.ctx, label, 2))
        opener = prose.subsection_opener(doc.ctx, page.ps, topic)
        if opener is not None:
            page.blocks.append(opener)


def _demand(doc: _Doc, run: _Run, page: _Page, placed_genre: int) -> tuple[list[str], str | None]:
    """The element types the page draws: what the last page carried over, then about ``spec.blocks_per_page``
    drawn from the mix, less what the page may not hold (nothing but notes beside a section that speaks alone;
    no exhibits where the section's genre blocks are the page's: they carry over). With them the spare exhibit
    that a page drawn out with nothing but notes takes (``None`` where there is none)."""
    kept, sec, more_sections, ps, mix = doc.kept, page.sec, page.more_sections, page.ps, doc.mix
    k = 1 + int(ps.gen.binomial(4, min(1.0, max(0.0, (doc.spec.blocks_per_page - 1) / 4))))
    if doc.narrative or more_sections:  # fewer exhibits a page, each discussed at length
        k = max(1, k - 1 - len(more_sections))
    demand = run.carried[:MAX_CARRY] + [weighted(ps, mix, ELEMENT_DRAW_ORDER) for _ in range(k)]
    run.carried = []
    own_exhibits = bool(placed_genre or run.pending or _closing_only(kept[sec]) or kept[sec].prose)
    page.alone = _voice(kept[run.prev_section]) == "alone" and not more_sections  # an auditor's report: nothing else
    if page.alone or _voice(kept[sec]) == "alone":  # nor under a first section that speaks alone (minutes'
        run.carried, demand = [], [e for e in demand if e == "annotation"]  # attendance): the later ones' own text
    if own_exhibits:  # the genre blocks are this page's
        # exhibits (a sign-off section holds its sign-off, not a table of figures); comment may follow them
        run.carried = [e for e in demand if e in EXHIBITS][:MAX_CARRY]
        demand = [e for e in demand if e not in EXHIBITS]
    spare: str | None = max(("table", "figure"), key=lambda e: mix.get(e, 0.0))  # for a page drawn out with notes
    if own_exhibits or mix.get(spare, 0.0) <= 0:
        spare = None
    return demand, spare


def _end_first_section(doc: _Doc, run: _Run, page: _Page) -> None:
    """On a page that holds several sections the first ends before the next starts: its genre blocks and the
    discussion of its exhibits (a statement never follows the notes to it, nor a chart's discussion the next
    heading), a paragraph where it is a section of text, its closing blocks."""
    more_sections = page.more_sections
    page.room += SECTION_ROOM * len(more_sections)
    if more_sections and (run.pending or run.held_prose):
        n_before = len(page.blocks)
        _place(page.blocks, run.pending, force=True)
        page.blocks += run.held_prose
        run.held_prose = []
        page.room -= sum(block_height(b) for b in page.blocks[n_before:])
    if more_sections and doc.kept[page.sec].prose:  # a section of text is written before the next one starts
        n, reserve = page.ps.integers(2, 5), SECTION_ROOM * len(more_sections)
        page.room -= reserve
        _place_fresh(doc, page, lambda: prose.reflection(doc.ctx, page.ps, n))
        page.room += reserve
    if more_sections and page.closes:  # the first section ends on this page, before the next one starts
        page.blocks += page.closes
        page.closes = run.closing = []


def _later_sections(doc: _Doc, run: _Run, page: _Page) -> bool:
    """The page's later sections, below its first: each a heading, an opening, its genre blocks or a paragraph,
    from its own stream (``prng.fork("section", n)``). Returns whether one of them is a closing record placed
    here (a signature, the next meeting): the page ends with it, no comment after it."""
    ctx, kept = doc.ctx, doc.kept
    closed = False
    for n, more in enumerate(page.more_sections):
        mrng = page.prng.fork("section", n)
        ctx.domain = view(doc.domain, doc.recipe.lens_of(kept[more]))
        own = genre_blocks(ctx, mrng, kept[more])
        said = [prose.heading(ctx, doc.sections[more], 1 if page.p > 1 else 2)]
        opener = None
        if not (doc.transactional and own) and not _closing_only(kept[more]) and _voice(kept[more]) != "alone":
            opener = prose.opener(ctx, mrng, mrng.integers(2, 4) if doc.narrative else mrng.integers(1, 3))
        if opener is not None and _voice(kept[more]) != "first":
            said.append(opener)
        if own:  # the section's genre blocks are its content (a record that speaks first, then the text)
            said += own + ([opener] if opener is not None and _voice(kept[more]) == "first" else [])
        elif doc.mix.get("text", 0.0) > 0:  # a paragraph with facts of its own, where the spec has text questions
            run.footnotes[0] += 1
            said.append(prose.text_element(ctx, mrng, str(run.footnotes[0]), max(page.room - 120, 84.0)))
        else:
            said.append(prose.reflection(ctx, mrng, mrng.integers(2, 4)))
        if ((doc.narrative and own and not _closing_only(kept[more])) or kept[more].prose) and \
                _voice(kept[more]) != "alone":  # discussed, or written (an auditor's report is not)
            said.append(prose.reflection(ctx, mrng, mrng.integers(3, 6)))
        said = [b for b in said if b is not None]  # (none where the document's text is spent)
        if own and _closing_only(kept[more]):  # a signature or next meeting ends the page: no text after it
            closed = True
        page.blocks.extend(said)
        page.room -= sum(block_height(b) for b in said)
    return closed


def _end_page(doc: _Doc, run: _Run, page: _Page) -> PagePlan:
    """The foot of a page of the text: the section's closing blocks end its last page, a heading never ends a
    page (it opens the next one above its section's blocks), and a page never holds only headings and
    overlays (a paragraph, or a statement's standing text, is added)."""
    blocks, kept = page.blocks, doc.kept
    if page.closes:  # the section's signature or next meeting ends its last page
        blocks += page.closes
        run.closing = []
    if run.pending and len(blocks) > 1 and blocks[-1].type == "heading":  # a heading keeps with its section's
        run.pending.insert(0, blocks.pop())  # blocks: it opens the next page above them, never ends this one
    if all(b.type in ("heading", "annotation") for b in blocks):  # never a page of headings and overlays
        first = kept[run.prev_section].blocks[0] if page.alone and kept[run.prev_section].blocks else None
        said = (prose.standing_text(doc.ctx, page.ps, first) if first in prose.STANDING_TEXT
                else prose.opener(doc.ctx, page.ps, page.ps.integers(2, 4)))  # a statement's page: no text
        if said is not None:
            blocks.append(said)
    return PagePlan(page_no=page.p, blocks=blocks, layout_query=_describe_page(blocks, doc.style_family))


def _finish(doc: _Doc, run: _Run) -> DocumentIR:
    """The document from its pages: what the last section left (genre blocks, the last exhibit's reference)
    ends the text, the contents page lists the pages, and the context's book gives the facts."""
    ctx, pages, n_appendix = doc.ctx, run.pages, doc.n_appendix
    ctx.domain = doc.domain
    if run.pending or run.closing:  # the last section's genre blocks that did not fit: they end the text
        last = len(pages) - 1 - n_appendix
        pages[last] = pages[last].model_copy(update={"blocks": [*pages[last].blocks, *run.pending, *run.closing]})
    refs = [t for t in run.held_prose if exhibit_text.exhibit_ref_in(t) is not None]
    if refs:  # the last exhibit's reference, on the last page (a reflection without one can go)
        last = len(pages) - 1 - n_appendix
        pages[last] = pages[last].model_copy(update={"blocks": [*pages[last].blocks, exhibit_text.first_sentence(refs[0])]})
    if doc.structured:
        pages[1] = front_matter.with_contents(ctx, pages)
    book = ctx.book
    return DocumentIR(
        doc_id=ids.doc_id(doc.index), index=doc.index, seed=doc.spec.seed, seed_path=["doc", doc.index],
        domain=doc.domain.slug, recipe=doc.recipe.slug, title=doc.title, topic_brief=doc.brief,
        style_family=doc.style_family, page_size=paper_of(doc.country), reference=ctx.doc_reference(),
        confidential=standing.allows(ctx, "confidentiality"), as_at=ctx.anchor, entities=book.entities, facts=book.facts, world=ctx.world_record(), pages=pages,
        perturbation=PerturbationProfile(tier=doc.tier, device=doc.device, pages=[]))


def plan_corpus(spec: CorpusSpec, indices: list[int] | None = None) -> Iterator[DocumentIR]:
    """Plans of the corpus's documents (all, or ``indices``), one at a time."""
    check_spec(spec)
    for i in (range(spec.n_docs) if indices is None else indices):
        yield plan_document(spec, i)


def qa_bearing_blocks(doc: DocumentIR) -> list[tuple[str, str]]:
    """``(block_id, element type)`` of the blocks that own facts (the element-mix unit): the drawn elements, not
    the paragraphs of running text (``TextBlock.running``), which every written page has."""
    owners = {f.group for f in doc.facts if f.group}
    return [(b.id, ELEMENT_OF_BLOCK[b.type]) for _, b in doc.blocks()
            if b.id in owners and not getattr(b, "running", False)]


__all__ = ["check_spec", "doc_rng", "domain_for", "fit_pages", "page_count", "page_quantile", "pages_at",
           "planned_page_count", "plan_corpus",
           "plan_document", "qa_bearing_blocks", "recipe_and_pages", "recipe_for"]
