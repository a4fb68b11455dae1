"""What the world books (``ir.world.Booked``): one value per (measure, item, period) of the issuer, asked
again by ``verify``; a year is the sum of its booked quarters, a balance the booking that ends with it."""

from decimal import Decimal

import pytest

from synthdocqa.generation.catalogue import CatalogueError
from synthdocqa.generation.domains import get_domain
from synthdocqa.generation.world import IssuerWorldBuilder, booked_areas, booked_measure
from synthdocqa.ir.derivations import world_problems
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.values import NumberValue
from synthdocqa.ir.world import Booked, Entry, IssuerWorld, Measure, WorldQuery, evaluate

Y = 2024 * 12


def _world(behaviour: str, *booked: tuple[int, int, str]) -> IssuerWorld:
    m = Measure(slug="t.x", name="x", kind="count", quantity="count", behaviour=behaviour, low=0, high=1e9)
    return IssuerWorld(issuer="i", measures=[m], entries=[Entry(measure="t.x", item="a", booked=[
        Booked(start=s, months=n, value=Decimal(v)) for s, n, v in booked])])


def _q(start: int, months: int) -> WorldQuery:
    return WorldQuery(measure="t.x", items=["a"], period="p", start=start, months=months)


def test_a_flow_year_is_the_sum_of_its_booked_quarters_and_a_gap_is_no_answer():
    w = _world("flow", (Y, 3, "10"), (Y + 3, 3, "20"), (Y + 6, 3, "30"), (Y + 9, 3, "40"))
    assert evaluate(w, _q(Y, 12)) == 100
    assert evaluate(w, _q(Y + 3, 6)) == 50
    assert evaluate(w, _q(Y + 3, 3)) == 20
    gappy = _world("flow", (Y, 3, "10"), (Y + 6, 3, "30"))
    with pytest.raises(KeyError, match="nothing booked"):
        evaluate(gappy, _q(Y, 9))


def test_a_stock_is_the_booking_that_ends_with_the_period_and_a_level_the_one_covering_it():
    stock = _world("stock", (Y, 3, "5"), (Y + 9, 3, "7"))
    assert evaluate(stock, _q(Y, 12)) == 7
    with pytest.raises(KeyError):
        evaluate(stock, _q(Y, 6))
    level = _world("level", (Y, 12, "4"))
    assert evaluate(level, _q(Y + 3, 3)) == 4
    with pytest.raises(KeyError):
        evaluate(level, _q(Y + 9, 6))


def test_an_entry_is_booked_or_driven_never_both_and_books_a_period_once():
    with pytest.raises(ValueError, match="exactly one"):
        Entry(measure="t.x", item="a")
    with pytest.raises(ValueError, match="two bookings"):
        _world("flow", (Y, 3, "1"), (Y, 3, "2"))


def _builder() -> IssuerWorldBuilder:
    return IssuerWorldBuilder("acme-0", Rng(5).fork("issuer"), get_domain("automotive"), Y + 6)


def test_what_is_booked_depends_on_the_key_only_not_on_who_asked_first():
    calls = []

    def draw(rng):
        calls.append(1)
        return rng.integers(1, 6)
    a, b = _builder(), _builder()
    first = [a.book("risk.impact", f"R-{k:02d}", Y, 12, draw) for k in range(6)]
    second = [b.book("risk.impact", f"R-{k:02d}", Y, 12, draw) for k in reversed(range(6))][::-1]
    assert first == second
    assert a.book("risk.impact", "R-03", Y, 12, lambda rng: 1 / 0) == first[3]  # booked once: not drawn again
    assert len(calls) == 12
    assert len({int(v) for v in first}) > 1


def test_a_value_outside_the_catalogue_range_is_refused_naming_the_file():
    with pytest.raises(ValueError, match="catalogue/booked/risk.yaml"):
        _builder().book("risk.impact", "R-01", Y, 12, lambda rng: 9)


def test_unknown_booked_measures_name_the_catalogue_file():
    assert "risk" in booked_areas()
    with pytest.raises(CatalogueError, match="catalogue/booked/risk.yaml: impcat"):
        booked_measure("risk.impcat")
    with pytest.raises(CatalogueError, match="catalogue/booked/nosuch.yaml"):
        booked_measure("nosuch.thing")


def test_every_booked_catalogue_file_loads():
    import yaml

    from synthdocqa.generation.catalogue import HERE
    for area in booked_areas():
        for name in yaml.safe_load((HERE / "booked" / f"{area}.yaml").read_text()):
            assert booked_measure(f"{area}.{name}").slug == f"{area}.{name}"


def test_verify_names_the_fact_whose_booked_value_was_edited():
    b = _builder()
    v = b.book("risk.likelihood_before", "R-07", Y, 12, lambda rng: 4)
    q = b.booked_query("risk.likelihood_before", ["R-07"], Y, 12, "FY2024")
    f = Fact(id="f0001", label="Likelihood of R-07", value=NumberValue(value=v, unit=""), text=str(v),
             quantity="index", query=q)
    world = b.stored()
    assert world_problems([f], world) == []
    stored = IssuerWorld.model_validate_json(world.model_dump_json())  # what the IR holds, read back
    assert world_problems([f], stored) == []
    edited = world.model_dump()
    edited["entries"][0]["booked"][0]["value"] = Decimal(2)
    problems = world_problems([f], IssuerWorld.model_validate(edited))
    assert len(problems) == 1 and problems[0].startswith("f0001 (Likelihood of R-07)")


def test_a_document_records_the_bookings_it_asked_not_those_of_the_issuer_s_other_documents():
    b = _builder()
    for k in range(4):
        b.book("risk.impact", "R-01", Y + 3 * k, 3, lambda rng: 3)
    part = b.stored([("risk.impact", "R-01", Y + 3, 3)])
    assert [(x.start, x.months) for x in part.entries[0].booked] == [(Y + 3, 3)]
    assert len(b.stored().entries[0].booked) == 4


@pytest.mark.parametrize(("fields", "where"), [
    ({"name": "x", "kind": "count", "quantity": "count", "behaviour": "level", "low": 5, "high": 1}, "x"),
    ({"name": "x", "kind": "count", "quantity": "count", "behaviour": "levle", "low": 0, "high": 1}, "x.behaviour"),
    ({"name": "x", "kind": "count", "quantity": "count", "behaviour": "level", "low": 0, "high": 1, "slug": "a.x"},
     "x.slug"),
])
def test_a_planted_error_in_a_booked_file_names_the_file_and_the_measure(monkeypatch, fields, where):
    from synthdocqa.generation import world as world_mod

    monkeypatch.setattr(world_mod.catalogue, "raw", lambda name: {"x": fields})
    with pytest.raises(CatalogueError, match=f"catalogue/booked/t.yaml: {where}"):
        world_mod._booked_file.__wrapped__("booked/t.yaml")
