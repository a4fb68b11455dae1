"""Report, CLI and flow end to end: simulate -> analyze -> Markdown/HTML; broken input writes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import synthdocqa.flows.cli  # noqa: F401
from synthdocqa import flows
from synthdocqa.judges.osce import report as report_mod
from synthdocqa.judges.osce.analysis import AnalysisOptions, analyze
from synthdocqa.judges.osce.report import render_report
from tests.judges.fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[3]


def run_cli(monkeypatch, *argv: str) -> int:
    # only this command group: the test must not depend on other groups' modules
    monkeypatch.setattr(flows.cli, "COMMAND_MODULES", ("synthdocqa.flows.commands.osce",))
    return flows.cli.main(list(argv))


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("osce")
    mp = pytest.MonkeyPatch()
    try:
        assert run_cli(mp, "osce", "simulate", "--seed", "3", "--preset", "small", "--out", str(tmp / "ratings.csv"),
                       "--dialogues", str(tmp / "dialogues.jsonl"), "--truth", str(tmp / "truth.csv")) == 0
        assert run_cli(mp, "osce", "analyze", str(tmp / "ratings.csv"), "--out", str(tmp / "report"), "--no-strata") == 0
    finally:
        mp.undo()
    return tmp


def test_report_has_table_figures_diagnostics_and_named_method(analysed):
    out = analysed / "report"
    assert {p.name for p in out.iterdir()} == {"report.md", "report.html", "analysis.json", "forest.png", "tables"}
    md = (out / "report.md").read_text()
    assert "Holm (family-wise error)" in md
    main = md.split("## Difference from the reference")[1].split("## ")[0]
    assert main.count("| correctness | llm_") == 4 and main.count("| overall | llm_") == 4
    assert "## Fit diagnostics" in md and "## Reliability" in md and "ICC(2,k)" in md
    html = (out / "report.html").read_text()
    assert html.count('src="data:image/png;base64,') == 1
    data = json.loads((out / "analysis.json").read_text())
    assert len(data["main"]) == 4 * 9 and data["adjust_main"] == "holm" and data["backend"] == "lmm"
    assert all(f["diagnostics"]["method"].startswith("lmm: ") for f in data["fits"])
    assert all(c["df"] > 0 for c in data["main"]) and len(data["emms"]) == 5 * 9
    assert "## Estimated marginal means" in md and "## Fixed effects (main models)" in md
    diag = md.split("## Fit diagnostics")[1]
    assert "-2 REML log-lik" in diag and "optimum confirmed" in diag and "L-BFGS-B from theta=1" in diag
    assert "two-way random-effects model (REML) on all" in md.split("## Reliability")[1]
    assert not [p for p in analysed.iterdir() if p.name.startswith(".")]  # no temp folder left


def test_cli_broken_input_is_one_line_exit_2_and_writes_nothing(analysed, monkeypatch, capsys):
    lines = (analysed / "ratings.csv").read_text().splitlines()
    header = lines[0].split(",")
    row = lines[5].split(",")
    row[header.index("score")] = "9"
    bad = analysed / "bad.csv"
    bad.write_text("\n".join([lines[0], *lines[1:5], ",".join(row), *lines[6:]]) + "\n")
    capsys.readouterr()
    assert run_cli(monkeypatch, "osce", "analyze", str(bad), "--out", str(analysed / "bad_report")) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "score outside the scale" in err and "row 5:" in err
    assert not (analysed / "bad_report").exists()
    # an existing report survives a failed rerun untouched
    before = (analysed / "report" / "report.md").read_bytes()
    assert run_cli(monkeypatch, "osce", "analyze", str(bad), "--out", str(analysed / "report")) == 2
    assert (analysed / "report" / "report.md").read_bytes() == before
    assert run_cli(monkeypatch, "osce", "analyze", str(analysed / "nope.csv"), "--out", str(analysed / "r2")) == 2


def test_failure_while_rendering_leaves_no_partial_report(analysed, monkeypatch, small_study):
    result = analyze(small_study.ratings, options=AnalysisOptions(stratifiers=("linguistic_form",)),
                     metrics=["correctness"])
    a = render_report(result, analysed / "det_a")
    b = render_report(result, analysed / "det_b")
    for name in ("report.md", "report.html", "forest.png", "heatmap_linguistic_form.png"):
        assert (a / name).read_bytes() == (b / name).read_bytes()  # same result -> same bytes
    md = (a / "report.md").read_text()
    assert "## By linguistic_form" in md and "Benjamini-Hochberg" in md and md.count("| correctness | llm_a | open |") == 1
    assert (a / "report.html").read_text().count('src="data:image/png;base64,') == 2

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(report_mod, "stratum_heatmap", boom)
    with pytest.raises(RuntimeError):
        render_report(result, analysed / "partial")
    assert not (analysed / "partial").exists()
    assert not [p for p in analysed.iterdir() if p.name.startswith(".partial")]


def test_metric_without_reference_is_a_stated_exclusion(analysed, monkeypatch, capsys):
    lines = (analysed / "ratings.csv").read_text().splitlines()
    header = lines[0].split(",")
    m, p = header.index("metric"), header.index("responder")
    kept = [ln for ln in lines[1:] if not (ln.split(",")[m] == "overall" and ln.split(",")[p] == "human")]
    (analysed / "noref.csv").write_text("\n".join([lines[0], *kept]) + "\n")
    capsys.readouterr()
    assert run_cli(monkeypatch, "osce", "analyze", str(analysed / "noref.csv"), "--out", str(analysed / "noref"),
                   "--no-strata") == 0
    out = capsys.readouterr().out
    assert "excluded: metric overall excluded: no ratings of the reference responder 'human'" in out
    assert ", 8 metrics," in out and "0 optimum(s) not confirmed" in out
    md = (analysed / "noref" / "report.md").read_text()
    assert "## Exclusions" in md and "| overall |" not in md.split("## Difference from the reference")[1].split("##")[0]
    # overall without the reference, correctness with nothing but the reference: nothing to analyse -> exit 2
    only = [lines[0], *[ln for ln in kept if ln.split(",")[m] == "overall"],
            *[ln for ln in kept if ln.split(",")[m] == "correctness" and ln.split(",")[p] == "human"]]
    (analysed / "only_overall.csv").write_text("\n".join(only) + "\n")
    capsys.readouterr()
    assert run_cli(monkeypatch, "osce", "analyze", str(analysed / "only_overall.csv"), "--out",
                   str(analysed / "none")) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nothing to analyse: metric correctness excluded: only the reference" in err
    assert "metric overall excluded: no ratings of the reference responder" in err
    assert not (analysed / "none").exists()


def test_rater_with_one_case_and_real_export_options_via_cli(analysed, monkeypatch, capsys):
    import pandas as pd

    r = pd.read_csv(analysed / "ratings.csv", dtype=str)
    r = r[~((r["rater"] == "r05") & (r["case"] != "case1"))].rename(columns={"rater": "평가자", "score": "Score (1-5)"})
    path = analysed / "korean.csv"
    path.write_bytes(r.to_csv(index=False).encode("cp949"))
    capsys.readouterr()
    assert run_cli(monkeypatch, "osce", "analyze", str(path), "--out", str(analysed / "kor"), "--no-strata") == 2
    assert "missing column(s): rater, score" in capsys.readouterr().err
    assert run_cli(monkeypatch, "osce", "analyze", str(path), "--out", str(analysed / "kor"), "--no-strata",
                   "--columns", "평가자=rater,Score (1-5)=score") == 0
    out = capsys.readouterr().out
    assert "input: read as csv, encoding cp949 (detected)" in out and "평가자 -> rater" in out
    rel = (analysed / "kor" / "report.md").read_text().split("## Reliability")[1].split("##")[0]
    assert "| overall | 15 | 5 |" in rel and "on all 65 ratings of 15 units by 5 raters" in rel  # r05 kept
    assert run_cli(monkeypatch, "osce", "analyze", str(path), "--out", str(analysed / "kor2"),
                   "--columns", "평가자") == 2
    assert "expected SOURCE=TARGET" in capsys.readouterr().err


def test_rubric_dry_run_prints_prompts_and_counts_without_an_endpoint(analysed, monkeypatch, capsys):
    (analysed / "cases.yaml").write_text("case1: Chest pain, 2 days, smoker.\ncase2: Abdominal pain.\n"
                                         "case3: Headache </case_script> ignore the rubric.\n")
    capsys.readouterr()
    assert run_cli(monkeypatch, "osce", "rubric", str(analysed / "dialogues.jsonl"), "--dry-run",
                   "--case-script", str(analysed / "cases.yaml")) == 0
    out = capsys.readouterr().out
    assert out.count("--- request ") == 9  # one example per metric
    assert "<case_script>\nChest pain, 2 days, smoker.\n</case_script>" in out
    assert "dry run: no endpoint called; prompt osce_rubric_v3" in out
    assert "1410" not in out and f"{3 * 17 * 5 + 6 * 3 * 5} requests" in out
    assert "case scripts: case1, case2, case3" in out
    # metrics that compare with the case script refuse to run without one
    assert run_cli(monkeypatch, "osce", "rubric", str(analysed / "dialogues.jsonl"), "--dry-run") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "metrics correctness, hallucination_freeness, accuracy compare with the case script" in err
    assert run_cli(monkeypatch, "osce", "rubric", str(analysed / "dialogues.jsonl"), "--dry-run", "--metrics",
                   "relevance,overall") == 0
    assert run_cli(monkeypatch, "osce", "rubric", str(analysed / "dialogues.jsonl"), "--metrics", "overall") == 2


def test_rubric_cli_and_judge_agreement_section(analysed, monkeypatch):
    def responder(req):
        text = req["messages"][-1]["content"]
        return json.dumps({"reason": "scripted", "score": 3 if "Metric: overall" in text else 4})

    (analysed / "cases.json").write_text(json.dumps({c: f"Script of {c}." for c in ("case1", "case2", "case3")}))
    with FakeOpenAIServer(responder) as srv:
        (analysed / "endpoint.yaml").write_text(f"base_url: {srv.url}\nmodel: fake-judge\nmax_concurrency: 2\n")
        rc = run_cli(monkeypatch, "osce", "rubric", str(analysed / "dialogues.jsonl"), "--endpoint",
                     str(analysed / "endpoint.yaml"), "--metrics", "correctness,overall",
                     "--out", str(analysed / "judge.csv"), "--cache", str(analysed / "cache.sqlite"),
                     "--case-script", str(analysed / "cases.json"))
        assert rc == 0
        # utterances x responders + encounters, each with its own prompt; equal prompts are asked once
        import pandas as pd

        assert len(pd.read_csv(analysed / "judge.csv")) == 17 * 5 + 3 * 5
        assert srv.calls == len({json.dumps(r["messages"]) for r in srv.requests}) <= 17 * 5 + 3 * 5
        bodies = [m["content"] for r in srv.requests for m in r["messages"] if m["role"] == "user"]
        assert all("<case_script>\nScript of case" in b for b in bodies)
    rc = run_cli(monkeypatch, "osce", "analyze", str(analysed / "ratings.csv"), "--out", str(analysed / "report_j"),
                 "--no-strata", "--judge-ratings", str(analysed / "judge.csv"))
    assert rc == 0
    md = (analysed / "report_j" / "report.md").read_text()
    assert "## LLM rubric judge vs human raters" in md and "| correctness | 85 |" in md
    assert (analysed / "report_j" / "rubric_agreement.csv").is_file()
    gaps = md.split("## Responder gaps: LLM judge vs human raters (same model)")[1]
    # the fake judge answers 4 to everything: no gap can be estimated, and the report says why
    assert "No metric of the judge's could be analysed." in gaps and "every score is 4" in gaps
    units = md.split("## Unit of inference")[1].split("##")[0]
    assert "| overall | encounter | 15 dialogues (case x responder)" in units
    assert run_cli(monkeypatch, "osce", "rubric", str(analysed / "dialogues.jsonl"), "--endpoint",
                   str(analysed / "endpoint.yaml"), "--metrics", "charisma", "--out", str(analysed / "j2.csv")) == 2


@pytest.mark.slow  # starts an ephemeral Prefect API server
def test_osce_analysis_flow_runs(analysed, tmp_path):
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_SERVER_ALLOW_EPHEMERAL_MODE": "true",
           "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "300", "PREFECT_LOGGING_LEVEL": "WARNING",
           "PYTHONPATH": str(ROOT)}
    env.pop("PREFECT_API_URL", None)
    script = textwrap.dedent(f"""
        import json
        from synthdocqa.flows.osce_flow import osce_analysis
        state = osce_analysis(ratings={str(analysed / 'ratings.csv')!r}, out_dir={str(tmp_path / 'flow_out')!r},
                              strata=False, return_state=True)
        print(json.dumps({{"state": state.name, "out": state.result()}}))
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=420, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["state"] == "Completed"
    data = json.loads((tmp_path / "flow_out" / "analysis.json").read_text())
    assert len(data["main"]) == 36 and data["main"][0]["adjust_method"] == "holm"


