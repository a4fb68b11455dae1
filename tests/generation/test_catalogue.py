"""The catalogue's loader: a bad data file fails at load, naming the file and the key."""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from synthdocqa.generation import catalogue
from synthdocqa.generation.catalogue import CatalogueError, Entry, validate


class _Measure(Entry):
    name: str
    low: float
    high: float


class _File(Entry):
    measures: list[_Measure]


def test_a_valid_file_loads_and_is_frozen():
    got = validate("x.yaml", yaml.safe_load("measures:\n- {name: Units sold, low: 1, high: 5}\n"), _File)
    assert got.measures[0].high == 5.0
    with pytest.raises(ValidationError):
        got.measures[0].high = 9  # type: ignore[misc]


@pytest.mark.parametrize(("text", "where"), [
    ("measures:\n- {name: Units sold, low: 1, high: five}\n", "catalogue/x.yaml: measures[0].high:"),
    ("measures:\n- {name: Units sold, low: 1, high: 5, hihg: 6}\n", "catalogue/x.yaml: measures[0].hihg:"),
    ("measures:\n- {name: Units sold, high: 5}\n", "catalogue/x.yaml: measures[0].low:"),
])
def test_a_planted_error_names_file_and_key(text, where):
    with pytest.raises(CatalogueError) as err:
        validate("x.yaml", yaml.safe_load(text), _File)
    assert str(err.value).startswith(where), str(err.value)


def test_unreadable_and_malformed_files_name_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(catalogue, "HERE", tmp_path)
    catalogue.raw.cache_clear()
    with pytest.raises(CatalogueError, match=r"catalogue/missing.yaml: cannot read"):
        catalogue.raw("missing.yaml")
    (tmp_path / "bad.yaml").write_text("measures: [\n  {name: a\n")
    with pytest.raises(CatalogueError, match=r"catalogue/bad.yaml: not YAML \(line \d+, column \d+\)"):
        catalogue.raw("bad.yaml")
    catalogue.raw.cache_clear()
