"""The steps that fill one page of a planned document, below the heading and opening the planner gives it.

``planner._section_page`` lays a page of the text out top to bottom; these are the steps that fill it: the
QA-bearing blocks built to the room left (``_fill_page``, ``_build``), the discussion below each exhibit
(``_discuss``), what the last page left that opens this one (``_place``, ``_place_held``, ``_place_owed``), the
paragraphs of comment at a page's foot (``_fill_foot``), and the rule that a paragraph of facts is written
where it is printed or forgotten (``_written_if_fits``, ``_place_fresh``). They read and update the planner's
state (``_Doc``, ``_Run``, ``_Page``) and draw from the page's streams in the planner's order, which is part of
the byte contract. They live in a module of their own to keep the planner short: the planner imports them (and
``weighted``, ``EXHIBITS`` and ``LAST_PAGE_REFERENCE``, which both use), never the reverse (the state types are
imported for annotations only), so there is no import cycle.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from synthdocqa.ir.blocks import FigureBlock, FormBlock, TableBlock, TextBlock
from synthdocqa.ir.document import PagePlan
from synthdocqa.ir.rng import Rng

from .content import annotations, discourse, exhibit_text, figures, forms, prose, tables
from .content.book import DocContext
from .content.sizing import (
    ANNOTATION_HEIGHT,
    FIGURE_HEIGHT,
    PAGE_BUDGET,
    block_height,
    form_height,
    table_height,
)
from .domains import DEFAULT_TABLES

if TYPE_CHECKING:
    from .planner import _Doc, _Page, _Run

EXHIBIT_BLOCKS = ("table", "figure", "form")
LONG_TABLE_MIN_PAGES = 20
LONG_TABLE_P = 0.05
LAST_PAGE_REFERENCE = 40.0
"""Room (points) an exhibit on the last page keeps below it for the sentence that refers to it."""
NARRATIVE_FILL = 90.0
"""Room (points) left at the foot of a narrative page that a closing paragraph fills."""
NARRATIVE_PROSE_TARGET = 0.68
"""Planned share of a narrative document's content height that paragraphs take: below it, the page's next
exhibit is not drawn (the page fills with text), so a short policy or set of minutes reads as text like a
long annual report does (calibrated on demo seeds 1-4 and seed 77 to land rendered shares above the
narrative floor of 50%)."""
TEXT_SLACK = 180.0
"""Points a narrative page's closing comment may run past the planned budget: the sizing estimate of a
paragraph (``generation.content.sizing``) is taller than most layouts set it, so pages planned full printed
two-thirds full; what does overflow continues on the next page, which the pager fills from what follows."""
NARRATIVE_FILLS = 4
"""At most this many paragraphs of comment fill the foot of a narrative page (literal text: the questions
follow the spec's element mix, the pages the genre's prose share)."""
TEXT_PER_PAGE = 3
"""Paragraphs of figures a page to come may count on: with fewer left for each (``discourse.paragraphs_left``:
no skeleton is said a third time), narrative pages show an exhibit more and a paragraph less, so the text
lasts the whole document rather than ending half-way into a statistical annex."""
EXHIBITS = ("table", "figure", "form")


def weighted(rng: Rng, weights: dict[str, float], order: tuple[str, ...]) -> str:
    """One key drawn by weight; ``order`` (not the dict's) fixes which index means which key."""
    keys = [k for k in order if weights.get(k, 0) > 0]
    return rng.choice(keys, p=[weights[k] for k in keys])


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


def _place_owed(doc: _Doc, run: _Run, blocks: list) -> None:
    """The paragraphs of figures owed to the last page's exhibit (``_Run.owed``), written here where they fit."""
    for metric, n, rng in run.owed:
        for size in dict.fromkeys((n, 2)):
            t = _written_if_fits(doc, lambda s=size, r=rng, m=metric: prose.reflection(doc.ctx, r.fork("owed", s), s, m),
                                 PAGE_BUDGET - sum(block_height(b) for b in blocks))
            if t is not None:
                blocks.append(t)
                break
    run.owed = []


def _place_held(blocks: list, held: list) -> None:
    """The discussion of the last page's exhibit that did not fit there, on this page where it fits (its
    reference at least: a reflection alone can go)."""
    for t in held:
        left = PAGE_BUDGET - sum(block_height(b) for b in blocks)
        if block_height(t) <= left:
            blocks.append(t)
        elif exhibit_text.exhibit_ref_in(t) is not None and block_height(exhibit_text.first_sentence(t)) <= left:
            blocks.append(exhibit_text.first_sentence(t))


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


def _text_scarce(doc: _Doc, page: _Page) -> bool:
    """Whether the document's text is spent or would run out before its last page at ``TEXT_PER_PAGE``."""
    if doc.ctx.memo.get(prose.TEXT_SPENT):
        return True
    pages_left = max(1, doc.n_pages - doc.n_appendix - page.p + 1)
    return discourse.paragraphs_left(doc.ctx) < TEXT_PER_PAGE * pages_left


def _fill_page(doc: _Doc, run: _Run, page: _Page, demand: list[str], spare: str | None, last_page: bool,
               no_next: bool) -> None:
    """The page's QA-bearing blocks, each built to the room left: an element that does not fit is carried to the
    next page (so the realised mix follows the spec), a block that fills the page carries the rest, a narrative
    document short of text skips an exhibit. ``no_next``: no later page of the section takes a discussion that
    does not fit here, so a table or figure keeps room for the sentence that refers to it."""
    blocks = page.blocks
    first = True
    i = -1
    while i + 1 < len(demand) or spare and not _has_body(blocks) and page.room >= _min_height(spare):
        if i + 1 == len(demand):  # drawn out with nothing but notes on the page: one exhibit more
            demand.append(spare)  # type: ignore[arg-type]  # the loop's condition holds it is not None
            spare = None
        i += 1
        element = demand[i]
        if doc.narrative and element in EXHIBITS and _prose_share(run.pages, blocks) < NARRATIVE_PROSE_TARGET \
                and not _text_scarce(doc, page):
            continue  # the document is running short of text: the page is written, not shown (while text lasts)
        # on the last page an exhibit leaves room for the sentence that refers to it
        reserve = LAST_PAGE_REFERENCE if no_next and element in ("table", "figure") else 0.0
        if page.room - reserve < _min_height(element):
            run.carried.append(element)
            continue
        brng = page.prng.fork("block", i)
        targets = [b.id for b in blocks if isinstance(b, (TableBlock, FigureBlock, TextBlock, FormBlock))]
        block, fills = _build(element, doc.ctx, brng, page.room - reserve, doc.n_pages, first, targets,
                              run.footnotes, last_page)
        first = False
        blocks.append(block)
        page.room -= block_height(block)
        if isinstance(block, (TableBlock, FigureBlock)):  # every exhibit is referred to and discussed
            _discuss(doc, run, page, block, brng, no_next)
        if fills:
            run.carried.extend(demand[i + 1:])
            break


def _discuss(doc: _Doc, run: _Run, page: _Page, block: TableBlock | FigureBlock, brng: Rng, no_next: bool) -> None:
    """The discussion below an exhibit just placed (at length in a narrative genre, which reflects on it too):
    what does not fit the page is held to open the next one; with no next page, the reference alone."""
    ctx, ps = doc.ctx, page.ps
    n = ps.integers(5, 8) if doc.narrative else ps.integers(2, 4)
    c = exhibit_text.discussion(ctx, brng, block, n)
    if c is None:
        return
    if no_next and block_height(c) > page.room:  # no next page: the reference alone
        c = exhibit_text.first_sentence(c)
    metric = exhibit_text.exhibit_metric(ctx, block)  # what the organisation makes of it: the world's figures on its
    sizes = [s for s in [n - 2] + ([ps.integers(3, 6)] if doc.narrative else []) if s >= 2]  # measure, at length
    owed = [(metric, size, brng.fork("said", k)) for k, size in enumerate(sizes)]  # in a narrative genre
    if run.held_prose or block_height(c) > page.room:  # what does not fit the page opens the next one
        run.held_prose.append(c)
        run.owed += [] if no_next else owed
        return
    page.blocks.append(c)
    page.room -= block_height(c)
    for k, (_, size, stream) in enumerate(owed):
        if not any(_place_fresh(doc, page, lambda s=stream, n=n: prose.reflection(ctx, s.fork("here", n), n, metric))
                   for n in dict.fromkeys((size, 2))):  # shorter where the page has less room, else the next page
            run.owed += [] if no_next else owed[k:]
            break


def _written_if_fits(doc: _Doc, make, room: float):
    """The paragraph ``make()`` builds if it fits ``room``; if not, None, and it is forgotten (its facts, block id
    and world entries: ``DocContext.rollback``), since a paragraph of facts is never held over or cut."""
    point = doc.ctx.checkpoint()
    t = make()
    if t is None or block_height(t) > room:  # (None: the document's text is spent)
        doc.ctx.rollback(point)
        return None
    return t


def _place_fresh(doc: _Doc, page: _Page, make) -> bool:
    """Place the paragraph ``make()`` builds on the page if it fits (``_written_if_fits``)."""
    t = _written_if_fits(doc, make, page.room)
    if t is None:
        return False
    page.blocks.append(t)
    page.room -= block_height(t)
    return True


def _fill_foot(doc: _Doc, run: _Run, page: _Page, closed: bool, ends_alone: bool, last_page: bool,
               no_next: bool) -> None:
    """A page of a narrative genre or of a section of text ends in text, not in white space: up to
    ``NARRATIVE_FILLS`` paragraphs of comment, unless something else must end it (a held discussion, closing
    blocks, a closing record, a section that speaks alone: ``ends_alone``, the page's last section's voice, which
    the planner reads). A report may run ``TEXT_SLACK`` past the budget.
    Where the document's text is scarce (``_text_scarce``: no sentence skeleton is said a third time), one
    paragraph at most, and a table or chart of the spec's mix takes the rest of the room."""
    kept = doc.kept
    written = doc.narrative or kept[run.prev_section].prose  # a page of a narrative genre or of a section of text
    slack = TEXT_SLACK if doc.narrative else 0.0  # a section of text in a report keeps to the page
    fills = written and not run.held_prose and not page.closes and not closed and not ends_alone
    cap = kept[run.prev_section].paragraphs  # an abstract is one paragraph: its page ends in white space
    if cap and sum(b.type == "text_block" for b in page.blocks) >= cap:
        fills = False
    scarce = fills and _text_scarce(doc, page)
    for _ in range((1 if scarce else NARRATIVE_FILLS) if fills else 0):
        if page.room + slack < NARRATIVE_FILL:
            break
        n = page.ps.integers(3, 6)
        page.room += slack
        placed = _place_fresh(doc, page, lambda n=n: prose.reflection(doc.ctx, page.ps, n))
        page.room -= slack
        if not placed:
            break
    shown = {e: doc.mix.get(e, 0.0) for e in ("table", "figure")}
    fits = [e for e in ("table", "figure") if shown[e] > 0 and page.room >= max(NARRATIVE_FILL, _min_height(e))]
    if scarce and fits:  # the exhibit furthest below its share of the mix so far (a chart needs more room)
        placed = Counter(b.type for pg in run.pages for b in pg.blocks) + Counter(b.type for b in page.blocks)
        exhibit = min(fits, key=lambda e: placed[e] / shown[e])
        _fill_page(doc, run, page, [exhibit], None, last_page=last_page, no_next=no_next)
