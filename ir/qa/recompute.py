"""Checking a stored assertion: its derivation recomputed from its operands must give its result."""

from __future__ import annotations

from ..answers import derive, operand_value
from ..qa_models import Assertion


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
