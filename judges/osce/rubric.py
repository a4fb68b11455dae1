"""LLM rubric scoring of VSP dialogues and judge-vs-human agreement.

Each (metric, unit) becomes one chat request through the shared OpenAI-compatible client
(``judges.llm``: cache, retries, invalid replies counted, never guessed). Sentence-level metrics rate
one VSP answer (with the preceding turns as context); encounter-level metrics rate the whole
dialogue. Every request carries its case's script (``case_scripts``) inside ``<case_script>`` tags;
metrics whose rubric compares with the case script refuse to start without one. ``plan_requests``
builds every prompt without calling anything (the CLI's ``--dry-run``). The judge must reply ``{"reason": str, "score": int}`` with the score on the metric's
scale; anything else is an ``invalid`` result (counted in the run, absent from the ratings).

Agreement with the human raters per metric: exact and within-one agreement and quadratic-weighted
kappa of the judge against the per-unit human median (rounded half up onto the scale), ICC(2,1) of
the judge against the per-unit human mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from synthdocqa.judges.llm import (
    ChatClient,
    ChatRequest,
    PromptTemplate,
    VerdictError,
    load_prompt,
    parse_json_object,
)
from synthdocqa.judges.reliability import ReliabilityError, agreement_summary

from .case_scripts import NO_SCRIPT, missing_scripts
from .loaders import OsceInputError
from .schema import RATING_COLUMNS, AnalysisResult, Dialogue, MetricSpec, Taxonomy

RUBRIC_PROMPT_PATH = Path(__file__).resolve().parent / "prompts" / "osce_rubric_v3.md"
"""v3: the whole instruction in the user message (chat templates such as Gemma's drop system messages)."""


def score_schema(scale_min: int, scale_max: int) -> dict[str, Any]:
    """The JSON schema of a rubric reply (structured output): a short reason, then a score on the scale."""
    return {"type": "object", "additionalProperties": False, "required": ["reason", "score"],
            "properties": {"reason": {"type": "string", "maxLength": 300},
                           "score": {"type": "integer", "enum": list(range(scale_min, scale_max + 1))}}}
CONTEXT_TURNS = 3
CHARS_PER_TOKEN = 4  # rough size estimate for the dry run


def load_rubric_prompt(path: str | Path | None = None) -> PromptTemplate:
    return load_prompt(Path(path) if path is not None else RUBRIC_PROMPT_PATH)


def make_score_parser(scale_min: int, scale_max: int):
    """Strict parser: a JSON object with a string ``reason`` and an integer ``score`` on the scale."""

    def parse(text: str) -> dict[str, Any]:
        obj = parse_json_object(text)
        if "score" not in obj:
            raise VerdictError("missing key 'score'")
        score = obj["score"]
        if isinstance(score, bool):
            raise VerdictError(f"score={score!r} is not an integer")
        if isinstance(score, float) and score.is_integer():
            score = int(score)
        if isinstance(score, str) and score.strip().lstrip("-").isdigit():
            score = int(score.strip())
        if not isinstance(score, int):
            raise VerdictError(f"score={obj['score']!r} is not an integer")
        if not scale_min <= score <= scale_max:
            raise VerdictError(f"score={score} outside [{scale_min}, {scale_max}]")
        reason = obj.get("reason", "")
        if not isinstance(reason, str):
            raise VerdictError("reason is not a string")
        return {"score": score, "reason": reason}

    return parse


class RubricItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    metric: str
    level: str
    case: str
    encounter: str
    responder: str
    utterance_id: str | None = None
    turn: int | None = None
    history_category: str | None = None
    linguistic_form: str | None = None


class RubricRun(BaseModel):
    """Judge scores in the ratings' long format, plus what could not be scored and why."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    ratings: pd.DataFrame
    invalid: pd.DataFrame = Field(description="key, metric, invalid_reason, error")
    n_requests: int
    prompt_sha256: str


def _transcript(turns: Sequence[Any]) -> str:
    return "\n".join(f"Student: {t.question}\nPatient: {t.response}" for t in turns)


def build_requests(
    dialogues: Iterable[Dialogue], metrics: Sequence[MetricSpec], prompt: PromptTemplate,
    case_scripts: dict[str, str] | None = None,
) -> list[tuple[RubricItem, ChatRequest, MetricSpec]]:
    """One request per metric x unit (utterance for sentence level, dialogue for encounter level)."""
    out = []
    for d in dialogues:
        script = (case_scripts or {}).get(d.case) or NO_SCRIPT
        for m in metrics:
            values = {"metric": m.name, "description": m.description or m.name, "scale_min": str(m.scale_min),
                      "scale_max": str(m.scale_max), "case_script": script}
            if m.level == "encounter":
                key = f"{m.name}|{d.case}|{d.encounter}|{d.responder}"
                item = RubricItem(key=key, metric=m.name, level=m.level, case=d.case, encounter=d.encounter,
                                  responder=d.responder)
                msgs = prompt.render({**values, "target": "the patient's answers across the whole dialogue",
                                      "transcript": _transcript(d.turns)})
                out.append((item, _request(key, prompt, msgs, m), m))
                continue
            for i, t in enumerate(d.turns):
                key = f"{m.name}|{d.case}|{d.encounter}|{d.responder}|{t.utterance_id}"
                item = RubricItem(key=key, metric=m.name, level=m.level, case=d.case, encounter=d.encounter,
                                  responder=d.responder, utterance_id=t.utterance_id, turn=t.turn,
                                  history_category=t.history_category, linguistic_form=t.linguistic_form)
                context = d.turns[max(0, i - CONTEXT_TURNS): i + 1]
                msgs = prompt.render({**values, "target": "only the patient's LAST answer in the dialogue",
                                      "transcript": _transcript(context)})
                out.append((item, _request(key, prompt, msgs, m), m))
    return out


def _request(key: str, prompt: PromptTemplate, msgs: list[dict[str, str]], m: MetricSpec) -> ChatRequest:
    return ChatRequest(key=key, prompt_hash=prompt.sha256, messages=msgs, schema=score_schema(m.scale_min, m.scale_max),
                       repair_hint=f'{{"reason": "<one sentence>", "score": <integer {m.scale_min}-{m.scale_max}>}}')


class RubricPlan(BaseModel):
    """Every request of a rubric run, built without calling an endpoint (``--dry-run``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    requests: list[tuple[RubricItem, ChatRequest, MetricSpec]]
    prompt_name: str
    prompt_sha256: str
    cases_with_script: list[str]
    cases_without_script: list[str]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for item, _, _ in self.requests:
            out[item.metric] = out.get(item.metric, 0) + 1
        return out

    @property
    def prompt_chars(self) -> int:
        return sum(len(m["content"]) for _, r, _ in self.requests for m in r.messages)

    @property
    def approx_tokens(self) -> int:
        return self.prompt_chars // CHARS_PER_TOKEN


def plan_requests(
    dialogues: Sequence[Dialogue],
    taxonomy: Taxonomy | None = None,
    metrics: Sequence[str] | None = None,
    prompt: PromptTemplate | None = None,
    case_scripts: dict[str, str] | None = None,
) -> RubricPlan:
    """Validate the case scripts against the metrics and build every request (nothing is sent)."""
    tax = taxonomy or Taxonomy()
    specs = [tax.metric(m) for m in (metrics or tax.metric_names)]
    problem = missing_scripts(dialogues, specs, case_scripts)
    if problem:
        raise OsceInputError("rubric", [problem])
    tmpl = prompt or load_rubric_prompt()
    cases = sorted({d.case for d in dialogues})
    have = [c for c in cases if (case_scripts or {}).get(c)]
    return RubricPlan(requests=build_requests(dialogues, specs, tmpl, case_scripts), prompt_name=tmpl.name,
                      prompt_sha256=tmpl.sha256, cases_with_script=have,
                      cases_without_script=[c for c in cases if c not in have])


def score_dialogues(
    dialogues: Sequence[Dialogue],
    client: ChatClient,
    taxonomy: Taxonomy | None = None,
    metrics: Sequence[str] | None = None,
    prompt: PromptTemplate | None = None,
    rater: str | None = None,
    case_scripts: dict[str, str] | None = None,
) -> RubricRun:
    """Score every dialogue on every metric with the LLM judge behind ``client``."""
    plan = plan_requests(dialogues, taxonomy, metrics, prompt, case_scripts)
    reqs = plan.requests
    rater_name = rater or f"llm:{client.config.name}"
    rows: list[dict[str, Any]] = []
    bad: list[dict[str, Any]] = []
    by_scale: dict[tuple[int, int], list[tuple[RubricItem, ChatRequest, MetricSpec]]] = {}
    for r in reqs:
        by_scale.setdefault((r[2].scale_min, r[2].scale_max), []).append(r)
    for (lo, hi), group in by_scale.items():
        results = client.complete_many([g[1] for g in group], parse=make_score_parser(lo, hi))
        for (item, _, _), res in zip(group, results, strict=True):
            if res.status == "ok" and res.verdict is not None:
                rows.append({**item.model_dump(exclude={"key"}), "rater": rater_name, "score": int(res.verdict["score"]),
                             "reason": res.verdict.get("reason", "")})
            else:
                bad.append({"key": item.key, "metric": item.metric, "invalid_reason": res.invalid_reason,
                            "error": res.error})
    ratings = pd.DataFrame(rows, columns=[*RATING_COLUMNS, "reason"])
    return RubricRun(ratings=ratings, invalid=pd.DataFrame(bad, columns=["key", "metric", "invalid_reason", "error"]),
                     n_requests=len(reqs), prompt_sha256=plan.prompt_sha256)


def _unit_key(df: pd.DataFrame) -> pd.Series:
    parts = [df[c].astype("string").fillna("") for c in ("case", "encounter", "responder", "utterance_id")]
    return parts[0] + "|" + parts[1] + "|" + parts[2] + "|" + parts[3]


def judge_agreement(judge: pd.DataFrame, human: pd.DataFrame, taxonomy: Taxonomy | None = None) -> pd.DataFrame:
    """Per metric: n units, exact, within-one, quadratic kappa (vs human median), ICC(2,1) (vs mean)."""
    tax = taxonomy or Taxonomy()
    j = judge.assign(unit=_unit_key(judge).to_numpy())
    h = human.assign(unit=_unit_key(human).to_numpy())
    rows = []
    for metric in [m for m in tax.metric_names if m in set(j["metric"])]:
        spec = tax.metric(metric)
        hm = h[h["metric"] == metric].groupby("unit")["score"].agg(["median", "mean"])
        jm = j[j["metric"] == metric].set_index("unit")["score"]
        both = hm.join(jm.rename("judge"), how="inner")
        if both.empty:
            continue
        median = np.floor(both["median"].to_numpy(dtype=float) + 0.5)
        labels = list(range(spec.scale_min, spec.scale_max + 1))
        try:
            s = agreement_summary(both["judge"].to_numpy(dtype=float), median, labels=labels)
            icc_mean = agreement_summary(both["judge"].to_numpy(dtype=float), both["mean"].to_numpy(dtype=float)).icc2_1
        except ReliabilityError:
            continue
        rows.append({"metric": metric, "n_units": s.n, "exact": s.exact, "within_one": s.within_one,
                     "kappa_quadratic": s.kappa_quadratic, "icc2_1_vs_mean": icc_mean,
                     "mean_difference": s.mean_difference})
    out = pd.DataFrame(rows, columns=["metric", "n_units", "exact", "within_one", "kappa_quadratic",
                                      "icc2_1_vs_mean", "mean_difference"])
    return out.astype({"n_units": int}) if len(out) else out


def judge_gaps(judge: pd.DataFrame, raters: AnalysisResult, taxonomy: Taxonomy | None = None) -> pd.DataFrame:
    """The responders' gaps from the reference estimated from the judge's scores with the raters' model, beside the
    raters' own: does the judge rank the VSPs as the raters do?

    The judge's table is analysed exactly as the raters' (``analysis.analyze``, same reference, the dialogue and
    answer effects chosen the same way; one judge: no rater variance). One row per metric x responder: both
    estimates with their CIs, whether they point the same way, and per metric the Spearman correlation of the
    responders' gaps (the reference at 0) and whether the judge's order of the responders is the raters' order."""
    from scipy.stats import spearmanr

    from .analysis import AnalysisOptions, analyze
    from .lmm_solver import LmmError

    tax = taxonomy or Taxonomy()
    cols = ["metric", "responder", "raters_gap", "raters_ci_low", "raters_ci_high", "judge_gap", "judge_ci_low",
            "judge_ci_high", "same_direction", "spearman_rho", "same_order"]
    try:
        mine = analyze(judge, tax, AnalysisOptions(stratifiers=(), reliability=False),
                       metrics=[m for m in raters.metrics if m in set(judge["metric"])])
    except (LmmError, ValueError) as err:  # the judge's table cannot carry the model: said, not fatal
        out = pd.DataFrame([], columns=cols)
        out.attrs["exclusions"] = [f"the judge's scores cannot be modelled: {err}"]
        return out
    theirs = {(c.metric, c.responder): c for c in raters.main}
    rows = []
    for metric in mine.metrics:
        pairs = [(theirs[(c.metric, c.responder)], c) for c in mine.main
                 if c.metric == metric and (c.metric, c.responder) in theirs]
        if not pairs:
            continue
        a = np.array([0.0] + [r.estimate for r, _ in pairs])
        b = np.array([0.0] + [j.estimate for _, j in pairs])
        rho = float(spearmanr(a, b).statistic) if len(a) > 2 and np.ptp(a) > 0 and np.ptp(b) > 0 else None
        same_order = bool(np.array_equal(np.argsort(-a, kind="stable"), np.argsort(-b, kind="stable")))
        for r, j in pairs:
            rows.append({"metric": metric, "responder": r.responder, "raters_gap": r.estimate, "raters_ci_low": r.ci_low,
                         "raters_ci_high": r.ci_high, "judge_gap": j.estimate, "judge_ci_low": j.ci_low,
                         "judge_ci_high": j.ci_high, "same_direction": bool(np.sign(r.estimate) == np.sign(j.estimate)),
                         "spearman_rho": rho, "same_order": same_order})
    out = pd.DataFrame(rows, columns=cols)
    out.attrs["exclusions"] = list(mine.exclusions)  # why a metric of the judge's has no gaps
    return out


__all__ = ["RubricPlan", "RubricRun", "build_requests", "judge_agreement", "judge_gaps", "load_rubric_prompt", "make_score_parser",
           "plan_requests", "score_dialogues"]
