"""Genre-level lint (``corpus.views.genre_lint``): planned documents of every recipe hold their grammar's
required sections and genre blocks, in place, and nothing foreign; each check fails on its planted
violation."""

from __future__ import annotations

import pytest

from synthdocqa.corpus.views.genre_lint import genre_problems
from synthdocqa.generation.content import forms
from synthdocqa.generation.domains import RECIPES, get_recipe
from synthdocqa.generation.planner import plan_document
from synthdocqa.ir.spec import PageCountDist, demo_spec


def _doc(recipe: str, pages: int | None = None, index: int = 0, seed: int = 29):
    r = get_recipe(recipe)
    n = pages or r.pages[1]
    spec = demo_spec(seed=seed).model_copy(update={"recipes": [recipe], "domains": None,
                                                   "pages": PageCountDist(mean=n, sigma=0, min=n, max=n)})
    return plan_document(spec, index)


def _checks(doc):
    return sorted({p.check for p in genre_problems(doc.doc_id, doc)})


@pytest.mark.parametrize("recipe", [r.slug for r in RECIPES])
def test_every_recipe_holds_its_grammar(recipe):
    r = get_recipe(recipe)
    for n in sorted({r.pages[0], r.pages[1]}):
        doc = _doc(recipe, n)
        assert doc.recipe == recipe
        assert genre_problems(doc.doc_id, doc) == [], (n, [p.detail for p in genre_problems(doc.doc_id, doc)])


def _without(doc, keep):
    pages = [p.model_copy(update={"blocks": [b for b in p.blocks if keep(b)]}) for p in doc.pages]
    return doc.model_copy(update={"pages": pages})


def test_planted_violations_fail():
    doc = _doc("board_minutes", 8)
    assert _checks(doc) == []
    # a genre block taken out
    bad = _without(doc, lambda b: b.genre_block != "resolutions")
    assert "missing_block" in _checks(bad)
    # a required section's heading taken out (its blocks now stand under the section before it)
    heading = next(b for _, b in doc.blocks() if b.type == "heading" and b.spans[0].text.endswith("Attendance"))
    bad = _without(doc, lambda b: b.id != heading.id)
    assert {"missing_section", "misplaced_block"} <= set(_checks(bad))
    # a block of a kind the genre does not hold
    foreign = next(b for _, b in doc.blocks() if b.genre_block == "attendance").model_copy(
        update={"genre_block": "balance_sheet"})
    pages = [p.model_copy(update={"blocks": [foreign if b.id == foreign.id else b for b in p.blocks]})
             for p in doc.pages]
    assert "foreign_block" in _checks(doc.model_copy(update={"pages": pages}))


def test_a_form_in_an_annual_report_is_foreign():
    doc = _doc("annual_report", 24)
    assert _checks(doc) == []
    from synthdocqa.generation.planner import doc_rng  # noqa: F401 - the planner's own context is not needed here
    from tests.generation.genre_fixture import genre_ctx

    ctx = genre_ctx("annual_report", 1)
    ctx.book._blocks = 900  # ids clear of the document's
    form = forms.form(ctx, ctx.dyn)
    facts = doc.facts + [f.model_copy(update={"id": f"f9{i:03d}"}) for i, f in enumerate(ctx.book.facts)]
    remap = {f.id: f"f9{i:03d}" for i, f in enumerate(ctx.book.facts)}
    form = form.model_copy(update={"fields": [fl.model_copy(update={"value": fl.value.model_copy(update={
        "fact_ids": [remap[x] for x in fl.value.fact_ids]})}) for fl in form.fields], "checkboxes": [
        cb.model_copy(update={"fact_ids": [remap[x] for x in cb.fact_ids]}) for cb in form.checkboxes]})
    facts = [f.model_copy(update={"group": form.id}) if f.id in remap.values() else f for f in facts]
    pages = list(doc.pages)
    k = len(pages) // 2
    pages[k] = pages[k].model_copy(update={"blocks": [*pages[k].blocks, form]})
    bad = doc.model_copy(update={"pages": pages, "facts": facts, "entities": doc.entities})
    assert "foreign_block" in _checks(bad)


def _action_plans(seeds, recipes=("risk_assessment", "incident_report", "compliance_report", "audit_memo")):
    for recipe in recipes:
        for seed in seeds:
            spec = demo_spec(seed=seed, n_docs=1).model_copy(update={"recipes": [recipe], "domains": None})
            doc = plan_document(spec, 0)
            yield from (b for p in doc.pages for b in p.blocks if b.genre_block == "action_plan")


def test_an_action_plan_lists_actions_even_where_general_tables_could_take_them(monkeypatch):
    """A genre with its own plan of actions draws no general action table, which would use up the actions and
    leave the plan a table of figures (a risk assessment's 'Mitigation Actions' holding 'Exposure by matter')."""
    from synthdocqa.generation import page_fill

    seeds = (5151, 7, 11)
    plans = list(_action_plans(seeds))
    assert plans and all(b.columns[0] == "Action" for b in plans)
    monkeypatch.setattr(page_fill, "OWN_ACTION_BLOCKS", frozenset())  # planted: general action tables allowed again
    assert any(b.columns[0] != "Action" for b in _action_plans(seeds))


def _terms_paragraphs(recipes, seeds):
    for recipe in recipes:
        for seed in seeds:
            spec = demo_spec(seed=seed, n_docs=1).model_copy(update={"recipes": [recipe], "domains": None})
            doc = plan_document(spec, 0)
            yield from (f for f in doc.facts if f.label == "Invoice date stated in the payment terms")


