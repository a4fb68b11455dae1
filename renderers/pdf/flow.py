"""Flowables: a block's content that can be placed into slot space, split where the block type allows.

``take(width, avail, fresh)`` returns the piece that fits into ``avail`` points of height (or None), and
the remainder to carry into the next slot/page (or None). With ``fresh=True`` (an empty slot) a flow
always returns a piece, so content is never dropped: the renderer then carries it forward.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from synthdocqa.ir.blocks import Span

from .ctx import DrawCtx
from .text import Line, Word

DrawFn = Callable[[DrawCtx, float, float, float], None]
"""draw(ctx, x, y_top, width)"""


@dataclass
class Piece:
    height: float
    draw: DrawFn


class Flow:
    block_id: str = ""
    element: str = "text"
    keep_with_next: bool = False
    counts: bool = True  # counts against a slot's capacity
    min_width: float = 0.0

    def take(self, width: float, avail: float, fresh: bool) -> tuple[Piece | None, Flow | None]:
        raise NotImplementedError

    def retheme(self, theme) -> Flow:
        """This flow drawn in ``theme`` (a remainder carried to a page of another layout takes its style);
        flows that never leave a remainder keep theirs."""
        return self


def remaining_spans(lines: list[Line], spans: list[Span]) -> list[Span]:
    """Rebuild spans from the words of ``lines`` (a remainder re-wrapped at another width keeps each
    original span's text and fact ids; the space between two words of one span stays inside it)."""
    units: list[tuple[str, int]] = []  # (text, span index; -1 = separator outside any span)
    prev: Word | None = None
    for line in lines:
        for w in line.words:
            if prev is not None:
                same = prev.parts[-1].span == w.parts[0].span
                units.append((" ", w.parts[0].span if same else -1))
            units.extend((p.text, p.span) for p in w.parts)
            prev = w
    out: list[Span] = []
    last = None
    for text, idx in units:
        if out and idx == last:
            out[-1] = Span(text=out[-1].text + text, fact_ids=out[-1].fact_ids)
        else:
            fact_ids = list(spans[idx].fact_ids) if 0 <= idx < len(spans) else []
            out.append(Span(text=text, fact_ids=fact_ids))
        last = idx
    return out
