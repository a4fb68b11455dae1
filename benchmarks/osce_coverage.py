"""Coverage of the responder contrasts' 95% CIs over simulated studies: the default model against the old one.

Each study is the reference study's design (5 responders, 17 raters, 3 cases; ``--sentence`` adds the 88
scripted questions of one sentence-level metric) simulated from its own seed with a dialogue (and answer)
effect of ``--response-sd`` on the latent scale, and one responder planted equal to the reference (a null
contrast). Every contrast of every study is checked against its planted value (``analysis.coverage``): the
share of CIs that contain it, for

* ``default``: ``response_effect="auto"`` (the dialogue as a random effect at the encounter level; the answer
  effect kept at the sentence level when its likelihood-ratio test says so), and
* ``old``: ``response_effect="never"`` (the ratings of one dialogue treated as independent),

with the median df and the null contrast's rejection rate at 5% (unadjusted). Seeds start at ``--seed0``.

    .venv/bin/python benchmarks/osce_coverage.py --studies 200 --seed0 7000 [--jobs 2] [--sentence] [--json f]
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synthdocqa.ir.rng import Rng  # noqa: E402
from synthdocqa.judges.osce.analysis import AnalysisOptions, analyze, coverage  # noqa: E402
from synthdocqa.judges.osce.simulate import SimulationConfig, simulate_study  # noqa: E402

ENCOUNTER = ("overall", "accuracy")
NULL_RESPONDER = "llm_d"
MODELS = {"default": "auto", "old": "never"}


def _config(sentence: bool, response_sd: float) -> SimulationConfig:
    metrics = ENCOUNTER + (("correctness",) if sentence else ())
    effects = {r: {m: e for m in metrics} for r, e in (("llm_a", -0.25), ("llm_b", -0.5), ("llm_c", -0.8),
                                                        (NULL_RESPONDER, 0.0))}
    return SimulationConfig(metrics=metrics, responder_effects=effects, response_sd=response_sd)


def one_study(args: tuple[int, bool, float]) -> pd.DataFrame:
    seed, sentence, response_sd = args
    study = simulate_study(_config(sentence, response_sd), Rng(seed).fork("osce-coverage"))
    rows = []
    for name, choice in MODELS.items():
        res = analyze(study.ratings, options=AnalysisOptions(stratifiers=(), reliability=False, response_effect=choice))
        cv = coverage(res, study.truth)
        level = {f.metric: f.level for f in res.fits}
        cv = cv.assign(model=name, seed=seed, level=cv["metric"].map(level))
        rows.append(cv[["seed", "model", "metric", "level", "responder", "planted", "estimate", "ci_low", "ci_high",
                        "df", "p_value", "covered"]])
    return pd.concat(rows, ignore_index=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=200)
    ap.add_argument("--seed0", type=int, default=7000)
    ap.add_argument("--response-sd", type=float, default=0.3)
    ap.add_argument("--sentence", action="store_true", help="add one sentence-level metric (slower)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    jobs = [(a.seed0 + i, a.sentence, a.response_sd) for i in range(a.studies)]
    parts = []
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        for i, part in enumerate(pool.map(one_study, jobs, chunksize=4), 1):
            parts.append(part)
            if i % 20 == 0 or i == len(jobs):
                print(f"{i}/{len(jobs)} studies", file=sys.stderr, flush=True)
    d = pd.concat(parts, ignore_index=True)
    summary = []
    print(f"{a.studies} studies (seeds {a.seed0}..{a.seed0 + a.studies - 1}), response sd {a.response_sd}:")
    print("| level | model | contrasts | 95% CI coverage | median df | null contrast rejected at 5% |")
    print("|---|---|---:|---:|---:|---:|")
    for (level, model), g in d.groupby(["level", "model"], sort=True):
        null = g[g["responder"] == NULL_RESPONDER]
        row = {"level": level, "model": model, "contrasts": len(g), "coverage": float(g["covered"].mean()),
               "median_df": float(np.median(g["df"])), "null_rejected": float((null["p_value"] < 0.05).mean())}
        summary.append(row)
        print(f"| {level} | {model} | {row['contrasts']} | {100 * row['coverage']:.1f}% | {row['median_df']:.1f} | "
              f"{100 * row['null_rejected']:.1f}% |")
    if a.json:
        Path(a.json).write_text(json.dumps({"studies": a.studies, "seed0": a.seed0, "response_sd": a.response_sd,
                                            "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
