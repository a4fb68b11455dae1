"""What a QA generator returns: a draft question with its typed answer and atomic claims."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..qa_models import AssertionDerivation, TypedAnswer
from ..vocab import QAElement, QAType


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
