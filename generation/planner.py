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
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterator
from statistics import NormalDist

from synthdocqa.ir import ids
from synthdocqa.ir.blocks import ELEMENT_OF_BLOCK, FigureBlock, FormBlock, TableBlock, TextBlock
from synthdocqa.ir.document import DocumentIR, PagePlan, PerturbationProfile
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.spec import REFERENCE_ELEMENT_MIX, CorpusSpec, PageCountDist
from synthdocqa.ir.vocab import DEVICES, SPEAKS_ALONE, TIERS, ElementType

from .content import annotations, figures, forms, front_matter, genre, prose, tables
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
from .content.sizing import (
    ANNOTATION_HEIGHT,
    FIGURE_HEIGHT,
    PAGE_BUDGET,
    block_height,
    form_height,
    table_height,
)
from .content.wording import lower_common
from .domains import (
    APPENDIX_MIN_PAGES,
    DEFAULT_TABLES,
    DOMAIN_BY_SLUG,
    DOMAINS,
    FRONT_MATTER_MIN_PAGES,
    RECIPE_BY_SLUG,
    Domain,
    Recipe,
    Section,
    view,
)

EXHIBIT_BLOCKS = ("table", "figure", "form")
LONG_TABLE_MIN_PAGES = 20
LONG_TABLE_P = 0.05
MAX_CARRY = 2
LAST_PAGE_REFERENCE = 40.0
"""Room (points) an exhibit on the last page keeps below it for the sentence that refers to it."""
NARRATIVE_FILL = 90.0
"""Room (points) left at the foot of a narrative page that a closing paragraph fills."""
NARRATIVE_PROSE_TARGET = 0.68
"""Planned share of a narrative document's content height that paragraphs take: below it, the page's next
exhibit is not drawn (the page fills with text), so a short policy or set of minutes reads as text like a
long annual report does (calibrated on demo seeds 1-4 and seed 77 to land rendered shares above the
narrative floor of 50%)."""
APPENDIX_LETTER = "A"
SECTION_ROOM = 150.0
"""Room (points) a page keeps for each further section it holds (heading, opening, a paragraph)."""
TEXT_SLACK = 180.0
"""Points a narrative page's closing comment may run past the planned budget: the sizing estimate of a
paragraph (``generation.content.sizing``) is taller than most layouts set it, so pages planned full printed
two-thirds full; what does overflow continues on the next page, which the pager fills from what follows."""
NARRATIVE_FILLS = 4
"""At most this many paragraphs of comment fill the foot of a narrative page (literal text: the questions
follow the spec's element mix, the pages the genre's prose share)."""
EXHIBITS = ("table", "figure", "form")
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


def weighted(rng: Rng, weights: dict[str, float], order: tuple[str, ...]) -> str:
    """One key drawn by weight; ``order`` (not the dict's) fixes which index means which key."""
    keys = [k for k in order if weights.get(k, 0) > 0]
    return rng.choice(keys, p=[weights[k] for k in keys])


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


def _place(blocks: list, pending: list, force: bool = False) -> int:
    """Moves the pending genre blocks that fit onto the page (in order; the first always, on a page without an
    exhibit yet; all of them when ``force``: a new section starts below them); returns how many."""
    n = 0
    while pending:
        left = PAGE_BUDGET - sum(block_height(b) for b in blocks)
        if not force and block_height(pending[0]) > left and \
                any(b.genre_block or b.type in EXHIBIT_BLOCKS for b in blocks):
            break
        blocks.append(pending.pop(0))
        n += 1
    return n


def _place_held(blocks: list, held: list) -> None:
    """The discussion of the last page's exhibit that did not fit there, on this page where it fits (its
    reference at least: a reflection alone can go)."""
    for t in held:
        left = PAGE_BUDGET - sum(block_height(b) for b in blocks)
        if block_height(t) <= left:
            blocks.append(t)
        elif prose.exhibit_ref_in(t) is not None and block_height(prose.first_sentence(t)) <= left:
            blocks.append(prose.first_sentence(t))


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
            ref = prose.exhibit_ref(b) if b.type in ("table", "figure") else None
            if ref is not None and not re.search(rf"\b{ref[0]}\b", said):
                c = prose.discussion(ctx, rng.fork("genre", kind), b, 1)
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


