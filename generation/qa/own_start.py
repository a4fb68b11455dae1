"""A multi-hop question must not resolve to where it starts: the check, for generators and for verify/lint.

A bridge question starts from something it names (the owner of the action 'X', the action due on
10 December) and hops to an answer somewhere else. It collapses when the answer is that start again:
"Name the action in Table 30 whose owner is the owner of the action 'X'" answered "X". Three signs, any one
enough:

- the answer is named in the question: one of its accepted forms (normalised) is a phrase of the question
  (a bare number is left out: "15" is not named by "Figure 15"; so are block titles: "Open" is not named
  by "the list 'Open actions'");
- the answer is an anchor fact, or sits in the same row (table row, list item, form) as one: the second
  hop went nowhere. The anchor facts are those of every assertion before the last (the last holds the
  answer); a derived answer's operands must be distinct facts in distinct rows;
- the answer's row is about the item the question names (its row label or list head is a phrase of the
  question): "the status, in Table 9, of the action whose owner is the owner of the action 'X'" is the
  status of X, found without the hop.

The row signs need the document (``doc``); without it only the first two fact-level signs are checked.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from synthdocqa.ir.answers import surface_forms
from synthdocqa.ir.blocks import FormBlock, ListBlock, TableBlock, block_fact_ids
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.qa_models import Assertion, QAPair, TypedAnswer

from .claims import Draft

BARE_NUMBER = re.compile(r"^[-+]?[\d.,\s]+$")
BLOCK_NAME = re.compile(r"\bthe (?:list|table|chart) '[^']*'", re.IGNORECASE)
"""How a question names a block by its title ("the list 'Open actions'"): a title is where to look, not a
value the question names, so "Open" is not named by "the list 'Open actions'"."""


@lru_cache(maxsize=1 << 16)
def normalise(text: str) -> str:
    """Lower case, NFKC; runs of anything but word characters and the marks of numbers and names
    (``% $ € £ ¥ ₹ . , / & + -``) as one space, and so is a full stop or comma that ends a word."""
    t = unicodedata.normalize("NFKC", text).lower()
    t = re.sub(r"[^\w%$€£¥₹.,/&+-]+", " ", t)
    return " ".join(re.sub(r"[.,]+(?=\s|$)", " ", t).split())


def is_phrase_of(text: str, question: str) -> bool:
    """``text`` (normalised) occurs in ``question`` (normalised, block titles left out) as whole words."""
    n = normalise(text)
    return bool(n) and f" {n} " in _searchable(question)


@lru_cache(maxsize=1 << 14)
def _searchable(question: str) -> str:
    """The question normalised, block titles left out, padded with spaces (a phrase is `` words ``)."""
    return f" {normalise(BLOCK_NAME.sub(' ', question))} "


def answer_forms_named(question: str, answer: TypedAnswer, forms: Iterable[str]) -> list[str]:
    """The accepted forms of ``answer`` the question names (bare numbers and yes/no left out)."""
    if answer.kind in ("boolean", "not_answerable", "list"):
        return []
    return [f for f in forms if not BARE_NUMBER.match(f) and is_phrase_of(f, question)]


@dataclass(frozen=True)
class RowRef:
    """Where a fact sits: a table row, a list item or a form (``row`` 0), and the row's item (its label or
    head text; '' for a form)."""

    block_id: str
    row: int
    item: str


def row_index(doc: DocumentIR) -> dict[str, RowRef]:
    """The row of every fact drawn in a table row, list item or form of the document."""
    out: dict[str, RowRef] = {}
    for _, b in doc.blocks():
        if isinstance(b, TableBlock):
            for i, row in enumerate(b.rows):
                ref = RowRef(b.id, i, row[0].text.strip())
                out.update({f: ref for s in row for f in s.fact_ids})
        elif isinstance(b, ListBlock):
            for i, item in enumerate(b.items):
                head = next((s.text.strip() for s in item if s.fact_ids), "")
                ref = RowRef(b.id, i, head)
                out.update({f: ref for s in item for f in s.fact_ids})
        elif isinstance(b, FormBlock):
            ref = RowRef(b.id, 0, "")
            out.update({f: ref for f in block_fact_ids(b)})
    return out


def own_start_reasons(question: str, answer: TypedAnswer, forms: Sequence[str], claims: Sequence[tuple[list[str],
                      list[str]]], rows: dict[str, RowRef] | None = None) -> list[str]:
    """Why a multi-hop question resolves to its own start (empty: it does not).

    ``claims``: per assertion, in order, (its fact ids, its derivation's operand fact ids).
    """
    why = [f"answer {f!r} is named in the question" for f in answer_forms_named(question, answer, forms)]
    if not claims:
        return why
    rows = rows or {}
    facts, operands = claims[-1]
    if operands:  # a derived answer: its operands are two ends, which must differ
        if len(set(operands)) != len(operands):
            why.append("a derivation uses one fact twice")
        refs = [rows[o] for o in operands if o in rows]
        if len(set(refs)) != len(refs):
            why.append("a derivation's operands sit in one row")
        return why
    if not facts:
        return why
    ans = facts[-1]
    anchors = {f for fs, ops in claims[:-1] for f in fs + ops}
    if ans in anchors:
        why.append(f"the answer fact {ans} is an anchor fact")
    met = [f for f in facts[:-1] if f in anchors]
    if met:  # the second hop starts from a fact the first hop ended on: the two hops are one
        why.append(f"the two hops meet in fact {met[0]}")
    ref = rows.get(ans)
    if ref is not None:
        if any(rows.get(a) == ref for a in anchors):
            why.append(f"the answer sits in the anchor's row ({ref.block_id} row {ref.row})")
        if ref.item and is_phrase_of(ref.item, question):
            why.append(f"the answer's row is the item the question names ({ref.item!r})")
    return why


def qa_own_start_reasons(qa: QAPair, assertions: Sequence[Assertion], doc: DocumentIR | None = None) -> list[str]:
    """``own_start_reasons`` of a QA pair, with its assertions (any order; those of other pairs ignored)."""
    by_id = {a.id: a for a in assertions}
    asr = [by_id[i] for i in qa.assertion_ids if i in by_id]
    claims = [(list(a.fact_ids), [o.fact_id for o in a.derivation.operands] if a.derivation else []) for a in asr]
    forms = list(dict.fromkeys([qa.answer_text, *qa.accepted_answers]))
    return own_start_reasons(qa.question, qa.answer, forms, claims, row_index(doc) if doc is not None else None)


def resolves_to_own_start(qa: QAPair, assertions: Sequence[Assertion] = (), doc: DocumentIR | None = None) -> bool:
    """Whether a multi-hop QA pair's answer is (or is found in, or names) the entity or row it starts from.
    Other QA types are never flagged (a lookup names its row by design)."""
    return qa.qa_type == "multi_hop" and bool(qa_own_start_reasons(qa, assertions, doc))


def draft_resolves_to_own_start(draft: Draft, rows: dict[str, RowRef]) -> bool:
    """The same check on a generator's draft, before it becomes a QA pair."""
    claims = [(list(c.fact_ids), [o.fact_id for o in c.derivation.operands] if c.derivation else [])
              for c in draft.claims]
    forms = surface_forms(draft.answer, draft.drawn)
    return bool(own_start_reasons(draft.question, draft.answer, forms, claims, rows))
