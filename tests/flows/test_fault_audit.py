"""The fault audit's breaks (issue 35), one case each: every one failed on the code before its fix.

Each case runs the command a careless or hostile user would and checks the outcome the README promises: one
line on stderr naming the problem and exit 2, nothing written, no traceback.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from synthdocqa.flows.cli import main

from .cli_checks import one_line as _one_line


def _run(capsys, *argv: object) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


# ---------------------------------------------------------------- 1. non-finite numbers and duplicate keys in specs

SPECS = {
    "nan_in_element_mix": ('{"profile": "demo", "element_mix": {"table": NaN}}', "NaN"),
    "nan_in_tier_mix": ('{"profile": "demo", "tier_mix": {"good": NaN}}', "NaN"),
    "infinity": ('{"profile": "demo", "element_mix": {"table": Infinity}}', "Infinity"),
    "minus_infinity": ('{"profile": "demo", "tier_mix": {"poor": -Infinity}}', "-Infinity"),
    "duplicate_key": ('{"profile": "demo", "n_docs": 2, "n_docs": 3}', "duplicate key 'n_docs'"),
}


@pytest.mark.parametrize("case", sorted(SPECS))
@pytest.mark.parametrize("command", ["plan", "generate"])
def test_spec_numbers_must_be_finite_and_keys_unique(case, command, tmp_path, capsys):
    text, word = SPECS[case]
    spec = tmp_path / "spec.json"
    spec.write_text(text)
    rc, _, err = _run(capsys, command, "--spec", spec, "--out", tmp_path / "out")
    _one_line(rc, err, str(spec), word)
    assert not (tmp_path / "out").exists()


def test_a_non_finite_number_in_a_spec_model_is_refused():
    from pydantic import ValidationError

    from synthdocqa.ir.spec import demo_spec

    with pytest.raises(ValidationError, match="finite"):
        demo_spec().model_validate({**demo_spec().model_dump(), "element_mix": {"table": float("nan")}})


# ---------------------------------------------------------------- 2. llm serve with a missing model


def test_llm_serve_with_a_missing_model_file(tmp_path, capsys):
    rc, _, err = _run(capsys, "llm", "serve", "--model", tmp_path / "missing.gguf")
    _one_line(rc, err, "missing.gguf")
    notgguf = tmp_path / "notes.gguf"
    notgguf.write_text("this is not a model")
    rc, _, err = _run(capsys, "llm", "serve", "--model", notgguf)
    _one_line(rc, err, "notes.gguf", "GGUF")


@pytest.mark.parametrize("header, word", [
    (b"GGUF" + b"\0" * 64, "version 0"),  # the magic, then nothing: llama.cpp printed 28 lines, exit 1
    (b"GGUF\x03\0\0\0" + (10**12).to_bytes(8, "little") + (3).to_bytes(8, "little") + b"\0" * 64, "damaged"),
    (b"GGUF\x03\0", "truncated"),
])
def test_llm_serve_with_a_damaged_gguf_header(header, word, tmp_path, capsys):
    model = tmp_path / "broken.gguf"
    model.write_bytes(header)
    rc, _, err = _run(capsys, "llm", "serve", "--model", model)
    _one_line(rc, err, "broken.gguf", word)


@pytest.mark.needs("model")
def test_the_shipped_model_passes_the_header_check():
    from synthdocqa.flows.commands.llm import check_gguf
    from synthdocqa.judges.llm.local_server import default_model_path

    check_gguf(Path(default_model_path()))


# ---------------------------------------------------------------- 3. images a decoder must not be handed


def _png(width: int, height: int, body: bytes = b"") -> bytes:
    """A PNG header claiming width x height (a decompression bomb needs no pixels to claim them)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(body)) + chunk(b"IEND", b"")


@pytest.mark.parametrize("kind", ["huge", "truncated", "garbage"])
def test_degrade_refuses_bad_images_in_one_line(kind, tmp_path, capfd):
    path = tmp_path / f"{kind}.png"
    if kind == "huge":
        path.write_bytes(_png(50000, 50000))
    elif kind == "truncated":
        path.write_bytes(_png(400, 300)[:40])
    else:
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    capfd.readouterr()
    rc = main(["degrade", str(path), "--tier", "poor", "--seed", "1", "--out", str(tmp_path / "o.png")])
    out, err = capfd.readouterr()  # OpenCV writes its warnings to the process's stderr, not sys.stderr
    line = _one_line(rc, err, str(path))
    assert "WARN" not in err and "unexpected error" not in line
    if kind == "huge":
        assert "pixels" in line
    assert not (tmp_path / "o.png").exists()


