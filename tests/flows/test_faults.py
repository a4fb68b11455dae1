"""Fault injection: every expected failure ends in one line naming the file or field, exit 2, and leaves
nothing half-written that verifies; signals stop a run within 10 s; a killed run leaves no process.

How the faults are made:

* read-only output: a read-only tmpfs mounted over the output folder when running as root (root ignores
  file modes), else a folder with mode 0555;
* disk full: ``ir.files.atomic_write_bytes`` replaced in-process by one that raises
  ``OSError(ENOSPC, ..., path)`` for document files (``generate --runner inline``, so the documents are
  written in the driver process), both through the CLI and as a flow run's final state;
* unreachable Dask: a loopback port nobody listens on;
* corrupt inputs: a truncated ``corpus.json``, garbage ``qa.parquet`` / ``qa.jsonl`` (with the manifest left
  as it was, and with the manifest re-hashed by the tamperer);
* signals and ``kill -9``: a real ``synthdocqa generate`` with a temporary Prefect server and two pool
  workers, started in its own session (a Ctrl-C at a terminal reaches the whole process group).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import synthdocqa.flows.cli  # noqa: F401
import synthdocqa.flows.generate  # noqa: F401  (Prefect configures logging on import: at collection, not inside a test)
from synthdocqa import flows
from synthdocqa.corpus.verify import check_corpus, verify_corpus
from synthdocqa.flows.cli import main
from tests.corpus.conftest import tiny_spec

from .cli_checks import one_line as _one_line
from .crafted import XSS_ID, craft_doc_id, rehash_manifest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


# ---------------------------------------------------------------- helpers

def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def generate_env(monkeypatch):
    """``cmd_generate`` sets process environment for Prefect and its workers; keep it to this test."""
    monkeypatch.setenv("PREFECT_LOGGING_LEVEL", "WARNING")
    monkeypatch.setenv("SYNTHDOCQA_QUIET_ENGINE", "0")
    monkeypatch.delenv("PREFECT_API_URL", raising=False)


@pytest.fixture
def spec_file(tmp_path):
    def make(seed: int = 5, n_docs: int = 2) -> Path:
        p = tmp_path / f"spec-{seed}-{n_docs}.json"
        p.write_text(tiny_spec(seed=seed, n_docs=n_docs).to_json(), "utf-8")
        return p

    return make


@pytest.fixture
def readonly_dir(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    if os.geteuid() != 0:
        d.chmod(0o555)
        yield d
        d.chmod(0o755)
        return
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(d)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"running as root and cannot mount a read-only tmpfs: {r.stderr.strip()}")
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", str(d)], capture_output=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


_TMPDIRS: dict[Path, str] = {}


def _tmpdir(tmp_path: Path) -> str:
    """A short temporary folder for the run (a socket path under it must stay within 107 bytes), kept beside
    ``tmp_path`` by a link, so that what a run leaves there can be looked at."""
    if tmp_path not in _TMPDIRS:
        import tempfile

        _TMPDIRS[tmp_path] = tempfile.mkdtemp(prefix="sdq-")
        (tmp_path / "tmp").symlink_to(_TMPDIRS[tmp_path])
    return _TMPDIRS[tmp_path]


def _env(tmp_path: Path) -> dict[str, str]:
    """The run's environment: its own Prefect home and its own temporary folder (what a run leaves there is seen)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update({"PYTHONPATH": str(REPO), "PREFECT_HOME": str(tmp_path / "prefect-home"), "TMPDIR": _tmpdir(tmp_path),
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "HF_HUB_OFFLINE": "1",
                "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180"})
    return env


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a test runner in the background may ignore SIGINT


# ---------------------------------------------------------------- the output folder

def test_foreign_output_folder_is_refused_untouched(tiny_corpus, corpus_copy, spec_file, generate_env, capsys):
    before = _tree(corpus_copy)
    rc, _, err = _run(capsys, "generate", "--spec", spec_file(seed=9), "--out", corpus_copy)
    _one_line(rc, err, "holds a corpus of another spec", str(corpus_copy))
    assert _tree(corpus_copy) == before and check_corpus(corpus_copy) == []


