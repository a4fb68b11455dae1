"""No table repeats another table's rows and no caption or title recurs within one document
(``generation.content.repeats``), over planned documents of the long genres and the demo profile; the check
itself fails on planted repeats; the builders fall back to another kind when a document has run out of
distinct content."""

from __future__ import annotations

import datetime as dt
from functools import cache

import pytest

from synthdocqa.generation.content import figures, forms, tables
from synthdocqa.generation.content.book import DocContext, FactBook
from synthdocqa.generation.content.formats import DocFormat
from synthdocqa.generation.content.names import address
from synthdocqa.generation.content.repeats import (
    caption_text,
    captions_of,
    repeated_captions,
    repeated_tables,
    tables_of,
)
from synthdocqa.generation.domains import get_domain, get_recipe
from synthdocqa.generation.planner import plan_document, recipe_and_pages
from synthdocqa.ir import DocumentIR, FigureBlock, Rng, TableBlock
from synthdocqa.ir.blocks import Span
from synthdocqa.ir.spec import demo_spec, reference_spec

LONG_RECIPES = {"research_report", "sustainability_report", "annual_report", "contract_summary"}


def _sample() -> list[tuple[str, int]]:
    """About 40 documents: the first 24 of the reference profile (long genres), the first 12 of the demo
    profile, and the first demo and reference documents of each long recipe not among them."""
    picks = [("reference", i) for i in range(24)] + [("demo", i) for i in range(12)]
    specs = {"reference": reference_spec(seed=41), "demo": demo_spec(seed=41, n_docs=12)}
    have = {recipe_and_pages(specs[p], i)[0].slug for p, i in picks}
    for recipe in sorted(LONG_RECIPES - have):
        for profile in ("demo", "reference"):
            found = next((i for i in range(12 if profile == "demo" else 24, 400)
                          if recipe_and_pages(specs[profile], i)[0].slug == recipe), None)
            if found is not None:
                picks.append((profile, found))
                break
    return picks


@cache
def _doc(profile: str, index: int) -> DocumentIR:
    spec = reference_spec(seed=41) if profile == "reference" else demo_spec(seed=41, n_docs=12)
    return plan_document(spec, index)


def test_the_sample_spans_the_long_genres():
    docs = [_doc(*p) for p in _sample()]
    assert LONG_RECIPES <= {d.recipe for d in docs}
    assert sum(len(tables_of(d)) for d in docs) > 500  # enough tables for the check to mean something


def test_planned_documents_repeat_no_table_and_no_caption():
    tables_seen = captions_seen = 0
    for profile, index in _sample():
        doc = _doc(profile, index)
        assert repeated_tables(doc) == [], (profile, index, doc.recipe, repeated_tables(doc)[:3])
        assert repeated_captions(doc) == [], (profile, index, doc.recipe, repeated_captions(doc)[:3])
        tables_seen += len(tables_of(doc))
        captions_seen += len(captions_of(doc))
    assert tables_seen and captions_seen


def _long_doc() -> DocumentIR:
    doc = next(_doc(*p) for p in _sample() if len([t for t in tables_of(_doc(*p)) if t.caption]) >= 4)
    return doc.model_copy(deep=True)


def _with_block(doc: DocumentIR, block, page: int = -1) -> DocumentIR:
    doc.pages[page].blocks.append(block)
    return doc


def test_a_copied_table_is_reported_with_its_caption():
    doc = _long_doc()
    original = next(t for t in tables_of(doc) if t.caption)
    n = len(tables_of(doc)) + 1
    copy = original.model_copy(update={"id": "b999", "caption": original.caption.replace(
        original.caption.split(".")[0], f"Table {n}", 1).upper()}, deep=True)  # renumbered, other case
    doc = _with_block(doc, copy)
    pairs = repeated_tables(doc)
    assert [(p.first, p.second, p.by) for p in pairs] == [(original.id, "b999", "rows")]
    body = len(original.rows) - (1 if original.total_row else 0)
    assert pairs[0].shared == pairs[0].of == body
    caps = repeated_captions(doc)
    assert [c.block_ids for c in caps] == [(original.id, "b999")]
    assert caps[0].text == caption_text(original.caption)


def test_a_table_with_most_rows_of_another_is_a_repeat():
    doc = _long_doc()
    original = next(t for t in tables_of(doc) if len(t.rows) >= 5 and not t.total_row)
    rows = original.rows[: max(3, len(original.rows) - 1)]  # a subset: the smaller table's rows all repeat
    doc = _with_block(doc, TableBlock(id="b998", caption="Table 99. Something else", columns=["A", "B", "C", "D"][
        :len(original.columns)], rows=[list(r) for r in rows]))
    assert [(p.first, p.second, p.by) for p in repeated_tables(doc)] == [(original.id, "b998", "rows")]
    assert repeated_captions(doc) == []