def sections_on_pages(sections: tuple[str, ...], n_pages: int) -> list[list[int]]:
    """The sections each of ``n_pages`` body pages holds, in the genre's order: one a page (a section running
    over several pages, see ``section_pages``) where there are pages enough, else several a page, shared
    evenly, so a three-page policy still has all six of its sections rather than three of them."""
    if n_pages >= len(sections):
        pages = [[s] for s in section_pages(sections, n_pages)]
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


def section_pages(sections: tuple[str, ...], n_pages: int) -> list[int]:
    """The section each of ``n_pages`` body pages belongs to: pages shared by weight (short sections a
    third of the others, one-page sections none beyond their own), every section at least one page while
    there are pages, in the genre's order."""
    fixed = [_fixed_pages(s) for s in sections]
    weights = [0.0 if k else 1 / 3 if any(re.search(w, s.lower()) for w in SHORT_SECTIONS) else 1.0
               for s, k in zip(sections, fixed, strict=True)]
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

OWN_ACTION_BLOCKS = frozenset({"action_plan", "action_log"})
"""Genre blocks that are the document's table of actions: a genre holding one draws no general action
table (a tracker in a risk assessment's context would take the actions its mitigation plan lists)."""


def _table(ctx: DocContext, rng: Rng, max_rows: int, n_pages: int, first_on_page: bool):
    kinds = dict(ctx.recipe.tables or DEFAULT_TABLES)
    if "actions" in kinds and len(kinds) > 1 and any(OWN_ACTION_BLOCKS & set(s.blocks) for s in ctx.recipe.grammar):
        del kinds["actions"]
    if n_pages >= LONG_TABLE_MIN_PAGES and first_on_page and rng.bernoulli(LONG_TABLE_P) and \
            ctx.recipe.genre_class != "narrative":  # a long register belongs in a schedule, not in a report's text
        return tables.register_table(ctx, rng, rng.integers(30, 61)), True
    kind = weighted(rng, kinds, tuple(kinds))
    cap = {"comparison": len(ctx.domain.items) + 1, "share": len(ctx.domain.items) + 1, "line_items": 12,
           "register": 12, "actions": len(ctx.domain.actions)}[kind]
    want = rng.integers(4, 9 if ctx.recipe.genre_class == "narrative" else 13)  # a report's tables are short
    rows = max(3, min(want, cap, max_rows - (1 if kind in ("comparison", "share", "line_items", "register") else 0)))
    return tables.TABLE_BUILDERS[kind](ctx, rng, rows), False


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
        said = prose.discussion(ctx, rng.fork("appendix", 2), table, 1)
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
            said = prose.discussion(ctx, trng, table, 1)
            if said is not None:  # every exhibit is referred to: the sentence that names it at least
                said = said if block_height(said) <= room else prose.first_sentence(said)
                blocks.append(said)
                room -= block_height(said)
            n += 1
    return PagePlan(page_no=page_no, blocks=blocks, layout_query=_describe_page(blocks, style_family))


def _prose_share(pages: list[PagePlan], blocks: list) -> float:
    """Planned share of the body's content height that paragraphs take (pages so far and this page's
    blocks; front matter and overlays left out, as the rendered measure leaves them out)."""
    prose = content = 0.0
    for b in [b for pg in pages if pg.role == "body" for b in pg.blocks] + blocks:
        if b.type == "annotation":
            continue
        h = block_height(b)
        content += h
        if b.type in ("text_block", "list"):
            prose += h
    return prose / content if content else 1.0


def _has_body(blocks: list) -> bool:
    """Whether a page holds something to read: more than headings, notes and overlays (a page whose one
    drawn text became a footnote holds nothing the footnote could annotate)."""
    return any(b.type not in ("heading", "annotation", "footnote") for b in blocks)


def _min_height(element: str) -> float:
    return {"table": table_height(4), "figure": FIGURE_HEIGHT, "form": form_height(4, 2),
            "annotation": ANNOTATION_HEIGHT["signature"], "text": 84.0}[element]


