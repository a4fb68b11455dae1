"""CLI user errors exit 2 with one line and write nothing (no Prefect server is started for them)."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "synthdocqa", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=300)


@pytest.mark.parametrize("args, reason", [
    (["generate", "--docs", "2", "--only", "5", "--out", "X"], "document indices must lie in [0, 1]"),
    (["generate", "--docs", "0", "--out", "X"], "--docs must be >= 1"),
    (["generate", "--spec", "missing.json", "--out", "X"], "no such file"),
    (["generate", "--workers", "0", "--out", "X"], "--workers must be >= 1"),
    (["verify", "nowhere"], "no such directory"),
    (["reproduce", "."], "no manifest"),
])
def test_user_errors_exit_2_with_one_line(tmp_path, args, reason):
    r = _cli(*args, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and reason in lines[0], r.stderr
    assert not (tmp_path / "X").exists()


def test_verify_names_an_incomplete_corpus(tmp_path):
    (tmp_path / "c").mkdir()
    r = _cli("verify", "c", "--quiet", cwd=tmp_path)
    assert r.returncode == 3 and "no manifest" in r.stdout


# ---------------------------------------------------------------- the exit codes of the README's table


def _tamper(corpus: Path) -> str:
    from synthdocqa.corpus.store import load_manifest

    pdf = next(r for r in load_manifest(corpus).files if r.endswith("document.pdf"))
    data = (corpus / pdf).read_bytes()
    (corpus / pdf).write_bytes(data[: len(data) // 2])
    return pdf


@pytest.mark.parametrize("argv, tampered, code", [
    (["verify", "{c}", "--quiet"], False, 0),
    (["verify", "{c}", "--quiet"], True, 3),  # a corpus that does not verify: a finding, not a bug (1)
    (["verify", "{c}/missing"], False, 2),
    (["verify", "{c}", "--json"], True, 3),
    (["reproduce", "{c}", "--no-verify", "--json"], True, 3),
    (["reproduce", "{c}", "--sample", "1"], False, 0),
    (["reproduce", "{c}"], True, 2),  # refused: its files fail their hashes
    (["reproduce", "{c}", "--no-verify"], True, 3),
    (["lint", "{c}", "--quiet"], True, 2),  # lint refuses a corpus that does not verify
    (["legibility", "{c}", "--recorded", "--check", "--quiet"], False, 0),
    (["report", "{c}", "--out", "{c}/../r.html"], True, 2),
    (["verify", "{c}", "--max-problems", "x"], False, 2),  # a usage error
])
def test_exit_codes_follow_the_table(argv, tampered, code, corpus_copy, capsys):
    """0 done, 2 an expected failure, 3 a check that did not pass (1 is kept for bugs): README, exit codes."""
    from synthdocqa.flows.cli import main

    if tampered:
        _tamper(corpus_copy)
    args = [a.replace("{c}", str(corpus_copy)) for a in argv]
    try:
        rc = main(args)
    except SystemExit as done:  # argparse's usage errors
        rc = done.code
    assert rc == code, capsys.readouterr()


# ---------------------------------------------------------------- progress in a log, progress on a terminal


def test_progress_is_lines_in_a_log_and_a_bar_on_a_terminal(tiny_corpus, tmp_path):
    """A log gets whole lines (``flows.progress.LineProgress``), never tqdm's carriage returns; a terminal
    gets the bar."""
    import os
    import pty

    cmd = [str(Path(sys.executable).parent / "synthdocqa"), "verify", str(tiny_corpus)]
    logged = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert logged.returncode == 0, logged.stderr
    assert "\r" not in logged.stderr
    assert logged.stderr == ""  # quick work: its result on stdout, no progress lines in the log
    leader, follower = pty.openpty()
    import fcntl
    import struct
    import termios

    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a new pty is 0 x 0
    try:
        on_tty = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=follower, timeout=300)
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed with the command
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(leader)
    assert on_tty.returncode == 0
    assert b"\r" in seen and b"verify: 100%" in seen


# ---------------------------------------------------------------- --json on every command that checks or writes


@pytest.mark.parametrize("argv, keys", [
    (["verify", "{c}"], {"corpus", "ok", "problems"}),
    (["reproduce", "{c}", "--sample", "1"], {"corpus", "ok", "regenerated", "differences"}),
    (["export", "{c}", "--format", "hf", "--out", "{t}/hf"], {"out", "format", "corpus", "counts", "seconds"}),
    (["report", "{c}", "--out", "{t}/r.html", "--gallery", "1"],
     {"out", "corpus", "documents", "qa_pairs", "gallery", "bytes", "seconds"}),
    (["lint", "{c}"], {"counts", "ok", "failing"}),
    (["legibility", "{c}", "--recorded"], {"by_tier", "qa_pairs"}),
])
def test_json_is_one_document_on_stdout_and_nothing_on_stderr(argv, keys, tiny_corpus, tmp_path, capsys):
    import json

    from synthdocqa.flows.cli import main

    args = [a.replace("{c}", str(tiny_corpus)).replace("{t}", str(tmp_path)) for a in argv] + ["--json"]
    capsys.readouterr()
    rc = main(args)
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert keys <= set(data), sorted(data)
    assert err == "" and rc == 0, (rc, err)
    if "ok" in data:
        assert data["ok"] is True
    if "out" in data:
        assert Path(data["out"]).is_absolute() and Path(data["out"]).exists()


@pytest.mark.slow  # a real generate with its temporary Prefect server
def test_generate_json(tmp_path, capsys, monkeypatch):
    import json

    from synthdocqa.flows.cli import main

    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    rc = main(["generate", "--profile", "demo", "--docs", "1", "--out", "c", "--json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert rc == 0 and data["out"] == str(tmp_path / "c") and data["stats"]["documents"] == 1
    assert "\r" not in err and "%" not in err  # no progress with --json


def test_line_progress_shows_only_work_that_lasts():
    """``LineProgress`` on a fake clock: nothing in the first LINE_AFTER seconds, then a line per tenth of the
    work (or LINE_SECONDS), and a last line at the end only when something was shown."""
    import io

    from synthdocqa.flows.progress import LINE_AFTER, LINE_SECONDS, LineProgress

    now = [0.0]
    quick, slow = io.StringIO(), io.StringIO()
    bar = LineProgress(20, "verify", "doc", quick, clock=lambda: now[0])
    for _ in range(20):
        now[0] += 0.1
        bar.update()
    bar.close()
    assert quick.getvalue() == ""
    now[0] = 0.0
    bar = LineProgress(20, "verify", "doc", slow, clock=lambda: now[0])
    for i in range(20):
        now[0] += LINE_AFTER if i == 0 else 0.01
        bar.set_postfix_str(f"doc-{i:05d}")
        bar.update()
        if i == 13:
            now[0] += LINE_SECONDS  # a long document: a line even between tenths
    bar.close()
    lines = slow.getvalue().splitlines()
    assert lines[0] == "verify: 2/20 doc (doc-00001)"
    assert "verify: 15/20 doc (doc-00014)" in lines and lines[-1] == "verify: 20/20 doc (doc-00019)"
    assert [int(x.split()[1].split("/")[0]) for x in lines] == [2, 4, 6, 8, 10, 12, 14, 15, 17, 19, 20]
