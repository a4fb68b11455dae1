"""The small things of issue 16: render and generate pick the same layouts, evaluation folders keyed by the
whole batch, the example judges.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from synthdocqa.flows.cli import build_parser, main

REPO = Path(__file__).resolve().parents[2]


def test_render_chooses_the_layouts_generate_chooses(tmp_path, capsys):
    from synthdocqa.corpus.assemble import complete_ir, default_layout_chooser
    from synthdocqa.flows.commands.render import _chooser
    from synthdocqa.ir.spec import spec_for_profile

    args = build_parser().parse_args(["render", "--seed", "3", "--docs", "1", "--out", "x"])
    assert args.layout_chooser == "clip" and _chooser("clip") is default_layout_chooser()
    assert main(["render", "--seed", "3", "--docs", "1", "--dpi", "36", "--out", str(tmp_path)]) == 0
    rendered = json.loads((tmp_path / "docs" / "doc-00000" / "ir.json").read_text())
    generated = complete_ir(spec_for_profile("demo", 3, 1), 0)
    assert [p["layout_id"] for p in rendered["pages"]] == [p.layout_id for p in generated.pages]


def test_evaluation_folders_are_keyed_by_the_whole_batch():
    from synthdocqa.flows.evaluation import EvaluationParams

    base = EvaluationParams(seed=1, profile="demo", judges=["hallucination"])
    key = base.batch_key("spec-a")
    assert key == EvaluationParams(seed=1, profile="demo", judges=["hallucination"], workers=8,
                                   out="elsewhere").batch_key("spec-a")
    assert key != base.batch_key("spec-b")  # another size or seed is another corpus spec
    assert key != EvaluationParams(seed=1, profile="demo", judges=["hallucination"],
                                   judges_config="judges.yaml").batch_key("spec-a")
    assert key != EvaluationParams(seed=1, profile="demo", judges=[]).batch_key("spec-a")


def test_example_judges_yaml_loads_and_names_keys_only_by_reference():
    from synthdocqa.judges.hallucination.pipeline import load_judges_config

    path = REPO / "examples" / "judges.yaml"
    cfg = load_judges_config(path)
    urls = {j.name: j.base_url for j in cfg.judges}
    assert any(u.startswith("http://127.0.0.1:8080") for u in urls.values())  # llama.cpp
    assert any(u.startswith("http://127.0.0.1:8000") for u in urls.values())  # vLLM
    hosted = [j for j in cfg.judges if j.base_url.startswith("https://")]
    assert hosted and all(j.api_key_env for j in hosted)
    raw = yaml.safe_load(path.read_text())
    assert not any("api_key" in k and not k.startswith("api_key_") for j in raw["judges"] for k in j)


@pytest.mark.slow  # the real CLI with its temporary Prefect server, twice
def test_generate_names_its_phases_and_writes_files_with_the_umask(tmp_path):
    """Through the real CLI, stderr not a terminal: the phases without a bar are named (server start, tables,
    report), and every file and folder of the corpus takes the umask's mode (027 here: 0640 / 0750)."""
    import os
    import stat
    import subprocess
    import sys

    from tests.corpus.conftest import tiny_spec

    spec = tmp_path / "spec.json"
    spec.write_text(tiny_spec(seed=31, n_docs=1).to_json(), "utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update({"PYTHONPATH": str(REPO), "PREFECT_HOME": str(tmp_path / "ph"), "HF_HUB_OFFLINE": "1",
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false"})
    out = tmp_path / "c"
    argv = [str(Path(sys.executable).parent / "synthdocqa"), "generate", "--spec", str(spec), "--out", str(out),
            "--workers", "2", "--timings"]
    r = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
                       preexec_fn=lambda: os.umask(0o027))
    assert r.returncode == 0, r.stderr[-2000:]
    for phase in ("timings (wall):", "Prefect API server start", "layout-CLIP load (after the server start)",
                  "worker start and the first document", "tables and manifest", "report.html and artifacts",
                  "total"):
        assert phase in r.stderr, phase  # one document, two workers asked: built in this process
    for phase in ("generate: starting a temporary Prefect API server ...",
                  "generate: writing the corpus tables and manifest (1 documents) ...",
                  "generate: writing report.html and the run's artifacts ..."):
        assert phase in r.stderr
    assert "\r" not in r.stderr  # stderr is not a terminal: no bar (and a run this quick shows no progress lines)
    modes = {stat.S_IMODE(p.stat().st_mode) for p in out.rglob("*") if p.is_file()}
    dirs = {stat.S_IMODE(p.stat().st_mode) for p in [out, *out.rglob("*")] if p.is_dir()}
    assert modes == {0o640} and dirs == {0o750}, (modes, dirs)
    report = (out / "report.html").stat().st_mtime_ns
    again = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "complete and verified for this spec and code: nothing to generate" in again.stderr
    assert "Prefect API server start" not in again.stderr  # a rerun with nothing to do starts no server
    assert (out / "report.html").stat().st_mtime_ns == report  # and keeps the report


