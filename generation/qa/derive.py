"""One document's QA pairs and assertions: variants drawn by weight from the registry, sources drawn from
each variant's candidates, ids given in order."""

from __future__ import annotations

from ir import ids
from ir.answers import surface_forms
from ir.document import DocumentIR
from ir.qa_models import Assertion, Evidence, QAPair
from ir.rendermap import RenderMap
from ir.rng import Rng

from .context import QAContext
from .evidence import build_evidence
from .registry import VARIANTS


def derive_qa(doc: DocumentIR, render_map: RenderMap, evidence: dict[str, list[Evidence]] | None = None,
              qa_per_page: float = 3.8) -> tuple[list[QAPair], list[Assertion]]:
    """QA pairs for one document: about ``qa_per_page`` per rendered page, variants mixed by weight.

    Question ``attempt`` draws from ``Rng(doc).fork("qa").fork("q", attempt)``: its variant, its source,
    then the generator's own draws under ``.fork("gen")`` (its wording under ``.fork("gen").fork("phrase", key)``).
    Sources that give none and duplicates (the same question, or the same variant on the same facts) are
    skipped, up to 8 attempts per wanted question.
    """
    evidence = evidence if evidence is not None else build_evidence(render_map)
    rng = Rng(doc.seed, doc.seed_path).fork("qa")
    ctx = QAContext(doc, evidence)
    sources = {v.name: v.sources(ctx) for v in VARIANTS}
    n_pages = max(1, len(render_map.pages))
    target = max(1, round(qa_per_page * n_pages))
    variants = [v for v in VARIANTS if sources[v.name]]
    if not variants:
        return [], []
    weights = [v.weight for v in variants]
    qas: list[QAPair] = []
    asrs: list[Assertion] = []
    seen: set[str | tuple] = set()
    attempt = 0
    while len(qas) < target and attempt < target * 8:
        r = rng.fork("q", attempt)
        attempt += 1
        variant = r.choice(variants, p=weights)
        src = r.choice(sources[variant.name])
        draft = variant.generate(ctx, src, r.fork("gen"))
        if draft is None:
            continue
        same_facts = (variant.name, draft.fact_key) if draft.fact_key else None
        if draft.question in seen or same_facts in seen:
            continue
        seen |= {draft.question, same_facts} - {None}
        qa_id = ids.qa_id(doc.doc_id, len(qas))
        a_ids = []
        pages: set[int] = set()
        fids: list[str] = []
        for k, claim in enumerate(draft.claims):
            der = claim.derivation
            ev = ([e for op in der.operands for e in op.evidence] if der is not None else
                  [e for fid in claim.fact_ids for e in evidence.get(fid, [])])
            a = Assertion(id=ids.assertion_id(qa_id, k), qa_id=qa_id, doc_id=doc.doc_id, claim=claim.text, value=claim.value,
                          fact_ids=claim.fact_ids, evidence=ev, derivation=der)
            asrs.append(a)
            a_ids.append(a.id)
            pages |= {e.page_no for e in ev}
            fids += [f for f in claim.fact_ids if f not in fids]
        forms = surface_forms(draft.answer, draft.drawn)
        qas.append(QAPair(
            id=qa_id, doc_id=doc.doc_id, question=draft.question, answer=draft.answer, answer_text=forms[0],
            accepted_answers=forms, qa_type=draft.qa_type, element_type=draft.element,
            difficulty=variant.difficulty, page_nos=sorted(pages), fact_ids=fids,
            assertion_ids=a_ids))
    return qas, asrs
