"""The issuer world: figures are queries of one simulated enterprise, stored in the IR and asked again."""

from __future__ import annotations

from decimal import Decimal

import pytest
import yaml

from synthdocqa.generation import world as world_mod
from synthdocqa.generation.catalogue import CatalogueError, validate
from synthdocqa.generation.domains import get_domain
from synthdocqa.generation.planner import issuer_for, plan_document
from synthdocqa.generation.world import IssuerWorldBuilder, WorldCatalogue, world_catalogue
from synthdocqa.ir.derivations import world_problems
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.spec import spec_for_profile
from synthdocqa.ir.world import IssuerWorld, evaluate


def _builder(domain: str, seed: int = 7) -> IssuerWorldBuilder:
    return IssuerWorldBuilder("t", Rng(seed, ["world"]), get_domain(domain), 2025 * 12 + 6)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_every_relation_holds_for_every_item_and_period(seed):
    """Each related pair of the catalogue implies a ratio inside its range, for every item of the domain."""
    cat = world_catalogue()
    for slug, rels in cat.domains.items():
        d = get_domain(slug)
        w = _builder(slug, seed)
        for name, spec in rels.items():
            if spec.per is None:
                continue
            m, base = d.metric(name), d.metric(spec.per)
            for item in d.items:
                lo, hi = spec.bounds(item)
                for start, n in ((2025 * 12, 12), (2025 * 12 + 3, 3)):
                    a = world_mod.raw(w, w.key(m), item, start, n)
                    b = world_mod.raw(w, w.key(base), item, start, n)
                    scale = spec.scale / n if base.behaviour == "stock" else spec.scale
                    if b > 0 and base.behaviour != "stock":
                        assert lo * 0.999 <= a / b * scale <= hi * 1.001, (slug, name, item, a / b * scale)


def test_a_car_is_priced_like_a_car_and_claims_stay_below_sales():
    d = get_domain("automotive")
    w = _builder("automotive")
    units, revenue, claims = (d.metric(n) for n in ("Units sold", "Revenue", "Warranty claims"))
    for item in d.items:
        q = [w.query(m, [item], 2025 * 12, 12, "2025") for m in (units, revenue, claims)]
        u, r, c = (w.value(x) for x in q)
        assert u > 0 and Decimal(15000) * Decimal("0.99") <= r / u <= Decimal(120000) * Decimal("1.01")
        assert c < u


def test_the_stored_world_answers_every_query_of_a_document_and_an_edited_driver_names_its_facts():
    spec = spec_for_profile("reference", 61, 6)
    doc = next(d for d in (plan_document(spec, i) for i in range(6)) if d.world is not None)
    doc = DocumentIR.model_validate_json(doc.to_json())  # as verify reads it
    queried = [f for f in doc.facts if f.query is not None]
    assert queried and world_problems(doc.facts, doc.world) == []
    data = doc.model_dump(mode="json")
    printed = {(f.query.measure, item) for f in queried for item in f.query.items}
    entry = next(e for e in data["world"]["entries"] if e["driver"] is not None and (e["measure"], e["item"]) in printed)
    entry["driver"]["level"] *= 1.7
    edited = DocumentIR.model_validate(data)
    problems = world_problems(edited.facts, edited.world)
    assert problems
    hit = {p.split(" ")[0] for p in problems}
    following = {f.id for f in queried if entry["measure"] in (f.query.measure,) and entry["item"] in f.query.items}
    assert following and following <= hit  # every fact of the edited entry is named (and its relations' too)


def test_a_world_of_another_version_or_with_a_dangling_relation_is_refused():
    w = _builder("automotive")
    d = get_domain("automotive")
    w.value(w.query(d.metric("Revenue"), ["Van"], 2025 * 12, 12, "2025"))
    data = w.stored().model_dump(mode="json")
    IssuerWorld.model_validate(data)
    with pytest.raises(ValueError, match="version"):
        IssuerWorld.model_validate({**data, "version": "0"})
    with pytest.raises(ValueError, match="unknown"):
        IssuerWorld.model_validate({**data, "measures": [m for m in data["measures"] if m["slug"] != "units_sold"]})


def test_the_world_does_not_depend_on_the_order_of_questions():
    d = get_domain("retail")
    a, b = _builder("retail", 11), _builder("retail", 11)
    asked = [(m, i) for m in d.metrics for i in d.items]
    qs = [a.query(m, [i], 2024 * 12 + 6, 6, "H2 2024") for m, i in asked]
    first = [a.value(q) for q in qs]
    second = [b.value(b.query(m, [i], 2024 * 12 + 6, 6, "H2 2024")) for m, i in reversed(asked)][::-1]
    assert first == second
    stored = a.stored()
    assert all(evaluate(stored, q) == v for q, v in zip(qs, first, strict=True))


