"""``synthdocqa degrade`` imports only what it needs: one page through the scan pipeline should not pay for
torch, PDF renderers, Prefect or scipy (each a large share of a quick command's CPU time)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import cv2
import numpy as np
import pytest

from .pages import text_page

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "open_clip", "reportlab", "fitz", "pymupdf", "prefect", "matplotlib", "scipy",
         "synthdocqa.renderers", "synthdocqa.corpus", "synthdocqa.judges")
UNNEEDED = tuple(f"synthdocqa.{m}" for m in ("ir.blocks", "ir.document", "ir.facts", "ir.values", "ir.spec", "ir.rendermap",
                                               "generation.planner")) + ("numpy.ma",)
"""Submodules a scan does without: the document contracts (a scan needs only ``ir.perturbation``; building
every content model's schema costs a short call ~0.1 s of CPU) and ``numpy.ma`` (loaded by ``np.percentile``,
~40 ms)."""

# Runs the installed console script's target (``[project.scripts] synthdocqa``) with argv[1:], then prints
# the heavy top-level packages the process holds.
_RUN = """
import importlib, json, sys
module, _, func = sys.argv[1].partition(":")
rc = getattr(importlib.import_module(module), func)(sys.argv[3:])
heavy, unneeded = (set(v) for v in json.loads(sys.argv[2]))
blas = [p["num_threads"] for p in __import__("threadpoolctl").threadpool_info() if p["internal_api"] == "openblas"]
loaded = [m for m, mod in sys.modules.items() if mod is not None]  # None: blocked (flows: pymupdf's add-ons)
top = {".".join(m.split(".")[:2]) if m.startswith("synthdocqa.") else m.split(".")[0] for m in loaded}
print(json.dumps({"rc": rc, "heavy": sorted(top & heavy),
                  "unneeded": sorted(set(loaded) & unneeded), "blas_threads": blas,
                  "blas_env": "OPENBLAS_NUM_THREADS" in __import__("os").environ}))
"""


def _entry_point() -> str:
    """The command's ``main``: the console script's target (``flows.cli:run``) is ``main`` followed by the end
    of the process (``flows.cli.exit_process``), which would end it before the modules are listed."""
    target = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]["synthdocqa"]
    assert target == "synthdocqa.flows.cli:run", target
    return "synthdocqa.flows.cli:main"


def _run_cli(*args: str, env: dict | None = None) -> dict:
    proc = subprocess.run([sys.executable, "-c", _RUN, _entry_point(), json.dumps([HEAVY, UNNEEDED]), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_degrade_imports_no_heavy_package(tmp_path, suffix):
    src, out = tmp_path / "page.png", tmp_path / "out" / f"scan{suffix}"
    cv2.imwrite(str(src), cv2.cvtColor(text_page(2), cv2.COLOR_RGB2BGR))
    result = _run_cli("degrade", str(src), "--tier", "poor", "--seed", "1", "--out", str(out), "--dpi", "100")
    assert result["rc"] == 0
    assert result["heavy"] == [], f"synthdocqa degrade imported {result['heavy']}"
    assert result["unneeded"] == [], f"synthdocqa degrade loaded {result['unneeded']}"
    scan = cv2.imdecode(np.frombuffer(out.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
    assert scan is not None and scan.shape[:2] == (550, 425)


def test_degrade_loads_numpy_with_one_blas_thread_and_leaves_the_environment(tmp_path):
    """One page multiplies 3x3 matrices only: OpenBLAS starts one thread, the variable that asked for it is
    gone again, and a count the caller set is kept."""
    src = tmp_path / "page.png"
    cv2.imwrite(str(src), cv2.cvtColor(text_page(2), cv2.COLOR_RGB2BGR))
    args = ("degrade", str(src), "--tier", "good", "--seed", "1", "--out", str(tmp_path / "a.png"), "--dpi", "100")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    result = _run_cli(*args, env=env)
    assert result["blas_threads"] == [1, 1] and result["blas_env"] is False  # numpy's and cv2's OpenBLAS
    result = _run_cli(*args, env={**env, "OPENBLAS_NUM_THREADS": "2"})
    assert result["blas_threads"] == [2, 2] and result["blas_env"] is True


def test_noise_quantiles_match_scipy_bit_for_bit():
    """The stages' N(0, 1) byte table (computed without scipy) holds scipy's ``ndtri`` values exactly, so
    every noise field, and so every scan, is the same as when scipy computed it."""
    from scipy.special import ndtri

    from synthdocqa.degradations.stages import image_ops

    want = ndtri((np.arange(256) + 0.5) / 256.0)
    assert image_ops._QUANTILES.dtype == np.float64
    assert image_ops._QUANTILES.tobytes() == want.tobytes()
    p = np.concatenate([np.random.default_rng(0).uniform(1e-13, 1 - 1e-13, 2000), [1e-13, 0.5, 1 - 1e-13]])
    got = np.array([image_ops._ndtri(float(v)) for v in p])
    assert got.tobytes() == ndtri(p).tobytes()


def test_paper_level_is_numpys_percentile_bit_for_bit():
    """``paper_level`` takes the 90th percentile of a uint8 sample without ``np.percentile`` (which loads
    ``numpy.ma``): the same float64 bits as ``np.percentile(sample, 90, axis=0)`` on every sample size."""
    from synthdocqa.degradations.stages.image_ops import paper_level

    rng = np.random.default_rng(5)
    shapes = [(h, w) for h in (1, 2, 7, 8, 50, 333) for w in (1, 6, 7, 15, 120)] + [(2200, 1700), (1100, 850)]
    for h, w in shapes:
        for c in (None, 3):
            shape = (h, w) if c is None else (h, w, c)
            page = np.where(rng.random(shape) < 0.8, rng.integers(225, 256, shape), rng.integers(0, 256, shape))
            page = page.astype(np.uint8)
            sample = page[::7, ::7].reshape(-1, 1 if c is None else c)
            want = np.percentile(sample, 90, axis=0).astype(np.float64)
            got = paper_level(page)
            assert got.dtype == np.float64 and got.tobytes() == want.tobytes(), (shape, got, want)
    floats = rng.random((40, 30, 3)).astype(np.float32)  # not uint8: numpy's own percentile
    assert paper_level(floats).tobytes() == np.percentile(floats[::7, ::7].reshape(-1, 3), 90, axis=0).astype(
        np.float64).tobytes()


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(sub.choices)


def test_command_owners_match_the_full_parser():
    """``flows.cli.COMMAND_OWNERS`` names, for every command, the module that registers it, so that a run of
    one command imports one command module (a stale entry would silently fall back to importing them all)."""
    from synthdocqa.flows import cli

    assert set(cli.COMMAND_OWNERS) == _commands(cli.build_parser())
    for command, module in cli.COMMAND_OWNERS.items():
        siblings = {c for c, m in cli.COMMAND_OWNERS.items() if m == module}
        assert _commands(cli.build_parser(command)) == siblings, (command, module)
