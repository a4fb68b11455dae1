"""`synthdocqa export` / `report`: errors are one line with exit 2 and write nothing; outputs are
deterministic and replace a previous export atomically."""

from __future__ import annotations

import pytest

from synthdocqa.corpus.views.exports import EXPORT_MARKER
from synthdocqa.flows.cli import main

from .helpers import tree_bytes

FORMATS = ("synthdocqa-card", "hf", "croissant")


def _run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _assert_one_line_error(rc, err, *words):
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for w in words:
        assert w in lines[0]


def _leftovers(parent):
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_cli_writes_and_is_deterministic(corpus, tmp_path, capsys, fmt):
    rc, out, _ = _run(capsys, "export", str(corpus), "--format", fmt, "--out", str(tmp_path / "a"))
    assert rc == 0 and fmt in out
    rc, _, _ = _run(capsys, "export", str(corpus), "--format", fmt, "--out", str(tmp_path / "b"))
    assert rc == 0
    a, b = tree_bytes(tmp_path / "a"), tree_bytes(tmp_path / "b")
    assert a == b and EXPORT_MARKER in a
    assert not _leftovers(tmp_path)


def test_export_errors_are_one_line_and_write_nothing(corpus, corpus_copy, tmp_path, capsys):
    out = tmp_path / "out"
    rc, _, err = _run(capsys, "export", str(corpus), "--format", "parquet", "--out", str(out))
    _assert_one_line_error(rc, err, "unknown format", "parquet")
    rc, _, err = _run(capsys, "export", str(tmp_path / "missing"), "--format", "hf", "--out", str(out))
    _assert_one_line_error(rc, err, "no such directory")
    (corpus_copy / "corpus.json").unlink()
    rc, _, err = _run(capsys, "export", str(corpus_copy), "--format", "hf", "--out", str(out))
    _assert_one_line_error(rc, err, "corpus.json")
    not_corpus = tmp_path / "plain"
    not_corpus.mkdir()
    (not_corpus / "notes.txt").write_text("x")
    rc, _, err = _run(capsys, "export", str(not_corpus), "--format", "croissant", "--out", str(out))
    _assert_one_line_error(rc, err, "corpus.json")
    rc, _, err = _run(capsys, "export", str(corpus), "--format", "synthdocqa-card", "--out", str(not_corpus))
    _assert_one_line_error(rc, err, "not a synthdocqa export")
    assert sorted(p.name for p in not_corpus.iterdir()) == ["notes.txt"]
    assert not out.exists() and not _leftovers(tmp_path)


def test_tampered_corpus_fails_and_keeps_the_previous_export(corpus_copy, tmp_path, capsys):
    out = tmp_path / "hf"
    assert _run(capsys, "export", str(corpus_copy), "--format", "hf", "--out", str(out))[0] == 0
    before = tree_bytes(out)
    page = next((corpus_copy / "docs").glob("*/pages/page-0001.png"))
    page.write_bytes(page.read_bytes() + b"\0")
    rc, _, err = _run(capsys, "export", str(corpus_copy), "--format", "hf", "--out", str(out))
    _assert_one_line_error(rc, err, "sha256", page.name)
    assert tree_bytes(out) == before and not _leftovers(tmp_path)


def test_export_replaces_a_previous_export_whole(corpus, tmp_path, capsys):
    out = tmp_path / "card"
    assert _run(capsys, "export", str(corpus), "--format", "synthdocqa-card", "--out", str(out))[0] == 0
    (out / "stale.txt").write_text("from an older export")
    assert _run(capsys, "export", str(corpus), "--format", "synthdocqa-card", "--out", str(out))[0] == 0
    assert not (out / "stale.txt").exists() and (out / "ALL_queries.json").is_file()
    assert not _leftovers(tmp_path)


def test_report_errors_are_one_line_and_write_nothing(corpus_copy, tmp_path, capsys):
    out = tmp_path / "report.html"
    rc, _, err = _run(capsys, "report", str(tmp_path / "missing"), "--out", str(out))
    _assert_one_line_error(rc, err, "no such directory")
    rc, _, err = _run(capsys, "report", str(corpus_copy), "--out", str(tmp_path / "nodir" / "r.html"))
    _assert_one_line_error(rc, err, "no such directory")
    (corpus_copy / "corpus.json").unlink()
    rc, _, err = _run(capsys, "report", str(corpus_copy), "--out", str(out))
    _assert_one_line_error(rc, err, "corpus.json")
    assert not out.exists() and not _leftovers(tmp_path)
