"""In a short annual or quarterly report (fewer pages than sections, as a spec that asks for short documents
gives), the auditor's report, the financial statements and their notes still read as printed: each starts a
page, holds nothing of management's, and keeps its own blocks before the next section's heading; an exhibit's
discussion stays in the exhibit's section. Before: a 9-page annual report (reference spec, seed 2) had "In June
2025, the results were discussed with the owners ..." after the auditor's signature, the balance sheet and cash
flow statement after "Notes to the Financial Statements", and a quarterly's "Financial Summary" opened with
the discussion of the previous section's table. Each rule is shown failing with its fix planted out."""

from __future__ import annotations

import re

import pytest

from synthdocqa.corpus.views import doc_lint, genre_lint
from synthdocqa.generation import planner
from synthdocqa.generation.content import prose
from synthdocqa.generation.domains import RECIPES
from synthdocqa.ir.blocks import Span, TextBlock
from synthdocqa.ir.spec import PageCountDist, reference_spec
from synthdocqa.ir.vocab import SPEAKS_ALONE
from synthdocqa.renderers import render_document
from synthdocqa.renderers.layout.assign import with_layouts
from synthdocqa.renderers.pdf import pager

ANNUAL = tuple((s, n) for s in (1, 2, 3) for n in (3, 7, 9, 12))
QUARTERLY = tuple((s, n) for s in (1, 2, 3) for n in (3, 4, 5, 6, 7))
EXHIBIT = re.compile(r"^(Table|Figure) (\d+)\.")


def _plan(recipe: str, seed: int, pages: int):
    spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
        "recipes": [recipe], "pages": PageCountDist(mean=pages, sigma=0, min=pages, max=pages)})
    doc = planner.plan_document(spec, 0)
    assert doc.recipe == recipe and len(doc.pages) == pages
    return doc


def _text(b) -> str:
    return "".join(s.text for s in getattr(b, "spans", None) or [])


def _sections(doc):
    """(title, [block]) of each section of the grammar in the body, in reading order: a heading (of any level:
    on page 1 the sections are level 2 under the title) whose words are a grammar section's title."""
    patterns = [(sec.title, genre_lint._pattern(sec.title)) for sec in
                next(r for r in RECIPES if r.slug == doc.recipe).grammar]
    out: list[tuple[str, list]] = []
    for page in doc.pages:
        if page.role != "body":
            continue
        for b in page.blocks:
            title = next((t for t, pat in patterns if b.type == "heading" and pat.match(
                re.sub(r"^\d+\.? ", "", _text(b)))), None)
            if title is not None:
                out.append((title, []))
            elif out and b.type not in ("annotation", "footnote", "heading"):
                out[-1][1].append(b)
    return out


def _faults(doc) -> list[str]:
    grammar = {s.title: tuple(s.blocks) for s in next(r for r in RECIPES if r.slug == doc.recipe).grammar}
    sections = _sections(doc)
    where = {f"{m[1]} {m[2]}": title for title, blocks in sections for b in blocks
             for m in [EXHIBIT.match(getattr(b, "caption", "") or "")] if m}  # "Table 3" -> its section
    faults = []
    for title, blocks in sections:
        kinds = [b.genre_block for b in blocks]
        if grammar.get(title) and grammar[title][0] in SPEAKS_ALONE:
            general = [_text(b)[:60] for b in blocks if not b.genre_block and not _standing(b)]
            if general:
                faults.append(f"{title}: management text {general[0]!r}")
        stray = sorted({k for k in kinds if k and title in grammar and k not in grammar[title]})
        if stray:
            faults.append(f"{title}: blocks of another section {stray}")
        for b in blocks:  # a discussion of an exhibit sits in the exhibit's section
            m = re.match(r"^(Table|Figure) (\d+) (gives|sets out|shows)", _text(b))
            if m and not b.genre_block and where.get(f"{m[1]} {m[2]}", title) != title:
                faults.append(f"{title}: the discussion of {m[1]} {m[2]} (in {where[f'{m[1]} {m[2]}']})")
    return faults


def _standing(block) -> bool:
    """A statement's standing text (``prose.STANDING_TEXT``), which such a section may carry."""
    said = re.sub(r"^Note \d+ ", "", _text(block))
    return any(said.startswith(t.split("{")[0][:30]) for pool in prose.STANDING_TEXT.values() for t in pool)


def _alone_headings_open_their_page(doc) -> list[str]:
    """Faults: a section that speaks alone whose heading is not the first thing on its IR page."""
    out = []
    for page in doc.pages:
        body = [b for b in page.blocks if b.type not in ("annotation", "footnote")]
        for j, b in enumerate(body):
            if b.type == "heading" and b.level == 1 and j + 1 < len(body) and body[j + 1].genre_block in SPEAKS_ALONE \
                    and j > 0:
                out.append(f"{doc.doc_id} page {page.page_no}: {_text(b)!r} below {_text(body[0])[:40]!r}")
    return out


