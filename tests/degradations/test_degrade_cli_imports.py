"""``synthdocqa degrade`` imports only what it needs: one page through the scan pipeline should not pay for
torch, PDF renderers, Prefect or scipy (each a large share of a quick command's CPU time)."""

from __future__ import annotations

import argparse
import json
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
         "renderers", "corpus", "judges")

# Runs the installed console script's target (``[project.scripts] synthdocqa``) with argv[1:], then prints
# the heavy top-level packages the process holds.
_RUN = """
import importlib, json, sys
module, _, func = sys.argv[1].partition(":")
rc = getattr(importlib.import_module(module), func)(sys.argv[3:])
heavy = set(json.loads(sys.argv[2]))
print(json.dumps({"rc": rc, "heavy": sorted({m.split(".")[0] for m in sys.modules} & heavy)}))
"""


def _entry_point() -> str:
    return tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]["synthdocqa"]


def _run_cli(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", _RUN, _entry_point(), json.dumps(HEAVY), *args], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_degrade_imports_no_heavy_package(tmp_path, suffix):
    src, out = tmp_path / "page.png", tmp_path / "out" / f"scan{suffix}"
    cv2.imwrite(str(src), cv2.cvtColor(text_page(2), cv2.COLOR_RGB2BGR))
    result = _run_cli("degrade", str(src), "--tier", "poor", "--seed", "1", "--out", str(out), "--dpi", "100")
    assert result["rc"] == 0
    assert result["heavy"] == [], f"synthdocqa degrade imported {result['heavy']}"
    scan = cv2.imdecode(np.frombuffer(out.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
    assert scan is not None and scan.shape[:2] == (550, 425)


def test_noise_quantiles_match_scipy_bit_for_bit():
    """The stages' N(0, 1) byte table (computed without scipy) holds scipy's ``ndtri`` values exactly, so
    every noise field, and so every scan, is the same as when scipy computed it."""
    from scipy.special import ndtri

    from degradations.stages import _fields

    want = ndtri((np.arange(256) + 0.5) / 256.0)
    assert _fields._QUANTILES.dtype == np.float64
    assert _fields._QUANTILES.tobytes() == want.tobytes()
    p = np.concatenate([np.random.default_rng(0).uniform(1e-13, 1 - 1e-13, 2000), [1e-13, 0.5, 1 - 1e-13]])
    got = np.array([_fields._ndtri(float(v)) for v in p])
    assert got.tobytes() == ndtri(p).tobytes()


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(sub.choices)


def test_command_owners_match_the_full_parser():
    """``flows.cli.COMMAND_OWNERS`` names, for every command, the module that registers it, so that a run of
    one command imports one command module (a stale entry would silently fall back to importing them all)."""
    from flows import cli

    assert set(cli.COMMAND_OWNERS) == _commands(cli.build_parser())
    for command, module in cli.COMMAND_OWNERS.items():
        siblings = {c for c, m in cli.COMMAND_OWNERS.items() if m == module}
        assert _commands(cli.build_parser(command)) == siblings, (command, module)
