"""Questions about a form field, table row or personal detail the document does not have (answer: not
stated)."""

from __future__ import annotations

from synthdocqa.ir.blocks import FormBlock, TableBlock
from synthdocqa.ir.qa_models import NotAnswerable
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.values import PersonValue

from .claims import Claim, Draft
from .context import QAContext
from .phrasing import pick

ABSENT_FIELDS = ("Fax number", "Secondary contact", "Tax exemption code", "Cost centre override",
                 "Witness name", "Escalation reference", "Insurance rider code", "Backup approver")
ABSENT_ROWS = ("Contingency reserve", "Other regions", "Discontinued lines", "Pilot programme",
               "Intercompany eliminations", "Legacy systems", "Special projects", "Unallocated items")
ABSENT_DETAILS = ("mobile number", "fax number", "home address", "date of birth", "employee number", "deputy")

FIELD = ("What is entered in the '{field}' field of {form}?", "On {form}, what is the {lfield}?",
         "What does {form} give as the {lfield}?", "Which value is filled in under '{field}' on {form}?",
         "According to {form}, what is the {lfield}?")
ROW = ("In {where}, what is the {m} for {row}?", "What {m} does {where} report for {row}?",
       "According to {where}, what was the {m} of {row}?", "Reading {where}, how much is the {m} of {row}?",
       "What is the {m} of {row} in {where}?")
DETAIL = ("What is the {detail} of {name}?", "Which {detail} does the document give for {name}?",
          "According to the document, what is {name}'s {detail}?", "State the {detail} of {name}.",
          "What {detail} is listed for {name}?")


def unanswerable(ctx: QAContext, b: FormBlock | TableBlock, rng: Rng) -> Draft | None:
    """A field, row or personal detail whose name appears nowhere in the document's text."""
    if isinstance(b, FormBlock):
        pool = [x for x in ABSENT_FIELDS if x.lower() not in ctx.all_text]
        if not pool:
            return None
        field = rng.choice(pool)
        form = ctx.ref(b)
        q = pick(rng, FIELD, field=field, lfield=field[:1].lower() + field[1:], form=form)
        return Draft("unanswerable", "form", q, NotAnswerable(), None,
                     [Claim(f"{form[:1].upper() + form[1:]} has no '{field}' field.", NotAnswerable(), [])])
    if isinstance(b, TableBlock):
        groups = ctx.point_groups(b)
        pool = [x for x in ABSENT_ROWS if x.lower() not in ctx.all_text]
        if not groups or not pool:
            return None
        p = rng.choice(groups)[0]
        row = rng.choice(pool)
        where = ctx.ref(b)
        q = pick(rng, ROW, where=where, m=p.measure, row=row)
        return Draft("unanswerable", "table", q, NotAnswerable(), None,
                     [Claim(f"{where[:1].upper() + where[1:]} does not list {row}.", NotAnswerable(), [])])
    return None


def unstated_detail(ctx: QAContext, b, rng: Rng) -> Draft | None:
    """A personal detail the document never gives for a person it names in prose."""
    people = [ctx.facts[f] for f in ctx.drawn_fact_ids(b) if isinstance(ctx.facts[f].value, PersonValue)]
    pool = [d for d in ABSENT_DETAILS if d not in ctx.all_text]
    if not people or not pool:
        return None
    name = rng.choice(people).value.name
    detail = rng.choice(pool)
    q = pick(rng, DETAIL, detail=detail, name=name)
    return Draft("unanswerable", "none", q, NotAnswerable(), None,
                 [Claim(f"The document does not give the {detail} of {name}.", NotAnswerable(), [])])

