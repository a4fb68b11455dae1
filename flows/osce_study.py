"""Prefect flows of the VSP study: ``osce-study`` (the virtual patients answer the cases, then one blinded
packet per rater) and ``osce-collect-analyze`` (the filled packets back, unblinded, into the mixed-model analysis
and its report, with the LLM rubric judge compared to the raters when its scores are given).

Thin over ``judges.osce``: the tasks are calls into ``vsp``, ``packets`` and the ``osce-analysis`` flow; API keys
named as Prefect Secret blocks in the responders file are resolved here and passed in, never written.
"""

from __future__ import annotations

import os
from pathlib import Path

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE

from synthdocqa.flows.osce_flow import osce_analysis
from synthdocqa.judges.osce.case_bank import SHIPPED_CASES, load_case_bank, load_questions
from synthdocqa.judges.osce.loaders import load_dialogues, write_table
from synthdocqa.judges.osce.packets import collect_packets, write_packets
from synthdocqa.judges.osce.pipeline import load_taxonomy
from synthdocqa.judges.osce.vsp import DIALOGUES_FILE, Responder, load_responders, run_vsp


def _secret_keys(responders: list[Responder]) -> dict[str, str]:
    from prefect.blocks.system import Secret

    return {r.name: str(Secret.load(r.endpoint.api_key_secret_block).get()) for r in responders
            if r.endpoint is not None and r.endpoint.api_key_secret_block}


@task(name="osce-vsp-run", cache_policy=NO_CACHE)
def vsp_task(cases: str | None, questions: str | None, responders: str, out: str, language: str) -> dict:
    bank = load_case_bank(cases or SHIPPED_CASES)
    qs = load_questions(questions or SHIPPED_CASES / "questions.csv", bank)
    rs = load_responders(responders)
    run = run_vsp(bank, qs, rs, out, language=language, api_keys=_secret_keys(rs))
    return run.summary()


@task(name="osce-packets", cache_policy=NO_CACHE)
def packets_task(run_dir: str, raters: int, seed: int, out: str, language: str, cases: str | None) -> dict:
    titles = {cid: c.title(language) for cid, c in load_case_bank(cases or SHIPPED_CASES).items()}
    made = write_packets(load_dialogues(Path(run_dir) / DIALOGUES_FILE), raters, seed, out, case_titles=titles)
    return made.model_dump(mode="json")


@flow(name="osce-study")
def osce_study(responders: str, out: str, raters: int = 17, seed: int = 0, language: str = "en",
               cases: str | None = None, questions: str | None = None) -> dict:
    """VSP run into ``out/run``, then ``raters`` blinded packets into ``out/packets`` (the key beside them)."""
    out = os.path.abspath(out)  # the artifact and the result name the folders wherever they are read
    run_dir, packets_dir = str(Path(out) / "run"), str(Path(out) / "packets")
    summary = vsp_task(cases, questions, responders, run_dir, language)
    made = packets_task(run_dir, raters, seed, packets_dir, language, cases)
    lines = [f"- {name}: {d['answered']}/{d['turns']} answered, {d['failed']} failed, {d['flagged']} flagged"
             for name, d in summary["responders"].items()]
    create_markdown_artifact(key="osce-study", description="VSP run and rating packets", markdown="\n".join(
        ["# VSP study", *lines, f"- requests {summary['requests']}, from the cache {summary['cache_hits']}",
         f"- {made['n_raters']} packets in {made['out_dir']}; key {made['key_path']}"]))
    return {"run": run_dir, "packets": made["out_dir"], "key": made["key_path"], "requests": summary["requests"]}


@task(name="osce-collect", cache_policy=NO_CACHE)
def collect_task(packets: str, key: str, ratings: str, taxonomy: str | None) -> str:
    write_table(collect_packets(packets, key, taxonomy=load_taxonomy(taxonomy)), ratings)
    return ratings


@task(name="osce-rubric", cache_policy=NO_CACHE)
def rubric_task(run_dir: str, endpoint: str, out: str, taxonomy: str | None, metrics: list[str] | None) -> str:
    """The LLM rubric judge on the run's dialogues, against the run's case scripts (cached beside its output)."""
    import yaml

    from synthdocqa.ir.rng import Rng
    from synthdocqa.judges.llm import ChatClient, EndpointConfig, ResponseCache
    from synthdocqa.judges.osce.case_scripts import load_case_scripts
    from synthdocqa.judges.osce.rubric import score_dialogues

    cfg = EndpointConfig.model_validate(yaml.safe_load(Path(endpoint).read_text(encoding="utf-8")) or {})
    key = None
    if cfg.api_key_secret_block:
        from prefect.blocks.system import Secret

        key = cfg.resolve_api_key(str(Secret.load(cfg.api_key_secret_block).get()))
    else:
        key = cfg.resolve_api_key()
    dialogues = load_dialogues(Path(run_dir) / DIALOGUES_FILE)
    scripts = load_case_scripts(Path(run_dir) / "case_scripts")
    with ResponseCache(Path(out).with_suffix(".sqlite")) as cache, \
            ChatClient(cfg, api_key=key, cache=cache, rng=Rng(0)) as client:
        run = score_dialogues(dialogues, client, load_taxonomy(taxonomy), metrics, case_scripts=scripts)
    write_table(run.ratings, out)
    return out


@flow(name="osce-collect-analyze")
def osce_collect_analyze(packets: str, key: str, out: str, taxonomy: str | None = None,
                         judge_ratings: str | None = None, run: str | None = None, judge_endpoint: str | None = None,
                         judge_metrics: list[str] | None = None, strata: bool = True) -> str:
    """Filled packets -> ``out/ratings.csv`` -> the analysis report in ``out/report``. The report compares the
    LLM rubric judge with the raters when ``judge_ratings`` holds its scores, or when ``judge_endpoint`` (an
    endpoint YAML) and ``run`` (the VSP run folder) are given: then the judge scores the run's dialogues first."""
    out = os.path.abspath(out)
    ratings = collect_task(packets, key, str(Path(out) / "ratings.csv"), taxonomy)
    if judge_endpoint:
        if not run:
            raise ValueError("judge_endpoint needs run (the VSP run folder whose dialogues the judge scores)")
        judge_ratings = rubric_task(run, judge_endpoint, str(Path(out) / "judge.csv"), taxonomy, judge_metrics)
    return osce_analysis(ratings=ratings, out_dir=str(Path(out) / "report"), taxonomy=taxonomy, strata=strata,
                         judge_ratings=judge_ratings)
