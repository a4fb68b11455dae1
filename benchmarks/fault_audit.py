r"""The fault audit's command list (issue 35), re-run: bad inputs, tampering, signals and kills, each as a user
runs it (the installed ``synthdocqa`` in a fresh process), with what the README promises checked per case.

Not a speed benchmark: for each case it records the exit code, the lines on stderr, what the command left in its
own temporary folder (``TMPDIR`` set to an empty folder per case) and any process of the case still alive 10 s
after it ended (found by that ``TMPDIR`` in ``/proc/*/environ``, so a process in another session counts too).
A case passes when the exit code is the documented one, an error is one line, nothing is left in ``TMPDIR`` and
no process is left.

    python benchmarks/fault_audit.py [--work /tmp/audit] [--json audit.json] [--only NAME ...]

The workspace gets a 2-document demo corpus made by a normal run (the first case, which must pass too).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

BIN = Path(sys.executable).parent / "synthdocqa"


@dataclass
class Case:
    name: str
    argv: list[str]
    rc: int = 2
    lines: int | None = 1  # stderr lines expected (None: not checked, a normal run's output)
    signal_after: tuple[int, str] | None = None  # (signal, when: "start" 1.5 s, or "doc" after the first document)
    setup: str = ""


@dataclass
class Result:
    name: str
    command: str
    rc: int
    expected_rc: int
    stderr_lines: int
    first_line: str
    left_in_tmp: list[str] = field(default_factory=list)
    processes_left: list[int] = field(default_factory=list)
    ok: bool = False


def _png(path: Path, width: int, height: int) -> None:
    """A valid PNG header of ``width`` x ``height`` (one empty IDAT): a tiny file that claims a huge image."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) +
                     chunk(b"IEND", b""))


def _workspace(work: Path) -> dict[str, str]:
    """Every input file a case names, under ``work``; the paths by name."""
    w = work
    (w / "in").mkdir(parents=True, exist_ok=True)
    i = w / "in"
    specs = {
        "spec_nan": '{"profile": "demo", "element_mix": {"table": NaN}}',
        "spec_nan_tier": '{"profile": "demo", "tier_mix": {"good": NaN}}',
        "spec_inf": '{"profile": "demo", "element_mix": {"table": Infinity}}',
        "spec_dup": '{"profile": "demo", "n_docs": 2, "n_docs": 3}',
        "spec_typo": '{"profile": "demo", "n_doc": 2}',
        "spec_bad_profile": '{"profile": "bogus"}',
        "spec_not_json": "{profile: demo",
        "spec_6": '{"profile": "demo", "n_docs": 6, "seed": 35}',
    }
    for name, text in specs.items():
        (i / f"{name}.json").write_text(text)
    (i / "spec_dir").mkdir(exist_ok=True)
    fifo = i / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    _png(i / "huge.png", 50_000, 50_000)
    import cv2
    import numpy as np

    page = np.full((400, 300, 3), 255, np.uint8)
    cv2.putText(page, "Invoice 17,750 EUR", (10, 100), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1)
    cv2.imwrite(str(i / "page.png"), page)
    (i / "truncated.png").write_bytes((i / "page.png").read_bytes()[:300])
    (i / "garbage.png").write_bytes(b"not an image at all" * 50)
    (i / "garbage.gguf").write_bytes(b"GGUF" + b"\0" * 64)
    (i / "judges_missing_field.yaml").write_text("judges:\n  - name: a\n    bogus: 1\n")
    (i / "judges_not_yaml.yaml").write_text("judges: [\n")
    (i / "judges_secret.yaml").write_text("judges:\n  - name: a\n    base_url: http://127.0.0.1:9/v1\n    model: m\n"
                                          "    api_key_secret_block: missing-block\n")
    (i / "judges_down.yaml").write_text("judges:\n  - name: a\n    base_url: http://127.0.0.1:9/v1\n    model: m\n"
                                        "    timeout_s: 2\n    max_retries: 0\n")
    (i / "items.jsonl").write_text('{"item_id": "a", "question": "What is X?", "references": ["42"], '
                                   '"candidate": "42"}\n')
    (i / "items_bad.jsonl").write_text('{"item_id": "a", "references": ["r"], "candidate": "c"}\n')
    (i / "items_nan.jsonl").write_text('{"item_id": "a", "question": "q", "references": ["r"], "candidate": NaN}\n')
    (i / "ratings_bad.csv").write_text("a,b\n1,2\n")
    return {p.stem if p.suffix else p.name: str(p) for p in i.iterdir()} | {"work": str(w)}


