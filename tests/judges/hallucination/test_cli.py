"""``synthdocqa judge hallucination`` end to end through flows.cli.main (real files, real labelers)."""

from __future__ import annotations

import json

import pytest
import yaml

import synthdocqa.flows.cli  # noqa: F401
from synthdocqa import flows
from tests.judges.fake_openai_server import FakeOpenAIServer


@pytest.fixture(autouse=True)
def only_judge_command(monkeypatch):
    # the CLI registry may list command groups other engineers are still writing
    monkeypatch.setattr(flows.cli, "COMMAND_MODULES", ("synthdocqa.flows.commands.judge",))


def test_embedded_default_on_a_corpus(corpus_dir, tmp_path, capsys):
    out = tmp_path / "out"
    rc = flows.cli.main(["judge", "hallucination", "--corpus", str(corpus_dir), "--no-verify", "--out", str(out),
                         "--per-qa", "3", "--seed", "3"])
    assert rc == 0
    res = json.loads((out / "analysis.json").read_text())
    labelers = {m["labeler"] for m in res["mismatch"]}
    assert labelers == {"exact_match", "token_f1", "rouge_l", "chrf", "bleu", "embedding_cosine"}
    assert res["n_items"] == len((out / "items.jsonl").read_text().splitlines()) > 60
    md = (out / "report.md").read_text()
    assert "Criterion mismatch" in md and "extra_true" in md and "kappa_by_criterion.png" in md
    assert (out / "kappa_by_criterion.png").read_bytes()[:4] == b"\x89PNG"
    assert "No LLM judges configured" in md
    assert "kappa faith" in capsys.readouterr().out


def test_items_file_with_llm_judges(tmp_path, corpus_dir):
    items = tmp_path / "items.jsonl"
    rows = [{"item_id": f"i{i}", "question": "What is X?", "references": ["42"],
             "candidate": "42" if i % 2 else "41", "label_faithfulness": bool(i % 2 == 0),
             "label_factual": bool(i % 2 == 0), "split": "dev" if i < 20 else "test"} for i in range(40)]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with FakeOpenAIServer(lambda req: '{"verdict": "hallucinated"}') as srv:
        (tmp_path / "judges.yaml").write_text(yaml.safe_dump(
            {"judges": [{"name": "fake", "base_url": srv.url, "model": "m"}], "labelers": ["exact_match"],
             "n_boot": 50, "alpha_boot": 0}))
        rc = flows.cli.main(["judge", "hallucination", "--items", str(items), "--judges",
                             str(tmp_path / "judges.yaml"), "--out", str(tmp_path / "o")])
        assert rc == 0 and srv.calls == 4  # 2 distinct candidates x 2 prompts: equal requests are asked once
    res = json.loads((tmp_path / "o" / "analysis.json").read_text())
    m = {(r["labeler"], r["criterion"]): r for r in res["metrics"]}
    # the scripted judge flags everything: recall 1, precision = share of hallucinated in the test split
    assert m[("fake/faithfulness-prompt", "faithfulness")]["metrics"]["recall"]["value"] == 1.0
    assert m[("exact_match", "faithfulness")]["metrics"]["accuracy"]["value"] == 1.0


def test_user_answers_file(corpus_dir, tmp_path, doc_and_qas):
    _, qas = doc_and_qas
    answers = tmp_path / "answers.csv"
    answers.write_text("qa_id,answer\n" + "".join(f"{q.id},\"{q.answer_text}\"\n" for q in qas[:6]))
    rc = flows.cli.main(["judge", "hallucination", "--corpus", str(corpus_dir), "--no-verify", "--answers", str(answers),
                         "--out", str(tmp_path / "o"), "--no-embedding"])
    assert rc == 0
    items = [json.loads(x) for x in (tmp_path / "o" / "items.jsonl").read_text().splitlines()]
    assert [i["qa_id"] for i in items] == [q.id for q in qas[:6]]
    assert all(i["label_faithfulness"] is None and i["generator_model"] == "user" for i in items)
    res = json.loads((tmp_path / "o" / "analysis.json").read_text())
    assert res["metrics"] == [] and res["score_means"]["exact_match"] == 1.0
    assert "Mean support score" in (tmp_path / "o" / "report.md").read_text()


@pytest.mark.parametrize("argv,msg", [
    (["--items", "{tmp}/missing.jsonl"], "file not found"),
    (["--items", "{tmp}/bad.jsonl"], "bad.jsonl: line 1: question"),
    (["--corpus", "{tmp}", "--no-verify"], "no qa.jsonl"),
    (["--items", "{tmp}/bad.jsonl", "--judges", "{tmp}/judges.yaml"], "unknown labelers"),
    (["--corpus", "{corpus}", "--no-verify", "--answers", "{tmp}/answers.csv"], "unknown qa_id 'nope'"),
])
def test_user_errors_exit_2_with_one_line_and_write_nothing(argv, msg, tmp_path, corpus_dir, capsys):
    (tmp_path / "bad.jsonl").write_text('{"item_id": "a", "references": ["r"], "candidate": "c"}\n')
    (tmp_path / "judges.yaml").write_text("labelers: [bertscore]\n")
    (tmp_path / "answers.csv").write_text("qa_id,answer\nnope,42\n")
    args = [a.format(tmp=tmp_path, corpus=corpus_dir) for a in argv]
    rc = flows.cli.main(["judge", "hallucination", *args, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2 and msg in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_corpus_and_items_are_exclusive(tmp_path):
    with pytest.raises(SystemExit) as exc:
        flows.cli.main(["judge", "hallucination", "--corpus", "a", "--items", "b", "--out", str(tmp_path)])
    assert exc.value.code == 2
