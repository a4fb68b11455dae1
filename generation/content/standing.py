"""Which standing text a document may carry: the genres (and issuers) of each kind, from
``catalogue/standing.yaml``.

Standing text is what a document says whatever its figures: a confidentiality mark, a review window and who
approves late submissions, an action list, an exchange-rate note, an audit status, the period it covers, an
approved budget envelope. The generator asks ``allows(ctx, kind)`` before writing one; the genre lint asks
``recipe_allows`` of a finished document.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from synthdocqa.generation.catalogue import Entry, load
from synthdocqa.ir.base import RecipeName
from synthdocqa.ir.rng import Rng

from .book import DocContext

StandingKind = Literal["confidentiality", "review_window", "actions", "currency_note", "audit_status",
                       "period_covered", "envelope"]
STANDING_KINDS: tuple[StandingKind, ...] = get_args(StandingKind)


class Rule(Entry):
    recipes: tuple[RecipeName, ...]
    foreign_currency_only: tuple[RecipeName, ...] = ()
    issuer_share: float = Field(default=1.0, ge=0.0, le=1.0)


class Standing(Entry):
    confidentiality: Rule
    review_window: Rule
    actions: Rule
    currency_note: Rule
    audit_status: Rule
    period_covered: Rule
    envelope: Rule
    stamps: dict[str, tuple[RecipeName, ...] | None] = Field(min_length=1)


STANDING = load("standing.yaml", Standing)


def stamp_words(recipe: str) -> tuple[str, ...]:
    """The rubber-stamp words a page of genre ``recipe`` may carry (``standing.yaml``: a PAID stamp on an invoice,
    never on minutes)."""
    return tuple(w for w, recipes in STANDING.stamps.items() if recipes is None or recipe in recipes)


def rule(kind: StandingKind) -> Rule:
    return getattr(STANDING, kind)


def recipe_allows(recipe: str, kind: StandingKind, foreign_currency: bool = False) -> bool:
    """Whether a document of genre ``recipe`` may carry standing text ``kind`` (``foreign_currency``: an amount
    in a currency other than the document's own appears in it)."""
    r = rule(kind)
    return recipe in r.recipes and (foreign_currency or recipe not in r.foreign_currency_only)


def house_rule(issuer_rng: Rng, kind: StandingKind) -> bool:
    """Whether the issuer's house rule carries ``kind`` (drawn once per issuer from its own stream)."""
    share = rule(kind).issuer_share
    return share >= 1.0 or issuer_rng.fork("house_rule", kind).bernoulli(share)


def foreign_currency(ctx: DocContext) -> bool:
    """Whether a money fact of the document so far is in a currency other than its own."""
    return any(getattr(f.value, "currency", ctx.fmt.currency) != ctx.fmt.currency for f in ctx.book.facts)


def allows(ctx: DocContext, kind: StandingKind) -> bool:
    """Whether the document may carry standing text ``kind``: its genre's and its issuer's rule."""
    r = rule(kind)
    fx = kind == "currency_note" and ctx.recipe.slug in r.foreign_currency_only and foreign_currency(ctx)
    return (recipe_allows(ctx.recipe.slug, kind, fx) and
            (r.issuer_share >= 1.0 or ctx.world.remember(("house_rule", kind),
                                                         lambda: house_rule(ctx.world.rng, kind))))


__all__ = ["STANDING", "STANDING_KINDS", "Rule", "Standing", "StandingKind", "allows", "foreign_currency",
           "house_rule", "recipe_allows", "rule", "stamp_words"]
