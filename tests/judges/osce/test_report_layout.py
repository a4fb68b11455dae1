"""What the report shows: figure labels inside the figure, no "-0.000", responder names as given, an optimum that
is not 'confirmed' beside a disagreement."""

from __future__ import annotations

import pytest

from synthdocqa.ir.rng import Rng
from synthdocqa.judges.osce import report as report_mod
from synthdocqa.judges.osce.analysis import AnalysisOptions, analyze
from synthdocqa.judges.osce.simulate import SimulationConfig, simulate_study


@pytest.fixture(scope="module")
def long_names():
    cfg = SimulationConfig(metrics=("correctness",), utterances_per_case=(6, 6, 6), n_raters=4)
    r = simulate_study(cfg, Rng(5)).ratings
    r = r.replace({"responder": {"llm_a": "HyperCLOVA X", "llm_b": "Claude 3.5 Sonnet"}})
    return analyze(r, options=AnalysisOptions(stratifiers=("history_category",)))


def _figure(monkeypatch, draw):
    seen = {}
    monkeypatch.setattr(report_mod, "_png", lambda fig: seen.setdefault("fig", fig) and b"")
    draw()
    fig = seen["fig"]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    return fig


def test_heatmap_tick_labels_lie_inside_the_figure(long_names, monkeypatch):
    fig = _figure(monkeypatch, lambda: report_mod.stratum_heatmap(long_names, "history_category"))
    box = fig.bbox
    labels = [t for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
    assert {"HyperCLOVA X", "history_of_present_illness"} <= {t.get_text() for t in labels}
    r = fig.canvas.get_renderer()
    for t in labels:
        e = t.get_window_extent(renderer=r)
        assert e.x0 >= box.x0 - 0.5 and e.y0 >= box.y0 - 0.5 and e.x1 <= box.x1 + 0.5, t.get_text()


def test_report_text_has_no_negative_zero_and_names_as_given(long_names, tmp_path):
    out = report_mod.render_report(long_names, tmp_path / "r")
    md = (out / "report.md").read_text()
    assert "-0.000" not in md and "-0.00 " not in md
    assert "respHyperCLOVA X" not in md and "respClaude" not in md
    assert "| correctness | HyperCLOVA X |" in md


def test_optimum_not_confirmed_beside_a_disagreement():
    from synthdocqa.judges.osce.schema import FitDiagnostics

    d = FitDiagnostics(method="lmm", converged=True, criterion_spread=0.47, n_obs=10, seconds=0.1,
                       warnings=["optimizers disagree: Powell from theta=1 stopped 0.47 above the best"])
    cell = report_mod._confirmed(d)
    assert "0.47" not in cell.split("(")[0] and "within" not in cell and cell.startswith("yes")
    assert "2 runs" in cell or "other runs" in cell or "not all" in cell


def test_xlsx_with_a_cover_sheet_and_the_reference_by_name(tmp_path, monkeypatch, capsys):
    import openpyxl
    import pandas as pd

    import synthdocqa.flows.cli  # noqa: F401
    from synthdocqa import flows

    monkeypatch.setattr(flows.cli, "COMMAND_MODULES", ("synthdocqa.flows.commands.osce",))
    cfg = SimulationConfig(metrics=("overall",), utterances_per_case=(3, 3, 3), n_raters=4)
    r = simulate_study(cfg, Rng(6)).ratings.replace({"responder": {"human": "SP Kim"}})
    book = openpyxl.Workbook()
    book.active.title = "Read me"
    book.active.append(["This workbook holds the OSCE ratings of 2026."])
    data = book.create_sheet("Ratings")
    data.append(list(r.columns))
    for row in r.itertuples(index=False):
        data.append([None if pd.isna(v) else v for v in row])
    book.create_sheet("Codebook").append(["score", "1-5"])
    book.save(tmp_path / "study.xlsx")
    capsys.readouterr()
    assert flows.cli.main(["osce", "analyze", str(tmp_path / "study.xlsx"), "--out", str(tmp_path / "a"),
                           "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "reference responder 'human' not present" in err and "--reference NAME" in err
    assert flows.cli.main(["osce", "analyze", str(tmp_path / "study.xlsx"), "--out", str(tmp_path / "a"), "--quiet",
                           "--reference", "SP Kim"]) == 0
    out = capsys.readouterr().out
    assert "sheet 'Ratings' holds the ratings ('Read me' has no rating columns)" in out
    md = (tmp_path / "a" / "report.md").read_text()
    assert "Reference responder: **SP Kim**" in md
    nothing = openpyxl.Workbook()
    nothing.active.title = "Cover"
    nothing.active.append(["notes"])
    nothing.create_sheet("Codebook").append(["score", "1-5"])
    nothing.save(tmp_path / "empty.xlsx")
    assert flows.cli.main(["osce", "analyze", str(tmp_path / "empty.xlsx"), "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "no sheet holds the ratings (2 sheets: 'Cover'" in err and "'Codebook'" in err and "--sheet" in err


def test_no_negative_zero_anywhere_in_the_report(long_names, tmp_path):
    """Values that round to zero in every table (ICC, alpha, EMM bounds, judge tables) print without a sign."""
    rel = [r.model_copy(update={"icc2_1": -0.0002, "alpha_ordinal": -0.0001}) for r in long_names.reliability] or []
    emms = [e.model_copy(update={"ci_low": -0.0003}) for e in long_names.emms]
    res = long_names.model_copy(update={"reliability": rel, "emms": emms})
    import pandas as pd

    rubric = pd.DataFrame([{"metric": "correctness", "n_units": 10, "exact": 0.5, "kappa_quadratic": -0.0004}])
    out = report_mod.render_report(res, tmp_path / "z", rubric=rubric)
    for f in ("report.md", "report.html"):
        assert "-0.000" not in (out / f).read_text(), f
