"""The planner reads as named steps: no function in ``generation/planner.py`` or in the page-filling steps it
imports (``generation/page_fill.py``) runs over ``MAX_LINES`` lines.

A page of the plan is laid out by small steps over a typed state (``_Doc``, ``_Run``, ``_Page``); a function
that grows past the limit is a step that wants splitting. The check is a function over source text, so it is
also run on a planted long function to show that it fails when it should.
"""

from __future__ import annotations

import ast
from pathlib import Path

PLANNER = Path(__file__).resolve().parents[2] / "generation" / "planner.py"
PAGE_FILL = PLANNER.with_name("page_fill.py")
MAX_LINES = 80


def long_functions(source: str, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """``(name, lines)`` of every function (methods and nested ones too) longer than ``limit`` lines,
    decorators left out, docstring and body counted."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = node.end_lineno - node.lineno + 1
            if n > limit:
                out.append((node.name, n))
    return out


def test_no_planner_function_over_the_limit():
    for path in (PLANNER, PAGE_FILL):
        assert long_functions(path.read_text("utf-8")) == [], path.name


def test_the_check_finds_a_planted_long_function():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    planted = f"def short():\n    return 1\n\n\ndef planted():\n{body}\n"
    assert long_functions(planted) == [("planted", MAX_LINES + 1)]
    assert long_functions(f"def fits():\n{body}\n", limit=MAX_LINES + 1) == []
