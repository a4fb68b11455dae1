"""The Prefect flow ``label-hallucinations`` runs for real (isolated PREFECT_HOME, ephemeral API),
with an LLM judge whose API key comes from a Prefect Secret block."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow  # starts an ephemeral Prefect API server (~15-45 s on this machine)
def test_flow_runs_with_secret_block_key_and_publishes_artifacts(tmp_path, corpus_dir):
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_SERVER_ALLOW_EPHEMERAL_MODE": "true",
           "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "150", "PREFECT_LOGGING_LEVEL": "WARNING",
           "PYTHONPATH": str(ROOT)}
    env.pop("PREFECT_API_URL", None)
    secret = "sk-flow-secret-77"
    script = textwrap.dedent(f"""
        import asyncio, json, yaml
        from prefect.blocks.system import Secret
        from prefect.client.orchestration import get_client
        from synthdocqa.flows.hallucination_flow import label_hallucinations
        from tests.judges.fake_openai_server import FakeOpenAIServer

        Secret(value={secret!r}).save("judge-key")
        with FakeOpenAIServer(lambda req: '{{"verdict": "hallucinated"}}') as srv:
            open({str(tmp_path / 'judges.yaml')!r}, "w").write(yaml.safe_dump({{
                "judges": [{{"name": "j", "base_url": srv.url, "model": "m", "api_key_secret_block": "judge-key"}}],
                "labelers": ["exact_match", "token_f1"], "n_boot": 50, "alpha_boot": 0}}))
            state = label_hallucinations(out={str(tmp_path / 'out')!r}, corpus={str(corpus_dir)!r}, seed=2,
                                         per_qa=3, judges={str(tmp_path / 'judges.yaml')!r}, no_verify=True,
                                         return_state=True)
            summary = state.result()
            auth = sorted(set(srv.auth_headers))
        async def keys():
            async with get_client() as c:
                return sorted(a.key for a in await c.read_artifacts())
        print(json.dumps({{"state": state.name, "n": summary["n_items"], "auth": auth,
                          "calls": summary["judges"]["j"]["http_calls"], "artifacts": asyncio.run(keys())}}))
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=280,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["state"] == "Completed" and out["n"] > 50 and out["calls"] == 2 * out["n"]
    assert out["auth"] == [f"Bearer {secret}"]
    assert {"hallucination-report", "hallucination-criterion-mismatch"} <= set(out["artifacts"])
    for f in (tmp_path / "out").iterdir():
        assert secret.encode() not in f.read_bytes(), f
