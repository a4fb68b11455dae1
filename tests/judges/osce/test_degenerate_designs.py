"""Degenerate designs never become numbers: zero residual variance, one rater, one case, a responder without
variance. Each is a stated exclusion (CLI, analysis.json, report) or an ordinary analysis, and no output file holds
NaN, inf or an absurd magnitude (1e30 and up)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import synthdocqa.flows.cli  # noqa: F401
from synthdocqa import flows

BAD_NUMBER = re.compile(r"(?<![A-Za-z])(nan|-?inf(inity)?)(?![A-Za-z])|\d(\.\d+)?e\+?(3\d|[4-9]\d|\d{3})", re.IGNORECASE)
DATA_URI = re.compile(r"data:[a-z/+]+;base64,[A-Za-z0-9+/=]+")


def _cli(monkeypatch, *argv: str) -> int:
    monkeypatch.setattr(flows.cli, "COMMAND_MODULES", ("synthdocqa.flows.commands.osce",))
    return flows.cli.main(list(argv))


def bad_numbers(out: Path) -> list[str]:
    """Every NaN / inf / >= 1e30 written in the report's text files (embedded images left aside)."""
    hits = []
    for f in sorted(p for p in out.rglob("*") if p.suffix in (".md", ".json", ".html", ".csv", ".tex")):
        text = DATA_URI.sub("", f.read_text(encoding="utf-8"))
        hits += [f"{f.name}: {m.group(0)}" for m in BAD_NUMBER.finditer(text)]
    return hits


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    tmp = tmp_path_factory.mktemp("degenerate")
    mp = pytest.MonkeyPatch()
    try:
        assert _cli(mp, "osce", "simulate", "--seed", "41", "--preset", "small", "--out", str(tmp / "r.csv")) == 0
    finally:
        mp.undo()
    return tmp, pd.read_csv(tmp / "r.csv")


def test_the_scan_finds_what_it_must():
    assert bad_numbers_in("| llm_a | +1.000 | [+nan, +nan] |") and bad_numbers_in('"df": 3.1e44')
    assert bad_numbers_in('"x": Infinity') and not bad_numbers_in("history_of_present_illness 0.75 1e-05 Infant")


def bad_numbers_in(text: str) -> list[str]:
    return [m.group(0) for m in BAD_NUMBER.finditer(text)]


def test_zero_residual_metric_is_excluded_and_nothing_is_not_a_number(study, monkeypatch, capsys):
    tmp, d = study
    planted = d.copy()  # 'overall': every responder gives one score throughout: the model reproduces every score
    mask = planted["metric"] == "overall"
    planted.loc[mask, "score"] = planted[mask].groupby("responder")["score"].transform("first")
    planted.to_csv(tmp / "zero.csv", index=False)
    capsys.readouterr()
    assert _cli(monkeypatch, "osce", "analyze", str(tmp / "zero.csv"), "--out", str(tmp / "zero"), "--quiet") == 0
    out = capsys.readouterr()
    assert "excluded: metric overall excluded: zero residual variance" in out.out
    assert "RuntimeWarning" not in out.err
    analysis = json.loads((tmp / "zero" / "analysis.json").read_text())
    assert "overall" not in analysis["metrics"] and any("overall excluded: zero residual" in x
                                                        for x in analysis["exclusions"])
    assert "overall excluded: zero residual variance" in (tmp / "zero" / "report.md").read_text()
    assert bad_numbers(tmp / "zero") == []


def test_every_metric_degenerate_exits_2_with_the_reasons(study, monkeypatch, capsys):
    tmp, d = study
    one = d[d["rater"] == d["rater"].iloc[0]].copy()
    one["score"] = one.groupby(["metric", "responder"])["score"].transform("first")
    one.to_csv(tmp / "all_zero.csv", index=False)
    capsys.readouterr()
    assert _cli(monkeypatch, "osce", "analyze", str(tmp / "all_zero.csv"), "--out", str(tmp / "all_zero"),
                "--quiet") == 2
    err = capsys.readouterr().err
    assert "nothing to analyse" in err and "zero residual variance" in err and not (tmp / "all_zero").exists()


def test_one_rater_and_one_case_are_stated_and_finite(study, monkeypatch, capsys):
    tmp, d = study
    d[d["rater"] == d["rater"].iloc[0]].to_csv(tmp / "one_rater.csv", index=False)
    d[d["case"] == "case1"].to_csv(tmp / "one_case.csv", index=False)
    for name, expected in (("one_rater", "only 1 rater level: no rater variance component"),
                           ("one_case", "excluded: metric overall excluded: one dialogue per responder (1 case)")):
        capsys.readouterr()
        assert _cli(monkeypatch, "osce", "analyze", str(tmp / f"{name}.csv"), "--out", str(tmp / name),
                    "--quiet") == 0
        assert expected in capsys.readouterr().out
        assert bad_numbers(tmp / name) == [], name
    one_case = json.loads((tmp / "one_case" / "analysis.json").read_text())
    assert one_case["metrics"] == ["correctness", "relevance", "naturalness"]  # the sentence-level ones remain


def test_a_responder_without_variance_keeps_finite_numbers(study, monkeypatch):
    tmp, d = study
    flat = d.copy()
    flat.loc[flat["responder"] == "llm_b", "score"] = 5
    flat.to_csv(tmp / "flat.csv", index=False)
    assert _cli(monkeypatch, "osce", "analyze", str(tmp / "flat.csv"), "--out", str(tmp / "flat"), "--quiet") == 0
    assert bad_numbers(tmp / "flat") == []
    notes = json.loads((tmp / "flat" / "analysis.json").read_text())["exclusions"]
    assert "metric overall: llm_b gave every score 5: its contrast rests on the other responders' residual " \
           "variance (the model assumes one variance for all)" in notes
