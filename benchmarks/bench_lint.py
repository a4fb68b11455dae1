"""The lint and the QA mix on a reference sample and the demo profile (issue 14's acceptance figures).

Generates N reference documents of a seed and the demo profile of the same seed (in this process with
``corpus.generate.generate_corpus``: the same bytes as ``synthdocqa generate``; a rerun resumes), runs
``corpus.views.lint`` on both and prints the problems per kind and per check, the half-empty share and,
from ``benchmarks/qa_mix.py``, the multi-hop, multi-page and prose shares and the largest template.

    .venv/bin/python benchmarks/bench_lint.py --seed S [--docs 20] [--out DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthdocqa.corpus.generate import generate_corpus  # noqa: E402
from synthdocqa.corpus.store import MANIFEST  # noqa: E402
from synthdocqa.corpus.views.lint import LINT_KINDS, lint_corpus  # noqa: E402
from synthdocqa.ir.files import atomic_write_json  # noqa: E402
from synthdocqa.ir.spec import demo_spec, reference_spec  # noqa: E402


def generate(spec, out: Path) -> float:
    """Seconds to generate (or finish) the corpus; nothing to do when its manifest is already there."""
    if (out / MANIFEST).is_file():
        return 0.0
    t0 = time.perf_counter()
    generate_corpus(spec, out)
    return time.perf_counter() - t0


def qa_figures(corpus_dir: Path) -> dict | None:
    """The QA mix of ``benchmarks/qa_mix.py`` (None when that script is not there)."""
    try:
        from qa_mix import corpus_mix
    except ImportError:
        return None
    mix = corpus_mix(str(corpus_dir))
    template, share = mix.largest_template
    return {"qa": mix.n_qa, "multi_hop": round(mix.share(mix.multi_hop), 4),
            "multi_page": round(mix.share(mix.multi_page), 4), "prose": round(mix.share(mix.prose), 4),
            "largest_template": round(share, 4), "largest_template_text": template,
            "templates": len(mix.templates)}


def measure(name: str, spec, out: Path) -> dict:
    gen_s = generate(spec, out)
    t0 = time.perf_counter()
    report = lint_corpus(out)
    lint_s = time.perf_counter() - t0
    checks = Counter(f"{p.kind}/{p.check}" for p in report.problems)
    return {"name": name, "corpus": str(out), "documents": report.documents, "pages": report.pages,
            "generate_s": round(gen_s, 1), "lint_s": round(lint_s, 1), "counts": report.counts,
            "checks": dict(sorted(checks.items())), "half_empty_share": report.half_empty_share,
            "lint_ok": report.ok, "qa_mix": qa_figures(out),
            "examples": {k: [p.line() for p in report.problems if p.kind == k][:3] for k in LINT_KINDS}}


def show(r: dict) -> None:
    print(f"== {r['name']}: {r['corpus']} ({r['documents']} docs, {r['pages']} pages; generate "
          f"{r['generate_s']} s, lint {r['lint_s']} s)")
    for k in LINT_KINDS:
        print(f"  {k:<15} {r['counts'][k]:>5}")
    print(f"  half-empty share {r['half_empty_share']:.1%}; lint {'passes' if r['lint_ok'] else 'fails'}")
    for check, n in r["checks"].items():
        print(f"    {check:<40} {n:>5}")
    for lines in r["examples"].values():
        for line in lines:
            print(f"    e.g. {line[:200]}")
    m = r["qa_mix"]
    if m is not None:
        print(f"  QA {m['qa']}: multi-hop {m['multi_hop']:.1%}, multi-page {m['multi_page']:.1%}, prose "
              f"{m['prose']:.1%}, largest template {m['largest_template']:.1%} ({m['largest_template_text']!r}), "
              f"{m['templates']} templates")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True, help="root seed of both corpora")
    ap.add_argument("--docs", type=int, default=20, help="reference documents (default 20)")
    ap.add_argument("--demo-docs", type=int, default=None, help="demo documents (default: the profile's)")
    ap.add_argument("--out", default="out/bench-lint", help="folder for the two corpora (reused on a rerun)")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    out = Path(args.out)
    demo = demo_spec(args.seed) if args.demo_docs is None else demo_spec(args.seed, args.demo_docs)
    runs = [("reference", reference_spec(args.seed, args.docs), out / f"reference-seed{args.seed}-n{args.docs}"),
            ("demo", demo, out / f"demo-seed{args.seed}-n{demo.n_docs}")]
    results = []
    for name, spec, path in runs:
        results.append(measure(name, spec, path))
        show(results[-1])
    if args.json:
        atomic_write_json(args.json, {"seed": args.seed, "runs": results})


if __name__ == "__main__":
    main()
