"""What the fault tests check of a command's failure: one line on stderr, naming the problem, and its exit code."""

from __future__ import annotations


def one_line(rc: int, err: str, *words: str, code: int = 2) -> str:
    """The command exited ``code`` and said one line that holds every one of ``words``; that line."""
    assert rc == code, err
    lines = [x for x in err.strip().splitlines() if x.strip()]
    assert len(lines) == 1, err
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]
