"""The QA mix of a corpus: QA by type x difficulty x element, the multi-hop, multi-page and prose shares,
the largest question template (``generation.qa.mix`` says what a template is) and the per-page ratios.

    .venv/bin/python benchmarks/qa_mix.py CORPUS_DIR [--templates 10] [--markdown]
"""

from __future__ import annotations

import argparse
from collections import Counter

from synthdocqa.corpus.store import open_corpus
from synthdocqa.generation.qa.mix import QAMix
from synthdocqa.ir.vocab import DIFFICULTIES, QA_ELEMENTS, QA_TYPES


def corpus_mix(corpus_dir: str) -> QAMix:
    reader = open_corpus(corpus_dir)
    mix = QAMix()
    for doc_id in reader.doc_ids:
        rec = reader.record(doc_id)
        mix.add(reader.ir(doc_id), reader.qa(doc_id), n_pages=rec.n_pages, n_assertions=rec.n_assertions)
    return mix


def type_table(mix: QAMix) -> str:
    """Markdown table: one row per QA type, columns per difficulty and per element."""
    cols = [f"{d}" for d in DIFFICULTIES] + [e for e in QA_ELEMENTS]
    lines = ["| QA type | total | " + " | ".join(cols) + " |", "|---" * (len(cols) + 2) + "|"]
    by_type: dict[str, Counter] = {t: Counter() for t in QA_TYPES}
    for (t, d, e), n in mix.by_type_difficulty_element.items():
        by_type[t][d] += n
        by_type[t][e] += n
        by_type[t]["total"] += n
    for t in QA_TYPES:
        c = by_type[t]
        lines.append(f"| {t} | {c['total']} | " + " | ".join(str(c[k] or "") for k in cols) + " |")
    tot: Counter = sum(by_type.values(), Counter())
    lines.append(f"| **all** | {tot['total']} | " + " | ".join(str(tot[k]) for k in cols) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus_dir")
    ap.add_argument("--templates", type=int, default=10, help="how many of the largest templates to list")
    args = ap.parse_args()
    mix = corpus_mix(args.corpus_dir)
    print(f"{args.corpus_dir}: {mix.n_docs} docs, {mix.n_pages} pages, {mix.n_qa} QA, {mix.n_assertions} assertions"
          f" ({mix.n_qa / max(1, mix.n_pages):.2f} QA/page, {mix.n_assertions / max(1, mix.n_qa):.2f} assertions/QA)")
    print()
    print(type_table(mix))
    print()
    hard = ", ".join(f"{t} {n}" for t, n in mix.hard_by_type.most_common())
    print(f"hard questions by type: {hard}")
    for name, n in (("multi-hop", mix.multi_hop), ("multi-page", mix.multi_page), ("prose", mix.prose)):
        print(f"{name} share: {mix.share(n):.1%} ({n})")
    t, s = mix.largest_template
    print(f"largest template share: {s:.1%}  {t!r}")
    o, so = mix.largest_opening
    print(f"largest opening share: {so:.1%}  {o!r}")
    print(f"distinct templates: {len(mix.templates)}")
    print()
    for t, n in mix.templates.most_common(args.templates):
        print(f"{mix.share(n):6.1%} {n:4d}  {t}")


if __name__ == "__main__":
    main()
