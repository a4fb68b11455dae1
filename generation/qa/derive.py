"""One document's QA pairs and assertions: variants drawn by weight from the registry, sources drawn from
each variant's candidates, ids given in order."""

from __future__ import annotations

import math
import re

from synthdocqa.ir import ids
from synthdocqa.ir.answers import surface_forms
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.qa_models import Assertion, Evidence, QAPair
from synthdocqa.ir.rendermap import RenderMap
from synthdocqa.ir.rng import Rng

from .context import QAContext
from .evidence import build_evidence
from .phrasing import QUESTION_MAX_WORDS
from .registry import VARIANTS

MULTI_HOP_FLOOR = 0.22
"""Least share of a document's questions that are multi-hop (where its content allows): once the questions
left to draw are no more than those still needed, only multi-hop variants are drawn. A long report meets it
by weight alone; a two-page purchase order, whose few multi-hop sources the weights seldom reach, needs it."""
MULTI_PAGE_FLOOR = 0.27
"""Least share of questions whose evidence spans two or more pages (documents of two pages or more), kept
the same way: once needed, only the variants that join two elements are drawn (multi-hop, cross
comparisons) and only drafts whose evidence spans pages are kept."""
FLOOR_GIVE_UP = 40
"""Forced draws that may fail in a row before a floor is given up for the document (it cannot meet it)."""
LOCATED_P = 0.05
"""How often a question that joins two elements is drawn naming where its tables, charts or pages are ("in
Table 11"); the others identify what they ask about by its content, and are asked only where that is
unambiguous in the document."""
LOCATED_P_ONE = 0.03
"""The same for a question about one element: named by its content, it stays short, while a join that names
two tables by their captions often runs past ``QUESTION_MAX_WORDS``; the locator budget (``LOCATED_MAX``)
goes to the joins first."""
LOCATED_MAX = 0.12
"""Most a document's questions that name a table, figure or page (the locator policy): past it, a draft
with a locator is not kept."""
LOCATOR = re.compile(r"\b(?:Table|Figure|Chart|Exhibit) \d+[A-Za-z]?\b|\bpages? \d+\b|\b[Ss]ection \d+(?:\.\d+)*\b")
"""A question that says where its answer is (a numbered table or figure, a page, a numbered section)."""


def located(question: str) -> bool:
    """Whether a question names where its answer is (``LOCATOR``)."""
    return LOCATOR.search(question) is not None


def derive_qa(doc: DocumentIR, render_map: RenderMap, evidence: dict[str, list[Evidence]] | None = None,
              qa_per_page: float = 3.8) -> tuple[list[QAPair], list[Assertion]]:
    """QA pairs for one document: about ``qa_per_page`` per rendered page, variants mixed by weight.

    Question ``attempt`` draws from ``Rng(doc).fork("qa").fork("q", attempt)``: its variant, its source,
    then the generator's own draws under ``.fork("gen")`` (its wording under ``.fork("gen").fork("phrase", key)``).
    Sources that give none and duplicates (the same question, or the same variant on the same facts) are
    skipped, up to 8 attempts per wanted question. Near the end, the multi-hop and multi-page floors
    (``MULTI_HOP_FLOOR``, ``MULTI_PAGE_FLOOR``) restrict the draws while a document still falls short of them.
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
    hops = [v for v in variants if v.qa_type == "multi_hop"]
    spanning = [v for v in variants if v.qa_type == "multi_hop" or v.name.endswith(".cross")]
    need_hops = math.ceil(MULTI_HOP_FLOOR * target) if hops else 0
    need_pages = math.ceil(MULTI_PAGE_FLOOR * target) if n_pages >= 2 else 0
    n_hops = n_multi_page = n_located = 0
    failed = {"hop": 0, "page": 0}
    attempt = 0
    while len(qas) < target and attempt < target * 8:
        r = rng.fork("q", attempt)
        attempt += 1
        left = target - len(qas)
        force_hop = failed["hop"] < FLOOR_GIVE_UP and need_hops - n_hops >= left
        force_page = not force_hop and failed["page"] < FLOOR_GIVE_UP and need_pages - n_multi_page >= left
        # a floor given up stays given up (failed stays at FLOOR_GIVE_UP)
        if force_hop:
            variant = r.choice(hops, p=[v.weight for v in hops])
        elif force_page and spanning:  # the variants that join two elements: most of their drafts span pages
            variant = r.choice(spanning, p=[v.weight for v in spanning])
        else:
            variant = r.choice(variants, p=weights)
        src = r.choice(sources[variant.name])
        p_located = LOCATED_P if variant in spanning else LOCATED_P_ONE
        ctx.located = r.fork("locate").bernoulli(p_located) and n_located < LOCATED_MAX * target - 1
        draft = variant.generate(ctx, src, r.fork("gen"))
        if draft is not None and not ctx.located and len(draft.question.split()) > QUESTION_MAX_WORDS and \
                n_located < LOCATED_MAX * target - 1:  # too long naming its tables by content: by number, then
            ctx.located = True
            draft = variant.generate(ctx, src, r.fork("gen"))
        same_facts = (variant.name, draft.fact_key) if draft is not None and draft.fact_key else None
        if draft is None or draft.question in seen or same_facts in seen or not askable(ctx, draft, n_located,
                                                                                          target):
            failed["hop"] += force_hop
            failed["page"] += force_page
            continue
        spans_pages = len(_pages(draft, evidence)) >= 2
        if force_page and not spans_pages:
            failed["page"] += 1
            continue
        for kind, forced in (("hop", force_hop), ("page", force_page)):
            if forced:
                failed[kind] = 0
        n_hops += draft.qa_type == "multi_hop"
        n_located += located(draft.question)
        n_multi_page += spans_pages
        seen |= {draft.question, same_facts} - {None}
        qa_id = ids.qa_id(doc.doc_id, len(qas))
        a_ids = []
        pages: set[int] = set()
        fids: list[str] = []
        for k, claim in enumerate(draft.claims):
            ev = _claim_evidence(claim, evidence)
            a = Assertion(id=ids.assertion_id(qa_id, k), qa_id=qa_id, doc_id=doc.doc_id, claim=claim.text, value=claim.value,
                          fact_ids=claim.fact_ids, evidence=ev, derivation=claim.derivation)
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


def askable(ctx: QAContext, draft, n_located: int, target: int) -> bool:
    """Whether a draft is a question a person would ask: at most ``QUESTION_MAX_WORDS`` words; naming its
    table, figure or page only while the document's share of such questions stays within ``LOCATED_MAX``;
    and, when it names none, unambiguous in the whole document (no other drawn fact that the question could
    equally mean holds another value: ``QAContext.rivals``)."""
    if len(draft.question.split()) > QUESTION_MAX_WORDS:
        return False
    if located(draft.question):
        return n_located + 1 <= LOCATED_MAX * target
    facts = [f for claim in draft.claims for f in claim.fact_ids]
    facts += [op.fact_id for claim in draft.claims if claim.derivation for op in claim.derivation.operands]
    return not ctx.rivals(facts)


def _claim_evidence(claim, evidence: dict[str, list[Evidence]]) -> list[Evidence]:
    """A claim's evidence: its derivation's operands', or its facts' boxes."""
    der = claim.derivation
    if der is not None:
        return [e for op in der.operands for e in op.evidence]
    return [e for fid in claim.fact_ids for e in evidence.get(fid, [])]


def _pages(draft, evidence: dict[str, list[Evidence]]) -> set[int]:
    """The pages a draft's evidence lies on (as its assertions will record them)."""
    return {e.page_no for claim in draft.claims for e in _claim_evidence(claim, evidence)}
