"""The VSP study end to end through the command line: virtual patients answer (a fake OpenAI server plays two
backbones, the human file the expert), blinded packets for 17 raters, filled with planted scores, collected back
exactly, analysed into the contrast tables, and the rubric judge compared with the raters; the two Prefect flows
(osce-study, osce-collect-analyze) on an ephemeral API server."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from openpyxl import load_workbook

import synthdocqa.flows.cli  # noqa: F401
from synthdocqa import flows
from synthdocqa.judges.osce.packets import fill_packets, load_key
from tests.judges.fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[3]
HUMAN = ROOT / "examples" / "osce" / "human_answers.csv"
EFFECT = {"human": 1, "vsp-one": 0, "vsp-two": -1}


def run_cli(monkeypatch, *argv: str) -> int:
    monkeypatch.setattr(flows.cli, "COMMAND_MODULES", ("synthdocqa.flows.commands.osce",))
    return flows.cli.main(list(argv))


def _h(*parts: object) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest(), 16)


def planted(rater: str, metric, item) -> int:  # noqa: ANN001 (KeyMetric, KeyUtterance | KeyEncounter)
    """A rater's score: 3 + the responder's effect + the rater's severity + noise, on the metric's scale."""
    unit = f"{item.encounter}|{getattr(item, 'utterance_id', '')}"
    severity = _h("severity", rater) % 3 - 1
    noise = _h("noise", rater, unit, metric.name) % 3 - 1
    return max(metric.scale_min, min(metric.scale_max, 3 + EFFECT[item.responder] + severity + noise))


def _patient(req: dict) -> str:
    """Two backbones that differ: one repeats the question's last words, the other says it does not know."""
    return ("I don't know." if req["temperature"] > 0 else
            "Well, " + req["messages"][-1]["content"].strip().rstrip("?").split(",")[-1].strip().lower() + ".")


def _judge(req: dict) -> str:
    text = req["messages"][-1]["content"]
    return json.dumps({"reason": "fake", "score": 2 if "I don't know" in text.split("<dialogue>")[-1] else 4})


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("study")
    mp = pytest.MonkeyPatch()
    with FakeOpenAIServer(responder=lambda req: _judge(req) if "OSCE examiner" in json.dumps(req) else _patient(req)
                          ) as srv:
        (tmp / "human.csv").write_bytes(HUMAN.read_bytes())
        (tmp / "responders.yaml").write_text(textwrap.dedent(f"""\
            responders:
              - {{name: vsp-one, endpoint: {{base_url: "{srv.url}", model: fake, max_retries: 0}}}}
              - {{name: vsp-two, endpoint: {{base_url: "{srv.url}", model: fake, temperature: 0.7, seed: 7}}}}
              - {{name: human, answers: human.csv}}
        """))
        try:
            argv = ["osce", "vsp", "run", "--responders", str(tmp / "responders.yaml"), "--out", str(tmp / "run"),
                    "--max-questions", "8", "--quiet"]
            assert run_cli(mp, *argv) == 0
            calls = srv.calls
            assert run_cli(mp, *argv) == 0 and srv.calls == calls  # the rerun: every reply from the cache
            (tmp / "judge.yaml").write_text(f"base_url: {srv.url}\nmodel: fake-judge\n")
            assert run_cli(mp, "osce", "rubric", str(tmp / "run" / "dialogues.csv"), "--case-script",
                           str(tmp / "run" / "case_scripts"), "--endpoint", str(tmp / "judge.yaml"), "--out",
                           str(tmp / "judge.csv"), "--cache", str(tmp / "judge.sqlite")) == 0
        finally:
            mp.undo()
        tmp.joinpath("calls").write_text(str(calls))
    return tmp


def test_the_run_answers_every_question_of_every_case_and_the_rerun_is_free(study):
    turns = [json.loads(x) for x in (study / "run" / "turns.jsonl").read_text().splitlines()]
    assert len(turns) == 3 * 3 * 8 and all(t["status"] == "ok" for t in turns)
    assert int((study / "calls").read_text()) == 2 * 3 * 8  # the two model responders; the human asks nothing
    run = json.loads((study / "run" / "run.json").read_text())
    assert run["requests"] == 0 and run["cache_hits"] == 48
    assert set(run["case_titles"]) == {"hematuria", "fever_in_pregnancy", "chronic_cough"}