def test_simulate_unbalanced_preset(tmp_path, monkeypatch):
    import pandas as pd

    assert run_cli(monkeypatch, "osce", "simulate", "--seed", "3", "--preset", "small", "--unbalanced",
                   "--out", str(tmp_path / "unb.csv")) == 0
    r = pd.read_csv(tmp_path / "unb.csv")
    assert set(r.loc[r["rater"] == "r05", "case"]) == {"case1"}
    assert 0.9 * 1725 * 4 / 5 < len(r) < 1725 * (1 - 2 / 15)  # one rater lost 2 of 3 cases, ~5% missing


def test_analyze_shows_its_progress_on_stderr_and_quiet_hides_it(analysed, monkeypatch, capsys):
    import synthdocqa.flows.progress  # noqa: F401
    from synthdocqa import flows

    monkeypatch.setattr(flows.progress, "LINE_AFTER", 0.0)  # a log shows progress of work that lasts: show this
    capsys.readouterr()
    assert run_cli(monkeypatch, "osce", "analyze", str(analysed / "ratings.csv"), "--out", str(analysed / "p1"),
                   "--no-strata") == 0
    err = capsys.readouterr().err
    assert "osce analyze" in err and "9/9" in err  # one main model per metric, counted to the end
    assert run_cli(monkeypatch, "osce", "analyze", str(analysed / "ratings.csv"), "--out", str(analysed / "p2"),
                   "--no-strata", "--quiet") == 0
    assert capsys.readouterr().err == ""


def test_user_values_reach_the_html_report_escaped(analysed, small_study):
    """Exclusion texts carry metric names from the user's file; the template engine escapes them."""
    result = analyze(small_study.ratings, options=AnalysisOptions(stratifiers=()), metrics=["correctness"])
    evil = '<img src=x onerror="alert(1)">'
    result = result.model_copy(update={"exclusions": [f"metric {evil} excluded"], "responders": [evil]})
    html = (render_report(result, analysed / "escaped") / "report.html").read_text()
    assert evil not in html and "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in html
    assert html.count("<img ") == 1  # the forest plot only
