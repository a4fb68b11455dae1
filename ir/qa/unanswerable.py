"""Questions about a form field or table row the document does not have (answer: not stated)."""

from __future__ import annotations

from ..blocks import FormBlock, TableBlock
from ..qa_models import NotAnswerable
from ..rng import Rng
from .claims import Claim, Draft
from .context import QAContext, caption_of

ABSENT_FIELDS = ("Fax number", "Secondary contact", "Tax exemption code", "Cost centre override",
                 "Witness name", "Escalation reference", "Insurance rider code", "Backup approver")
ABSENT_ROWS = ("Contingency reserve", "Other regions", "Discontinued lines", "Pilot programme",
               "Intercompany eliminations", "Legacy systems", "Special projects", "Unallocated items")


def unanswerable(ctx: QAContext, b: FormBlock | TableBlock, rng: Rng) -> Draft | None:
    """A field or row name that appears nowhere in the document's text."""
    if isinstance(b, FormBlock):
        pool = [x for x in ABSENT_FIELDS if x.lower() not in ctx.all_text]
        if not pool:
            return None
        field = rng.choice(pool)
        form = f"form '{b.title}'" if b.title else "form"
        q = f"What is entered in the '{field}' field of the {form}?"
        claim = f"The {form} has no '{field}' field."
        el = "form"
    else:
        j = rng.choice(ctx.numeric_columns(b))
        pool = [x for x in ABSENT_ROWS if x.lower() not in ctx.all_text]
        if not pool:
            return None
        row = rng.choice(pool)
        q = f"In the {caption_of(b)}, what is the {b.columns[j]} for {row}?"
        claim = f"The {caption_of(b)} does not list {row}."
        el = "table"
    return Draft("unanswerable", el, q, NotAnswerable(), None, [Claim(claim, NotAnswerable(), [])])