def test_packets_for_17_raters_round_trip_into_the_analysis(study, tmp_path, monkeypatch, capsys):
    packets, key = tmp_path / "packets", tmp_path / "packets-key.json"
    assert run_cli(monkeypatch, "osce", "packets", "--dialogues", str(study / "run"), "--raters", "17", "--seed", "11",
                   "--out", str(packets)) == 0
    assert "17 packets (72 utterances, 9 dialogues each)" in capsys.readouterr().out
    files = sorted(packets.glob("*.xlsx"))
    assert len(files) == 17 and key.is_file() and not list(packets.glob("*.json"))
    orders = set()
    for f in files:
        wb = load_workbook(f)
        cells = " ".join(str(c.value) for ws in wb.worksheets for row in ws.iter_rows() for c in row
                         if c.value is not None).lower()
        assert not [n for n in ("human", "vsp-one", "vsp-two", ".vsp-", "fake") if n in cells], f
        assert "painless visible haematuria" in cells  # the case by its title
    for p in load_key(key).packets:
        orders.add(tuple((u.encounter, u.utterance_id) for u in p.utterances.values()))
    assert len(orders) == 17  # each rater reads the utterances in an order of its own
    n = fill_packets(packets, key, planted)
    assert n == 17 * (72 * 3 + 9 * 6)
    ratings = tmp_path / "ratings.csv"
    assert run_cli(monkeypatch, "osce", "collect", str(packets), "--key", str(key), "--out", str(ratings)) == 0
    got = pd.read_csv(ratings)
    k = load_key(key)
    want = sorted((p.rater, m.name, it.encounter, getattr(it, "utterance_id", None) or "", planted(p.rater, m, it))
                  for p in k.packets for it in [*p.utterances.values(), *p.encounters.values()]
                  for m in k.metrics if (m.level == "sentence") == hasattr(it, "utterance_id"))
    assert sorted(zip(got["rater"], got["metric"], got["encounter"], got["utterance_id"].fillna(""), got["score"],
                      strict=True)) == want  # exactly the planted scores, unblinded
    report = tmp_path / "report"
    assert run_cli(monkeypatch, "osce", "analyze", str(ratings), "--out", str(report), "--no-strata", "--quiet",
                   "--judge-ratings", str(study / "judge.csv")) == 0
    md = (report / "report.md").read_text()
    main = md.split("## Difference from the reference")[1].split("## ")[0]
    rows = [r for r in main.splitlines() if r.startswith("| correctness | vsp-two")]
    assert rows and float(rows[0].split("|")[3]) < -1.0  # planted: two points below the human expert
    assert "## LLM rubric judge vs human raters" in md
    agreement = pd.read_csv(report / "rubric_agreement.csv")
    assert set(agreement["metric"]) >= {"correctness", "relevance", "naturalness"}


def test_faults_in_returned_packets_exit_2_naming_file_sheet_and_cell(study, tmp_path, monkeypatch, capsys):
    packets, key = tmp_path / "packets", tmp_path / "packets-key.json"
    assert run_cli(monkeypatch, "osce", "packets", "--dialogues", str(study / "run"), "--raters", "3", "--seed", "2",
                   "--out", str(packets)) == 0
    fill_packets(packets, key, planted)
    other = tmp_path / "other"
    capsys.readouterr()
    assert run_cli(monkeypatch, "osce", "packets", "--dialogues", str(study / "run"), "--raters", "3",
                   "--out", str(other)) == 0  # no --seed: a random one, printed and kept in the key only
    drawn = load_key(tmp_path / "other-key.json").seed
    assert f"seed {drawn} (drawn)" in capsys.readouterr().out and drawn > 2**32
    wb = load_workbook(packets / "rater-01.xlsx")
    wb["Utterances"]["F5"] = 9
    wb["Encounters"]["G4"] = None
    wb.save(packets / "rater-01.xlsx")
    shutil.copy(other / "rater-02.xlsx", packets / "rater-02.xlsx")
    capsys.readouterr()
    assert run_cli(monkeypatch, "osce", "collect", str(packets), "--key", str(key), "--out",
                   str(tmp_path / "r.csv")) == 2
    err = capsys.readouterr().err
    assert "rater-01.xlsx, sheet Utterances, cell F5: 9 is outside 1-5" in err
    assert "rater-01.xlsx, sheet Encounters, cell G4: empty" in err
    assert "rater-02.xlsx" in err and "not in the key" in err
    assert not (tmp_path / "r.csv").exists()


