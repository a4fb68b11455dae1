"""End to end: a generated corpus verifies; tampering is caught and named; bytes reproduce."""

import json
import os
import signal
import subprocess
import sys
import time

from corpus.ops import generate_corpus, reproduce_corpus, verify_corpus
from corpus.store import load_manifest

from .conftest import tiny_spec


def test_fresh_corpus_verifies_and_has_the_layout(tiny_corpus):
    assert verify_corpus(tiny_corpus) == []
    m = load_manifest(tiny_corpus)
    assert m.stats["documents"] == 2 and m.stats["pages"] >= 4 and m.stats["qa_pairs"] > 0
    for name in ("documents.parquet", "pages.parquet", "qa.parquet", "assertions.parquet", "qa.jsonl"):
        assert name in m.files
    d = tiny_corpus / "docs" / "doc-00000"
    for name in ("ir.json", "document.pdf", "scan.pdf", "render_map.json", "doc.json"):
        assert (d / name).is_file()
    assert sorted(p.name for p in (d / "pages").iterdir())[0] == "page-0001.png"
    assert not list(tiny_corpus.rglob("*.tmp"))


def test_tampered_pdf_is_named(corpus_copy):
    pdf = corpus_copy / "docs" / "doc-00001" / "document.pdf"
    data = bytearray(pdf.read_bytes())
    data[len(data) // 2] ^= 0xFF
    pdf.write_bytes(bytes(data))
    problems = verify_corpus(corpus_copy)
    assert any("docs/doc-00001/document.pdf" in p for p in problems), problems


def _rewrite_jsonl(path, fn):
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    fn(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_tampered_answer_is_named(corpus_copy):
    path = corpus_copy / "docs" / "doc-00000" / "qa.jsonl"
    target = {}

    def change(rows):
        for r in rows:
            if r["qa_type"] in ("lookup", "chart_reading") and r["answer"]["kind"] in ("number", "string"):
                r["answer"]["value"] = r["answer"]["value"] + "1"
                target["id"] = r["id"]
                return

    _rewrite_jsonl(path, change)
    problems = verify_corpus(corpus_copy)
    assert target and any(p.startswith(target["id"] + ":") for p in problems), problems


def test_tampered_assertion_box_is_named(corpus_copy):
    path = corpus_copy / "docs" / "doc-00000" / "assertions.jsonl"
    target = {}

    def move(rows):
        for r in rows:
            if r["evidence"]:
                x0, y0, x1, y1 = r["evidence"][0]["bbox_pdf"]
                r["evidence"][0]["bbox_pdf"] = [x0 + 200, y0 + 300, x1 + 200, y1 + 300]
                target["id"] = r["id"]
                return

    _rewrite_jsonl(path, move)
    problems = verify_corpus(corpus_copy)
    assert target and any(p.startswith(target["id"]) and "text layer" in p for p in problems), problems


def test_reproduce_gives_equal_bytes(tiny_corpus):
    checked, diffs = reproduce_corpus(tiny_corpus)
    assert checked == ["doc-00000", "doc-00001"] and diffs == []


def test_two_workers_give_the_same_corpus(tiny_corpus, tmp_path):
    out = tmp_path / "w2"
    generate_corpus(tiny_spec(), out, workers=2)
    assert load_manifest(out).files == load_manifest(tiny_corpus).files
    assert (out / "corpus.json").read_bytes() == (tiny_corpus / "corpus.json").read_bytes()


def test_other_spec_in_same_dir_is_refused(tiny_corpus, tmp_path):
    import pytest

    from corpus.store import CorpusError

    with pytest.raises(CorpusError, match="another spec"):
        generate_corpus(tiny_spec(seed=6), tiny_corpus, workers=1)


KILL_SCRIPT = """
import sys
from corpus.ops import generate_corpus
sys.path.insert(0, {tests!r})
from flows_conftest import tiny_spec
generate_corpus(tiny_spec(n_docs=5), {out!r}, workers=1)
"""


def test_kill_9_then_rerun_is_byte_identical(tmp_path):
    import shutil
    from pathlib import Path

    helper_dir = tmp_path / "helper"
    helper_dir.mkdir()
    shutil.copy(Path(__file__).parent / "conftest.py", helper_dir / "flows_conftest.py")
    out = tmp_path / "killed"
    script = KILL_SCRIPT.format(tests=str(helper_dir), out=str(out))
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).parents[2])
    deadline = time.time() + 300
    while time.time() < deadline and not (out / "docs" / "doc-00000" / "doc.json").exists():
        time.sleep(0.02)
        assert proc.poll() is None, "generator ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)  # at once: four documents are still to come
    proc.wait()
    assert not (out / "corpus.json").exists()
    assert verify_corpus(out) != []  # a killed run never verifies
    generate_corpus(tiny_spec(n_docs=5), out, workers=1)  # resume
    clean = tmp_path / "clean"
    generate_corpus(tiny_spec(n_docs=5), clean, workers=1)
    assert load_manifest(out).files == load_manifest(clean).files
    assert verify_corpus(out) == []
