"""Document-level figures of a generated corpus (issue 28): paper sizes, body font families, contents pages
checked against the PDF, repeated tables and captions, empty sections, unreferenced exhibits, prose share by
recipe, the QA mix and multi-hop questions that resolve to their own start.

    .venv/bin/python benchmarks/document_structure.py CORPUS
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict

from synthdocqa.corpus.store import open_corpus
from synthdocqa.corpus.views.doc_lint import (
    body_families,
    empty_sections,
    heading_pages,
    page_sizes,
    prose_share,
    read_spans,
    unreferenced_exhibits,
)
from synthdocqa.generation.content.front_matter import START_PAGE_LABEL, contents_table, printed_pages
from synthdocqa.generation.content.repeats import repeated_captions, repeated_tables
from synthdocqa.generation.domains import RECIPE_BY_SLUG
from synthdocqa.generation.qa.mix import qa_mix
from synthdocqa.generation.qa.own_start import resolves_to_own_start


def main(corpus: str) -> None:
    reader = open_corpus(corpus)
    tot: Counter = Counter()
    shares: dict[str, list[float]] = defaultdict(list)
    docs = []
    fam_max = 0
    for d in reader.doc_ids:
        doc, rm, pdf = reader.ir(d), reader.render_map(d), reader.pdf(d)
        qa, asr = reader.qa(d), reader.assertions(d)
        spans = read_spans(pdf)
        tot.update(docs=1, pages=len(rm.pages), qa=len(qa), assertions=len(asr),
                   docs_on_two_papers=len(set(page_sizes(pdf))) > 1, repeated_pairs=len(repeated_tables(doc)),
                   repeated_captions=len(repeated_captions(doc)), empty_sections=len(empty_sections(doc)),
                   unreferenced_exhibits=len(unreferenced_exhibits(doc)),
                   docs_with_contents=contents_table(doc) is not None)
        fam_max = max(fam_max, len(body_families(rm, spans)))
        drawn = heading_pages(doc, spans, rm)
        facts = {f.id: f for f in doc.facts}
        for fid, page in printed_pages(doc).items():
            tot["contents_rows"] += 1
            tot["contents_rows_right"] += drawn.get(facts[fid].label.removeprefix(START_PAGE_LABEL)) == page
        shares[doc.recipe].append(prose_share(rm))
        own = {a.id: a for a in asr}
        tot["own_start_multi_hop"] += sum(resolves_to_own_start(q, [own[i] for i in q.assertion_ids], doc)
                                          for q in qa if q.qa_type == "multi_hop")
        docs.append((doc, qa))
    mix = qa_mix(docs)
    print(dict(tot))
    print(f"pages/doc {tot['pages'] / tot['docs']:.2f}  QA/page {tot['qa'] / tot['pages']:.3f}  "
          f"assertions/QA {tot['assertions'] / tot['qa']:.3f}")
    print(f"most font families in one document's paragraphs: {fam_max}; contents rows right: "
          f"{tot['contents_rows_right']}/{tot['contents_rows']}")
    template, share = mix.largest_template
    print(f"multi-hop {mix.share(mix.multi_hop):.1%}, multi-page {mix.share(mix.multi_page):.1%}, "
          f"prose {mix.share(mix.prose):.1%}, largest template {share:.1%} ({template[:60]!r})")
    print("| recipe | class | documents | prose share: mean (min-max) | recipe's range |")
    print("|---|---|---|---|---|")
    for recipe, v in sorted(shares.items()):
        r = RECIPE_BY_SLUG[recipe]
        lo, hi = r.prose_share
        print(f"| {recipe} | {r.genre_class} | {len(v)} | {sum(v) / len(v):.0%} ({min(v):.0%}-{max(v):.0%}) | "
              f"{lo:.0%}-{hi:.0%} |")


if __name__ == "__main__":
    main(sys.argv[1])
