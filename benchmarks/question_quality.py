"""Questions a person would ask (issue 29), measured on a generated corpus:

- the locator share: questions that name their table, figure or page (the policy's cap is
  ``generation.qa.derive.LOCATED_MAX``), per corpus and per recipe;
- unlocated questions that are ambiguous in their document: for each question without a locator, the
  document's other drawn facts are searched for one that the question could equally mean (the same label
  once where it is drawn is taken out) with another value. Searched here from the corpus files (the IR's
  facts and the evidence), independently of the generator's own check;
- question length in words, median and 90th percentile per QA type, and the longest;
- accepted answers that parse to another value than the answer (``ir.answers.form_denotes``);
- wording defects (``corpus.views.question_lint``: a period or a preposition used as the thing measured,
  broken plurals, a form title used as a noun, ...), by check;
- QA types by genre block: which genre blocks (``Block.genre_block``) the questions' facts come from.

    .venv/bin/python benchmarks/question_quality.py CORPUS [--json OUT]
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from collections import Counter, defaultdict

from synthdocqa.corpus.store import open_corpus
from synthdocqa.corpus.views.question_lint import question_defects
from synthdocqa.ir.answers import form_denotes

LOCATOR = re.compile(r"\b(?:Table|Figure|Chart|Exhibit) \d+[A-Za-z]?\b|\bpages? \d+\b")
WHERE = re.compile(r"\s+shown in (?:Figure|Table|the chart)\b[^,;]*$|\s*\((?:Table|Figure) \d+\)|"
                   r"\s+in the register \(Table \d+\)|\s+on page \d+|\s+in Table \d+$|\s+\((?:handwritten note|"
                   r"stamp|signature|highlight)[^)]*\)")


def identity(label: str) -> str:
    """What a question says of a fact without its locator: the label with where it is drawn taken out."""
    return " ".join(WHERE.sub("", label).lower().split())


def p90(xs: list[int]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]


def measure(corpus: str) -> dict:
    reader = open_corpus(corpus)
    n = located = ambiguous = false_forms = 0
    words: dict[str, list[int]] = defaultdict(list)
    per_recipe: dict[str, Counter] = defaultdict(Counter)
    by_block: dict[str, Counter] = defaultdict(Counter)
    examples: list[str] = []
    longest = (0, "")
    wording: Counter = Counter()
    for d in reader.doc_ids:
        doc = reader.ir(d)
        facts = doc.fact_index()
        asr = {a.id: a for a in reader.assertions(d)}
        # every fact drawn in the document (render map), keyed by identity
        rm = reader.render_map(d)
        drawn_all = {fid for sb in rm.spans for fid in sb.fact_ids}
        ident: dict[str, list] = defaultdict(list)
        for fid in drawn_all:
            if fid in facts:
                ident[identity(facts[fid].label)].append(facts[fid])
        genre_of = {fid: b.genre_block for _, b in doc.blocks() for fid in _block_facts(b)}
        for q in reader.qa(d):
            n += 1
            per_recipe[doc.recipe]["qa"] += 1
            w = len(q.question.split())
            words[q.qa_type].append(w)
            longest = max(longest, (w, q.question))
            if LOCATOR.search(q.question):
                located += 1
                per_recipe[doc.recipe]["located"] += 1
            else:
                fids = list(q.fact_ids)
                for aid in q.assertion_ids:
                    der = asr[aid].derivation
                    fids += [op.fact_id for op in der.operands] if der else []
                rivals = [(f, o) for fid in fids if fid in facts for f in [facts[fid]]
                          for o in ident.get(identity(f.label), []) if o.id != f.id and o.text != f.text]
                if rivals:
                    ambiguous += 1
                    if len(examples) < 5:
                        examples.append(f"{q.id}: {q.question} ({rivals[0][0].label!r} {rivals[0][0].text} vs "
                                        f"{rivals[0][1].text})")
            false_forms += sum(1 for f in q.accepted_answers if not form_denotes(q.answer, f))
            wording.update(c for c, _ in question_defects(q.question, q.answer_text, q.answer.kind))
            kinds = {genre_of.get(fid, "") for fid in q.fact_ids} - {""}
            for k in kinds or {"(general content)"}:
                by_block[k][q.qa_type] += 1
    return {
        "questions": n, "located": located, "located_share": round(located / max(1, n), 4),
        "ambiguous_unlocated": ambiguous, "ambiguous_examples": examples, "false_accepted_forms": false_forms,
        "wording_defects": sum(wording.values()), "wording_defects_by_check": dict(sorted(wording.items())),
        "words": {t: {"n": len(v), "median": statistics.median(v), "p90": p90(v), "max": max(v)}
                  for t, v in sorted(words.items())},
        "longest": {"words": longest[0], "question": longest[1]},
        "located_share_by_recipe": {r: round(c["located"] / max(1, c["qa"]), 3) for r, c in sorted(per_recipe.items())},
        "qa_types_by_genre_block": {k: dict(sorted(v.items())) for k, v in sorted(by_block.items())},
    }


def _block_facts(b) -> list[str]:
    from synthdocqa.ir.blocks import block_fact_ids

    return block_fact_ids(b)


def main(argv: list[str]) -> None:
    out = None
    if "--json" in argv:
        out = argv[argv.index("--json") + 1]
        argv = [a for a in argv if a not in ("--json", out)]
    m = measure(argv[0])
    text = json.dumps(m, indent=1)
    if out:
        with open(out, "w") as fh:
            fh.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
