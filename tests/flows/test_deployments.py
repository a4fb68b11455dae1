"""Deployments against a real Prefect server: served, run with `prefect deployment run`, verified."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from synthdocqa.corpus.store import load_manifest
from synthdocqa.corpus.verify import verify_corpus
from synthdocqa.flows.deployments import DEPLOYMENTS
from tests.corpus.conftest import tiny_spec

from .prefect_server import BIN, REPO, PrefectServer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = PrefectServer(tmp_path_factory.mktemp("prefect-home"))
    yield srv
    srv.stop()


def test_prefect_yaml_matches_the_served_deployments():
    declared = yaml.safe_load((REPO / "prefect.yaml").read_text())["deployments"]
    assert [(d["name"], d["entrypoint"]) for d in declared] == [(d.name, d.entrypoint) for d in DEPLOYMENTS]
    crons = {d["entrypoint"]: d["schedules"][0]["cron"] for d in declared if d.get("schedules")}
    assert crons == {d.entrypoint: d.cron for d in DEPLOYMENTS if d.cron}


@pytest.mark.slow  # a Prefect server
def test_served_deployment_run_completes_and_verifies(server, tmp_path):
    """``prefect deploy`` (prefect.yaml, a process work pool) and ``synthdocqa serve`` on one server: both
    deployments of generate-corpus live side by side (``default`` and ``default-served``), serving does not
    replace the deployed one (its work pool and pull steps kept), and a run of the served one completes."""
    r = server.run(str(BIN / "prefect"), "work-pool", "create", "synthdocqa-process", "--type", "process",
                   timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    r = server.run(str(BIN / "prefect"), "--no-prompt", "deploy", "--name", "default",
                   "synthdocqa.flows.generate:generate_corpus_flow", timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]

    def inspect(name):
        r = server.run(str(BIN / "prefect"), "deployment", "inspect", name, "--output", "json", timeout=60)
        return json.loads(r.stdout) if r.returncode == 0 else None

    deployed = inspect("generate-corpus/default")
    assert deployed["work_pool_name"] == "synthdocqa-process" and deployed["pull_steps"], deployed
    serve_log = open(tmp_path / "serve.log", "w")
    serve = subprocess.Popen([str(BIN / "synthdocqa"), "serve", "--only", "generate-corpus"], env=server.env,
                             cwd=REPO, stdout=serve_log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 180
        while time.time() < deadline:
            if inspect("generate-corpus/default-served") is not None:
                break
            assert serve.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
            time.sleep(2)
        kept = inspect("generate-corpus/default")
        assert (kept["id"], kept["work_pool_name"], kept["pull_steps"]) == (
            deployed["id"], "synthdocqa-process", deployed["pull_steps"])
        out = tmp_path / "corpus"
        params = {"spec": tiny_spec(seed=7).model_dump(mode="json"), "out": str(out), "workers": 1}
        r = server.run(str(BIN / "prefect"), "deployment", "run", "generate-corpus/default-served",
                       "--params", json.dumps(params), "--watch", timeout=600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        assert "Completed" in r.stdout + r.stderr
        assert verify_corpus(out) == []
        assert load_manifest(out).spec.seed == 7
        # a bad parameter is refused when the run is created, by the server, not 20 s later on the worker
        for name, (param, word) in itertools.product(
                ("generate-corpus/default", "generate-corpus/default-served"),
                (("profile=bogus", "profile"), ("runner=spark", "runner"), ("workers=-3", "workers"))):
            t0 = time.time()
            r = server.run(str(BIN / "prefect"), "deployment", "run", name, "--param", param, timeout=120)
            said = r.stdout + r.stderr
            assert r.returncode != 0 and word in said and "Created flow run" not in said, said[-2000:]
            assert time.time() - t0 < 60
        schema = inspect("generate-corpus/default-served")["parameter_openapi_schema"]
        described = {k for k, v in schema["properties"].items() if v.get("description")}
        assert {"seed", "n_docs", "profile", "out", "spec", "workers", "runner"} <= described, described
    finally:
        serve.send_signal(signal.SIGINT)
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            serve.kill()
        serve_log.close()


FLOW_SCRIPT = """
import json, sys
from synthdocqa.flows.generate import generate_corpus_flow
stats = generate_corpus_flow(spec=json.loads(sys.argv[1]), out=sys.argv[2], runner=sys.argv[3], workers=2)
print("STATS", json.dumps(stats))
"""


def _flow(server, spec, out, runner, **kw):
    env = {**server.env, "SYNTHDOCQA_SMALL_RUN_DOCS": "0"}  # a pool even for two documents
    return subprocess.Popen([sys.executable, "-c", FLOW_SCRIPT, json.dumps(spec.model_dump(mode="json")), str(out),
                             runner], env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, **kw)


@pytest.mark.slow  # a Prefect server
@pytest.mark.parametrize("runner", ["process", "dask"])  # two worker processes; a Dask LocalCluster
def test_a_parallel_run_gives_the_serial_corpus_byte_for_byte(runner, server, tiny_corpus, tmp_path):
    out = tmp_path / runner
    proc = _flow(server, tiny_spec(), out, runner)
    log, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, log[-4000:]
    assert load_manifest(out).files == load_manifest(tiny_corpus).files
    assert (out / "corpus.json").read_bytes() == (tiny_corpus / "corpus.json").read_bytes()


@pytest.mark.slow  # a Prefect server
def test_killed_flow_run_resumes_only_missing_documents(server, tmp_path):
    spec = tiny_spec(seed=9, n_docs=4)
    out = tmp_path / "killed"
    proc = _flow(server, spec, out, "inline")
    deadline = time.time() + 600
    while time.time() < deadline and not (out / "docs" / "doc-00000" / "doc.json").exists():
        assert proc.poll() is None, proc.stdout.read()[-4000:]
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (out / "corpus.json").exists()
    done_before = sorted(p.parent.name for p in out.glob("docs/*/doc.json"))
    assert 1 <= len(done_before) < 4
    rerun = _flow(server, spec, out, "inline")
    log, _ = rerun.communicate(timeout=900)
    assert rerun.returncode == 0, log[-4000:]
    assert f"{len(done_before)} of 4 documents already complete; generating {4 - len(done_before)}" in log
    generated = set(re.findall(r"(doc-\d{5}): generated, \d+ pages", log))
    assert generated == {f"doc-{i:05d}" for i in range(4)} - set(done_before)
    assert verify_corpus(out) == []


@pytest.mark.slow  # a hand-started Dask cluster: a scheduler and two worker processes
def test_a_hand_started_dask_cluster_with_a_relative_out_gives_the_serial_corpus(tiny_corpus, tmp_path):
    """Not a LocalCluster: ``dask scheduler`` and two ``dask worker`` processes started in another folder, two
    runs in a row from the CLI with a relative ``--out`` (made absolute before it reaches the workers; each run
    with its own temporary Prefect API, which the long-lived workers must not keep using)."""
    from tests.corpus.conftest import tiny_spec as spec_of

    cluster_dir, run_dir = tmp_path / "cluster", tmp_path / "run"
    cluster_dir.mkdir()
    run_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", PREFECT_HOME=str(tmp_path / "ph"),
               PREFECT_SERVER_ANALYTICS_ENABLED="false", PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="180")
    sched_file = cluster_dir / "scheduler.json"
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(sched_file)], cwd=cluster_dir, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        deadline = time.time() + 120
        while not sched_file.exists() and time.time() < deadline:
            time.sleep(0.2)
        address = json.loads(sched_file.read_text())["address"]
        for _ in range(2):
            procs.append(subprocess.Popen([str(BIN / "dask"), "worker", "--scheduler-file", str(sched_file),
                                           "--nthreads", "1", "--no-dashboard"], cwd=cluster_dir, env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          start_new_session=True))
        (run_dir / "spec.json").write_text(spec_of().model_dump_json())
        for name in ("first", "second"):
            r = subprocess.run([str(BIN / "synthdocqa"), "generate", "--spec", "spec.json", "--out", name,
                                "--runner", "dask", "--dask-address", address, "--workers", "2", "--quiet"],
                               cwd=run_dir, env=env, capture_output=True, text=True, timeout=900)
            assert r.returncode == 0, r.stderr[-3000:]
            assert r.stderr.strip() == "", r.stderr[-3000:]
            assert load_manifest(run_dir / name).files == load_manifest(tiny_corpus).files
            assert not (cluster_dir / name).exists()  # nothing resolved in the workers' own folder
    finally:
        for p in procs:
            os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)


@pytest.mark.slow  # a hand-started Ray head (`ray start --head`)
@pytest.mark.needs("ray")
def test_a_ray_cluster_runs_the_documents_and_gives_the_serial_corpus(tiny_corpus, tmp_path):
    """``--runner ray --ray-address``: a Ray head started here (token authentication on, as Ray 2.5x starts
    it, the token handed through the environment, nothing written to ~/.ray), two runs in a row from another
    folder with a relative ``--out``. The documents ran in Ray's worker processes (their own log files name
    every document), and the corpus is the serial one, file for file."""
    import secrets
    import socket
    import tempfile

    from tests.corpus.conftest import tiny_spec as spec_of

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    ray_tmp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Ray's socket paths live under it
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "RAY_"))}
    env.update(PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", PREFECT_HOME=str(tmp_path / "ph"), HOME=str(tmp_path),
               PREFECT_SERVER_ANALYTICS_ENABLED="false", PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="180",
               RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(16), RAY_USAGE_STATS_ENABLED="0")
    head = subprocess.run([str(BIN / "ray"), "start", "--head", "--node-ip-address", "127.0.0.1", "--port",
                           str(port), "--num-cpus", "2", "--include-dashboard", "false", "--temp-dir", ray_tmp,
                           "--object-store-memory", str(200 * 2**20), "--disable-usage-stats"],
                          env=env, capture_output=True, text=True, timeout=180)
    try:
        assert head.returncode == 0, head.stderr[-3000:]
        (run_dir / "spec.json").write_text(spec_of().model_dump_json())
        expected = load_manifest(tiny_corpus)
        for name in ("first", "second"):
            r = subprocess.run([str(BIN / "synthdocqa"), "generate", "--spec", "spec.json", "--out", name,
                                "--runner", "ray", "--ray-address", f"127.0.0.1:{port}", "--quiet"],
                               cwd=run_dir, env={**env, "SYNTHDOCQA_SMALL_RUN_DOCS": "0"}, capture_output=True,
                               text=True, timeout=900)
            assert r.returncode == 0, r.stderr[-3000:]
            assert r.stderr.strip() == "", r.stderr[-3000:]
            assert load_manifest(run_dir / name).files == expected.files
        logs = "".join(p.read_text(errors="replace")
                       for p in sorted((Path(ray_tmp) / "session_latest" / "logs").glob("worker-*.err")))
        generated = re.findall(r"(doc-\d{5}): generated, \d+ pages", logs)
        assert sorted(generated) == sorted(2 * list(expected.documents))  # both runs, on Ray
        assert not (tmp_path / ".ray").exists()
    finally:
        subprocess.run([str(BIN / "ray"), "stop", "--force"], env=env, capture_output=True, timeout=120)
        shutil.rmtree(ray_tmp, ignore_errors=True)


def test_the_ray_runner_without_its_extra_fails_in_one_line(monkeypatch):
    """Without prefect-ray the run says which extra brings it, before any work."""
    from synthdocqa.flows.errors import RunFailed
    from synthdocqa.flows.runtime import check_cluster

    monkeypatch.setitem(sys.modules, "prefect_ray", None)  # import prefect_ray -> ImportError
    with pytest.raises(RunFailed, match=r"pip install 'synthdocqa\[ray\]'"):
        check_cluster("ray", None, None)
    with pytest.raises(RunFailed, match=r"pip install 'synthdocqa\[ray\]'"):
        check_cluster("ray", None, "127.0.0.1:1")


@pytest.mark.needs("ray")
def test_a_ray_address_that_does_not_answer_fails_in_one_line():
    from synthdocqa.flows.errors import RunFailed
    from synthdocqa.flows.runtime import check_cluster

    with pytest.raises(RunFailed, match=r"ray address 127\.0\.0\.1:1: cannot connect"):
        check_cluster("ray", None, "127.0.0.1:1")
    with pytest.raises(RunFailed, match="expected HOST:PORT"):
        check_cluster("ray", None, "http://somewhere")


@pytest.mark.needs("ray")
def test_the_ray_runner_starts_a_small_quiet_local_instance_or_joins_a_cluster():
    from prefect_ray import RayTaskRunner

    from synthdocqa.flows.runtime import make_task_runner

    local = make_task_runner("ray", 3, n_docs=2)  # a small run still goes to Ray when Ray is asked for
    assert isinstance(local, RayTaskRunner) and local.address is None
    assert local.init_kwargs["num_cpus"] == 3 and local.init_kwargs["log_to_driver"] is False
    joined = make_task_runner("ray", 3, ray_address="head:6379")
    assert joined.address == "head:6379" and "num_cpus" not in joined.init_kwargs