def test_small_runs_build_in_this_process_and_big_ones_in_a_pool(monkeypatch):
    from prefect.task_runners import ThreadPoolTaskRunner

    from synthdocqa.flows.runtime import SMALL_RUN_DOCS, in_process, make_task_runner
    from synthdocqa.flows.workers import GuardedProcessPoolTaskRunner

    assert in_process("process", 2, SMALL_RUN_DOCS - 1) and not in_process("process", 2, SMALL_RUN_DOCS)
    assert in_process("process", 1, 500) and in_process("inline", 4, 500) and not in_process("dask", 2, 1)
    assert isinstance(make_task_runner("process", 2, n_docs=3), ThreadPoolTaskRunner)
    assert isinstance(make_task_runner("process", 2, n_docs=SMALL_RUN_DOCS), GuardedProcessPoolTaskRunner)
    monkeypatch.setenv("SYNTHDOCQA_SMALL_RUN_DOCS", "0")
    assert isinstance(make_task_runner("process", 2, n_docs=3), GuardedProcessPoolTaskRunner)


def test_documents_go_to_the_pool_longest_first_and_complete_ones_first():
    from synthdocqa.flows.generate import submission_order
    from synthdocqa.generation.planner import planned_page_count
    from synthdocqa.ir.spec import demo_spec

    spec = demo_spec(40, 12)
    pages = {i: planned_page_count(spec, i) for i in range(12)}
    assert len(set(pages.values())) > 1  # the order below has something to sort
    order = submission_order(spec, list(range(12)), done={3, 7})
    assert set(order[:2]) == {3, 7} and sorted(order) == list(range(12))
    rest = order[2:]
    assert [pages[i] for i in rest] == sorted((pages[i] for i in rest), reverse=True)
    assert all(a < b for a, b in zip(rest, rest[1:], strict=False) if pages[a] == pages[b])


def test_a_run_starts_nothing_early_for_a_corpus_that_looks_complete(corpus_copy, tmp_path):
    from synthdocqa.flows.runtime import looks_complete, start_early
    from tests.corpus.conftest import tiny_spec

    assert looks_complete(corpus_copy, tiny_spec()) and not looks_complete(corpus_copy, tiny_spec(seed=6))
    assert not looks_complete(tmp_path / "empty", tiny_spec())
    early = start_early(tiny_spec(), corpus_copy, 2, 2, "process", api_configured=False)
    assert early.server is None and early.warm is None


def test_the_report_is_kept_for_an_unchanged_corpus_and_redrawn_after_a_change(corpus_copy, tmp_path):
    from synthdocqa.corpus.views.report import write_report
    from tests.flows.crafted import rehash_manifest

    out = tmp_path / "r.html"
    first = write_report(corpus_copy, out, reuse=True)
    assert first["reused"] is False
    assert write_report(corpus_copy, out, reuse=True)["reused"] is True
    assert write_report(corpus_copy, out)["reused"] is False  # without reuse: always drawn
    qa = corpus_copy / "docs" / "doc-00000" / "qa.jsonl"
    qa.write_text(qa.read_text())  # same bytes: the manifest does not change
    assert write_report(corpus_copy, out, reuse=True)["reused"] is True
    qa.write_text(qa.read_text() + "\n")  # another file: another manifest
    rehash_manifest(corpus_copy)
    assert write_report(corpus_copy, out, reuse=True)["reused"] is False


def test_a_complete_corpus_is_up_to_date_until_something_changes(corpus_copy, tmp_path):
    from synthdocqa.corpus.generate import up_to_date
    from synthdocqa.corpus.store import load_manifest
    from synthdocqa.corpus.views.report import report_is_current, write_report
    from tests.corpus.conftest import tiny_spec

    spec = tiny_spec()
    assert up_to_date(corpus_copy, spec) == load_manifest(corpus_copy)  # the documents need no work
    assert not report_is_current(corpus_copy, corpus_copy / "report.html")  # but the run must draw the report
    write_report(corpus_copy, corpus_copy / "report.html")
    assert report_is_current(corpus_copy, corpus_copy / "report.html")
    assert up_to_date(corpus_copy, tiny_spec(seed=99)) is None  # another spec
    page = next((corpus_copy / "docs").glob("*/pages/page-0001.png"))
    page.write_bytes(page.read_bytes()[:-10])  # a damaged file
    assert up_to_date(corpus_copy, spec) is None


def test_version_is_the_code_version_a_corpus_records(capsys):
    """``--version`` names the code a corpus records (``manifest.code_version``), not only the package's."""
    from synthdocqa.corpus.assemble import code_version
    from synthdocqa.flows.cli import main

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == f"synthdocqa {code_version()}" and ".src" in out


@pytest.mark.parametrize("words, expected", [
    (["gen"], ["generate"]),
    (["generate", "--pro"], ["--profile"]),
    (["generate", "--profile", ""], ["demo", "reference"]),
    (["osce", "ana"], ["analyze"]),
    (["osce", "analyze", "--back"], ["--backend"]),
    (["verify", "corp"], ["corpus-a", "corpus-b"]),  # not an option: file names
])
def test_bash_completion_completes_commands_options_choices_and_files(words, expected, tmp_path, capsys):
    """The script ``synthdocqa completion bash`` prints, run by bash itself on a command line being typed."""
    import shutil
    import subprocess

    if shutil.which("bash") is None:
        pytest.skip("bash is missing")
    assert main(["completion", "bash"]) == 0
    script = tmp_path / "completion.bash"
    script.write_text(capsys.readouterr().out)
    for name in ("corpus-a", "corpus-b", "other"):
        (tmp_path / name).mkdir()
    line = ["synthdocqa", *words]
    words_q = " ".join(f"'{w}'" for w in line)
    probe = (f"source {script}; COMP_WORDS=({words_q}); COMP_CWORD={len(line) - 1}; "
             "_synthdocqa_complete; printf '%s\\n' \"${COMPREPLY[@]}\"")
    r = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=30)
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.split()) == expected
