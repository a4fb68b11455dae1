"""Questions whose answer is a list: the items of a drawn list, or the table rows above a threshold."""

from __future__ import annotations

from ..answers import numeric
from ..blocks import ListBlock, TableBlock
from ..qa_models import ListAnswer
from ..rng import Rng
from .claims import Draft
from .context import QAContext, caption_of


def list_items(ctx: QAContext, b: ListBlock | TableBlock, rng: Rng) -> Draft | None:
    if isinstance(b, ListBlock):
        items = [(s.text, ctx.facts[fid]) for it in b.items for s in it for fid in s.fact_ids[:1]
                 if ctx.drawn(fid)]
        if len(items) < 2:
            return None
        title = f"under '{b.title}'" if b.title else f"in the list on page {ctx.ev[items[0][1].id][0].page_no}"
        ans = ListAnswer(value=[f.text for _, f in items])
        return Draft("list", "text", f"Which items are listed {title}?", ans, None,
                     [ctx.claim_fact(f, f"'{f.text}' is listed {title}.") for _, f in items])
    j = rng.choice(ctx.numeric_columns(b))
    cells = ctx.cells(b, j)
    vals = sorted({numeric(f.value) for _, f in cells})
    if len(vals) < 3 or len({lab for lab, _ in cells}) != len(cells):
        return None
    thr = vals[rng.integers(0, len(vals) - 2)]
    above = [(lab, f) for lab, f in cells if numeric(f.value) > thr]
    thr_text = next(f.text for _, f in cells if numeric(f.value) == thr)
    if not (2 <= len(above) <= 6):
        return None
    col = b.columns[j]
    ans = ListAnswer(value=[lab for lab, _ in above])
    q = f"In the {caption_of(b)}, which rows have a {col} greater than {thr_text}?"
    return Draft("list", "table", q, ans, None,
                 [ctx.claim_fact(f, f"The {col} of {lab} is {f.text}, above {thr_text}.") for lab, f in above])


def drawn_items(ctx: QAContext, b: ListBlock) -> int:
    """How many items of a list have a drawn fact."""
    return sum(1 for it in b.items if any(ctx.drawn(f) for s in it for f in s.fact_ids))
