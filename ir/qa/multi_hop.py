"""Two hops across pages: a person or organisation named on one page, one of its attributes on another."""

from __future__ import annotations

from ..answers import answer_for_value
from ..blocks import ELEMENT_OF_BLOCK
from ..facts import Fact
from ..rng import Rng
from ..values import OrganisationValue, PersonValue
from .claims import Draft
from .context import QAContext, lc

HopPair = tuple[Fact, Fact]
"""``(naming fact, attribute fact)`` of one entity, drawn on disjoint pages."""


def multi_hop_pairs(ctx: QAContext) -> list[HopPair]:
    """Every (name, attribute) pair of an entity whose attribute is drawn on no page that shows the name."""
    pairs = []
    by_subject: dict[str, list[Fact]] = {}
    for f in ctx.doc.facts:
        if f.subject and ctx.drawn(f.id) and not isinstance(f.value, PersonValue | OrganisationValue):
            by_subject.setdefault(f.subject, []).append(f)
    names = [f for f in ctx.doc.facts if isinstance(f.value, PersonValue | OrganisationValue)
             and f.value.entity_id and ctx.drawn(f.id)]
    for nf in names:
        p1 = {e.page_no for e in ctx.ev[nf.id]}
        for f in by_subject.get(nf.value.entity_id, []):
            if f.id != nf.id and not ({e.page_no for e in ctx.ev[f.id]} & p1):
                pairs.append((nf, f))
    return pairs


def multi_hop(ctx: QAContext, pairs: list[HopPair], rng: Rng) -> Draft | None:
    """``pairs``: the document's hop pairs (its one source)."""
    nf, f = rng.choice(pairs)
    ent = ctx.entities.get(nf.value.entity_id)
    role = (ent.role if ent and ent.role else nf.label).strip()
    p1 = ctx.ev[nf.id][0].page_no
    attr = f.attribute.replace("_", " ") if f.attribute else lc(f.label)
    q = f"What is the {attr} of the {lc(role)} named on page {p1}?"
    el = ELEMENT_OF_BLOCK[ctx.block_of(f.id).type]
    return Draft("multi_hop", el, q, answer_for_value(f.value), f.text, [
        ctx.claim_fact(nf, f"The {lc(role)} named on page {p1} is {nf.text}."),
        ctx.claim_fact(f)])
