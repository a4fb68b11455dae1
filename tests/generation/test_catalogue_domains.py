"""The domain catalogue's data files: they build the tables the generators read, and a planted error in a
copy of them fails at load, naming the file and the key."""

from __future__ import annotations

import copy
import shutil

import pytest

from synthdocqa.generation import catalogue, domains
from synthdocqa.generation.catalogue import CatalogueError, validate
from synthdocqa.generation.domains import (
    DOMAINS,
    LENSES,
    RECIPES,
    DomainEntry,
    LensesFile,
    Metric,
    RecipesFile,
    get_domain,
    get_recipe,
)
from synthdocqa.ir.vocab import DOMAIN_SLUGS, RECIPE_SLUGS


def test_the_catalogue_builds_what_the_generators_read():
    assert tuple(d.slug for d in DOMAINS) == DOMAIN_SLUGS and len(DOMAINS) == 50
    assert tuple(r.slug for r in RECIPES) == RECIPE_SLUGS and len(RECIPES) == 26
    auto = get_domain("automotive")
    assert auto.metrics[0] == Metric("Units sold", "count", 100.0, 200000.0, "vehicles", "count", "flow", "")
    assert type(auto.metrics[0].low) is float and auto.style_families == ("technical", "corporate", "modern")
    running = next(m for d in DOMAINS for m in d.metrics if m.name == "Cost to date")
    assert (running.quantity, running.behaviour, running.total_of) == ("amount", "cumulative", "Contract value")
    sus, climate, resources = LENSES["sustainability"], LENSES["climate"], LENSES["resources"]
    assert sus.metrics == climate.metrics + resources.metrics and sus.items == climate.items == resources.items
    research = get_recipe("research_report")
    assert research.elements == {"form": 0.0, "text": 1.5, "figure": 1.0}  # a YAML merge of the narrative mix
    assert get_recipe("invoice").charts == () and get_recipe("annual_report").appendix == "Supporting schedules"
    assert not get_recipe("scanned_archive").front_matter and get_recipe("board_minutes").appendix == ""


def _fails(name: str, data: object, model: type, where: str) -> None:
    with pytest.raises(CatalogueError) as err:
        validate(name, data, model)
    assert str(err.value).startswith(f"catalogue/{name}: {where}"), str(err.value)


def _domain() -> dict:
    return copy.deepcopy(catalogue.raw("domains/automotive.yaml"))


def _recipes() -> dict:
    return copy.deepcopy(catalogue.raw("recipes.yaml"))


def test_the_data_files_validate_as_they_are():
    validate("domains/automotive.yaml", _domain(), DomainEntry)
    validate("recipes.yaml", _recipes(), RecipesFile)


def test_an_unknown_metric_kind_names_the_metric():
    data = _domain()
    data["metrics"][1]["kind"] = "monye"
    _fails("domains/automotive.yaml", data, DomainEntry, "metrics[1].kind: Input should be 'money'")


def test_a_misspelt_key_is_named_not_the_key_it_lacks():
    data = _domain()
    data["itmes"] = data.pop("items")
    _fails("domains/automotive.yaml", data, DomainEntry, "itmes: Extra inputs are not permitted")


def test_a_range_whose_low_is_above_its_high_fails():
    data = _domain()
    data["metrics"][1]["low"] = 1e12
    _fails("domains/automotive.yaml", data, DomainEntry, "metrics[1]: Revenue: low 1e+12 is above high")


@pytest.mark.parametrize("value", ["1e5", True])
def test_a_number_yaml_reads_as_a_string_or_a_boolean_fails(value):
    data = _domain()
    data["metrics"][0]["high"] = value
    _fails("domains/automotive.yaml", data, DomainEntry, "metrics[0].high: Input should be a valid number")


def test_an_unknown_table_kind_in_a_recipe_fails():
    data = _recipes()
    data["recipes"]["annual_report"]["tables"]["regster"] = 0.1
    _fails("recipes.yaml", data, RecipesFile, "recipes.annual_report.tables.regster: Input should be")


