"""Genre blocks: the parts a document of a genre is made of (an invoice's parties and lines, a set of
minutes' attendance and resolutions, an annual report's statements), each with its own facts and
arithmetic.

A recipe's grammar (``generation.domains``: ``Recipe.grammar``) names the genre blocks each section holds;
the planner builds them at the start of the section, in order, before the section's general content. Each
builder takes the document's context and its own stream and returns the blocks of one genre block (most
one, some a heading-less pair such as a table and its note); ``build`` marks them with their kind
(``Block.genre_block``), which lint checks against the grammar.

Builders state every number that follows from others as a derivation (a statement's totals, quantity x
unit price, tax at the stated rate, likelihood x impact): ``ir.derivations`` recomputes them in the tests
and in ``corpus.verify``.
"""

from __future__ import annotations

from collections.abc import Callable

from synthdocqa.ir.blocks import Block
from synthdocqa.ir.rng import Rng

from ..book import DocContext

Builder = Callable[[DocContext, Rng], list[Block]]

GENRE_BLOCKS: dict[str, Builder] = {}
"""Every genre block kind and its builder (a test checks these are exactly the kinds the grammars name)."""


def _register(module_blocks: dict[str, Builder]) -> None:
    for kind, fn in module_blocks.items():
        if kind in GENRE_BLOCKS:
            raise ValueError(f"genre block {kind!r} defined twice")
        GENRE_BLOCKS[kind] = fn


def build(kind: str, ctx: DocContext, rng: Rng) -> list[Block]:
    """The blocks of one genre block of ``kind``, each marked with the kind."""
    try:
        fn = GENRE_BLOCKS[kind]
    except KeyError:
        raise KeyError(f"unknown genre block {kind!r}") from None
    return [b.model_copy(update={"genre_block": kind}) for b in fn(ctx, rng)]


def _load() -> None:
    import importlib

    for name in ("trade", "governance", "statements", "assessment", "records"):
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
            continue
        _register(module.BLOCKS)


_load()

__all__ = ["Builder", "GENRE_BLOCKS", "build"]
