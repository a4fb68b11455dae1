"""A document context as the planner makes it, for building genre blocks on their own in tests."""

from __future__ import annotations

from synthdocqa.generation.content.book import DocContext
from synthdocqa.generation.content.names import paper_of
from synthdocqa.generation.domains import DOMAINS, get_domain, get_recipe
from synthdocqa.generation.planner import document_context
from synthdocqa.ir import Rng
from synthdocqa.ir.document import DocumentIR, PagePlan, PerturbationProfile


def genre_ctx(recipe: str, seed: int = 0, domain: str | None = None) -> DocContext:
    """The context of a document of ``recipe`` (in ``domain``, else the first domain that has the recipe),
    with its cast, formats and calendar drawn from ``seed`` as ``plan_document`` draws them."""
    dom = get_domain(domain) if domain else next(d for d in DOMAINS if recipe in d.recipes)
    ctx, country = document_context(Rng(seed).fork("doc", 0), dom, get_recipe(recipe))
    ctx.country = country  # for paper size in doc_with
    return ctx


def doc_with(ctx: DocContext, blocks: list) -> DocumentIR:
    """A one-page document of ``ctx``'s recipe holding ``blocks`` (so the planner's consistency checks,
    ``tests.generation.plan_checks.all_problems``, can run on them)."""
    return DocumentIR(doc_id="doc_000000", index=0, seed=0, seed_path=["doc", 0], domain=ctx.domain.slug,
                      recipe=ctx.recipe.slug, title=f"Test {ctx.doc_reference()}", topic_brief="Test", page_size=paper_of(ctx.country),
                      reference=ctx.doc_reference(), as_at=ctx.anchor, entities=ctx.book.entities,
                      facts=ctx.book.facts, world=ctx.world_record(), pages=[PagePlan(page_no=1, blocks=blocks)],
                      perturbation=PerturbationProfile(tier="pristine", device="flatbed", pages=[]))
