"""Pool workers forked from the warm fork server, and one temporary API server per run."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import pytest

from synthdocqa.corpus.store import load_manifest
from tests.corpus.conftest import tiny_spec

from .prefect_server import REPO


def _worker_view(name: str) -> tuple[bool, bool, bool, str | None, int, int]:
    import os
    import sys

    return ("onnxruntime" in sys.modules and "synthdocqa.renderers.layout.clip_onnx" in sys.modules,
            "synthdocqa.corpus.assemble" in sys.modules, "torch" in sys.modules, os.environ.get(name), os.getpid(),
            os.getppid())


def test_workers_start_with_the_pipeline_loaded_and_the_runs_environment(monkeypatch):
    """The fork server loads the pipeline before any worker exists; a worker takes the environment the run has
    when the pool starts (set after the server started), not the server's."""
    from synthdocqa.flows.fork_server import pool_context, start_fork_server, start_worker

    assert start_fork_server()
    monkeypatch.setenv("SYNTHDOCQA_TEST_SET_AFTER_THE_FORK_SERVER", "run-value")
    prefect_init = ("prefect.task_runners:_initialize_process_pool_worker", pickle.dumps((None, ())))
    with ProcessPoolExecutor(1, mp_context=pool_context(), initializer=start_worker,
                             initargs=(dict(os.environ), None, *prefect_init)) as pool:
        clip, pipeline, torch, value, pid, ppid = pool.submit(
            _worker_view, "SYNTHDOCQA_TEST_SET_AFTER_THE_FORK_SERVER").result(timeout=300)
    assert clip and pipeline  # imported by the fork server, not by the worker's first document
    assert not torch  # the layout-CLIP runs on ONNX Runtime
    assert value == "run-value"
    assert ppid != os.getpid()  # a child of the fork server, not of this process


ONE_SERVER = """
import json, sys
from prefect.server.api import server as s
starts = []
real = s.SubprocessASGIServer.start
def start(self, *a, **k):
    import threading
    starts.append(threading.current_thread().name)
    return real(self, *a, **k)
s.SubprocessASGIServer.start = start
from synthdocqa.flows.cli import main
rc = main(["generate", "--spec", sys.argv[1], "--out", sys.argv[2], "--workers", "2", "--quiet"])
print(json.dumps({"rc": rc, "starts": starts}))
"""


@pytest.mark.slow  # a temporary Prefect server and a pool
def test_a_pool_run_starts_one_api_server_and_writes_the_serial_bytes(tiny_corpus, tmp_path):
    """The run's own server only: Prefect's threads in the run would start another one if they did not see
    the run's API (they read the process-wide settings)."""
    spec = tmp_path / "spec.json"
    spec.write_text(tiny_spec().to_json(), "utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update({"PREFECT_HOME": str(tmp_path / "home"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                "SYNTHDOCQA_SMALL_RUN_DOCS": "0", "HF_HUB_OFFLINE": "1"})
    proc = subprocess.run([sys.executable, "-c", ONE_SERVER, str(spec), str(tmp_path / "c")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res == {"rc": 0, "starts": []}
    assert load_manifest(tmp_path / "c").files == load_manifest(tiny_corpus).files