def test_folder_of_other_files_is_refused(tmp_path, spec_file, generate_env, capsys):
    other = tmp_path / "photos"
    other.mkdir()
    (other / "cat.jpg").write_bytes(b"\xff\xd8")
    rc, _, err = _run(capsys, "generate", "--spec", spec_file(), "--out", other)
    _one_line(rc, err, "is not empty and is not a synthdocqa corpus")
    assert sorted(p.name for p in other.iterdir()) == ["cat.jpg"]


def _readonly_argv(cmd: str, ro: Path, corpus: Path) -> list[str]:
    page = next((corpus / "docs").glob("*/pages/page-0001.png"))
    return {
        "generate": ["generate", "--spec", str(corpus / "spec.json"), "--out", str(ro / "c")],
        "plan": ["plan", "--seed", "1", "--docs", "1", "--out", str(ro / "p")],
        "render": ["render", "--seed", "1", "--docs", "1", "--out", str(ro / "r")],
        "degrade": ["degrade", str(page), "--tier", "poor", "--seed", "1", "--out", str(ro / "scan.jpg")],
        "layouts build": ["layouts", "build", "--count", "3", "--out", str(ro / "lib")],
        "osce simulate": ["osce", "simulate", "--seed", "1", "--preset", "small", "--out", str(ro / "ratings.csv")],
        "judge": ["judge", "hallucination", "--corpus", str(corpus), "--out", str(ro / "j"), "--no-embedding"],
    }[cmd]


@pytest.mark.parametrize("cmd", ["generate", "plan", "render", "degrade", "layouts build", "osce simulate", "judge"])
def test_read_only_output_is_one_line(cmd, readonly_dir, tiny_corpus, generate_env, capsys):
    rc, _, err = _run(capsys, *_readonly_argv(cmd, readonly_dir, tiny_corpus))
    line = _one_line(rc, err, f"synthdocqa {cmd.split()[0]}: error:")
    assert "Read-only file system" in line or "Permission denied" in line
    assert str(readonly_dir) in line or "ro/" in line
    assert list(readonly_dir.iterdir()) == []


def test_unreachable_dask_scheduler_is_one_line_before_any_work(tmp_path, spec_file, generate_env, capsys):
    addr = f"tcp://127.0.0.1:{_free_port()}"
    t0 = time.perf_counter()
    rc, _, err = _run(capsys, "generate", "--spec", spec_file(), "--out", tmp_path / "c", "--runner", "dask",
                      "--dask-address", addr)
    _one_line(rc, err, addr, "cannot connect")
    assert time.perf_counter() - t0 < 30 and not (tmp_path / "c").exists()


# ---------------------------------------------------------------- the lock

