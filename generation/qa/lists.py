"""Questions whose answer is a list: the items of a drawn list (named by their head: the action, not its
owner and date), the rows or items whose field has a value ("the actions owned by X"), and the table rows
above a threshold."""

from __future__ import annotations

from synthdocqa.ir.answers import answer_for_value, numeric
from synthdocqa.ir.blocks import ELEMENT_OF_BLOCK, Block, ListBlock, TableBlock
from synthdocqa.ir.qa_models import ListAnswer
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.values import DateValue

from ..content.wording import plural
from .claims import Claim, Draft
from .compare import noun_of
from .context import QAContext, Record
from .phrasing import pick

ITEMS = ("Which {nouns} are listed in {where}?", "What {nouns} does {where} name?", "List the {nouns} given in {where}.",
         "Name every {noun} in {where}.", "Which {nouns} appear in {where}?")


def list_items(ctx: QAContext, b: ListBlock, rng: Rng) -> Draft | None:
    """The items of a list, each named by its head fact."""
    recs = [r for r in ctx.records(b) if r.head is not None]
    if len(recs) < 2 or any(numeric(r.head.value) is not None for r in recs):
        return None  # items named by a number are figures quoted in the list, not what it lists
    noun = recs[0].noun if len({r.noun for r in recs}) == 1 else "item"
    where = ctx.ref(b)
    q = pick(rng, ITEMS, noun=noun, nouns=plural(noun), where=where)
    ans = ListAnswer(value=[r.head.text for r in recs])
    return Draft("list", "text", q, ans, None,
                 [ctx.claim_fact(r.head, f"'{r.head.text}' is listed in {where}.") for r in recs])


MATCHING = ("Which {nouns} in {where} have {v} as {k}?", "In {where}, which {nouns} have the {k} {v}?",
            "List the {nouns} in {where} whose {k} is {v}.", "Name the {nouns} in {where} with {k} {v}.",
            "Which of the {nouns} in {where} show {v} as their {k}?")
BEFORE = ("Which {nouns} in {where} have a {k} before {v}?", "In {where}, which {nouns} have a {k} earlier than {v}?",
          "List the {nouns} in {where} whose {k} falls before {v}.",
          "Name the {nouns} of {where} with a {k} before {v}.",
          "Which {nouns} in {where} come with a {k} ahead of {v}?")


def usable(recs: list[Record], k: str) -> bool:
    """A field to filter on: a date, or a name or status shared by some rows but not all."""
    v = recs[0].fields[k].value
    if isinstance(v, DateValue):
        return True
    if numeric(v) is not None:
        return False
    return 2 <= len({r.fields[k].text for r in recs}) < len(recs)


def matching_records(ctx: QAContext, b: Block, rng: Rng) -> Draft | None:
    """The rows (or list items) whose field has a given value, or a date before a given date."""
    recs = ctx.records(b)
    if len(recs) < 3 or isinstance(b, TableBlock) and ctx.points(b):
        return None
    fields = [k for k in recs[0].fields if all(k in r.fields for r in recs) and usable(recs, k)]
    if not fields:
        return None
    k = rng.choice(fields)
    first = recs[0].fields[k]
    if isinstance(first.value, DateValue):
        dates = sorted({r.fields[k].value.value for r in recs})
        if len(dates) < 3:
            return None
        cut = dates[rng.integers(1, len(dates) - 1)]
        keep = [r for r in recs if r.fields[k].value.value < cut]
        v = next(r.fields[k].text for r in recs if r.fields[k].value.value == cut)
        options = BEFORE
    else:
        v = rng.choice(sorted({r.fields[k].text for r in recs}))
        keep = [r for r in recs if r.fields[k].text == v]
        options = MATCHING
    if not keep or len(keep) == len(recs) or len(keep) > 4:
        return None
    noun, where = recs[0].noun, ctx.ref(b)
    q = pick(rng, options, nouns=plural(noun), noun=noun, where=where, k=k, v=v)
    ans = ListAnswer(value=[r.head.text if r.head is not None else r.label for r in keep])
    return Draft("list", ELEMENT_OF_BLOCK[b.type], q, ans, None, [claim_of(ctx, r, k) for r in keep])


def claim_of(ctx: QAContext, r: Record, k: str):
    f = r.fields[k]
    name = r.head.text if r.head is not None else r.label
    text = f"The {k} of the {r.noun} '{name}' is {f.text}."
    if r.head is None:
        return ctx.claim_fact(f, text)
    return Claim(text, answer_for_value(r.head.value), [r.head.id, f.id])


ABOVE = ("In {where}, which {nouns} have {m} above {thr}?", "Which {nouns} show {m} greater than {thr} in {where}?",
         "List the {nouns} in {where} whose {m} exceeds {thr}.", "Name the {nouns} with {m} over {thr} in {where}.",
         "According to {where}, which {nouns} are above {thr} in {m}?")


def above_threshold(ctx: QAContext, b: TableBlock, rng: Rng) -> Draft | None:
    """The items of a column or series above one of its own values."""
    groups = ctx.point_groups(b, least=3)
    if not groups:
        return None
    g = rng.choice(groups)
    vals = sorted({numeric(p.fact.value) for p in g})
    if len(vals) < 3 or not ctx.whole(g):
        return None
    thr = vals[rng.integers(0, len(vals) - 2)]
    above = [p for p in g if numeric(p.fact.value) > thr]
    thr_text = next(p.fact.text for p in g if numeric(p.fact.value) == thr)
    if not (2 <= len(above) <= 5):
        return None
    noun = noun_of(b)
    q = pick(rng, ABOVE, where=ctx.place(b, measures=g), nouns=plural(noun), m=g[0].measure, thr=thr_text)
    return Draft("list", ELEMENT_OF_BLOCK[b.type], q, ListAnswer(value=[p.item for p in above]), None,
                 [ctx.claim_fact(p.fact, f"The {p.measure} of {p.item} is {p.fact.text}, above {thr_text}.")
                  for p in above])


def drawn_items(ctx: QAContext, b: ListBlock) -> int:
    """How many items of a list have a drawn fact."""
    return sum(1 for it in b.items if any(ctx.drawn(f) for s in it for f in s.fact_ids))