@pytest.mark.parametrize(("key", "value", "where"), [
    ("charts", ["bar", "donut"], "recipes.invoice.charts[1]: Input should be 'bar'"),
    ("elements", {"tabel": 1.0}, "recipes.invoice.elements.tabel: Input should be"),
    ("pages", [3, 2, 4], "recipes.invoice.pages: [3, 2, 4]: must be min <= typical <= max"),
    ("genre_class", "ledger", "recipes.invoice.genre_class: Input should be 'narrative'"),
])
def test_a_bad_recipe_field_fails(key, value, where):
    data = _recipes()
    data["recipes"]["invoice"][key] = value
    _fails("recipes.yaml", data, RecipesFile, where)


def test_a_recipe_missing_or_out_of_order_fails():
    data = _recipes()
    del data["recipes"]["invoice"]
    _fails("recipes.yaml", data, RecipesFile, "recipes: missing ['invoice']")
    data = _recipes()
    data["recipes"] = dict(reversed(data["recipes"].items()))
    _fails("recipes.yaml", data, RecipesFile, "recipes: not in the order of ir.vocab.RECIPE_SLUGS")


def test_a_lens_that_combines_an_unknown_lens_fails():
    data = copy.deepcopy(catalogue.raw("lenses.yaml"))
    data["lenses"]["sustainability"]["combines"] = ["climate", "resorces"]
    _fails("lenses.yaml", data, LensesFile, "lenses: sustainability.combines: ['climate', 'resorces']")


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """A copy of the catalogue's data that a test breaks, read by ``domains.read_catalogue`` in its place."""
    shutil.copytree(catalogue.HERE, tmp_path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.setattr(catalogue, "HERE", tmp_path)
    catalogue.raw.cache_clear()
    catalogue.load.cache_clear()
    yield tmp_path
    catalogue.raw.cache_clear()  # the next reader reads the real files again
    catalogue.load.cache_clear()


def _edit(path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_the_planted_copy_builds_the_same_catalogue(planted):
    assert domains.read_catalogue() == domains.CATALOGUE


@pytest.mark.parametrize(("plant", "message"), [
    (lambda d: (d / "domains" / "automotive.yaml").unlink(),
     "catalogue/domains/automotive.yaml: cannot read"),
    (lambda d: (d / "domains" / "automobile.yaml").write_text("title: Automobile\n"),
     "catalogue/domains/automobile.yaml: (file): not a domain of ir.vocab.DOMAIN_SLUGS"),
    (lambda d: _edit(d / "domains" / "automotive.yaml", "tags: [industrial, commerce]", "tags: [industrial, comerce]"),
     "catalogue/domains/automotive.yaml: tags[1]: unknown tag 'comerce'"),
    (lambda d: _edit(d / "domains" / "automotive.yaml", "kind: count, low: 100", "kind: cuont, low: 100"),
     "catalogue/domains/automotive.yaml: metrics[0].kind: Input should be 'money'"),
    (lambda d: _edit(d / "recipes.yaml", "lens: climate}", "lens: climat}"),
     "catalogue/recipes.yaml: recipes.sustainability_report.grammar[1].lens: unknown lens 'climat'"),
    (lambda d: _edit(d / "metrics.yaml", "  Headcount: {", "  Headcout: {"),
     "catalogue/metrics.yaml: metrics.Headcout: no domain or lens has a metric of this name"),
    (lambda d: _edit(d / "metrics.yaml", "total_of: Contract value", "total_of: Contract volume"),
     "is a running total of 'Contract volume' (metrics.yaml), which is not a metric here"),
    (lambda d: _edit(d / "tags.yaml", "styles: [corporate, classic, modern]", "styles: [corporate, clasic, modern]"),
     "catalogue/tags.yaml: tags.finance.styles[1]: Input should be 'corporate'"),
])
def test_a_planted_error_fails_the_load_naming_file_and_key(planted, plant, message):
    plant(planted)
    with pytest.raises(CatalogueError) as err:
        domains.read_catalogue()
    assert message in str(err.value), str(err.value)