def cases(p: dict[str, str]) -> list[Case]:
    w = p["work"]
    c, t = f"{w}/c", f"{w}/tampered"
    gen = ["generate", "--profile", "demo"]
    deg = ["--tier", "poor", "--seed", "1"]
    return [
        Case("generate a demo corpus (normal run)", [*gen, "--docs", "2", "--out", c, "--quiet"], rc=0, lines=None),
        *(Case(f"{cmd} --spec {k}", [cmd, "--spec", p[k], "--out", f"{w}/o-{cmd}-{k}"])
          for cmd in ("plan", "generate")
          for k in ("spec_nan", "spec_nan_tier", "spec_inf", "spec_dup", "spec_typo", "spec_bad_profile",
                    "spec_not_json", "spec_dir", "fifo")),
        Case("generate --spec missing", ["generate", "--spec", f"{w}/nope.json", "--out", f"{w}/o"]),
        Case("generate --docs -1", [*gen, "--docs", "-1", "--out", f"{w}/o"]),
        Case("generate --seed huge", [*gen, "--seed", str(2**70), "--out", f"{w}/o"]),
        Case("generate --out ''", [*gen, "--out", ""]),
        Case("generate --out a file", [*gen, "--out", p["page"]]),
        Case("generate --workers 0", [*gen, "--workers", "0", "--out", f"{w}/o"]),
        Case("llm serve --model missing", ["llm", "serve", "--model", f"{w}/missing.gguf"]),
        Case("llm serve --model garbage", ["llm", "serve", "--model", p["garbage"]]),
        *(Case(f"degrade {k}", ["degrade", p[k], *deg, "--out", f"{w}/o-{k}.png"])
          for k in ("huge", "truncated", "garbage")),
        Case("degrade missing", ["degrade", f"{w}/none.png", *deg, "--out", f"{w}/o.png"]),
        Case("degrade a folder", ["degrade", p["spec_dir"], *deg, "--out", f"{w}/o.png"]),
        Case("degrade --tier bogus", ["degrade", p["page"], "--seed", "1", "--tier", "bogus", "--out", f"{w}/o.png"]),
        Case("degrade --device bogus", ["degrade", p["page"], *deg, "--device", "bogus", "--out", f"{w}/o.png"]),
        Case("degrade --seed -1", ["degrade", p["page"], "--tier", "poor", "--seed", "-1", "--out", f"{w}/o.png"]),
        Case("degrade --out .txt", ["degrade", p["page"], *deg, "--out", f"{w}/o.txt"]),
        Case("degrade normal", ["degrade", p["page"], *deg, "--device", "phone", "--out", f"{w}/scan.jpg"],
             rc=0, lines=None),
        *(Case(f"judge --judges {k}", ["judge", "hallucination", "--items", p["items"], "--judges", p[k],
                                       "--out", f"{w}/j-{k}", "--quiet"])
          for k in ("judges_missing_field", "judges_not_yaml", "judges_secret", "judges_down")),
        Case("judge --items bad", ["judge", "hallucination", "--items", p["items_bad"], "--out", f"{w}/j1"]),
        Case("judge --items NaN", ["judge", "hallucination", "--items", p["items_nan"], "--out", f"{w}/j2"]),
        Case("judge --items a folder", ["judge", "hallucination", "--items", p["spec_dir"], "--out", f"{w}/j3"]),
        Case("judge --out the corpus", ["judge", "hallucination", "--items", p["items"], "--out", c]),
        Case("export --out the corpus", ["export", c, "--format", "hf", "--out", c]),
        Case("osce analyze --out the corpus", ["osce", "analyze", p["ratings_bad"], "--out", c]),
        Case("osce analyze bad ratings", ["osce", "analyze", p["ratings_bad"], "--out", f"{w}/osce"]),
        Case("verify the corpus", ["verify", c, "--quiet"], rc=0, lines=0),
        Case("verify a tampered corpus", ["verify", t, "--quiet"], rc=3, lines=None, setup="tamper"),
        Case("reproduce a tampered corpus", ["reproduce", t]),
        Case("legibility of a tampered corpus", ["legibility", t]),
        Case("report of a tampered corpus", ["report", t, "--out", f"{w}/r.html"]),
        Case("SIGTERM during the server's start", [*gen, "--docs", "2", "--out", f"{w}/sig1", "--quiet"],
             rc=143, signal_after=(signal.SIGTERM, "start")),
        Case("SIGINT after the first document", ["generate", "--spec", p["spec_6"], "--workers", "2",
                                                 "--out", f"{w}/sig2", "--quiet"],
             rc=130, signal_after=(signal.SIGINT, "doc")),
        Case("kill -9 after the first document (process pool)",
             ["generate", "--spec", p["spec_6"], "--workers", "2", "--out", f"{w}/sig3", "--quiet"],
             rc=-9, lines=0, signal_after=(signal.SIGKILL, "doc")),
    ]