def _build(element: str, ctx: DocContext, rng: Rng, room: float, n_pages: int, first_on_page: bool,
           targets: list[str], footnotes: list[int], last_page: bool = False):
    """One QA-bearing block sized to ``room``; returns (block, fills_page). A signature only where a document
    is signed: the last page of its text, or any page of a transactional one (a claim, an order, a log)."""
    if element == "table":
        max_rows = int((room - table_height(0)) // 17)
        return _table(ctx, rng, max_rows, n_pages, first_on_page)
    if element == "figure":
        return figures.figure(ctx, rng), False
    if element == "form":
        fit = int((room - form_height(0, 4)) // 22)
        return forms.form(ctx, rng, max(3, min(rng.integers(4, 8), fit))), False
    if element == "annotation":
        signed = last_page or ctx.recipe.genre_class == "transactional"
        return annotations.annotation(ctx, rng, targets, signed=signed), False
    footnotes[0] += 1
    return prose.text_element(ctx, rng, str(footnotes[0]), room), False


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

def document_context(root: Rng, domain: Domain, recipe: Recipe) -> tuple[DocContext, str]:
    """The context every builder of a document shares (its formats, calendar, issuer, counterparties and
    people) and the issuer's country, drawn from the document's root stream."""
    cal = root.fork("calendar")
    currency = domain.currency if cal.bernoulli(0.8) else cal.choice(currencies())
    fmt = choose_format(root.fork("format"), currency, cents=recipe.genre_class == "transactional")
    year = 2023 + cal.integers(0, 4)
    anchor = dt.date(year, cal.integers(1, 13), cal.integers(1, 29))
    book = FactBook(fmt)
    country = country_for(root.fork("country"), currency)
    issuer, cps, people = _cast(domain, currency, root.fork("cast"), book, country, root.fork("places"))
    ctx = DocContext(domain=domain, recipe=recipe, fmt=fmt, book=book, issuer=issuer, counterparties=cps,
                     people=people, year=year, anchor=anchor, dyn=root.fork("dynamics"))
    return ctx, country


def plan_document(spec: CorpusSpec, index: int) -> DocumentIR:
    """The complete content plan of document ``index`` of ``spec`` (layouts and scan params left open)."""
    check_spec(spec)
    if index < 0:
        raise ValueError(f"index must be >= 0, got {index}")
    root = doc_rng(spec, index)
    domain = domain_for(spec, index)
    recipe, n_pages = recipe_and_pages(spec, index)
    tier = weighted(root.fork("tier"), spec.tier_mix, TIERS)
    device = weighted(root.fork("device"), spec.device_mix, DEVICES)
    style_family = root.fork("style").choice(domain.style_families)
    ctx, country = document_context(root, domain, recipe)
    issuer, book, anchor = ctx.issuer, ctx.book, ctx.anchor
    title, values = _title(recipe, ctx, root.fork("title"))
    t1, t2 = root.fork("brief").sample(view(domain, recipe.lens).topics, 2)
    brief = (f"{recipe.description} issued by {issuer.name} ({lower_common(domain.title)}), covering {t1} and "
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
    carried: list[str] = []
    footnotes = [0]
    pages: list[PagePlan] = []
    prev_section = -1
    first_body = 3 if structured else 1
    narrative = recipe.genre_class == "narrative"
    transactional = recipe.genre_class == "transactional"  # its genre blocks speak for themselves
    subsections: list[int] = [0] * len(sections)
    per_section = max(1, len(domain.topics) // len(sections))
    n_appendix = 0 if not (structured and recipe.appendix and n_pages >= APPENDIX_MIN_PAGES) else \
        2 if n_pages >= 2 * APPENDIX_MIN_PAGES + 8 else 1  # the long schedules, after the sections
    section_at = sections_on_pages(tuple(sec.title for sec in kept), n_pages - first_body + 1 - n_appendix)
    pending: list = []  # genre blocks of a started section not placed yet (they open the next page)
    closing: list = []  # closing genre blocks of the running section (they end its last page)
    used_topics: set[str] = set()
    held_prose: list = []
    for p in range(1, n_pages + 1):
        prng = root.fork("page", p)
        ctx.page = p
        ps = prng.fork("structure")  # page structure, drawn sequentially; block content has its own stream
        if structured and p < first_body:
            front = front_matter.cover(ctx, title, brief) if p == 1 else [front_matter.contents_placeholder(ctx)]
            pages.append(PagePlan(page_no=p, blocks=front, role="cover" if p == 1 else "contents",
                                  layout_query=_describe_page(front, style_family)))
            continue
        if p > n_pages - n_appendix:
            ctx.domain = view(domain, recipe.lens)  # the schedules of the recipe's own subject
            pages.append(_appendix_page(ctx, prng, p, p == n_pages - n_appendix + 1, recipe.appendix, style_family))
            continue
        blocks: list = []
        room = PAGE_BUDGET
        if p == 1:
            blocks.append(prose.heading(ctx, title, 1))
        sec, *more_sections = section_at[p - first_body]
        ctx.domain = view(domain, recipe.lens_of(kept[sec]))  # what the page's general content reports on
        if sec != prev_section and pages and (pending or held_prose) and \
                (_voice(kept[sec]) == "alone" or _voice(kept[prev_section]) == "alone"):
            # an auditor's report or a statement starts on a page of its own, and its own blocks stay on its
            # pages: the last section ends where it was, its blocks whole (onto a page of their own when the
            # renderer finds it full), a discussion that does not fit by its reference alone
            tail = [*pages[-1].blocks, *pending]
            for t in held_prose:
                left = PAGE_BUDGET - sum(block_height(b) for b in tail)
                short = prose.first_sentence(t) if prose.exhibit_ref_in(t) is not None else None
                tail.append(t if block_height(t) <= left or short is None else short)
            pages[-1] = pages[-1].model_copy(update={"blocks": tail,
                                                     "layout_query": _describe_page(tail, style_family)})
            pending, held_prose = [], []
        continued = _place(blocks, pending, force=sec != prev_section)  # the last section's, continued
        placed_genre = continued if sec == prev_section else 0  # a new section's exhibits are its own to draw
        if sec != prev_section:  # the discussion of the last page's exhibit ends its section, above the next
            _place_held(blocks, held_prose)
            held_prose = []
            blocks.append(prose.heading(ctx, sections[sec], 1 if p > 1 else 2))
            opener = None
            if (narrative or kept[sec].prose or ps.bernoulli(0.7)) and not (transactional and kept[sec].blocks) \
                    and not _closing_only(kept[sec]) and _voice(kept[sec]) != "alone":
                opener = prose.opener(ctx, ps, ps.integers(2, 4) if narrative else ps.integers(1, 3))
            if opener is not None and _voice(kept[sec]) != "first":
                blocks.append(opener)
            if n_appendix and p == first_body:  # the introduction says where the schedules are
                blocks.append(prose.appendix_pointer(ctx, ps, APPENDIX_LETTER))
            built = genre_blocks(ctx, prng, kept[sec])
            pending += [b for b in built if b.genre_block not in CLOSING_BLOCKS]
            if opener is not None and _voice(kept[sec]) == "first":  # the record first, the text after it
                pending.append(opener)
            closing += [b for b in built if b.genre_block in CLOSING_BLOCKS]
        elif kept[sec].blocks:  # a section of genre blocks has no subsections on general topics
            pass
        elif ps.bernoulli(0.5):
            topic = front_matter.subsection_topic(ctx.domain, ps, used_topics)
            if topic is not None and subsections[sec] < per_section:  # a subsection of the running section, numbered when the sections are
                subsections[sec] += 1
                label = f"{sec + 1}.{subsections[sec]} {topic}" if structured or agenda else topic
                blocks.append(prose.heading(ctx, label, 2))
                blocks.append(prose.subsection_opener(ctx, ps, topic))
        _place_held(blocks, held_prose)  # the discussion of the last page's exhibit, where it did not fit there
        held_prose = []
        placed_genre += _place(blocks, pending)
        if narrative and not any(b.type == "text_block" for b in blocks) and not _record_only(kept[sec]):
            # a narrative page reads as text (minutes' next meeting is its own line and the signatures)
            own = kept[sec].blocks[0] if _voice(kept[sec]) == "alone" and kept[sec].blocks else None
            blocks.append(prose.standing_text(ctx, ps, own) if own in prose.STANDING_TEXT  # a statement's page
                          else prose.opener(ctx, ps, ps.integers(3, 6)))
        prev_section = more_sections[-1] if more_sections else sec
        body_end = p == n_pages - n_appendix
        ends_section = body_end or section_at[p + 1 - first_body][0] != prev_section
        closes = closing if ends_section or more_sections else []  # room kept for the section's closing blocks
        room -= sum(block_height(b) for b in blocks + closes) + SECTION_ROOM * len(more_sections)
        k = 1 + int(ps.gen.binomial(4, min(1.0, max(0.0, (spec.blocks_per_page - 1) / 4))))
        if narrative or more_sections:  # fewer exhibits a page, each discussed at length
            k = max(1, k - 1 - len(more_sections))
        demand = carried[:MAX_CARRY] + [weighted(ps, mix, ELEMENT_DRAW_ORDER) for _ in range(k)]
        carried = []
        own_exhibits = bool(placed_genre or pending or _closing_only(kept[sec]) or kept[sec].prose)
        alone = _voice(kept[prev_section]) == "alone" and not more_sections  # an auditor's report: nothing else
        if alone or _voice(kept[sec]) == "alone":  # nor under a first section that speaks alone (minutes'
            carried, demand = [], [e for e in demand if e == "annotation"]  # attendance): the later ones' own text
        if own_exhibits:  # the genre blocks are this page's
            # exhibits (a sign-off section holds its sign-off, not a table of figures); comment may follow them
            carried = [e for e in demand if e in EXHIBITS][:MAX_CARRY]
            demand = [e for e in demand if e not in EXHIBITS]
        spare = max(("table", "figure"), key=lambda e: mix.get(e, 0.0))  # for a page drawn out with only notes
        if own_exhibits or mix.get(spare, 0.0) <= 0:
            spare = None
        first = True
        last_page = p == n_pages - n_appendix  # the last page of the text (an appendix has no discussion)
        before_alone = not body_end and ends_section and _voice(kept[section_at[p + 1 - first_body][0]]) == "alone"
        no_next = last_page or before_alone  # no next page of this section holds a discussion that does not fit
        i = -1
        while i + 1 < len(demand) or spare and not _has_body(blocks) and room >= _min_height(spare):
            if i + 1 == len(demand):  # drawn out with nothing but notes on the page: one exhibit more
                demand.append(spare)
                spare = None
            i += 1
            element = demand[i]
            if narrative and element in EXHIBITS and _prose_share(pages, blocks) < NARRATIVE_PROSE_TARGET:
                continue  # the document is running short of text: the page is written, not shown
            # on the last page an exhibit leaves room for the sentence that refers to it
            reserve = LAST_PAGE_REFERENCE if no_next and element in ("table", "figure") else 0.0
            if room - reserve < _min_height(element):
                carried.append(element)
                continue
            brng = prng.fork("block", i)
            targets = [b.id for b in blocks if isinstance(b, (TableBlock, FigureBlock, TextBlock, FormBlock))]
            block, fills = _build(element, ctx, brng, room - reserve, n_pages, first, targets, footnotes, last_page)
            first = False
            blocks.append(block)
            room -= block_height(block)
            if isinstance(block, (TableBlock, FigureBlock)):  # every exhibit is referred to and discussed
                c = prose.discussion(ctx, brng, block, ps.integers(5, 8) if narrative else ps.integers(2, 4))
                said = [c] if c is not None else []
                if narrative and c is not None:  # narrative genres discuss an exhibit at length
                    said.append(prose.reflection(ctx, brng, ps.integers(4, 8)))
                if no_next and said and block_height(said[0]) > room:  # no next page: the reference alone
                    said = [prose.first_sentence(said[0])]
                for t in said:  # what does not fit the page opens the next one
                    if not held_prose and block_height(t) <= room:
                        blocks.append(t)
                        room -= block_height(t)
                    else:
                        held_prose.append(t)
            if fills:
                carried.extend(demand[i + 1:])
                break
        room += SECTION_ROOM * len(more_sections)
        if more_sections and (pending or held_prose):  # the first section's genre blocks and the discussion of
            n_before = len(blocks)  # its exhibits end it before the next one starts (a statement never follows
            _place(blocks, pending, force=True)  # the notes to it, nor a chart's discussion the next heading)
            blocks += held_prose
            held_prose = []
            room -= sum(block_height(b) for b in blocks[n_before:])
        if more_sections and kept[sec].prose:  # a section of text is written before the next one starts
            said = prose.reflection(ctx, ps, ps.integers(2, 5))
            if block_height(said) <= room - SECTION_ROOM * len(more_sections):
                blocks.append(said)
                room -= block_height(said)
        if more_sections and closes:  # the first section ends on this page, before the next one starts
            blocks += closes
            closes = closing = []
        closed = False  # the page's last section is a closing one (signatures, next meeting) already placed
        for n, more in enumerate(more_sections):  # the page's later sections: heading, opening, a paragraph
            mrng = prng.fork("section", n)
            ctx.domain = view(domain, recipe.lens_of(kept[more]))
            own = genre_blocks(ctx, mrng, kept[more])
            said = [prose.heading(ctx, sections[more], 1 if p > 1 else 2)]
            opener = None
            if not (transactional and own) and not _closing_only(kept[more]) and _voice(kept[more]) != "alone":
                opener = prose.opener(ctx, mrng, mrng.integers(2, 4) if narrative else mrng.integers(1, 3))
            if opener is not None and _voice(kept[more]) != "first":
                said.append(opener)
            if own:  # the section's genre blocks are its content (a record that speaks first, then the text)
                said += own + ([opener] if opener is not None and _voice(kept[more]) == "first" else [])
            elif mix.get("text", 0.0) > 0:  # a paragraph with facts of its own, where the spec has text questions
                footnotes[0] += 1
                said.append(prose.text_element(ctx, mrng, str(footnotes[0]), max(room - 120, 84.0)))
            else:
                said.append(prose.reflection(ctx, mrng, mrng.integers(2, 4)))
            if ((narrative and own and not _closing_only(kept[more])) or kept[more].prose) and \
                    _voice(kept[more]) != "alone":  # discussed, or written (an auditor's report is not)
                said.append(prose.reflection(ctx, mrng, mrng.integers(3, 6)))
            if own and _closing_only(kept[more]):  # a signature or next meeting ends the page: no text after it
                closed = True
            blocks.extend(said)
            room -= sum(block_height(b) for b in said)
        written = narrative or kept[prev_section].prose  # a page of a narrative genre or of a section of text
        slack = TEXT_SLACK if narrative else 0.0  # a section of text in a report keeps to the page
        ends_alone = _voice(kept[prev_section]) == "alone"  # the page's last section: no comment after it
        for _ in range(NARRATIVE_FILLS if written and not held_prose and not closes and not closed and not ends_alone
                       else 0):  # the page ends in text, not in white space
            if room + slack < NARRATIVE_FILL:
                break
            fill = prose.reflection(ctx, ps, ps.integers(3, 6))
            if block_height(fill) > room + slack:
                break
            blocks.append(fill)
            room -= block_height(fill)
        if closes:  # the section's signature or next meeting ends its last page
            blocks += closes
            closing = []
        if pending and len(blocks) > 1 and blocks[-1].type == "heading":  # a heading keeps with its section's
            pending.insert(0, blocks.pop())  # blocks: it opens the next page above them, never ends this one
        if all(b.type in ("heading", "annotation") for b in blocks):  # never a page of headings and overlays
            first = kept[prev_section].blocks[0] if alone and kept[prev_section].blocks else None
            blocks.append(prose.standing_text(ctx, ps, first) if first in prose.STANDING_TEXT
                          else prose.opener(ctx, ps, ps.integers(2, 4)))  # a statement's page: no management text
        pages.append(PagePlan(page_no=p, blocks=blocks, layout_query=_describe_page(blocks, style_family)))
    ctx.domain = domain
    if pending or closing:  # the last section's genre blocks that did not fit: they end the text
        last = len(pages) - 1 - n_appendix
        pages[last] = pages[last].model_copy(update={"blocks": [*pages[last].blocks, *pending, *closing]})
    refs = [t for t in held_prose if prose.exhibit_ref_in(t) is not None]
    if refs:  # the last exhibit's reference, on the last page (a reflection without one can go)
        last = len(pages) - 1 - n_appendix
        pages[last] = pages[last].model_copy(update={"blocks": [*pages[last].blocks, prose.first_sentence(refs[0])]})
    if structured:
        pages[1] = front_matter.with_contents(ctx, pages)
    return DocumentIR(
        doc_id=ids.doc_id(index), index=index, seed=spec.seed, seed_path=["doc", index], domain=domain.slug,
        recipe=recipe.slug, title=title, topic_brief=brief, style_family=style_family, page_size=paper_of(country),
        reference=ctx.doc_reference(), as_at=anchor, entities=book.entities,
        facts=book.facts, pages=pages, perturbation=PerturbationProfile(tier=tier, device=device, pages=[]))


def plan_corpus(spec: CorpusSpec, indices: list[int] | None = None) -> Iterator[DocumentIR]:
    """Plans of the corpus's documents (all, or ``indices``), one at a time."""
    check_spec(spec)
    for i in (range(spec.n_docs) if indices is None else indices):
        yield plan_document(spec, i)


def qa_bearing_blocks(doc: DocumentIR) -> list[tuple[str, str]]:
    """``(block_id, element type)`` of the blocks that own facts (the element-mix unit)."""
    owners = {f.group for f in doc.facts if f.group}
    return [(b.id, ELEMENT_OF_BLOCK[b.type]) for _, b in doc.blocks() if b.id in owners]


__all__ = ["check_spec", "doc_rng", "domain_for", "fit_pages", "page_count", "page_quantile", "pages_at",
           "planned_page_count", "plan_corpus",
           "plan_document", "qa_bearing_blocks", "recipe_and_pages", "recipe_for"]


