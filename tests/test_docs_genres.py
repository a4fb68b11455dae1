"""docs/genres.md holds the grammars exactly as the code defines them."""

from pathlib import Path

from synthdocqa.generation.content.genre import GENRE_BLOCKS
from synthdocqa.generation.domains import RECIPES, grammar_table

DOC = Path(__file__).resolve().parents[1] / "docs" / "genres.md"


def test_the_grammar_table_in_the_docs_is_the_code():
    assert grammar_table() in DOC.read_text()


def test_every_genre_block_of_a_grammar_has_a_builder_and_is_documented():
    named = {b for r in RECIPES for b in r.genre_blocks}
    assert named == set(GENRE_BLOCKS)
    text = DOC.read_text()
    assert [b for b in sorted(named) if f"`{b}`" not in text.split("## What each genre block prints")[1]] == []