def _tamper(work: Path) -> None:
    src, dst = work / "c", work / "tampered"
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    pdf = next(dst.glob("docs/*/document.pdf"))
    pdf.write_bytes(pdf.read_bytes()[:1000])


def _processes_with(tmpdir: str) -> list[int]:
    key = f"TMPDIR={tmpdir}".encode()
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            if key in (d / "environ").read_bytes().split(b"\0"):
                state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(d.name))
        except OSError:
            continue
    return found


def _default_sigint() -> None:
    """A terminal's Ctrl-C reaches the command even when this script runs in the background (``nohup``, ``&``
    ignore SIGINT, and an ignored SIGINT stays ignored in the command, as it should)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_case(case: Case, work: Path, index: int) -> Result:
    tmp = Path(tempfile.mkdtemp(prefix=f"t{index}-", dir=work / "tmps"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(TMPDIR=str(tmp), PREFECT_HOME=str(work / "prefect-home"), HF_HUB_OFFLINE="1")
    if case.setup == "tamper":
        _tamper(work)
    proc = subprocess.Popen([str(BIN), *case.argv], cwd=work, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_default_sigint)
    if case.signal_after is not None:
        signum, when = case.signal_after
        deadline = time.time() + 600
        if when == "start":
            time.sleep(1.5)
        else:
            out = Path(case.argv[case.argv.index("--out") + 1])
            while not list(out.glob("docs/*/doc.json")) and proc.poll() is None and time.time() < deadline:
                time.sleep(0.05)
        if proc.poll() is None:
            os.kill(proc.pid, signum)
    try:
        _, err = proc.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
    end = time.time()
    left_procs = _processes_with(str(tmp))
    while left_procs and time.time() < end + 10:
        time.sleep(0.1)
        left_procs = _processes_with(str(tmp))
    left = sorted(str(x.relative_to(tmp)) for x in tmp.rglob("*"))
    lines = [x for x in err.splitlines() if x.strip()]
    ok = (proc.returncode == case.rc and (case.lines is None or len(lines) == case.lines)
          and not left and not left_procs)
    shutil.rmtree(tmp, ignore_errors=True)
    return Result(case.name, "synthdocqa " + " ".join(a if a else "''" for a in case.argv).replace(str(work), "W"),
                  proc.returncode, case.rc, len(lines), (lines[0] if lines else "")[:160], left[:5], left_procs, ok)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default=None, help="workspace folder (default: a new one under the temporary folder)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--only", nargs="*", default=None, help="run only the cases whose name holds one of these")
    args = ap.parse_args(argv)
    work = Path(args.work or tempfile.mkdtemp(prefix="audit-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    (work / "tmps").mkdir(exist_ok=True)
    paths = _workspace(work)
    todo = cases(paths)
    if args.only:
        todo = [todo[0]] + [c for c in todo[1:] if any(o in c.name for o in args.only)]
    results = []
    print("| case | exit (expected) | stderr lines | left in TMPDIR | processes left | ok |")
    print("|---|---:|---:|---|---|---|")
    for k, case in enumerate(todo):
        r = run_case(case, work, k)
        results.append(r)
        print(f"| {r.name} | {r.rc} ({r.expected_rc}) | {r.stderr_lines} | {', '.join(r.left_in_tmp) or '-'} | "
              f"{r.processes_left or '-'} | {'ok' if r.ok else 'FAIL'} |", flush=True)
        if not r.ok:
            print(f"    first stderr line: {r.first_line}", flush=True)
    n_ok = sum(r.ok for r in results)
    print(f"\n{n_ok} of {len(results)} cases as promised")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0 if n_ok == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