def test_lock_names_its_holder_and_goes_with_it(tmp_path):
    from synthdocqa.corpus.lock import LockError, LockLost, OutputLock

    out = tmp_path / "c"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from synthdocqa.corpus.lock import OutputLock
        OutputLock.of({str(out)!r}).acquire()
        print("locked", flush=True)
        time.sleep(600)
    """)], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(LockError, match=rf"in use by another synthdocqa run \(pid {holder.pid}\)"):
            OutputLock(out).acquire()
    finally:
        holder.kill()
        holder.wait()
    lock = OutputLock(out).acquire()  # a lock dies with its holder, even after kill -9
    lock.check()
    (out / ".lock").unlink()
    (out / ".lock").write_text("123\n")  # someone else's lock file now
    with pytest.raises(LockLost, match="replaced"):
        lock.check()
    lock.release()
    assert (out / ".lock").read_text() == "123\n"


def test_lock_holder_removes_temp_files_of_a_killed_writer(tmp_path):
    from synthdocqa.corpus.lock import OutputLock

    out = tmp_path / "c"
    (out / "docs" / "doc-00000").mkdir(parents=True)
    stale = out / "docs" / "doc-00000" / ".ir.json.abcd1234.tmp"
    stale.write_text("half")
    with OutputLock.of(out):
        assert not stale.exists()
    assert not (out / ".lock").exists()


def test_lock_watch_kills_workers_when_the_lock_is_lost(tmp_path, monkeypatch):
    import synthdocqa.flows.workers  # noqa: F401
    from synthdocqa import flows
    from synthdocqa.corpus.lock import OutputLock
    from synthdocqa.flows.runtime import LockWatch

    killed = []
    monkeypatch.setattr(flows.workers, "kill_all_workers", lambda: killed.append(True) or [])
    with OutputLock.of(tmp_path / "c") as lock, LockWatch(lock.token, interval=0.02) as watch:
        (tmp_path / "c" / ".lock").unlink()
        deadline = time.time() + 5
        while watch.lost is None and time.time() < deadline:
            time.sleep(0.02)
    assert watch.lost is not None and "removed" in str(watch.lost) and killed == [True]


# ---------------------------------------------------------------- corrupt inputs

def _corrupt(corpus: Path, kind: str) -> str:
    """Damage ``corpus``; returns the file name the error must name."""
    if kind == "truncated corpus.json":
        data = (corpus / "corpus.json").read_bytes()
        (corpus / "corpus.json").write_bytes(data[: len(data) // 2])
        return "corpus.json"
    if kind == "deleted page image":
        next((corpus / "docs").glob("*/pages/page-0001.png")).unlink()
        return "page-0001.png: missing"
    name = kind.split()[1]
    garbage = b"\x89\xff not a table \x00" * 50 if name == "qa.parquet" else b"\xff\xfe{garbage\n" * 20
    (corpus / name).write_bytes(garbage)
    if kind.endswith("re-hashed"):
        rehash_manifest(corpus)
    return name


CORRUPTIONS = ["truncated corpus.json", "garbage qa.parquet", "garbage qa.parquet re-hashed", "garbage qa.jsonl",
               "garbage qa.jsonl re-hashed", "deleted page image"]


@pytest.mark.parametrize("kind", CORRUPTIONS)
@pytest.mark.parametrize("cmd", ["judge", "export", "report"])
def test_corrupt_corpus_is_refused_in_one_line(cmd, kind, corpus_copy, tmp_path, capsys):
    name = _corrupt(corpus_copy, kind)
    out = tmp_path / "out"
    argv = {"judge": ["judge", "hallucination", "--corpus", corpus_copy, "--out", out, "--no-embedding"],
            "export": ["export", corpus_copy, "--format", "hf", "--out", out],
            "report": ["report", corpus_copy, "--out", tmp_path / "report.html"]}[cmd]
    rc, _, err = _run(capsys, *argv)
    _one_line(rc, err, "does not verify", name)
    assert not out.exists() and not (tmp_path / "report.html").exists()
    assert verify_corpus(corpus_copy) != []


def test_no_verify_still_fails_in_one_line_naming_the_corpus(corpus_copy, tmp_path, capsys):
    _corrupt(corpus_copy, "garbage qa.jsonl")
    rc, _, err = _run(capsys, "judge", "hallucination", "--corpus", corpus_copy, "--out", tmp_path / "o",
                      "--no-embedding", "--no-verify")
    _one_line(rc, err, str(corpus_copy), "UTF-8")
    assert not (tmp_path / "o").exists()


def test_tables_are_cross_checked_against_the_documents(corpus_copy):
    import pandas as pd

    qa = pd.read_parquet(corpus_copy / "qa.parquet")
    qa.loc[0, "answer_text"] = "tampered"
    qa.to_parquet(corpus_copy / "qa.parquet", index=False)
    rehash_manifest(corpus_copy)
    problems = check_corpus(corpus_copy)
    assert len(problems) == 1 and problems[0].startswith("qa.parquet: row 0") and "answer_text" in problems[0]


def test_a_record_with_another_id_is_rejected(corpus_copy):
    rec_path = corpus_copy / "docs" / "doc-00001" / "doc.json"
    rec = json.loads(rec_path.read_text())
    rec["doc_id"] = XSS_ID
    rec_path.write_text(json.dumps(rec))
    rehash_manifest(corpus_copy)
    assert any("doc_id" in p and "differs from its folder doc-00001" in p for p in check_corpus(corpus_copy))


# ---------------------------------------------------------------- crafted ids

def test_crafted_doc_id_corpus_is_rejected_everywhere(corpus_copy, tmp_path, capsys):
    craft_doc_id(corpus_copy)
    problems = verify_corpus(corpus_copy)
    assert problems and "unsafe id" in problems[0] and XSS_ID in problems[0]
    rc, out, _ = _run(capsys, "verify", corpus_copy, "--quiet")
    assert rc == 3 and "unsafe id" in out
    for argv in (["report", corpus_copy, "--out", tmp_path / "r.html"],
                 ["judge", "hallucination", "--corpus", corpus_copy, "--out", tmp_path / "j", "--no-embedding"],
                 ["export", corpus_copy, "--format", "synthdocqa-card", "--out", tmp_path / "e"]):
        rc, _, err = _run(capsys, *argv)
        _one_line(rc, err, "unsafe id")
    rc, _, err = _run(capsys, "export", corpus_copy, "--format", "synthdocqa-card", "--out", tmp_path / "e",
                      "--no-verify")  # ids become file names in an export: refused even then
    _one_line(rc, err, "unsafe id", "refusing to export")
    assert not any(tmp_path.glob("[rje]*"))


# ---------------------------------------------------------------- small things

@pytest.mark.parametrize("argv", [["domains"], ["domains", "--json"], ["--help"], ["verify", "{corpus}", "--quiet"]])
def test_output_into_a_closed_pipe_ends_quietly(argv, tiny_corpus, tmp_path):
    r, w = os.pipe()
    os.close(r)  # the reader has gone, as `| head` does after its lines
    try:
        proc = subprocess.run([str(BIN / "synthdocqa"), *[a.format(corpus=tiny_corpus) for a in argv]], stdout=w,
                              stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=_env(tmp_path), timeout=120)
    finally:
        os.close(w)
    assert proc.stderr == "" and proc.returncode in (0, 141)


@pytest.mark.parametrize("argv, words", [
    (["reproduce", "{corpus}", "--sample", "0"], "--sample must be >= 1, got 0"),
    (["reproduce", "{corpus}", "--sample", "-1"], "--sample must be >= 1, got -1"),
    (["generate", "--seed", "-1", "--out", "X"], "--seed must be >= 0"),
    (["generate", "--docs", "100001", "--out", "X"], "--docs must be <= 100000"),
    (["generate", "--workers", "257", "--out", "X"], "--workers must be <= 256"),
    (["plan", "--docs", "0", "--out", "X"], "n_docs: Input should be greater than or equal to 1"),
    (["plan", "--seed", "-1", "--out", "X"], "seed: Input should be greater than or equal to 0"),
    (["render", "--seed", "1", "--docs", "0", "--out", "X"], "--docs must be >= 1"),
    (["verify", "{corpus}", "--max-problems", "-1"], "--max-problems must be >= 0"),
    (["judge", "hallucination", "--corpus", "{corpus}", "--out", "X", "--max-items", "-4"],
     "--max-items must be >= 0"),
    (["judge", "hallucination", "--corpus", "{corpus}", "--out", "X", "--per-qa", "0"], "--per-qa must be >= 1"),
    (["report", "{corpus}", "--out", "X.html", "--gallery", "-1"], "--gallery must be >= 0"),
    (["layouts", "build", "--count", "0", "--out", "X"], "--count must be >= 1"),
    (["layouts", "search", "tables", "--k", "0"], "--k must be >= 1"),
    (["serve", "--limit", "0"], "--limit must be >= 1"),
    (["generate", "--seed", "abc", "--out", "X"], "invalid int value"),
])
def test_numeric_options_are_range_checked(argv, words, tiny_corpus, tmp_path, monkeypatch, generate_env, capsys):
    monkeypatch.chdir(tmp_path)
    try:
        rc, _, err = _run(capsys, *[a.format(corpus=tiny_corpus) for a in argv])
    except SystemExit as exc:  # argparse's own errors
        rc, err = exc.code, capsys.readouterr().err
    _one_line(rc, err, words)
    assert not any(tmp_path.iterdir())


@pytest.fixture
def boom(monkeypatch):
    monkeypatch.setattr(flows.cli, "COMMAND_MODULES", ("tests.flows.boom_command",))


@pytest.mark.parametrize("kind, rc, words", [
    ("enospc", 2, "error: /data/out/qa.parquet: No space left on device"),
    ("eacces", 2, "error: /data/out/docs: Permission denied"),
    ("refused", 2, "error: cannot connect: Connection refused"),
    ("bug", 1, "unexpected error: ZeroDivisionError: a bug in the code (run again with --debug"),
    ("sigterm", 143, "stopped by SIGTERM"),
    ("interrupt", 130, "stopped by SIGINT"),
])
def test_error_boundary(boom, kind, rc, words, capsys):
    got, _, err = _run(capsys, "boom", kind)
    _one_line(got, err, words, code=rc)


def test_debug_shows_the_traceback_of_a_bug(boom, capsys):
    with pytest.raises(ZeroDivisionError):
        main(["--debug", "boom", "bug"])
    with pytest.raises(ZeroDivisionError):
        main(["boom", "bug", "--debug"])


def test_expected_failures_become_a_failed_run_with_that_line():
    from synthdocqa.flows.errors import RunFailed, failing_in_one_line

    with pytest.raises(RunFailed, match=r"^/o/docs/doc-00001/pages/page-0001\.png: No space left on device$"):
        with failing_in_one_line():
            raise OSError(errno.ENOSPC, "No space left on device", "/o/docs/doc-00001/pages/.page-0001.png.x1y2z3w4.tmp")
    with pytest.raises(ZeroDivisionError), failing_in_one_line():
        raise ZeroDivisionError


# ---------------------------------------------------------------- through Prefect: disk full, flow states

DISK_FULL = """
import contextlib, errno, io, json, os, sys
from synthdocqa import ir
import synthdocqa.ir.files  # noqa: F401
from synthdocqa.flows.cli import main
from synthdocqa.flows.generate import generate_corpus_flow
from synthdocqa.flows.prefect_env import prefect_api
from synthdocqa.flows.workers import quiet_engine_errors

