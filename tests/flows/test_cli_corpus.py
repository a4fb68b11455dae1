"""CLI user errors exit 2 with one line and write nothing (no Prefect server is started for them)."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "flows", *args], capture_output=True, text=True, cwd=cwd,
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
    assert r.returncode == 1 and "no manifest" in r.stdout
