"""Honest failure semantics of the LLM judge path (fake server for the faults): no valid verdict stops the run
in one line, statistics of too few items are n/a with the n, --max-items caps the system under test."""

from __future__ import annotations

import json

import pytest
import yaml

import synthdocqa.flows.cli  # noqa: F401
from synthdocqa import flows
from tests.judges.fake_openai_server import FakeOpenAIServer, FakeReply


@pytest.fixture(autouse=True)
def only_judge_command(monkeypatch):
    monkeypatch.setattr(flows.cli, "COMMAND_MODULES", ("synthdocqa.flows.commands.judge",))


def _judges(tmp_path, url: str, **extra) -> str:
    path = tmp_path / "judges.yaml"
    path.write_text(yaml.safe_dump({"judges": [{"name": "fake", "base_url": url, "model": "m", "max_retries": 1,
                                                "backoff_base_s": 0.01, "max_concurrency": 2}],
                                    "labelers": ["exact_match"], "n_boot": 20, "alpha_boot": 0, **extra}))
    return str(path)


def _one_line(rc: int, err: str, *words: str) -> None:
    lines = [x for x in err.strip().splitlines() if x.strip() and "%|" not in x]  # progress bars aside
    assert rc == 2 and len(lines) == 1, err
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("reply, words", [
    (lambda req: "I am not sure.", ["0 valid verdicts of 16 (unparseable 16)", "even after a repair request",
                                    "first error: not JSON"]),
    (lambda req: FakeReply.status_code(401), ["0 valid verdicts of 16 (auth 16)", "check the API key source"]),
    (lambda req: FakeReply.quota(), ["(quota 16)", "quota is spent"]),
])
def test_a_judge_with_no_valid_verdict_stops_the_run_in_one_line(reply, words, corpus_dir, tmp_path, capsys):
    with FakeOpenAIServer(reply) as srv:
        rc = flows.cli.main(["judge", "hallucination", "--corpus", str(corpus_dir), "--no-verify", "--out",
                             str(tmp_path / "o"), "--judges", _judges(tmp_path, srv.url), "--max-items", "8",
                             "--no-embedding"])
    _one_line(rc, capsys.readouterr().err, "judge fake:", *words)
    assert not (tmp_path / "o" / "report.md").exists() and not (tmp_path / "o" / "labels.jsonl").exists()


def test_nothing_to_label_with_is_one_line(corpus_dir, tmp_path, capsys):
    path = tmp_path / "j.yaml"
    path.write_text("labelers: []\n")
    rc = flows.cli.main(["judge", "hallucination", "--corpus", str(corpus_dir), "--no-verify", "--out",
                         str(tmp_path / "o"), "--judges", str(path)])
    _one_line(rc, capsys.readouterr().err, "nothing to label with")


def test_statistics_of_too_few_items_are_na_with_the_n():
    import numpy as np

    from synthdocqa.ir.rng import Rng
    from synthdocqa.judges.hallucination.binary_stats import bootstrap_metrics, cochrans_q, mcnemar_exact
    from synthdocqa.judges.hallucination.report import _ci, _na

    m = bootstrap_metrics([], [], Rng(0).gen, n_boot=10)
    assert all(np.isnan(v.value) for v in m.values()) and _ci(m["kappa"]) == "n/a"
    assert np.isnan(mcnemar_exact([], []).p_value) and np.isnan(cochrans_q(np.zeros((0, 3))).q)
    assert _na(0, "0.5") == "n/a (n=0)" and _na(1, "0.5") == "n/a (n=1)" and _na(2, "0.5") == "0.5"


def test_max_items_caps_the_questions_put_to_the_system_under_test(tiny_corpus, tmp_path, capsys,  # noqa: F811
                                                                  monkeypatch):
    import synthdocqa.flows.progress  # noqa: F401
    from synthdocqa import flows

    monkeypatch.setattr(flows.progress, "LINE_AFTER", 0.0)  # a log shows progress of work that lasts: show this
    with FakeOpenAIServer(lambda req: "42") as sut, \
            FakeOpenAIServer(lambda req: '{"verdict": "hallucinated", "reason": "r"}') as judge:
        path = tmp_path / "judges.yaml"
        path.write_text(yaml.safe_dump({
            "judges": [{"name": "j", "base_url": judge.url, "model": "m"}],
            "answerer": {"name": "sut", "base_url": sut.url, "model": "m"}, "labelers": ["exact_match"],
            "n_boot": 10, "alpha_boot": 0}))
        argv = ["judge", "hallucination", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "o"), "--judges",
                str(path), "--max-items", "3", "--no-embedding"]
        assert flows.cli.main(argv) == 0
        assert sut.calls == 3 and judge.calls == 6  # 3 questions answered, each judged under 2 prompts
        assert flows.cli.main(argv) == 0  # a rerun: the answerer's replies come from the cache too
        assert sut.calls == 3 and judge.calls == 6
    err = capsys.readouterr().err
    assert "answerer sut: 3/3 req (valid 3, invalid 0, cached 0)" in err  # progress lines on stderr
    assert "answerer sut: 3/3 req (valid 3, invalid 0, cached 3)" in err  # the rerun's, from the cache
    items = [json.loads(x) for x in (tmp_path / "o" / "items.jsonl").read_text().splitlines()]
    assert len(items) == 3 and {i["candidate"] for i in items} == {"42"}


@pytest.mark.needs("tesseract")
def test_the_system_under_test_can_read_the_scans_through_ocr(tiny_corpus, tmp_path):  # noqa: F811
    """answer_mode: ocr gives the answerer tesseract's reading of the scans, not the PDF text layer."""

    from synthdocqa.corpus.store import open_corpus
    from synthdocqa.judges.hallucination.answer import answers_from_endpoint
    from synthdocqa.judges.llm import ChatClient, EndpointConfig

    reader = open_corpus(tiny_corpus)
    docs = [(doc, qas[:1]) for doc, qas in reader.documents_and_qa()][:1]
    with FakeOpenAIServer(lambda req: "not stated") as srv, \
            ChatClient(EndpointConfig(base_url=srv.url, model="m")) as client:
        items, failures = answers_from_endpoint(client, docs, reader, mode="ocr")
        prompt = srv.requests[0]["messages"][-1]["content"]
    assert not failures and items[0].generator_prompt.endswith(":ocr")
    ocr = reader.scan_text(docs[0][0].doc_id)
    text = reader.document_text(docs[0][0].doc_id)
    assert ocr.startswith("[page 1]") and ocr != text
    body = prompt.split("<document>")[1].split("</document>")[0]
    words = [w for w in ocr.split() if len(w) > 5 and w.isalpha()][:5]
    assert len(words) == 5 and all(w in body for w in words)  # the OCR reading went to the model
