"""The paper tables: CSV, LaTeX (booktabs) and .docx carry the same cells; numbers formatted once."""

from __future__ import annotations

import csv
import io
import re

import pytest

from synthdocqa.judges.osce.analysis import AnalysisOptions
from synthdocqa.judges.osce.pipeline import analyze_file, simulate_to_files
from synthdocqa.judges.osce.tables import Table, fmt, latex_escape


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tables")
    simulate_to_files(8, tmp / "r.csv", preset="small")
    text = (tmp / "r.csv").read_text().replace("llm_a", "llm_a & b%")  # a name with LaTeX specials
    (tmp / "r.csv").write_text(text)
    _, result = analyze_file(tmp / "r.csv", tmp / "out", options=AnalysisOptions(stratifiers=()))
    return tmp / "out" / "tables", result


def parse_latex(tex: str) -> list[list[str]]:
    """The body rows of a booktabs tabular: between \\midrule and \\bottomrule, cells split on unescaped &."""
    assert r"\begin{tabular}" in tex and r"\toprule" in tex and r"\end{tabular}" in tex
    body = tex.split("\\midrule\n")[1].split("\\bottomrule")[0]
    rows = []
    for line in body.strip().splitlines():
        assert line.endswith(r" \\")
        cells = re.split(r"(?<!\\) & ", line[: -len(r" \\")])
        rows.append([c.replace(r"\&", "&").replace(r"\%", "%").replace(r"\_", "_").replace("$<$", "<") for c in cells])
    return rows


def test_numbers_are_formatted_once():
    assert fmt(-0.0004) == "0.000" and fmt(-0.0004, sign=True) == "0.000" and fmt(0.25, sign=True) == "+0.250"
    assert fmt(float("nan")) == "–" and fmt(None) == "–" and fmt(float("inf")) == "–"
    assert latex_escape("a_b & 5% {x}") == r"a\_b \& 5\% \{x\}"


@pytest.mark.parametrize("name", ["descriptives", "descriptives_by_case", "contrasts", "reliability"])
def test_three_formats_hold_the_same_cells(report, name):
    from docx import Document

    folder, _ = report
    rows = list(csv.reader(io.StringIO((folder / f"{name}.csv").read_text(encoding="utf-8"))))
    head, body = rows[0], rows[1:]
    assert body and len(set(map(len, rows))) == 1
    assert parse_latex((folder / f"{name}.tex").read_text(encoding="utf-8")) == body
    table = Document(str(folder / f"{name}.docx")).tables[0]
    cells = [[c.text for c in r.cells] for r in table.rows]
    assert cells[0] == head and cells[1:] == body
    assert not any("-0.000" in c or "nan" in c.lower() for r in body for c in r)


def test_the_numbers_are_the_analysis_numbers(report):
    folder, result = report
    body = list(csv.reader(io.StringIO((folder / "contrasts.csv").read_text())))[1:]
    assert len(body) == len(result.main)
    for row, c in zip(body, result.main, strict=True):
        assert row[:2] == [c.metric, c.responder] and float(row[2]) == pytest.approx(c.estimate, abs=5e-4)
        lo, hi = (float(x) for x in row[3].strip("[]").split(", "))
        assert lo == pytest.approx(c.ci_low, abs=5e-4) and hi == pytest.approx(c.ci_high, abs=5e-4)
    assert any(r[1] == "llm_a & b%" for r in body)  # the name as given
    assert r"llm\_a \& b\%" in (folder / "contrasts.tex").read_text()


def test_descriptives_are_the_raw_means(report, tmp_path):
    import pandas as pd

    folder, result = report
    ratings = pd.read_csv(folder.parent.parent / "r.csv")
    body = list(csv.reader(io.StringIO((folder / "descriptives.csv").read_text())))[1:]
    got = {(r[0], r[1]): r for r in body}
    for (m, p), g in ratings[ratings["metric"].isin(result.metrics)].groupby(["metric", "responder"]):
        row = got[(m, p)]
        mean, sd = (float(x) for x in row[2].replace("(", "").replace(")", "").split())
        assert mean == pytest.approx(g["score"].mean(), abs=5e-3) and sd == pytest.approx(g["score"].std(), abs=5e-3)
        assert int(row[3]) == len(g)


def test_docx_bytes_do_not_depend_on_the_clock():
    t = Table("x", "caption", ("a", "b"), (("1", "2"),))
    assert t.docx() == t.docx()
