"""The Prefect flow ``label-hallucinations`` runs for real (isolated PREFECT_HOME, ephemeral API)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow  # starts an ephemeral Prefect API server (~15-45 s here)
def test_flow_runs_and_publishes_artifacts(tmp_path, corpus_dir):
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_API_URL": "",
           "PREFECT_SERVER_ALLOW_EPHEMERAL_MODE": "true", "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "150", "PREFECT_LOGGING_LEVEL": "WARNING",
           "PYTHONPATH": str(ROOT)}
    env.pop("PREFECT_API_URL")
    script = textwrap.dedent(f"""
        import json, asyncio
        from flows.hallucination_flow import label_hallucinations
        from prefect.client.orchestration import get_client
        state = label_hallucinations(out={str(tmp_path / 'out')!r}, corpus={str(corpus_dir)!r}, seed=2,
                                     per_qa=3, judges={str(tmp_path / 'judges.yaml')!r}, return_state=True)
        summary = state.result()
        async def keys():
            async with get_client() as c:
                return sorted(a.key for a in await c.read_artifacts())
        print(json.dumps({{"state": state.name, "n": summary["n_items"], "artifacts": asyncio.run(keys())}}))
    """)
    (tmp_path / "judges.yaml").write_text("labelers: [exact_match, token_f1]\nn_boot: 50\nalpha_boot: 0\n")
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=240,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["state"] == "Completed" and out["n"] > 50
    assert {"hallucination-report", "hallucination-criterion-mismatch"} <= set(out["artifacts"])
    assert (tmp_path / "out" / "report.html").is_file()