real = ir.files.atomic_write_bytes

def full(path, data, fsync=True):
    if "/docs/" in str(path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
    return real(path, data, fsync)

def replace_everywhere(old, new):
    for module in list(sys.modules.values()):
        if module is None or module.__name__ == "__main__":
            continue
        for name, value in list(vars(module).items()):
            if value is old:
                setattr(module, name, new)

replace_everywhere(real, full)
quiet_engine_errors()
spec_file, foreign, flow_out, cli_out = sys.argv[1:5]
spec = json.loads(open(spec_file).read())
with prefect_api():
    s1 = generate_corpus_flow(spec=spec, out=foreign, runner="inline", return_state=True)
    s2 = generate_corpus_flow(spec=spec, out=flow_out, runner="inline", return_state=True)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = main(["generate", "--spec", spec_file, "--out", cli_out, "--runner", "inline", "--quiet"])
print(json.dumps({"foreign": [s1.name, s1.message], "full": [s2.name, s2.message], "rc": rc, "err": err.getvalue()}))
"""


@pytest.mark.slow  # a temporary Prefect server and one document (~1 min here)
def test_disk_full_and_foreign_folder_fail_the_flow_run_and_the_cli_in_one_line(tiny_corpus, tmp_path, spec_file):
    foreign = tmp_path / "foreign"
    shutil.copytree(tiny_corpus, foreign)
    proc = subprocess.run([sys.executable, "-c", DISK_FULL, str(spec_file(seed=11)), str(foreign), str(tmp_path / "f"),
                           str(tmp_path / "c")], capture_output=True, text=True, cwd=REPO, env=_env(tmp_path),
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["foreign"][0] == "Failed" and "RunFailed" in res["foreign"][1]
    assert "holds a corpus of another spec" in res["foreign"][1]
    assert res["full"][0] == "Failed" and "No space left on device" in res["full"][1]
    assert f"{tmp_path / 'f'}/docs/doc-0000" in res["full"][1] and ".tmp" not in res["full"][1]
    _one_line(res["rc"], res["err"], "synthdocqa generate: error:", f"{tmp_path / 'c'}/docs/doc-0000",
              "No space left on device")
    for out in (tmp_path / "f", tmp_path / "c"):
        assert not (out / "corpus.json").exists() and verify_corpus(out) != []
        assert not list(out.glob("docs/*/doc.json")) and not list(out.rglob(".*.tmp"))
        assert not (out / ".lock").exists()
    assert check_corpus(foreign) == []


# ---------------------------------------------------------------- signals and kill -9

def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _all_gone(pids: list[int], timeout: float) -> list[int]:
    """Poll until none of ``pids`` is alive (or ``timeout`` passes); the ones still alive."""
    deadline = time.time() + timeout
    while (alive := [p for p in pids if _alive(p)]) and time.time() < deadline:
        time.sleep(0.05)
    return alive


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _start_generate(spec: Path, out: Path, tmp_path: Path, runner: str = "process") -> subprocess.Popen:
    return subprocess.Popen([str(BIN / "synthdocqa"), "generate", "--spec", str(spec), "--out", str(out),
                             "--workers", "2", "--quiet", "--runner", runner], cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=_default_sigint)


def _wait_for_a_document(proc: subprocess.Popen, out: Path) -> list[int]:
    """Wait until one document is complete and the workers are busy with the others; the run's processes."""
    deadline = time.time() + 600
    while time.time() < deadline:
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        if list(out.glob("docs/*/doc.json")):
            return _descendants(proc.pid)
        time.sleep(0.05)
    raise AssertionError("no document was written within 600 s")


def _late_files(out: Path, since: float) -> list[str]:
    """Files written after ``since``, each with how long after (ms)."""
    return [f"{p} (+{1000 * (p.stat().st_mtime - since):.1f} ms)" for p in out.rglob("*")
            if p.is_file() and p.stat().st_mtime > since]


@pytest.mark.slow
@pytest.mark.parametrize("runner", ["process", "dask"])
def test_kill_9_leaves_no_process_of_the_run_and_no_later_write(runner, tmp_path, spec_file):
    """Pool workers ask for SIGKILL on their parent's death (flows.workers); a Dask LocalCluster's workers
    exit the moment they are re-parented (flows.dask_worker_guard, preloaded: Dask's own close on the parent
    pipe is graceful and once let a document in flight be written after the kill)."""
    out = tmp_path / "c"
    proc = _start_generate(spec_file(seed=21, n_docs=12), out, tmp_path, runner)
    procs = _wait_for_a_document(proc, out)
    assert len(procs) >= 3  # the API server, the pool or Dask workers, multiprocessing's resource tracker
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()  # not communicate(): the workers hold the pipes, so EOF would wait for them too
    # The kernel tells the workers (their death signal) as the parent exits, and wait() returns once it has
    # exited: a write that lands between the kill and then was in flight before anyone could know (CI once
    # saw a doc.json land 0.6 ms after the kill); one after it is a write by a process that outlived the run.
    t_dead = time.time()
    assert _all_gone(procs, timeout=30) == []
    proc.communicate()
    assert _late_files(out, t_dead) == []
    # OCR inputs, the fork server's socket folder, Dask's scratch space: nothing of the run is left in TMPDIR
    tmp = Path(_tmpdir(tmp_path))
    left = sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*"))
    assert left == [], left  # the run's temporary folder (flows.run_tmp) goes with its last process
    tmp.rmdir()
    assert not (out / "corpus.json").exists() and verify_corpus(out) != []
    assert len(list(out.glob("docs/*/doc.json"))) < 12  # killed while documents were being made


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_run_within_10_s_in_one_line(signum, tmp_path, spec_file):
    from synthdocqa.corpus.assemble import code_version
    from synthdocqa.corpus.store import complete_doc_record

    spec = tiny_spec(seed=22, n_docs=12)
    out = tmp_path / "c"
    proc = _start_generate(spec_file(seed=22, n_docs=12), out, tmp_path)
    if signum == signal.SIGINT:  # a second run into the same folder is refused while the first holds it
        deadline = time.time() + 120
        while not (out / ".lock").is_file() and time.time() < deadline:
            time.sleep(0.05)
        second = subprocess.run([str(BIN / "synthdocqa"), "generate", "--spec", str(spec_file(seed=22, n_docs=12)),
                                 "--out", str(out)], cwd=tmp_path, env=_env(tmp_path), capture_output=True,
                                text=True, timeout=120)
        _one_line(second.returncode, second.stderr, "in use by another synthdocqa run", f"(pid {proc.pid})")
    procs = _wait_for_a_document(proc, out)
    if signum == signal.SIGINT:
        os.killpg(proc.pid, signal.SIGINT)  # what a Ctrl-C at the terminal does
    else:
        os.kill(proc.pid, signal.SIGTERM)
    t0 = time.time()
    _, err = proc.communicate(timeout=60)
    assert time.time() - t0 < 10
    _one_line(proc.returncode, err, f"stopped by {signal.Signals(signum).name}", "rerun", code=128 + signum)
    assert _all_gone(procs, timeout=30) == []
    assert not (out / "corpus.json").exists() and not list(out.rglob(".*.tmp")) and not (out / ".lock").exists()
    done = [p.parent.name for p in out.glob("docs/*/doc.json")]
    assert 0 < len(done) < 12 and all(complete_doc_record(out, d, spec.spec_hash(), code_version()) for d in done)


# ---------------------------------------------------------------- specs: checked whole, before any work

@pytest.mark.parametrize("data, words", [
    ({"pages": {"mean": 1000, "max": 100000}}, "pages.mean: Input should be less than or equal to 400"),
    ({"profile": "reference", "n_docs": 50000}, "planned pages exceeds the limit of 1,000,000"),
    ({"domains": ["logistics", "moon"]}, "domains[1]: unknown domain 'moon'"),
    ({"recipes": ["invoice", "haiku"]}, "recipes[1]: unknown recipe 'haiku'"),
    ({"recipe_mix": {"haiku": 1.0}}, "recipe_mix: unknown recipe 'haiku'"),
    ({"profile": "gold"}, "profile: unknown profile 'gold'; choose one of ['demo', 'reference', 'custom']"),
    ({"pages": {"mean": 4, "max": 3}}, "pages: mean (4.0) must lie in [min, max] = [2, 3]"),
])
@pytest.mark.parametrize("cmd", ["generate", "plan"])
def test_a_bad_spec_fails_in_one_line_before_any_work(cmd, data, words, tmp_path, generate_env, capsys):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(data), "utf-8")
    t0 = time.perf_counter()
    rc, _, err = _run(capsys, cmd, "--spec", path, "--out", tmp_path / "c")
    _one_line(rc, err, str(path), words)
    assert time.perf_counter() - t0 < 5 and not (tmp_path / "c").exists()


