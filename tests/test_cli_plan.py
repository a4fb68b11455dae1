"""``synthdocqa plan`` and ``synthdocqa domains``: reproducible bytes, --only, clean failures."""

import json

import pytest

from synthdocqa.flows.cli import main


def _plan(tmp_path, name, *extra):
    out = tmp_path / name
    assert main(["plan", "--out", str(out), *extra]) == 0
    return {p.parent.name: p.read_bytes() for p in sorted((out / "docs").glob("*/ir.json"))}


def test_same_seed_twice_is_byte_identical_and_only_matches_full_run(tmp_path, capsys):
    a = _plan(tmp_path, "a", "--seed", "1", "--docs", "4")
    b = _plan(tmp_path, "b", "--seed", "1", "--docs", "4")
    assert list(a) == ["doc-00000", "doc-00001", "doc-00002", "doc-00003"]
    assert a == b
    only = _plan(tmp_path, "only", "--seed", "1", "--docs", "4", "--only", "2")
    assert list(only) == ["doc-00002"] and only["doc-00002"] == a["doc-00002"]
    other = _plan(tmp_path, "c", "--seed", "2", "--docs", "4")
    assert all(other[k] != a[k] for k in a)
    assert "planned 1 document(s)" in capsys.readouterr().out


def test_spec_file_is_used_and_flags_override_it(tmp_path):
    from synthdocqa.ir.spec import demo_spec

    spec = demo_spec(seed=9, n_docs=2).model_dump(mode="json")
    spec["domains"] = ["insurance"]
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    docs = _plan(tmp_path, "s", "--spec", str(path), "--docs", "3")
    assert len(docs) == 3
    assert {json.loads(v)["domain"] for v in docs.values()} == {"insurance"}
    assert {json.loads(v)["seed"] for v in docs.values()} == {9}


@pytest.mark.parametrize("args,needle", [
    (["--docs", "0"], "n_docs"),
    (["--docs", "3", "--only", "5"], "--only: index 5 is out of range"),
    (["--spec", "missing.json"], "no such file"),
])
def test_bad_arguments_exit_2_with_one_line_and_write_nothing(tmp_path, capsys, args, needle):
    out = tmp_path / "out"
    args = [a if a != "missing.json" else str(tmp_path / a) for a in args]
    assert main(["plan", "--out", str(out), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err
    assert not out.exists()


@pytest.mark.parametrize("content,needle", [
    ('{"seed": 1, "n_docs": 2, "pages": {"mean": 3}, "element_mix": {"table": 1}, "colour": 1}', "colour"),
    ('{"seed": 1, "n_docs": 2, "pages": {"mean": 3}, "element_mix": {"tables": 1}}', "element_mix"),
    ('{"seed": 1, "n_docs": 2, "pages": {"mean": 3}, "element_mix": {"table": 1}, "domains": ["moon"]}',
     "domains[0]: unknown domain 'moon'"),
    ('{"seed": 1, "n_docs": ', "not valid JSON"),
    ('[1, 2]', "expected a JSON object"),
])
def test_invalid_spec_file_names_the_field(tmp_path, capsys, content, needle):
    path = tmp_path / "spec.json"
    path.write_text(content)
    out = tmp_path / "out"
    assert main(["plan", "--out", str(out), "--spec", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err and str(path) in err
    assert not out.exists()


def test_domains_lists_50_domains_and_recipes(capsys):
    assert main(["domains"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("50 domains:") and "logistics" in text and "annual_report" in text
    assert main(["domains", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["domains"]) == 50 and len(data["recipes"]) >= 24
    assert all(d["recipes"] for d in data["domains"])
