r"""CPU of one ``synthdocqa degrade`` call, this tree against a baseline checkout, interleaved call by call.

The command as a user runs it: a fresh interpreter per call, the installed entry point's target
(``synthdocqa.flows.cli:main``), default thread counts, a real page image. Each call's CPU is the child's user + sys
(``os.wait4``, every thread of the call counted, so neither side gains from threads), with its wall time
and peak RSS. Pages: page 1 of each ``document.pdf`` under ``--corpus`` (or ``--image`` files), rasterised
at 200 dpi. For each page, every device at each ``--tiers`` tier, ``--reps`` rounds; within a round the
two sides alternate and the side that goes first alternates too, so both see the same machine state.

The baseline is another checkout of the repository (``git worktree add /tmp/base <commit>``) run with the
same interpreter and ``PYTHONPATH`` at that checkout (its packages shadow the editable install).

    python benchmarks/bench_degrade_cli.py --baseline /tmp/base --corpus /tmp/corpus [--reps 3]
                                            [--tiers good poor] [--json out.json]

Target (issue 15): every call < 1 s of CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEVICES = ("flatbed", "photocopy", "fax", "phone")
def _main_code(tree: Path) -> str:
    """The command's ``main`` in ``tree``: ``synthdocqa.flows.cli`` in a checkout with the one package (its
    ``synthdocqa/__init__`` takes the checkout's folders when the checkout is on PYTHONPATH), ``flows.cli`` in
    one from before it."""
    module = "synthdocqa.flows.cli" if (tree / "synthdocqa" / "__init__.py").is_file() else "flows.cli"
    return f"import sys; from {module} import main; sys.exit(main(sys.argv[1:]))"


def _pages(args: argparse.Namespace, tmp: Path) -> list[Path]:
    if args.image:
        return [Path(p) for p in args.image]
    import pymupdf

    out = []
    for k, pdf in enumerate(sorted(Path(args.corpus).glob("docs/*/document.pdf"))):
        with pymupdf.open(pdf) as doc:
            png = tmp / f"page-{k}.png"
            doc[0].get_pixmap(dpi=200, alpha=False).save(png)
            out.append(png)
    if not out:
        raise SystemExit(f"no docs/*/document.pdf under {args.corpus}")
    return out


def _call(tree: Path, image: Path, device: str, tier: str, seed: int, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _main_code(tree), "degrade", str(image), "--device", device, "--tier",
                             tier, "--seed", str(seed), "--out", str(out)], cwd=tree, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: degrade {device} {tier} failed: {err.strip()}")
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "rss_mib": usage.ru_maxrss / 1024}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--baseline", required=True, help="a checkout of the baseline commit")
    ap.add_argument("--corpus", help="a generated corpus: page 1 of each document")
    ap.add_argument("--image", nargs="*", help="page images (200 dpi) instead of --corpus")
    ap.add_argument("--tiers", nargs="+", default=["good", "poor"])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write every call's figures here")
    args = ap.parse_args(argv)
    if not (args.corpus or args.image):
        ap.error("give --corpus or --image")
    sides = {"ours": REPO, "baseline": Path(args.baseline).resolve()}
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        pages = _pages(args, tmp)
        turn = 0
        for p, image in enumerate(pages):
            for device in DEVICES:
                for tier in args.tiers:
                    for rep in range(args.reps):
                        order = list(sides) if turn % 2 == 0 else list(sides)[::-1]
                        turn += 1
                        for side in order:
                            r = _call(sides[side], image, device, tier, args.seed + rep, tmp / f"{side}.jpg")
                            rows.append({"side": side, "page": p, "device": device, "tier": tier, "rep": rep, **r})
                    last = {s: [r for r in rows if r["side"] == s][-args.reps:] for s in sides}
                    print(f"page {p} {device:<9} {tier:<5} " + "  ".join(
                        f"{s} {statistics.median(r['cpu'] for r in last[s]):.2f} s" for s in sides), flush=True)
    print()
    for side in sides:
        cpu = [r["cpu"] for r in rows if r["side"] == side]
        wall = [r["wall"] for r in rows if r["side"] == side]
        rss = [r["rss_mib"] for r in rows if r["side"] == side]
        over = sum(c >= 1.0 for c in cpu)
        print(f"{side:<9} CPU median {statistics.median(cpu):.2f} s, worst {max(cpu):.2f} s, best {min(cpu):.2f} s"
              f" ({over} of {len(cpu)} calls >= 1 s); wall median {statistics.median(wall):.2f} s, worst "
              f"{max(wall):.2f} s; peak RSS {min(rss):.0f}-{max(rss):.0f} MiB")
    ours = [r["cpu"] for r in rows if r["side"] == "ours"]
    base = [r["cpu"] for r in rows if r["side"] == "baseline"]
    ratios = [b / o for o, b in zip(ours, base, strict=True)]
    print(f"baseline / ours CPU, call by call: median {statistics.median(ratios):.2f}x, worst {min(ratios):.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