def test_a_partial_spec_is_laid_over_its_profile():
    from synthdocqa.ir.spec import demo_spec, layered_spec, reference_spec

    assert layered_spec({"profile": "reference", "seed": 4, "n_docs": 2}) == reference_spec(4, 2)
    assert layered_spec({"seed": 4, "n_docs": 2}, "reference") == reference_spec(4, 2)
    got = layered_spec({"seed": 3, "n_docs": 2, "pages": {"max": 4}, "tier_mix": {"poor": 1}})
    want = demo_spec(3, 2).model_dump()
    want["pages"]["max"], want["tier_mix"] = 4, {"poor": 1}
    assert got.model_dump() == want  # pages merged key by key, tier_mix replaced as a whole
    full = reference_spec(9, 3).model_dump(mode="json")
    assert layered_spec(full, "demo") == reference_spec(9, 3)  # a whole spec is itself


def test_a_partial_spec_file_runs_and_the_flow_takes_one_too(tmp_path, capsys):
    from pydantic import ValidationError

    from synthdocqa.corpus.store import DocFiles
    from synthdocqa.flows.runtime import GenerateParams
    from synthdocqa.ir.document import DocumentIR

    path = tmp_path / "partial.json"
    path.write_text(json.dumps({"n_docs": 1, "pages": {"mean": 2, "min": 2, "max": 2}}), "utf-8")
    rc, _, err = _run(capsys, "plan", "--spec", path, "--profile", "reference", "--seed", "7", "--out", tmp_path / "p")
    assert rc == 0, err
    doc = DocumentIR.model_validate_json((tmp_path / "p" / DocFiles("doc-00000").ir).read_text())
    assert len(doc.pages) == 2
    p = GenerateParams(profile="reference", seed=7, spec={"n_docs": 1, "pages": {"mean": 2, "min": 2, "max": 2}})
    assert p.corpus_spec().profile == "reference" and p.corpus_spec().seed == 7
    with pytest.raises(ValidationError, match="unknown domain 'moon'"):
        GenerateParams(spec={"domains": ["moon"]})


