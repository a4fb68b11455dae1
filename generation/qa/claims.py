"""What a QA generator returns: a draft question with its typed answer and atomic claims."""

from __future__ import annotations

from dataclasses import dataclass, field

from synthdocqa.ir.qa_models import AssertionDerivation, TypedAnswer
from synthdocqa.ir.vocab import QAElement, QAType


@dataclass(frozen=True)
class Claim:
    """One atomic claim behind an answer; it becomes an ``Assertion`` with the evidence of its facts
    (or of its derivation's operands when it has one)."""

    text: str
    value: TypedAnswer
    fact_ids: list[str] = field(default_factory=list)
    derivation: AssertionDerivation | None = None


@dataclass(frozen=True)
class Draft:
    """A generated question before ids are given: ``drawn`` is the answer's text as drawn on the page
    (an accepted surface form), ``None`` for derived answers."""

    qa_type: QAType
    element: QAElement
    question: str
    answer: TypedAnswer
    drawn: str | None
    claims: list[Claim]

    @property
    def fact_key(self) -> tuple[str, ...]:
        """The facts the question rests on: two drafts of one variant on the same facts are one question."""
        ids = {f for c in self.claims for f in c.fact_ids}
        ids |= {op.fact_id for c in self.claims if c.derivation for op in c.derivation.operands}
        return tuple(sorted(ids))
