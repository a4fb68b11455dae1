"""Install cost of the wheel: its size, the size of a fresh venv with it, and the install time, per extra,
with pip's cache warm and cold (``--no-cache-dir``), median and worst of the repeats.

    .venv/bin/python benchmarks/install_cost.py --src . [--src-label after] [--extras ,clip,test,ray,llm]
        [--cache warm,cold] [--repeat 3] [--json OUT]

Each install is a fresh ``python -m venv`` outside the checkout, ``pip install --upgrade pip`` (not timed),
then the timed ``pip install 'WHEEL[extra]'``; the venv's size is ``du`` of the whole folder. The wheel is
built once from the tracked files of ``--src`` (a checkout: run it on today's main and on the change, side
by side). ``[llm]`` builds llama-cpp-python from source when pip's wheel cache lacks it (the cold figure is
that build); its CMAKE_ARGS are .ci/run's portable flags.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LLM_CMAKE_ARGS = ("-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF "
                  "-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF")


def build_wheel(src: Path, work: Path) -> Path:
    tree = work / "src"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=src, check=True, capture_output=True, text=True).stdout
    for rel in filter(None, files.split("\0")):
        if (src / rel).is_file():
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src / rel, tree / rel)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(tree), "-w", str(work / "dist")],
                   check=True, capture_output=True)
    wheel, = (work / "dist").glob("synthdocqa-*.whl")
    return wheel


def du_mb(path: Path) -> float:
    return int(subprocess.run(["du", "-sk", str(path)], check=True, capture_output=True, text=True)
               .stdout.split()[0]) / 1024


def one_install(wheel: Path, extra: str, cold: bool, work: Path) -> dict:
    venv = work / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([shutil.which("python3") or "python3", "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip"]
    subprocess.run([*pip, "install", "-q", "--upgrade", "pip"], check=True, capture_output=True)
    target = f"{wheel}[{extra}]" if extra else str(wheel)
    env = {**os.environ, "CMAKE_ARGS": LLM_CMAKE_ARGS, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 1)}
    t0 = time.perf_counter()
    proc = subprocess.run([*pip, "install", "-q", *(["--no-cache-dir"] if cold else []), target],
                          capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"pip install {target} failed: {proc.stderr[-2000:]}")
    freeze = subprocess.run([*pip, "list", "--format=freeze"], capture_output=True, text=True).stdout.lower()
    heavy = sorted({line.split("==")[0] for line in freeze.splitlines()
                    if line.startswith(("torch==", "triton==", "nvidia-"))})
    return {"seconds": round(seconds, 1), "venv_mb": round(du_mb(venv)), "heavy": heavy}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default=".", help="a checkout to build the wheel from")
    ap.add_argument("--src-label", default=None)
    ap.add_argument("--extras", default=",clip,test,ray,llm", help="comma-separated; empty = no extra")
    ap.add_argument("--cache", default="warm,cold")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    src = Path(args.src).resolve()
    label = args.src_label or src.name
    results: dict = {"src": label, "installs": {}}
    with tempfile.TemporaryDirectory(prefix="install-cost-") as tmp:
        work = Path(tmp)
        wheel = build_wheel(src, work)
        results["wheel"] = wheel.name
        results["wheel_mb"] = round(wheel.stat().st_size / 2**20, 2)
        print(f"{label}: {wheel.name} {results['wheel_mb']} MB", flush=True)
        for extra in args.extras.split(","):
            for cache in args.cache.split(","):
                runs = [one_install(wheel, extra, cache == "cold", work) for _ in range(args.repeat)]
                secs = [r["seconds"] for r in runs]
                row = {"seconds": secs, "median_s": statistics.median(secs), "worst_s": max(secs),
                       "venv_mb": statistics.median(r["venv_mb"] for r in runs), "heavy": runs[-1]["heavy"]}
                results["installs"][f"[{extra}] {cache}" if extra else f"plain {cache}"] = row
                print(f"  {('[' + extra + ']') if extra else 'plain':<8} cache {cache:<4}: median {row['median_s']:.0f} s, "
                      f"worst {row['worst_s']:.0f} s, venv {row['venv_mb']:.0f} MB, "
                      f"torch/nvidia/triton: {', '.join(row['heavy']) or 'none'}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