# ---------------------------------------------------------------- writes: named, and none after the lock is lost

def test_a_write_error_without_a_file_name_names_the_target(tmp_path, monkeypatch):
    import synthdocqa.ir.files  # noqa: F401
    from synthdocqa import ir

    def full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")  # as a full disk reports it: no file name

    monkeypatch.setattr(ir.files.os, "replace", full)
    with pytest.raises(OSError) as info:
        ir.files.atomic_write_bytes(tmp_path / "qa.parquet", b"x")
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(tmp_path / "qa.parquet")
    assert list(tmp_path.iterdir()) == []  # and the temp file is gone


def test_no_file_is_written_after_the_lock_is_lost(tmp_path):
    from synthdocqa.corpus.generate import generate_document
    from synthdocqa.corpus.lock import LockLost
    from synthdocqa.corpus.tables import write_corpus

    calls = []

    def check(after: int):
        def inner():
            calls.append(1)
            if len(calls) > after:
                raise LockLost("lock lost")
        return inner

    spec = tiny_spec(seed=3, n_docs=1)
    with pytest.raises(LockLost):
        generate_document(spec, 0, tmp_path, check=check(2))
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 2 and not any(p.name == "doc.json" for p in files)  # two writes, then none
    calls.clear()
    rec = generate_document(spec, 0, tmp_path / "ok", check=check(10_000))
    calls.clear()
    with pytest.raises(LockLost):
        write_corpus(tmp_path / "ok", spec, [rec], "test", check=check(1))
    assert not (tmp_path / "ok" / "corpus.json").exists()
    assert len([p for p in (tmp_path / "ok").iterdir() if p.is_file()]) == 1  # one table, no manifest


