"""Every recipe under the demo profile (issue 29): one small corpus per recipe (the demo spec with
``recipes`` set to it; ``--extra`` recipes get two documents, so 26 recipes give 30 documents), then the
genre lint and the question figures over all of them.

    .venv/bin/python benchmarks/genre_corpora.py OUT [--seed 2929] [--extra invoice,board_minutes,...]

Writes OUT/<recipe>/ (a corpus each) and OUT/summary.json: genre lint problems by check, the lint's other
kinds, and ``benchmarks/question_quality.py``'s figures over the union.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path

from synthdocqa.corpus.generate import generate_corpus
from synthdocqa.corpus.views.lint import lint_corpus
from synthdocqa.generation.domains import RECIPES
from synthdocqa.ir.spec import demo_spec

DEFAULT_EXTRA = ("invoice", "board_minutes", "annual_report", "contract_summary")


def main(argv: list[str]) -> None:
    from question_quality import measure  # the sibling script (benchmarks/ is on the path)

    out = Path(argv[0])
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 2929
    extra = tuple(argv[argv.index("--extra") + 1].split(",")) if "--extra" in argv else DEFAULT_EXTRA
    out.mkdir(parents=True, exist_ok=True)
    lint_counts: Counter = Counter()
    genre_problems: list[str] = []
    quality = []
    docs = 0
    t0 = time.perf_counter()
    for r in RECIPES:
        spec = demo_spec(seed=seed, n_docs=2 if r.slug in extra else 1).model_copy(update={"recipes": [r.slug]})
        where = out / r.slug
        generate_corpus(spec, where, force=True)
        report = lint_corpus(where)
        docs += report.documents
        lint_counts.update(p.kind for p in report.problems if p in report.failing)
        genre_problems += [p.line() for p in report.problems if p.kind == "genre"]
        quality.append(measure(str(where)))
        print(f"{r.slug}: {report.summary()}", flush=True)
    n = sum(q["questions"] for q in quality)
    summary = {
        "seed": seed, "documents": docs, "seconds": round(time.perf_counter() - t0, 1),
        "lint_failing_by_kind": dict(lint_counts), "genre_problems": genre_problems,
        "questions": n,
        "located_share": round(sum(q["located"] for q in quality) / max(1, n), 4),
        "ambiguous_unlocated": sum(q["ambiguous_unlocated"] for q in quality),
        "false_accepted_forms": sum(q["false_accepted_forms"] for q in quality),
        "wording_defects": sum(q["wording_defects"] for q in quality),
        "longest_question_words": max(q["longest"]["words"] for q in quality),
        "by_recipe": {r.slug: {k: q[k] for k in ("questions", "located_share", "ambiguous_unlocated")}
                      for r, q in zip(RECIPES, quality, strict=True)},
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps({k: v for k, v in summary.items() if k != "by_recipe"}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
