"""Checking stored QA: an assertion's derivation recomputed from its operands must give its result, and a
QA pair's answer must follow from its assertions by its type's answer rule (``registry.ANSWER_RULES``)."""

from __future__ import annotations

from synthdocqa.ir.answers import derive, operand_value
from synthdocqa.ir.qa_models import Assertion, QAPair


def recompute_assertion(a: Assertion) -> list[str]:
    """Problems found when recomputing an assertion's derivation from its operands (empty: fine)."""
    if a.derivation is None:
        return []
    der = a.derivation
    try:
        got = derive(der.op, [operand_value(op.value) for op in der.operands])
    except (TypeError, ValueError, ArithmeticError) as err:
        return [f"{a.id}: derivation {der.op} cannot be recomputed: {err}"]
    problems = []
    if got != der.result:
        problems.append(f"{a.id}: derivation {der.op} gives {got}, recorded {der.result}")
    if a.value.kind == "number" and a.value.value != der.result:
        problems.append(f"{a.id}: value {a.value.value} differs from its derivation result {der.result}")
    return problems


def check_answer(qa: QAPair, own: list[Assertion]) -> list[str]:
    """Problems with how a QA pair's answer follows from its own assertions (in ``assertion_ids`` order)."""
    from .registry import ANSWER_RULES

    rule = ANSWER_RULES[qa.qa_type]
    if not own:
        return [f"{qa.id}: no assertions"]
    if rule == "fact" and qa.answer != own[-1].value:
        return [f"{qa.id}: answer {qa.answer.model_dump_json()} differs from its assertion {own[-1].id}"]
    if rule == "derivation":
        der = next((a.derivation for a in own if a.derivation is not None), None)
        if der is None or qa.answer.kind != "number" or qa.answer.value != der.result:
            return [f"{qa.id}: answer {qa.answer.model_dump_json()} differs from its derivation"]
    return []