def test_a_document_file_that_is_not_utf8_or_not_json_is_named(corpus_copy):
    from synthdocqa.corpus.store import CorpusFileError, DocFiles, open_corpus

    files = DocFiles("doc-00000")
    (corpus_copy / files.ir).write_bytes(b"\xff\xfe garbage")
    (corpus_copy / files.qa).write_text('{"qa_id": 1}\n')
    (corpus_copy / "assertions.parquet").write_bytes(b"PAR1 no table")
    reader = open_corpus(corpus_copy, checked=False)
    with pytest.raises(CorpusFileError, match=rf"{corpus_copy}/docs/doc-00000/ir.json: not UTF-8 text"):
        reader.ir("doc-00000")
    with pytest.raises(CorpusFileError, match=rf"{files.qa}: not QA pairs \(JSON lines\)"):
        reader.qa("doc-00000")
    with pytest.raises(CorpusFileError, match="assertions.parquet: not a Parquet table"):
        reader.table("assertions.parquet")


def test_an_api_server_that_cannot_start_is_one_line_naming_why(tmp_path, spec_file):
    """uvicorn exits 3 both when its port was taken and when the app failed to start: only the first is
    tried again; a database the server cannot open fails the run at once, naming the server's error."""
    env = {**_env(tmp_path), "PREFECT_API_DATABASE_CONNECTION_URL": "sqlite+aiosqlite:////nonexistent/dir/x.db"}
    t0 = time.time()
    proc = subprocess.run([str(BIN / "synthdocqa"), "generate", "--spec", str(spec_file()), "--out",
                           str(tmp_path / "c"), "--quiet"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2, proc.stderr[-3000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr[-3000:]
    assert "temporary Prefect API server did not start" in lines[0] and "unable to open database file" in lines[0]
    assert time.time() - t0 < 120  # not a loop of restarts
    assert not list((tmp_path / "c").glob("docs/*"))


def test_the_servers_reason_is_its_last_exception_line():
    from synthdocqa.flows.prefect_env import _reason

    log = (b"Traceback (most recent call last):\n  File \"x.py\", line 1\nsqlite3.OperationalError: boom\n\n"
           b"The above exception was the direct cause of the following exception:\n"
           b"sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) unable to open database file\n"
           b"12:00:00.000 | ERROR   | uvicorn.error - Application startup failed. Exiting.\n")
    assert _reason(log) == "sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) unable to open database file"
    assert _reason(b"just a line\n") == "just a line" and _reason(b"") == "no output"
