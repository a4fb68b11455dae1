"""Genre-level lint: a document holds what its genre's grammar says, and nothing the genre does not hold.

Read from the IR against the recipe's grammar (``generation.domains.Recipe.grammar``):

- ``missing_section``: a required section of the grammar has no heading in the document;
- ``missing_block``: a section the document has lacks one of the genre blocks the grammar puts in it;
- ``misplaced_block``: a genre block stands under another section's heading than the grammar's;
- ``foreign_block``: a genre block of a kind the recipe's grammar does not name (an enrolment form in an
  annual report), or general content of an element kind the recipe rules out (a form in a report).
"""

from __future__ import annotations

import re

from synthdocqa.generation.domains import RECIPE_BY_SLUG, Recipe
from synthdocqa.generation.planner import qa_bearing_blocks
from synthdocqa.ir.blocks import ELEMENT_OF_BLOCK
from synthdocqa.ir.document import DocumentIR

_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|Appendix [A-Z])\s+")  # "3 Findings", "3.2 ...", minutes' "4. Resolutions"
_FIELD = re.compile(r"\\\{[A-Za-z_]+\\\}")


def _pattern(title: str) -> re.Pattern[str]:
    """A section title pattern (``{Item_kind} Performance``) as a regex over printed headings."""
    return re.compile("^" + _FIELD.sub(".+", re.escape(title)) + "$")


def _problem(doc_id: str, check: str, detail: str, page_no: int | None = None):
    from .lint import LintProblem

    return LintProblem(doc_id=doc_id, page_no=page_no, kind="genre", check=check, detail=detail)


def section_of_blocks(doc: DocumentIR, recipe: Recipe) -> dict[str, int]:
    """The grammar section (index) each block of the body stands under (the last section heading before it)."""
    patterns = [_pattern(sec.title) for sec in recipe.grammar]
    out: dict[str, int] = {}
    current = -1
    for page in doc.pages:
        if page.role != "body":
            continue
        for b in page.blocks:
            if b.type == "heading":
                text = _NUMBER.sub("", "".join(s.text for s in b.spans)).strip()
                hit = next((i for i, p in enumerate(patterns) if p.match(text)), None)
                if hit is not None:
                    current = hit
                elif text.startswith(f"{recipe.appendix}") or "".join(s.text for s in b.spans).startswith("Appendix"):
                    current = -2  # the appendix: no section of the grammar
            out[b.id] = current
    return out


def genre_problems(doc_id: str, doc: DocumentIR) -> list:
    """Every way the document departs from its recipe's grammar (empty: it holds together as its genre)."""
    recipe = RECIPE_BY_SLUG[doc.recipe]
    where = section_of_blocks(doc, recipe)
    problems = []
    present = {i for i in where.values() if i >= 0}
    for i, sec in enumerate(recipe.grammar):
        if sec.required and i not in present:
            problems.append(_problem(doc_id, "missing_section", f"required section {sec.title!r} is missing"))
    kinds_at: dict[str, set[int]] = {}
    page_of = {b.id: p for p, b in doc.blocks()}
    allowed = recipe.genre_blocks
    generic = recipe.generic_elements
    qa_blocks = {bid for bid, _ in qa_bearing_blocks(doc)}
    for p, b in doc.blocks():
        if b.genre_block:
            kinds_at.setdefault(b.genre_block, set()).add(where.get(b.id, -1))
            if b.genre_block not in allowed:
                problems.append(_problem(doc_id, "foreign_block", f"{b.id}: a {b.genre_block} has no place in a "
                                         f"{recipe.title.lower()}", p))
        elif b.id in qa_blocks and ELEMENT_OF_BLOCK[b.type] not in generic and where.get(b.id, -1) != -2:
            problems.append(_problem(doc_id, "foreign_block", f"{b.id}: a {ELEMENT_OF_BLOCK[b.type]} "
                                     f"({getattr(b, 'title', '') or b.type}) in a {recipe.title.lower()}, which "
                                     "holds none", p))
    home: dict[str, set[int]] = {}
    for i, sec in enumerate(recipe.grammar):
        for kind in sec.blocks:
            home.setdefault(kind, set()).add(i)
        if i in present:
            problems += [_problem(doc_id, "missing_block", f"section {sec.title!r} lacks its {kind}")
                         for kind in sec.blocks if not kinds_at.get(kind)]
    for kind, at in kinds_at.items():
        stray = sorted(at - home.get(kind, set()))
        if kind in home and stray:
            blocks = [b.id for _, b in doc.blocks() if b.genre_block == kind and where.get(b.id, -1) in stray]
            sections = " or ".join(repr(recipe.grammar[i].title) for i in sorted(home[kind]))
            problems.append(_problem(doc_id, "misplaced_block", f"{kind} ({', '.join(blocks)}) stands outside "
                                     f"section {sections}", page_of.get(blocks[0]) if blocks else None))
    return problems


__all__ = ["genre_problems", "section_of_blocks"]
