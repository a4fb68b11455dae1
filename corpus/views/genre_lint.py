"""Genre-level lint: a document holds what its genre's grammar says, and nothing the genre does not hold.

Read from the IR against the recipe's grammar (``generation.domains.Recipe.grammar``):

- ``missing_section``: a required section of the grammar has no heading in the document;
- ``missing_block``: a section the document has lacks one of the genre blocks the grammar puts in it;
- ``misplaced_block``: a genre block stands under another section's heading than the grammar's;
- ``foreign_block``: a genre block of a kind the recipe's grammar does not name (an enrolment form in an
  annual report), or general content of an element kind the recipe rules out (a form in a report);
- ``misplaced_standing``: standing text the genre does not carry (``generation/catalogue/standing.yaml``): a
  confidentiality mark on an invoice, a review window and its late-submission approver in an invoice, an action
  list in an expense claim, the period covered or an approved envelope in minutes, an exchange-rate note where
  no amount in another currency appears, "unaudited" in a trade document, a PAID stamp on minutes. Found from
  the IR: the stamps' words, the document's
  ``confidential`` mark and, outside the genre's own blocks, the facts each kind states (``STANDING_FACTS``),
  the action lists by their titles and the audit status by its word.
"""

from __future__ import annotations

import re

from synthdocqa.generation.content.prose import QA_TEXT
from synthdocqa.generation.content.standing import StandingKind, recipe_allows, stamp_words
from synthdocqa.generation.content.wording import article
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


STANDING_FACTS: dict[str, StandingKind] = {"window_open": "review_window", "window_close": "review_window",
                                           "late_approver": "review_window", "fx_rate": "currency_note",
                                           "period_start": "period_covered", "period_end": "period_covered",
                                           "budget_envelope": "envelope"}
"""The attribute of a fact that a kind of standing text states, outside a genre block."""
_UNAUDITED = re.compile(r"\bunaudited\b", re.IGNORECASE)


def _block_text(b) -> str:
    if b.type == "list":
        return " ".join([b.title or ""] + [s.text for item in b.items for s in item])
    return " ".join(s.text for s in getattr(b, "spans", None) or [])


def standing_kinds(doc: DocumentIR) -> list[tuple[StandingKind, str, int | None]]:
    """The standing text the document carries: (kind, where, page) for its confidentiality mark and for each block
    outside the genre's own blocks that states a review window, an action list, an exchange rate, an audit
    status, the period covered or an approved envelope."""
    out: list[tuple[StandingKind, str, int | None]] = []
    if doc.confidential:
        out.append(("confidentiality", "the page footers (marked confidential)", None))
    attr_of = {f.id: f.attribute for f in doc.facts}
    titles = tuple(QA_TEXT.action_titles)
    for p, b in doc.blocks():
        if b.genre_block:
            continue
        fids = ([i for item in b.items for s in item for i in s.fact_ids] if b.type == "list" else
                [i for s in getattr(b, "spans", None) or [] for i in s.fact_ids])
        kinds = {STANDING_FACTS[attr_of[i]] for i in fids if attr_of.get(i) in STANDING_FACTS}
        if b.type == "list" and (b.title or "").split(", part ")[0] in titles:
            kinds.add("actions")
        if b.type in ("text_block", "footnote") and _UNAUDITED.search(_block_text(b)):
            kinds.add("audit_status")
        out += [(k, b.id, p) for k in sorted(kinds)]
    return out


def foreign_currency(doc: DocumentIR) -> bool:
    """Whether amounts in more than one currency appear in the document."""
    return len({f.value.currency for f in doc.facts if f.value.kind == "money"}) > 1


def standing_problems(doc_id: str, doc: DocumentIR) -> list:
    """The standing text the document carries that its genre does not (``standing.yaml``)."""
    fx = foreign_currency(doc)
    title = RECIPE_BY_SLUG[doc.recipe].title.lower()
    stamps = [_problem(doc_id, "misplaced_standing", f"{b.id}: {article(word + ' stamp')} has no place in "
                       f"{article(title)}", p)
              for p, b in doc.blocks() if b.type == "annotation" and b.kind == "stamp"
              for word in [b.spans[0].text.strip()] if word not in stamp_words(doc.recipe)]
    return stamps + [_problem(doc_id, "misplaced_standing", f"{where}: {kind.replace('_', ' ')} has no place in {article(title)}"
                     + (" without an amount in another currency" if kind == "currency_note" else ""), page)
            for kind, where, page in standing_kinds(doc) if not recipe_allows(doc.recipe, kind, fx)]


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
                problems.append(_problem(doc_id, "foreign_block", f"{b.id}: a {b.genre_block} has no place in "
                                         f"{article(recipe.title.lower())}", p))
        elif b.id in qa_blocks and ELEMENT_OF_BLOCK[b.type] not in generic and where.get(b.id, -1) != -2:
            problems.append(_problem(doc_id, "foreign_block", f"{b.id}: a {ELEMENT_OF_BLOCK[b.type]} "
                                     f"({getattr(b, 'title', '') or b.type}) in {article(recipe.title.lower())}, which "
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
    return problems + standing_problems(doc_id, doc)


__all__ = ["STANDING_FACTS", "foreign_currency", "genre_problems", "section_of_blocks", "standing_kinds",
           "standing_problems"]