def _all(recipe: str, cases) -> tuple[list[str], list[str]]:
    faults, opens = [], []
    for seed, n in cases:
        doc = _plan(recipe, seed, n)
        faults += [f"seed {seed} {n}p: {f}" for f in _faults(doc)]
        faults += [f"seed {seed} {n}p: empty section {h!r} on page {p}" for p, h in doc_lint.empty_sections(doc)]
        opens += [f"seed {seed} {n}p: {f}" for f in _alone_headings_open_their_page(doc)]
    return faults, opens


@pytest.mark.parametrize("recipe,cases", [("annual_report", ANNUAL), ("quarterly_report", QUARTERLY)])
def test_statements_keep_to_their_sections_in_short_reports(recipe, cases):
    faults, _ = _all(recipe, cases)
    assert faults == []


def test_the_auditors_report_and_the_statements_open_their_pages():
    """Where the pages allow it (3 pages for 11 sections do not: the sections share them)."""
    _, opens = _all("annual_report", [(s, n) for s, n in ANNUAL if n > 3])
    assert opens == []


def test_planted_shared_pages_put_the_auditor_below_the_outlook(monkeypatch):
    monkeypatch.setattr(planner, "_shared_runs", lambda sections, n_pages: None)
    _, opens = _all("annual_report", ANNUAL)
    assert opens


def test_planted_the_old_page_loop_puts_text_where_it_does_not_belong(monkeypatch):
    """The page loop's three rules planted out at once: held discussions placed after the next heading, no
    forced placement of the first section's blocks, comment after a section that speaks alone."""
    monkeypatch.setattr(planner, "_voice", lambda section: "")
    faults, _ = _all("annual_report", ANNUAL)
    assert any("management text" in f for f in faults)


def _opened(doc) -> dict[str, bool]:
    """For each heading of a section that speaks alone: whether it is the first thing on its PDF page."""
    rmap = render_document(doc).render_map
    first_on: dict[int, str] = {}
    for b in rmap.blocks:
        if b.block_type not in ("annotation", "footnote"):
            first_on.setdefault(b.page_no, b.block_id)
    out = {}
    for page in doc.pages:
        body = [b for b in page.blocks if b.type not in ("annotation", "footnote")]
        for j, b in enumerate(body[:-1]):
            if b.type == "heading" and body[j + 1].genre_block in SPEAKS_ALONE:
                page_no = next(x.page_no for x in rmap.blocks if x.block_id == b.id)
                out[_text(b)] = first_on[page_no] == b.id
    return out


def test_a_section_that_speaks_alone_starts_a_pdf_page(monkeypatch):
    """The renderer starts such a section on a fresh PDF page even when the last one holds only a short spill
    of the previous section (which a new section otherwise runs on below)."""
    docs = [with_layouts(_plan("annual_report", 1, 7)), with_layouts(_plan("quarterly_report", 3, 5))]
    opened = [_opened(doc) for doc in docs]
    assert [len(o) for o in opened] == [3, 1] and all(v for o in opened for v in o.values()), opened
    monkeypatch.setattr(pager, "_opens_own_page", lambda blocks: False)
    assert [all(_opened(doc).values()) for doc in docs] == [False, False]


def test_standing_notes_are_numbered_after_the_notes_of_the_genre():
    """A page of the notes without blocks of its own carries a standing note: "Note 3 Basis of preparation.
    ...", numbered on from the genre's Note 1 (revenue) and Note 2 (borrowings), never an unnumbered note; the
    statements' and the auditor's standing text are not notes."""
    from synthdocqa.ir import Rng
    from tests.generation.test_content import make_ctx

    ctx = make_ctx()
    said = [_text(prose.standing_text(ctx, Rng(5, ["p", k]), "statement_notes")) for k in range(3)]
    assert [re.match(r"^Note (\d+) [A-Z]", t)[1] for t in said] == ["3", "4", "5"], said
    assert all(_standing(TextBlock(id="b001", spans=[Span(text=t)])) for t in said)
    other = _text(prose.standing_text(ctx, Rng(5, ["q"]), "income_statement"))
    assert not other.startswith("Note ")


def test_sections_on_pages_gives_every_page_and_every_section_in_order():
    """Any grammar, any page count: exactly ``n_pages`` pages, each section on them once, in order (a run of
    one section once took two pages' share, which left the planner a page short)."""
    import random

    rng = random.Random(0)
    names = ["Review", "Outlook", "Risk", "Governance", "Independent Auditor's Report", "Financial Statements",
             "Notes to the Financial Statements", "Financial Summary"]
    for _ in range(3000):
        k = rng.randint(1, 12)
        sections = tuple(f"{rng.choice(names)} {i}" if rng.random() < 0.7 else rng.choice(names[4:])
                         for i in range(k))
        n = rng.randint(1, 14)
        pages = planner.sections_on_pages(sections, n)
        flat = [x for p in pages for x in dict.fromkeys(p)]
        assert len(pages) == n and all(pages) and sorted(set(flat)) == list(range(k)), (sections, n, pages)
        assert [x for i, x in enumerate(flat) if i == 0 or x != flat[i - 1]] == sorted(set(flat))
    assert planner.sections_on_pages(("Letter", "Independent Auditor's Report", "Review", "Outlook", "Risk",
                                      "Governance", "Financial Statements", "Notes to the Financial Statements",
                                      "Outlook 2"), 8) != []