def test_payment_terms_only_in_trade_genres(monkeypatch):
    """An invoice's payment terms ('remit to the account of ...') are no paragraph of an expense claim, memo or
    minutes: only trade genres draw them."""
    from synthdocqa.generation.content import prose

    others = ("expense_claim", "audit_memo", "board_minutes", "contract_summary", "invoice", "inspection_report")
    seeds = tuple(range(40, 52))
    assert list(_terms_paragraphs(others, seeds)) == []
    assert list(_terms_paragraphs(("purchase_order",), seeds))
    monkeypatch.setattr(prose, "TERMS_RECIPES", prose.TERMS_RECIPES | set(others))  # planted: drawn anywhere
    assert list(_terms_paragraphs(others, seeds))


def test_a_section_started_below_the_last_sections_spill_draws_its_own_content():
    """A section whose heading comes after the previous section's statements on a page draws exhibits of its
    own there (reference seed 5353, document 86: '4 Key Metrics' ended a page with nothing under it, because
    the cash-flow statement placed above it was counted as the new section's)."""
    from synthdocqa.corpus.views.doc_lint import empty_sections
    from synthdocqa.ir.spec import reference_spec

    assert empty_sections(plan_document(reference_spec(seed=5353), 86)) == []


# ------------------------------------------------------------------ standing text belongs to its genre

def _standing_planted(monkeypatch, recipe: str, kind: str, seeds=range(40, 160)):
    """A document of ``recipe`` clean under the lint, then planned again with the generator let write standing
    text ``kind`` (every other kind as ``standing.yaml`` says): the first seed where it writes one."""
    from synthdocqa.corpus.views.genre_lint import standing_kinds
    from synthdocqa.generation.content import standing

    real = standing.allows
    for seed in seeds:
        spec = demo_spec(seed=seed, n_docs=1).model_copy(update={"recipes": [recipe], "domains": None})
        clean = plan_document(spec, 0)
        assert _checks(clean) == [], (seed, _checks(clean))
        with monkeypatch.context() as m:
            m.setattr(standing, "allows", lambda ctx, k: k == kind or real(ctx, k))
            doc = plan_document(spec, 0)
        if any(k == kind for k, _, _ in standing_kinds(doc)):
            return doc
    raise AssertionError(f"no {recipe} of seeds {seeds} wrote {kind}")


@pytest.mark.parametrize(("recipe", "kind", "says"), [
    ("invoice", "review_window", "The review window for"),  # and who approves late submissions
    ("expense_claim", "actions", None),  # "Actions arising: ..."
    ("board_minutes", "period_covered", "the period"),  # "these minutes ... cover the period 6 Sep 2023 to ..."
    ("board_minutes", "envelope", "The approved envelope"),
    ("board_minutes", "currency_note", "translated at"),  # an exchange rate though no other currency appears
    ("invoice", "confidentiality", None),  # "CONFIDENTIAL - internal use only" in the footer
])
def test_misplaced_standing_text_fails(monkeypatch, recipe, kind, says):
    doc = _standing_planted(monkeypatch, recipe, kind)
    problems = genre_problems(doc.doc_id, doc)
    assert {p.check for p in problems} == {"misplaced_standing"}
    assert all(kind.replace("_", " ") in p.detail for p in problems), [p.detail for p in problems]
    if says is not None:
        text = " ".join(s.text for _, b in doc.blocks() for s in getattr(b, "spans", None) or [])
        assert says in text
    if kind == "confidentiality":
        assert doc.confidential


def test_standing_text_allowed_in_its_genre():
    """What the lint fails in one genre it accepts in another: an exchange-rate note in an annual report, the
    period covered by a quarterly report, an action list in minutes, confidential minutes."""
    from synthdocqa.generation.content.standing import recipe_allows

    assert recipe_allows("annual_report", "currency_note") and recipe_allows("quarterly_report", "period_covered")
    assert recipe_allows("board_minutes", "actions") and recipe_allows("board_minutes", "confidentiality")
    assert not recipe_allows("board_minutes", "currency_note")
    assert recipe_allows("board_minutes", "currency_note", foreign_currency=True)
    assert not recipe_allows("invoice", "confidentiality") and not recipe_allows("invoice", "review_window")
    assert not recipe_allows("expense_claim", "actions") and not recipe_allows("board_minutes", "envelope")


def test_an_issuer_marks_all_or_none_of_its_internal_papers_confidential():
    """The confidentiality mark is a house rule: drawn once per issuer, the same in each of its documents of a
    genre that may carry it; some issuers mark, some do not."""
    marks: dict[str, set[bool]] = {}
    for seed in range(40, 52):
        spec = demo_spec(seed=seed, n_docs=4).model_copy(update={"recipes": ["audit_memo"], "domains": None,
                                                                 "docs_per_issuer": 2})
        for i in range(4):
            doc = plan_document(spec, i)
            issuer = next(e.name for e in doc.entities if e.kind == "organisation")
            marks.setdefault(f"{seed}:{issuer}", set()).add(doc.confidential)
    assert all(len(v) == 1 for v in marks.values()), marks
    assert {True, False} == {next(iter(v)) for v in marks.values()}


def test_a_paid_stamp_on_minutes_fails():
    """A stamp's word is one its genre carries (``standing.yaml`` stamps): planted, a PAID stamp on minutes."""
    from synthdocqa.ir.blocks import AnnotationBlock

    doc = _doc("board_minutes", 8)
    assert _checks(doc) == []
    page = doc.pages[0]
    for word, bad in (("FILED", False), ("PAID", True)):
        stamp = AnnotationBlock(id="b9999", kind="stamp", spans=[{"text": f"{word} ", "fact_ids": []}], rotation=3.0,
                                color="#b00020")
        planted = doc.model_copy(update={"pages": [page.model_copy(update={"blocks": [*page.blocks, stamp]}),
                                                   *doc.pages[1:]]})
        assert (_checks(planted) == ["misplaced_standing"]) is bad, word