# ---------------------------------------------------------------- 4. an abort at exit after a failed command

# A daemon thread inside torch's C++ code (GIL released) when the command ends: the warm-up thread importing
# torch after a failed or stopped start. Interpreter finalization ends it where it next takes the GIL, which
# unwinds C++ frames: "terminate called without an active exception", SIGABRT, exit 134 (every time here).
DAEMON_IN_TORCH = """
import sys, threading, time
import torch
a = torch.randn(600, 600)
threading.Thread(target=lambda: [torch.mm(a, a) for _ in iter(int, 1)], daemon=True).start()
time.sleep(0.3)
sys.argv = ["synthdocqa", *sys.argv[1:]]
from synthdocqa.flows.cli import run
run()
"""


def test_a_failed_command_ends_with_its_code_while_a_thread_is_in_native_code(tmp_path):
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    proc = subprocess.run([sys.executable, "-c", DAEMON_IN_TORCH, "verify", str(tmp_path / "missing")],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    _one_line(proc.returncode, proc.stderr, "missing")


def test_the_command_entry_is_the_one_that_exits_without_finalization():
    """The installed ``synthdocqa`` script, ``python -m synthdocqa`` and ``python -m synthdocqa.flows`` all end
    through ``flows.cli.run``."""
    import tomllib

    repo = Path(__file__).resolve().parents[2]
    scripts = tomllib.loads((repo / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["synthdocqa"] == "synthdocqa.flows.cli:run"
    assert "run()" in (repo / "flows" / "__main__.py").read_text()
    main = (repo / "synthdocqa" / "__main__.py").read_text()
    assert "from synthdocqa.flows.cli import run" in main and "run()" in main


@pytest.mark.slow  # two temporary Prefect servers
def test_a_judge_key_from_a_secret_block_without_prefects_server_chatter(tmp_path):
    """The Secret block is read through the project's own quiet temporary server (``flows.prefect_env``), from
    the database Prefect's ephemeral mode saved it in: found, it is the judge's key; missing, one line (Prefect's
    own temporary server printed four: starting, its docs link, the error, stopping)."""
    import json
    import os
    import subprocess
    import sys
    import textwrap

    repo = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PYTHONPATH=str(repo), PREFECT_HOME=str(tmp_path / "ph"), PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="150")
    items = tmp_path / "items.jsonl"
    items.write_text('{"item_id": "a", "question": "What is X?", "references": ["42"], "candidate": "42"}\n')
    script = textwrap.dedent(f"""
        import json, subprocess, sys
        from prefect.blocks.system import Secret
        from tests.judges.fake_openai_server import FakeOpenAIServer

        Secret(value="sk-block-31").save("judge-key")
        with FakeOpenAIServer(lambda req: '{{"verdict": "not_hallucinated"}}') as srv:
            runs = []
            for block in ("judge-key", "no-such-block"):
                cfg = {str(tmp_path)!r} + f"/{{block}}.yaml"
                open(cfg, "w").write(f"judges:\\n  - name: j\\n    base_url: {{srv.url}}\\n    model: m\\n"
                                     f"    api_key_secret_block: {{block}}\\nlabelers: [exact_match]\\n")
                p = subprocess.run([sys.executable, "-m", "synthdocqa", "judge", "hallucination", "--items",
                                    {str(items)!r}, "--judges", cfg, "--out", cfg + ".out", "--quiet"],
                                   capture_output=True, text=True, timeout=240)
                runs.append([p.returncode, p.stderr])
            print(json.dumps({{"runs": runs, "auth": sorted(set(srv.auth_headers))}}))
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600,
                          cwd=repo)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    (rc_found, err_found), (rc_missing, err_missing) = got["runs"]
    assert rc_found == 0 and err_found.strip() == "", err_found
    assert got["auth"] == ["Bearer sk-block-31"]
    _one_line(rc_missing, err_missing, "no-such-block")


# ---------------------------------------------------------------- 5. no stray line when a stop lands mid-start


def test_a_failing_warm_up_thread_prints_nothing(monkeypatch):
    """A stop during the server's start ends the process while the warm-up thread is still importing; what
    fails in that thread then is not the run's error (the run loads again on its own thread)."""
    import threading

    import synthdocqa.corpus.assemble  # noqa: F401
    from synthdocqa import corpus
    from synthdocqa.flows.runtime import warm_up

    def broken() -> None:
        raise ImportError("open_clip: interpreter shutting down")

    monkeypatch.setattr(corpus.assemble, "default_layout_chooser", broken)
    seen = []
    monkeypatch.setattr(threading, "excepthook", seen.append)
    t = threading.Thread(target=warm_up, name="warm-up", daemon=True)
    t.start()
    t.join()
    assert seen == []


def test_a_stop_lost_in_a_callback_prints_nothing(capsys, monkeypatch):
    """SIGTERM's handler raises ``Stopped`` wherever the main thread is; inside a weakref callback of the import
    machinery Python cannot raise it and printed "Exception ignored in ..." under the one-line stop message."""
    import sys
    import weakref

    from synthdocqa.flows.cli import _drop_lost_stops
    from synthdocqa.flows.errors import Stopped, clear_stop, record_stop

    printed = []
    monkeypatch.setattr(sys, "unraisablehook", _drop_lost_stops(printed.append))

    class Obj:
        pass

    def callback(_ref) -> None:  # noqa: ANN001
        raise Stopped(15)

    record_stop(15)
    try:
        obj = Obj()
        ref = weakref.ref(obj, callback)
        del obj
        assert ref() is None and printed == []
        other = Obj()
        ref2 = weakref.ref(other, lambda _r: 1 / 0)  # anything else still reaches the hook
        del other
        assert ref2() is None and len(printed) == 1 and isinstance(printed[0].exc_value, ZeroDivisionError)
    finally:
        clear_stop()


# ---------------------------------------------------------------- 6. another command's output into a corpus


@pytest.mark.parametrize("inside", [False, True])
@pytest.mark.parametrize("command", ["judge", "export", "osce"])
def test_a_corpus_is_never_another_commands_out(command, inside, tmp_path, capsys):
    corpus = tmp_path / "C"
    corpus.mkdir()
    (corpus / "corpus.json").write_text("{}")
    (corpus / "report.html").write_text("<p>the corpus's own report</p>")
    before = sorted(p.name for p in corpus.rglob("*"))
    out = corpus / "judged" if inside else corpus
    items = tmp_path / "items.jsonl"
    items.write_text("")
    (tmp_path / "other").mkdir()
    argv = {"judge": ["judge", "hallucination", "--items", items, "--out", out],
            "export": ["export", tmp_path / "other", "--format", "hf", "--out", out],
            "osce": ["osce", "analyze", items, "--out", out]}[command]
    rc, _, err = _run(capsys, *argv)
    _one_line(rc, err, "a generated corpus", "another folder")
    assert sorted(p.name for p in corpus.rglob("*")) == before
    assert (corpus / "report.html").read_text() == "<p>the corpus's own report</p>"


# ---------------------------------------------------------------- 11. report.md shows names as text


def test_report_markdown_escapes_names(tmp_path, capsys):
    from synthdocqa.ir.rng import Rng
    from synthdocqa.judges.hallucination.report import _md_table
    from synthdocqa.judges.osce.simulate import SimulationConfig, simulate_study

    payload = "llm_a<svg onload=alert(1)>"
    r = simulate_study(SimulationConfig(metrics=("overall",), utterances_per_case=(2, 2, 2), n_raters=3),
                       Rng(1)).ratings.replace({"responder": {"llm_a": payload}})
    r.to_csv(tmp_path / "r.csv", index=False)
    rc, _, err = _run(capsys, "osce", "analyze", tmp_path / "r.csv", "--out", tmp_path / "o", "--quiet")
    assert rc == 0, err
    md = (tmp_path / "o" / "report.md").read_text()
    assert "<svg" not in md and "&lt;svg onload=alert(1)&gt;" in md
    table = _md_table((["labeler", "kappa"], [["<script>alert(1)</script>", "0.5"]]))
    assert "<script>" not in table and "&lt;script&gt;" in table


# ---------------------------------------------------------------- 12. no secret in the cache


def test_an_echoed_key_never_reaches_the_cache_or_the_result(tmp_path, monkeypatch):
    import stat

    from synthdocqa.judges.llm import ChatClient, ChatRequest, EndpointConfig, ResponseCache
    from tests.judges.fake_openai_server import FakeOpenAIServer

    secret = "sk-live-0123456789abcdefECHO"
    monkeypatch.setenv("ECHO_KEY", secret)
    with FakeOpenAIServer(lambda req: '{"verdict": "x", "seen": "Authorization: Bearer ' + secret + '"}') as srv:
        cfg = EndpointConfig(base_url=srv.url, model="echo", api_key_env="ECHO_KEY", max_retries=0)
        with ResponseCache(tmp_path / "llm_cache.sqlite") as cache, \
                ChatClient(cfg, api_key=cfg.resolve_api_key(), cache=cache) as client:
            res = client.complete_many([ChatRequest(key=f"i{k}", prompt_hash="p", messages=[
                {"role": "user", "content": f"item {k}"}]) for k in range(4)])
    assert all(secret not in r.model_dump_json() for r in res) and "[redacted]" in res[0].model_dump_json()
    for f in tmp_path.iterdir():
        assert secret.encode() not in f.read_bytes(), f.name
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f.name


# ---------------------------------------------------------------- 14. messages that say what is wrong


def test_a_folder_or_a_pipe_is_not_called_missing(tmp_path, capsys):
    import os

    folder = tmp_path / "specdir"
    folder.mkdir()
    fifo = tmp_path / "spec.fifo"
    os.mkfifo(fifo)
    rc, _, err = _run(capsys, "plan", "--spec", folder, "--out", tmp_path / "o")
    _one_line(rc, err, "is a folder, not a file")
    rc, _, err = _run(capsys, "plan", "--spec", fifo, "--out", tmp_path / "o")
    _one_line(rc, err, "not a regular file")
    rc, _, err = _run(capsys, "judge", "hallucination", "--items", folder, "--out", tmp_path / "j")
    _one_line(rc, err, "is a folder, not a file")


@pytest.mark.parametrize("argv", [["plan", "--out", ""], ["generate", "--out", " "],
                                  ["judge", "hallucination", "--items", "x.jsonl", "--out", ""]])
def test_an_empty_out_is_not_the_current_folder(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, _, err = _run(capsys, *argv)
    _one_line(rc, err, "--out: an empty path")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- 8. reproduce and legibility on a tampered corpus


def test_reproduce_compares_the_disk_and_legibility_refuses_a_tampered_corpus(corpus_copy, capsys):
    from synthdocqa.corpus.store import load_manifest

    m = load_manifest(corpus_copy)
    pdf = next(r for r in m.files if r.endswith("document.pdf"))
    data = (corpus_copy / pdf).read_bytes()
    (corpus_copy / pdf).write_bytes(data[: len(data) // 2])  # cut short on disk, the manifest untouched
    rc, _, err = _run(capsys, "reproduce", corpus_copy)
    _one_line(rc, err, "does not verify", pdf, "--no-verify")
    rc, out, _ = _run(capsys, "reproduce", corpus_copy, "--no-verify")
    assert rc == 3 and f"DIFF {pdf}: the file on disk differs from the regenerated bytes" in out
    assert "all bytes equal" not in out
    rc, _, err = _run(capsys, "legibility", corpus_copy, "--recorded", "--quiet")
    _one_line(rc, err, "does not verify", "--no-verify")


# ---------------------------------------------------------------- 7. verify accounts for every file


@pytest.mark.parametrize("extra", ["top", "in_doc", "page", "copied_doc"])
def test_verify_names_a_file_the_manifest_does_not_list(extra, corpus_copy, capsys):
    import shutil

    from synthdocqa.corpus.store import load_manifest

    m = load_manifest(corpus_copy)
    doc = corpus_copy / "docs" / m.documents[0]
    made = {"top": corpus_copy / "notes.txt", "in_doc": doc / "extra.bin",
            "page": doc / "pages" / "page-0099.png", "copied_doc": corpus_copy / "docs" / "doc-00099"}[extra]
    if extra == "copied_doc":
        shutil.copytree(doc, made)
    else:
        made.parent.mkdir(parents=True, exist_ok=True)
        made.write_bytes(b"not part of the corpus")
    rc, out, err = _run(capsys, "verify", corpus_copy)
    assert rc == 3 and "OK" not in out
    assert "a file the manifest does not list" in out + err
    assert made.relative_to(corpus_copy).as_posix().split("/")[0] in out + err


def test_the_in_place_croissant_file_is_a_known_view():
    from synthdocqa.corpus.verify import VIEW_FILES
    from synthdocqa.corpus.views.exports.croissant import FILE_NAME

    assert FILE_NAME in VIEW_FILES


# ---------------------------------------------------------------- 10. an error names the file it is about


def test_report_names_the_file_that_failed_not_its_own_out(corpus_copy, tmp_path, capsys, monkeypatch):
    import errno

    import synthdocqa.corpus.views.report as report_view

    gone = corpus_copy / "docs" / "doc-00000" / "record.json"

    def vanish(*_a, **_k):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(gone))

    monkeypatch.setattr(report_view, "write_report", vanish)
    rc, _, err = _run(capsys, "report", corpus_copy, "--out", tmp_path / "out.html")
    line = _one_line(rc, err, str(gone))
    assert "out.html" not in line


# ---------------------------------------------------------------- 9. the report step failing is the run failing


@pytest.mark.slow  # a real generate with its temporary Prefect server
def test_disk_full_while_writing_the_report_fails_the_run(tmp_path, capsys, monkeypatch):
    import errno

    import synthdocqa.corpus.views.report as report_view
    from tests.corpus.conftest import tiny_spec

    spec = tmp_path / "spec.json"
    spec.write_text(tiny_spec(n_docs=1).model_dump_json())

    def full(corpus_dir, path, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(report_view, "write_report", full)
    rc, _, err = _run(capsys, "generate", "--spec", spec, "--out", tmp_path / "C", "--runner", "inline",
                      "--workers", "1")
    assert rc == 2, err  # the progress lines come first; the failure is one line, the last
    last = [x for x in err.strip().splitlines() if x.strip()][-1]
    assert last.startswith("synthdocqa generate: error: ") and "report.html: No space left on device" in last
    assert "Traceback" not in err and "WARNING" not in err


# ---------------------------------------------------------------- 15. no result cache entry per document


def test_documents_leave_no_prefect_result_behind():
    """A document's record is kept on disk and checked there on a rerun (``kept``); Prefect's result store would
    only add a never-expiring ~20 KB entry per document under the Prefect home."""
    from prefect.cache_policies import NO_CACHE

    from synthdocqa.flows.generate import generate_document_task

    assert generate_document_task.cache_policy is NO_CACHE and generate_document_task.persist_result is False


# ---------------------------------------------------------------- 14. the losing run fails before its server


def test_a_generate_into_a_held_folder_fails_before_starting_a_server(tmp_path, capsys, monkeypatch):
    import os

    import synthdocqa.flows.runtime  # noqa: F401
    from synthdocqa import flows

    started = []
    monkeypatch.setattr(flows.runtime, "start_early", lambda *a, **k: started.append(a))
    import subprocess
    import sys
    import time

    held = tmp_path / "C"
    held.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from synthdocqa.corpus.lock import OutputLock; OutputLock(sys.argv[1]).acquire(); "
        "print('held', flush=True); time.sleep(60)"), str(held)], stdout=subprocess.PIPE, text=True,
        cwd=str(Path(__file__).resolve().parents[2]), env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    try:
        assert holder.stdout.readline().strip() == "held"
        t0 = time.perf_counter()
        rc, _, err = _run(capsys, "generate", "--profile", "demo", "--docs", "1", "--out", held)
        took = time.perf_counter() - t0
    finally:
        holder.kill()
        holder.wait()
    _one_line(rc, err, "is in use by another synthdocqa run", f"pid {holder.pid}")
    assert started == [] and took < 5 and "Prefect API server" not in err  # no server was asked for