def test_documents_of_one_issuer_share_its_name_and_world():
    from synthdocqa.ir.spec import CorpusSpec

    base = spec_for_profile("reference", 64, 6)  # seed 64: an annual and a quarterly report of one issuer
    spec = CorpusSpec.model_validate({**base.model_dump(), "domains": ["automotive"], "docs_per_issuer": 3})
    assert [issuer_for(spec, i) for i in range(6)] == ["automotive-0"] * 3 + ["automotive-1"] * 3
    docs = [plan_document(spec, i) for i in range(6)]
    names = [next(e.name for e in d.entities if e.role == "issuer") for d in docs]
    assert names[0] == names[1] == names[2] and names[3] == names[4] == names[5] and names[0] != names[3]
    from synthdocqa.corpus.views.coherence import issuer_problems, shared_figures

    pairs = [(d.doc_id, d) for d in docs]
    shared, equal = shared_figures(pairs)
    assert issuer_problems(pairs) == [] and shared == equal  # issuer_problems holds same_world too
    entries: dict = {}
    for d in docs:
        for e in (d.world.entries if d.world else []):
            for b in e.booked:  # a document stores the bookings it asked: each one agrees with the others'
                assert entries.setdefault((d.world.issuer, e.measure, e.item, b.start, b.months), b) == b
            if not e.booked:  # one issuer, one driver, whichever document holds it
                assert entries.setdefault((d.world.issuer, e.measure, e.item), e) == e


@pytest.mark.parametrize(("text", "where"), [
    ("domains:\n  automotive:\n    Revenu: {per: Units sold, low: 1, high: 2}\n", "domains.automotive.Revenu"),
    ("domains:\n  automotive:\n    Revenue: {per: Units sol, low: 1, high: 2}\n", "domains.automotive.Revenue"),
    ("domains:\n  automotive:\n    Revenue: {per: Units sold, low: 3, high: 2}\n", "domains.automotive.Revenue"),
    ("domains:\n  automobile:\n    Revenue: {per: Units sold, low: 1, high: 2}\n", "domains.automobile"),
    ("only:\n  automotive:\n    Revenue: [Hovercraft]\n", "only.automotive.Revenue"),
    ("domains:\n  automotive:\n    Dealer margin: {per: Units sold, low: 1, high: 2}\n", "domains.automotive.Dealer margin"),
    ("domains:\n  ecommerce:\n    Orders: {per: Average order value, low: 1, high: 2}\n"
     "    Average order value: {ratio: [Gross merchandise value, Orders]}\n", "domains.ecommerce.Orders"),
])
def test_a_planted_error_in_the_world_catalogue_names_file_and_key(text, where):
    with pytest.raises(CatalogueError, match=r"catalogue/world.yaml: " + where.replace(".", r"\.")):
        world_mod._check_names(validate("world.yaml", yaml.safe_load(text), WorldCatalogue))


@pytest.mark.parametrize("domain", ["automotive", "healthcare_admin"])
def test_an_issuer_s_documents_do_not_depend_on_which_was_planned_first(domain):
    """A worker may plan an issuer's documents in any order (Dask, Ray, a resumed run): each document's IR,
    the part of the world it records included, is the same bytes whatever was planned before it."""
    from synthdocqa.generation.planner import shared_world
    from synthdocqa.ir.spec import CorpusSpec

    base = spec_for_profile("reference", 64, 4)
    spec = CorpusSpec.model_validate({**base.model_dump(), "domains": [domain], "docs_per_issuer": 4})
    shared_world.cache_clear()
    forward = [plan_document(spec, i).model_dump_json() for i in range(4)]
    shared_world.cache_clear()
    backward = [plan_document(spec, i).model_dump_json() for i in reversed(range(4))][::-1]
    shared_world.cache_clear()
    assert forward == backward


@pytest.mark.parametrize(("recipe", "domain", "seed", "pair"), [
    ("research_report", "automotive", 1, (15, 19)),  # one reference (issued the same day): two studies' margins
    ("expense_claim", "food_beverage", 16, (13, 17)),  # one claim number, two claims' advances
])
def test_two_documents_of_one_issuer_issued_the_same_day_do_not_depend_on_which_was_planned_first(
        recipe, domain, seed, pair):
    """Two documents of an issuer issued on the same day share a reference and serial numbers: what the world
    books under them must not be what the first document to ask computed from its own figures."""
    from synthdocqa.corpus.views.coherence import issuer_problems
    from synthdocqa.generation.planner import shared_world
    from synthdocqa.ir.spec import CorpusSpec

    base = spec_for_profile("demo", seed, 20)
    spec = CorpusSpec.model_validate({**base.model_dump(), "domains": [domain], "docs_per_issuer": 20, "n_docs": 20,
                                      "recipes": [recipe], "recipe_mix": None})
    i, j = pair
    shared_world.cache_clear()
    forward = {k: plan_document(spec, k) for k in (i, j)}
    shared_world.cache_clear()
    backward = {k: plan_document(spec, k) for k in (j, i)}
    shared_world.cache_clear()
    assert forward[i].as_at == forward[j].as_at  # the pair the case is about
    assert all(forward[k].model_dump_json() == backward[k].model_dump_json() for k in pair)
    apart = []
    for k in pair:  # each planned by a worker of its own
        shared_world.cache_clear()
        apart.append((f"doc-{k}", plan_document(spec, k)))
    shared_world.cache_clear()
    assert issuer_problems(apart) == []