@pytest.mark.slow  # an ephemeral Prefect API server
def test_the_study_flows_run_on_prefect(study, tmp_path):
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_SERVER_ALLOW_EPHEMERAL_MODE": "true",
           "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "300", "PREFECT_LOGGING_LEVEL": "WARNING",
           "PYTHONPATH": str(ROOT)}
    env.pop("PREFECT_API_URL", None)
    (tmp_path / "human.yaml").write_text(f"responders:\n  - {{name: human, answers: {HUMAN}}}\n"
                                         f"  - {{name: copy, answers: {HUMAN}}}\n")
    with FakeOpenAIServer(responder=_judge) as judge:
        (tmp_path / "judge.yaml").write_text(f"base_url: {judge.url}\nmodel: fake-judge\n")
        script = textwrap.dedent(f"""
            import json
            from synthdocqa.flows.osce_study import osce_collect_analyze, osce_study
            from synthdocqa.judges.osce.packets import fill_packets
            from tests.judges.osce.test_study import planted_any
            s = osce_study(responders={str(tmp_path / 'human.yaml')!r}, out={str(tmp_path / 'study')!r}, raters=4,
                           seed=1, language="ko", return_state=True)
            made = s.result()
            fill_packets(made["packets"], made["key"], planted_any)
            a = osce_collect_analyze(packets=made["packets"], key=made["key"], out={str(tmp_path / 'analysis')!r},
                                     run=made["run"], judge_endpoint={str(tmp_path / 'judge.yaml')!r},
                                     judge_metrics=["relevance", "overall"], strata=False, return_state=True)
            print(json.dumps({{"study": s.name, "analysis": a.name, "report": a.result()}}))
        """)
        proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=500,
                              cwd=ROOT)
        assert proc.returncode == 0, proc.stderr[-3000:]
        # relevance per utterance and overall per dialogue of both responders (270 requests); the two give the same
        # answers, so each distinct prompt is asked once
        assert judge.calls == 88 + 3
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["study"] == "Completed" and out["analysis"] == "Completed"
    assert len(list((tmp_path / "study" / "packets").glob("*.xlsx"))) == 4
    md = (tmp_path / "analysis" / "report" / "report.md").read_text()
    assert "## Difference from the reference" in md and "## LLM rubric judge vs human raters" in md
    assert (tmp_path / "analysis" / "ratings.csv").is_file() and (tmp_path / "analysis" / "judge.csv").is_file()
    wb = load_workbook(next((tmp_path / "study" / "packets").glob("*.xlsx")))
    titles = {"통증 없는 육안적 혈뇨"} & {str(c.value) for c in wb["Utterances"]["B"]}
    questions = [str(c.value) for c in wb["Utterances"]["D"][2:]]
    assert titles and all(any("가" <= ch <= "힣" for ch in q) for q in questions)  # Korean survives the packet


def planted_any(rater: str, metric, item) -> int:  # noqa: ANN001
    """Scores for responders named anything: the human copy one point lower."""
    unit = f"{item.encounter}|{getattr(item, 'utterance_id', '')}"
    base = 3 + (item.responder == "human") + _h("noise", rater, unit, metric.name) % 3 - 1
    return max(metric.scale_min, min(metric.scale_max, base))