def test_the_same_labels_under_the_same_headers_are_a_repeat_even_with_other_values():
    doc = _long_doc()
    original = next(t for t in tables_of(doc) if t.numeric_columns and len(t.rows) >= 4)
    body = original.rows[:-1] if original.total_row else original.rows
    changed = [[r[0], *(Span(text=f"{s.text}0") for s in r[1:])] for r in body]  # every value differs
    doc = _with_block(doc, TableBlock(id="b997", caption="Table 98. Other values", columns=list(original.columns),
                                      rows=changed))
    assert [(p.first, p.second, p.by) for p in repeated_tables(doc)] == [(original.id, "b997", "labels")]
    renamed = TableBlock(id="b996", caption="Table 97. Other headers", columns=[f"{c}*" for c in original.columns],
                         rows=changed)
    pairs = {(p.first, p.second) for p in repeated_tables(_with_block(doc, renamed))}
    assert (original.id, "b996") not in pairs and ("b997", "b996") in pairs  # other headers: only its twin


def test_a_repeated_figure_or_form_title_is_reported():
    doc = _long_doc()
    fig = next((b for _, b in doc.blocks() if isinstance(b, FigureBlock)), None)
    assert fig is not None
    _, _, text = fig.title.partition(". ")
    doc = _with_block(doc, fig.model_copy(update={"id": "b995", "title": f"Figure 77. {text.lower()}"}))
    assert any(c.block_ids == (fig.id, "b995") for c in repeated_captions(doc))
    assert caption_text("Table 12.  Revenue by region, 2025.") == caption_text("revenue by REGION, 2025")


# ---------------------------------------------------------------- builders when content runs out

def _ctx(domain: str = "logistics", recipe: str = "annual_report") -> DocContext:
    fmt = DocFormat(currency="USD", date_style="long", money_decimals=0)
    book = FactBook(fmt)
    issuer = book.entity("organisation", "Halcyon Logistics GmbH", role="issuer", **address(Rng(1), "Germany"))
    cps = [book.entity("organisation", n, role="supplier", **address(Rng(i + 2), "United Kingdom"))
           for i, n in enumerate(("Orion Freight", "Summit Carriers Ltd"))]
    people = [book.entity("person", n, role=r, department=dept)
              for n, r, dept in (("Dana Whitfield", "Head of Logistics", "Operations"),
                                 ("Kenji Tanaka", "Freight Manager", "Finance"))]
    return DocContext(domain=get_domain(domain), recipe=get_recipe(recipe), fmt=fmt, book=book, issuer=issuer,
                      counterparties=cps, people=people, year=2026, anchor=dt.date(2026, 3, 14))


def _as_doc(ctx: DocContext, blocks: list) -> DocumentIR:
    from synthdocqa.ir.document import PagePlan, PerturbationProfile

    return DocumentIR(doc_id="doc-00000", index=0, seed=0, seed_path=["doc", 0], domain=ctx.domain.slug,
                      recipe=ctx.recipe.slug, title="t", topic_brief="b", style_family="corporate",
                      reference=ctx.doc_reference(), as_at=ctx.anchor, entities=ctx.book.entities,
                      facts=ctx.book.facts, world=ctx.world_record(), pages=[PagePlan(page_no=1, blocks=blocks, layout_query="page")],
                      perturbation=PerturbationProfile(tier="good", device="flatbed", pages=[]))


def test_actions_are_listed_once_then_another_kind_is_built():
    ctx = _ctx()
    first = tables.action_table(ctx, Rng(1), 3)
    assert first.columns[0] == "Action" and len(first.rows) == 3
    second = tables.action_table(ctx, Rng(2), 3)  # two actions left: fewer than an action table lists
    assert second.columns[0] != "Action" and second.columns[-1] != "Status"
    assert tables.action_table(ctx, Rng(3), 5).columns[0] != "Action"
    doc = _as_doc(ctx, [first, second])
    assert repeated_tables(doc) == [] and repeated_captions(doc) == []


@pytest.mark.parametrize("kind", sorted(tables.TABLE_BUILDERS))
def test_many_tables_of_one_kind_never_repeat(kind):
    ctx = _ctx(recipe="contract_summary" if kind == "line_items" else "annual_report")
    blocks = [tables.TABLE_BUILDERS[kind](ctx, Rng(i, [kind]), 6) for i in range(40)]
    blocks += [figures.figure(ctx, Rng(i, ["fig"])) for i in range(30)]
    blocks += [forms.form(ctx, Rng(i, ["form"]), 6) for i in range(20)]
    doc = _as_doc(ctx, blocks)
    assert all(isinstance(b, TableBlock) for b in blocks[:40]) and all(len(b.rows) >= 3 for b in blocks[:40])
    assert repeated_tables(doc) == []
    assert repeated_captions(doc) == []
    assert len({b.id for b in blocks}) == len(blocks)
    numbers = [b.caption.split(".")[0] for b in blocks[:40]]
    assert numbers == [f"Table {i}" for i in range(1, 41)]  # a dropped attempt leaves no gap in the numbers
    assert {f.group for f in ctx.book.facts if f.group} <= {b.id for b in blocks}  # and no orphan facts


def test_same_context_and_seed_give_the_same_tables():
    def run():
        ctx = _ctx()
        return [tables.TABLE_BUILDERS[k](ctx, Rng(i, [k]), 6).model_dump_json()
                for i in range(8) for k in sorted(tables.TABLE_BUILDERS)]

    assert run() == run()
