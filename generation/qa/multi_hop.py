"""Questions that join two elements (often on two pages): the answer sits in one element, the way to it in
another.

- ``entity_bridge``: a person named in one element (the owner of an action, the requester on a form), and
  what another element says about them (their direct line; the status of the action they own in a table).
- ``superlative_bridge``: the item that leads a column or chart, and its value in another table or chart.
- ``cross_difference``: a value from one element minus a value of the same measure from another.
- ``record_join``: a list item or row found by one of its values, and what another element says of the
  same item (the action due on 10 December in the list, and its status in the tracker table).

None of them may resolve to where it starts (``own_start``): the second hop of a bridge lands on another
row than the anchor's, an answer is never named in its question. Such candidates are left out of the
sources, and a draft that still collapses is not emitted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from synthdocqa.ir.answers import answer_for_value, numeric, surface_forms, unit_of
from synthdocqa.ir.blocks import ELEMENT_OF_BLOCK, Block, FormBlock
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.qa_models import StringAnswer
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.values import OrganisationValue, PersonValue

from ..content.wording import lower_common
from .arithmetic import derivation, number_answer, period_key
from .claims import Claim, Draft
from .compare import extreme_claim, noun_of
from .context import UNRANKED_BLOCKS, Point, QAContext, Record, lc
from .fact_arithmetic import facts_allow
from .lookup import unique_keys
from .naming import describe, field_name
from .own_start import answer_forms_named, draft_resolves_to_own_start, is_phrase_of, normalise
from .phrasing import pick


def unless_own_start(ctx: QAContext, draft: Draft | None) -> Draft | None:
    """The draft, or None when its answer is (or names, or sits in the row of) the start it hops from."""
    return None if draft is None or draft_resolves_to_own_start(draft, ctx.rows) else draft


def named_in(f: Fact, text: str) -> bool:
    """Whether ``text`` names the value of fact ``f`` (a bare number does not count)."""
    return bool(answer_forms_named(text, answer_for_value(f.value), surface_forms(answer_for_value(f.value), f.text)))


def same_item(r1: Record | None, r2: Record | None) -> bool:
    """Two rows or list items about one item (the action 'X' in the list and in the tracker); forms have no
    item of their own."""
    return r1 is not None and r2 is not None and not isinstance(r1.block, FormBlock) \
        and not isinstance(r2.block, FormBlock) and normalise(r1.label) == normalise(r2.label)


def who(f: Fact) -> str:
    """How a question names the person of a name fact: by their role ("owner of the action 'X'")."""
    d = describe(f)
    d = re.sub(r"^(?:[Mm]ember|[Aa]ttendee) present at the meeting as (.+)$",
               lambda m: f"{lower_common(m.group(1))} at the meeting", d)  # "the staff representative at ..."
    stripped = re.sub(r"^(?:Name|Signature) of (?:the )?", "", d)
    return stripped if stripped != d else lc(d)


@dataclass(frozen=True)
class Mention:
    """A drawn name fact of an entity, in a record (a row, a list item, a form) or a text block."""

    fact: Fact
    block: Block
    record: Record | None
    field: str


def mentions(ctx: QAContext) -> dict[str, list[Mention]]:
    """Every drawn name of a person or organisation, by entity id."""
    out: dict[str, list[Mention]] = {}
    in_records: set[str] = set()
    for _, b in ctx.doc.blocks():
        for r in ctx.records(b):
            for k, f in list(r.fields.items()) + ([("", r.head)] if r.head is not None else []):
                if isinstance(f.value, PersonValue | OrganisationValue) and f.value.entity_id:
                    out.setdefault(f.value.entity_id, []).append(Mention(f, b, r, k))
                    in_records.add(f.id)
    for f in ctx.doc.facts:
        if isinstance(f.value, PersonValue | OrganisationValue) and f.value.entity_id and ctx.drawn(f.id) \
                and f.id not in in_records:
            out.setdefault(f.value.entity_id, []).append(Mention(f, ctx.block_of(f.id), None, ""))
    return out


Bridge = tuple[Mention, Mention | None, Fact]
"""(how the entity is found, where the entity is named next to the answer (None: the answer is about
the entity itself), the answer fact)."""


def bridges(ctx: QAContext) -> list[Bridge]:
    """Every entity bridge whose two ends are in different blocks and whose description names one entity,
    and whose second hop does not land back on the first: not on the anchor's own item (the owner of the
    action 'X' is the owner of one action in Table 9, and that action is 'X'), not on an item or a value the
    description names."""
    ments = mentions(ctx)
    desc_values: dict[str, set[str]] = {}
    for ms in ments.values():
        for m in ms:
            desc_values.setdefault(who(m.fact), set()).add(m.fact.value.name)
    attrs: dict[str, list[Fact]] = {}
    for f in ctx.doc.facts:
        if f.subject and ctx.drawn(f.id) and f.attribute and not isinstance(f.value, PersonValue | OrganisationValue):
            attrs.setdefault(f.subject, []).append(f)
    forms: dict[str, list[Block]] = {}
    for _, b in ctx.doc.blocks():
        if isinstance(b, FormBlock):
            forms.setdefault(b.title, []).append(b)
    out: list[Bridge] = []
    for eid, ms in ments.items():
        for a in ms:
            desc = who(a.fact)
            if len(desc_values[desc]) != 1:
                continue
            for g in attrs.get(eid, []):
                if ctx.block_of(g.id) is not a.block and not named_in(g, desc) \
                        and not (a.fact.group and a.fact.group == g.group):  # stated together: no hop at all
                    out.append((a, None, g))
            for m in ms:
                if m.record is None or m.block is a.block or not m.field:
                    continue
                if same_item(a.record, m.record) or not isinstance(m.block, FormBlock) \
                        and is_phrase_of(m.record.label, desc):
                    continue
                pool = ([r for f in forms.get(m.record.label, []) for r in ctx.records(f)]
                        if isinstance(m.block, FormBlock) else ctx.records(m.block))
                same = [r for r in pool if (x := r.fields.get(m.field)) is not None
                        and isinstance(x.value, PersonValue | OrganisationValue) and x.value.entity_id == eid]
                if len(same) != 1:
                    continue
                for k, f in list(m.record.fields.items()) + [("", m.record.head)]:
                    if f is not None and k != m.field and f.id != m.fact.id and f.id != a.fact.id \
                            and not named_in(f, desc):
                        out.append((a, m, f))
    return out


ATTRIBUTE = ("What is the {attr} of the {desc}?", "Give the {attr} of the person who is the {desc}.",
             "Which {attr} does the document list for the {desc}?", "What {attr} is given for the {desc}?",
             "Look up the {desc}: what is their {attr}?")
ATTRIBUTE_ORG = ("What is the {attr} of the {desc}?", "Give the {attr} of the organisation that is the {desc}.",
                 "Which {attr} does the document list for the {desc}?", "What {attr} is given for the {desc}?",
                 "Look up the {desc}: what is its {attr}?")
"""The same for an organisation (the counterparty of an entry is no "person")."""
NAMED_IN = ("The {desc} is also named in one {noun} of {where}. What is its {t}?",
            "In {where}, what is the {t} of the {noun} that names the {desc}?",
            "One {noun} in {where} names the {desc}: what is its {t}?",
            "What {t} does {where} give for the {noun} naming the {desc}?",
            "Find the {noun} in {where} that names the {desc}. What is its {t}?")
"""The bridge when the row's field is just a name ("Name", "Signatory"): the person is named there, not its
"name"."""
NAME_FIELDS = frozenset({"name", "person", "signatory", "signature", "signed by"})
IN_RECORD = ("In {where}, what is the {t} of the {noun} whose {k} is the {desc}?",
             "What {t} does {where} give for the {noun} with the {desc} as {k}?",
             "The {desc} is also the {k} of one {noun} in {where}. What is its {t}?",
             "For the {noun} in {where} whose {k} is the {desc}, what is the {t}?",
             "Which {t} does {where} record for the {noun} that has the {desc} as its {k}?")
HEAD_OF_RECORD = ("Which {noun} in {where} has the {desc} as {k}?", "In {where}, which {noun} is the {desc} the {k} of?",
                  "Name the {noun} in {where} whose {k} is the {desc}.",
                  "What {noun} does {where} list with the {desc} as {k}?",
                  "The {desc} is the {k} of one {noun} in {where}: which one?")

SHARED_ROLE = ("One person is the {k} both of {rest} and of one {noun} in {where}. What is that {noun}'s {t}?",
               "The {k} of {rest} is also the {k} of one {noun} in {where}: what is its {t}?",
               "Whoever is the {k} of {rest} is also {k} of one {noun} in {where}. Give that {noun}'s {t}.",
               "Take the {k} of {rest}: they are also {k} of one {noun} in {where}. What is its {t}?",
               "In {where}, one {noun} has the same {k} as {rest}. What is its {t}?")
"""The bridge when the person is found by the same role they hold in the row ("the owner of the action to
re-slot the fast movers" owns a risk too), worded without "the risk with the owner of ... as owner"."""
SHARED_ROLE_HEAD = ("The {k} of {rest} is also the {k} of which {noun} in {where}?",
                    "Which {noun} in {where} has the same {k} as {rest}?",
                    "Name the {noun} in {where} that shares its {k} with {rest}.",
                    "In {where}, which {noun} has as {k} the person who is {k} of {rest}?",
                    "Whoever is the {k} of {rest} is also {k} of one {noun} in {where}: which one?")
SHARED_ROLE_FORM = ("The {k} of {rest} is also the {k} on one {title}. What is its {t}?",
                    "Which {t} is given on the {title} that has the same {k} as {rest}?",
                    "One {title} has the same {k} as {rest}: what {t} does it give?",
                    "Find the {title} whose {k} is also the {k} of {rest}. What is its {t}?",
                    "Whoever is the {k} of {rest} is also the {k} on one {title}: what is its {t}?")

FORM_BRIDGE = ("On the {title} whose {k} is the {desc}, what is the {t}?",
               "What {t} is given on the {title} that names the {desc} as {k}?",
               "The {desc} is the {k} on one {title}. What is its {t}?",
               "Which {t} does the {title} with the {desc} as {k} give?",
               "For the {title} where the {desc} is the {k}, what is the {t}?")


def shared_role(desc: str, role: str) -> str:
    """What the person's description names after their role, when that role is the one they hold in the
    row too ("owner of the action to hire temps", "owner" -> "the action to hire temps"); "" otherwise."""
    head = f"{role.lower()} of "
    return desc[len(head):] if desc.lower().startswith(head) else ""


def entity_bridge(ctx: QAContext, pairs: list[Bridge], rng: Rng) -> Draft | None:
    """``pairs``: the document's entity bridges (its one source)."""
    a, m, f = ctx.prefer_apart(pairs, lambda x: (x[0].block, ctx.block_of(x[2].id)), rng)
    desc = who(a.fact)
    first = ctx.claim_fact(a.fact, f"The {desc} is {a.fact.text}.")
    if m is None:
        attr = f.attribute.replace("_", " ")
        q = pick(rng, ATTRIBUTE_ORG if isinstance(a.fact.value, OrganisationValue) else ATTRIBUTE, attr=attr,
                 desc=desc)
        return unless_own_start(ctx, Draft("multi_hop", ELEMENT_OF_BLOCK[ctx.block_of(f.id).type], q,
                                           answer_for_value(f.value), f.text, [first, ctx.claim_fact(f)]))
    if isinstance(m.block, FormBlock):
        rec = m.record
        k = field_name(m.fact.attribute or m.field)
        t = next(n for n, x in rec.fields.items() if x is f)
        rest = shared_role(desc, k)
        q = pick(rng, SHARED_ROLE_FORM, title=rec.label, k=k, rest=rest, t=t) if rest else \
            pick(rng, FORM_BRIDGE, title=rec.label, k=k, desc=desc, t=t)
        said = f"The {rec.label} on page {ctx.page_of(m.block)} names {m.fact.text} as {k} and gives {f.text} as {t}."
    else:
        rec = m.record
        where = ctx.ref(m.block)
        if f is rec.head:
            rest = shared_role(desc, m.field)
            q = pick(rng, SHARED_ROLE_HEAD, noun=rec.noun, where=where, rest=rest, k=m.field) if rest else \
                pick(rng, HEAD_OF_RECORD, noun=rec.noun, where=where, desc=desc, k=m.field)
            said = f"In {where}, {m.fact.text} is the {m.field} of the {rec.noun} '{f.text}'."
        else:
            t = next(k for k, x in rec.fields.items() if x is f)
            rest = shared_role(desc, m.field)
            if t.lower() == rec.noun.lower():  # "one risk ...: what is its risk?" asks for its description
                t = f"{t} description"
            if rest:
                q = pick(rng, SHARED_ROLE, t=t, noun=rec.noun, where=where, k=m.field, rest=rest)
            elif m.field.lower() in NAME_FIELDS:
                q = pick(rng, NAMED_IN, t=t, noun=rec.noun, where=where, desc=desc)
            else:
                q = pick(rng, IN_RECORD, t=t, noun=rec.noun, where=where, k=m.field, desc=desc)
            said = f"In {where}, the {rec.noun} '{rec.label}' with {m.field} {m.fact.text} has {t} {f.text}."
    # the second hop as one relational claim: the row that names the entity holds the answer
    return unless_own_start(ctx, Draft("multi_hop", ELEMENT_OF_BLOCK[ctx.block_of(f.id).type], q,
                                       answer_for_value(f.value), f.text,
                                       [first, Claim(said, answer_for_value(f.value), [m.fact.id, f.id])]))


# ------------------------------------------------------------------ items across tables and charts

def point_links(ctx: QAContext) -> list[tuple[list[Point], Point]]:
    """(a column or series of >= 3 points, a point of another table or chart about one of its items with
    another measure): the sources of superlative bridges."""
    out = []
    blocks = [b for _, b in ctx.doc.blocks() if ctx.points(b)]
    for b in blocks:
        for g in ctx.point_groups(b, least=3):
            items = {p.item for p in g}
            for ob in blocks:
                if ob is b:
                    continue
                for p in ctx.points(ob):
                    if p.item in items and p.measure != g[0].measure:
                        out.append((g, p))
    return out


SUPER_BRIDGE = ("In {wb}, what is the {mb} of the {noun} with the {most} {ma} in {wa}?",
                "Find the {noun} with the {most} {ma} in {wa}. What {mb} does {wb} show for it?",
                "What {mb} does {wb} report for whichever {noun} has the {most} {ma} in {wa}?",
                "Take the {noun} that ranks {rank} by {ma} in {wa}: what is its {mb} according to {wb}?",
                "According to {wb}, what is the {mb} of the {noun} that {wa} shows with the {most} {ma}?")


SUPER_BRIDGE_BARE = ("What is the {mb} of the {noun} with the {most} {ma}?",
                     "Find the {noun} with the {most} {ma}. What is its {mb}?",
                     "The {noun} with the {most} {ma}: what is its {mb}?",
                     "Take the {noun} that ranks {rank} by {ma}: what is its {mb}?",
                     "For whichever {noun} has the {most} {ma}, what is the {mb}?")
"""The same questions without the tables where each measure is measured in one block of the document (the
reader searches the document for it, as a person does)."""


def superlative_bridge(ctx: QAContext, links: list[tuple[list[Point], Point]], rng: Rng) -> Draft | None:
    """``links``: the document's point links; the answer is the linked value of the leading item."""
    g, _ = rng.choice(links)
    op = "max" if rng.bernoulli(0.6) else "min"
    found = extreme_claim(ctx, g, op, ctx.ref(g[0].block))
    if found is None:
        return None
    top, claim = found
    targets = [p for gg, p in links if gg is g and p.item == top.item]
    if not targets:
        return None
    t = ctx.prefer_apart(targets, lambda p: (p.block, g[0].block), rng)
    if sum(1 for p in ctx.points(t.block) if p.item == t.item and p.measure == t.measure) != 1:
        return None
    noun = noun_of(g[0].block) if noun_of(g[0].block) != "category" else noun_of(t.block)
    bare = not ctx.located and ctx.sole_measure(t) and ctx.sole_measure(top)
    q = pick(rng, SUPER_BRIDGE_BARE if bare else SUPER_BRIDGE, wb=ctx.ref(t.block), mb=t.measure, noun=noun,
             most="highest" if op == "max" else "lowest", ma=top.measure, wa=ctx.ref(g[0].block),
             rank="first" if op == "max" else "last")
    return unless_own_start(ctx, Draft(
        "multi_hop", ELEMENT_OF_BLOCK[t.block.type], q, answer_for_value(t.fact.value), t.fact.text,
        [claim, ctx.claim_fact(t.fact, f"The {t.measure} of {t.item} in {ctx.ref(t.block)} is {t.fact.text}.")]))


def same_granularity(pa: str, pb: str) -> bool:
    """Two periods of one kind (two quarters, two years): a year is not compared with a quarter."""
    if pa == pb:
        return True
    ka, kb = period_key(pa), period_key(pb)
    return ka is not None and kb is not None and ka[0] == kb[0]


GENERIC_STEMS = frozenset({"amount", "value", "share", "number", "total"})
"""Measures named only by what kind of number they are (a statement's "amount" column): two items of such a
measure are two different quantities (operating profit and the net change in cash), never compared."""


def related(a: Point, c: Point) -> bool:
    """Whether two points of one stem measure one quantity for two items a reader would set side by side:
    not two lines of a financial statement, not two items of a generic measure ("amount"), and amounts of
    one sign (an inflow is not "larger" than an outflow)."""
    if a.item == c.item:
        return True
    if a.stem.lower() in GENERIC_STEMS or any(getattr(p.block, "genre_block", "") in UNRANKED_BLOCKS for p in (a, c)):
        return False
    va, vc = numeric(a.fact.value), numeric(c.fact.value)
    return va is not None and vc is not None and (va < 0) == (vc < 0)


def cross_pairs(ctx: QAContext) -> list[tuple[Point, Point]]:
    """Two points of one measure (same stem and unit) in two different tables or charts: two items in one
    period (``related`` items only), or one item in two periods."""
    by: dict[tuple, list[Point]] = {}
    for _, b in ctx.doc.blocks():
        for p in ctx.points(b):
            by.setdefault((p.stem, unit_of(p.fact.value)), []).append(p)
    out = []
    for pts in by.values():
        for i, a in enumerate(pts):
            for c in pts[i + 1:]:
                if a.block is not c.block and ((a.item == c.item) != (a.period == c.period)) \
                        and same_granularity(a.period, c.period) \
                        and numeric(a.fact.value) != numeric(c.fact.value) and describe(a.fact) != describe(c.fact) \
                        and related(a, c) \
                        and facts_allow("difference", [a.fact, c.fact]):
                    out.append((a, c))
    return out


CROSS = ("How much higher is the {da} in {wa} than the {db} in {wb}?",
         "By how much does the {da} ({wa}) exceed the {db} ({wb})?",
         "What is the gap between the {da} shown in {wa} and the {db} shown in {wb}?",
         "Comparing {wa} and {wb}: how much larger is the {da} than the {db}?",
         "Taking the {da} from {wa} and the {db} from {wb}, what is the difference?")


CROSS_BARE = ("How much higher is the {da} than the {db}?", "By how much does the {da} exceed the {db}?",
              "What is the gap between the {da} and the {db}?", "How much larger is the {da} than the {db}?",
              "Taking the {da} and the {db}, what is the difference?")
"""The same without the tables where each measure is measured in one block of the document."""


def cross_difference(ctx: QAContext, pairs: list[tuple[Point, Point]], rng: Rng) -> Draft | None:
    """``pairs``: the document's cross-element pairs; the answer is the larger value minus the smaller."""
    a, c = ctx.prefer_apart(pairs, lambda x: (x[0].block, x[1].block), rng)
    if numeric(a.fact.value) < numeric(c.fact.value):
        a, c = c, a
    res, der = derivation(ctx, "difference", [a.fact, c.fact])
    ans = number_answer(res, a.fact, "difference")
    da, db, wa, wb = lc(describe(a.fact)), lc(describe(c.fact)), ctx.ref(a.block), ctx.ref(c.block)
    bare = not ctx.located and ctx.sole_measure(a) and ctx.sole_measure(c)
    q = pick(rng, CROSS_BARE if bare else CROSS, da=da, db=db, wa=wa, wb=wb)
    return unless_own_start(ctx, Draft("multi_hop", ELEMENT_OF_BLOCK[a.block.type], q, ans, None, [
        Claim(f"The {da} in {wa} ({a.fact.text}) exceeds the {db} in {wb} ({c.fact.text}) by "
              f"{surface_forms(ans)[0]}.", ans, [a.fact.id, c.fact.id], der)]))


# ------------------------------------------------------------------ one item in two elements

def record_links(ctx: QAContext) -> list[tuple[Record, str, Record, str]]:
    """(record found by its unique field ``k``, k, the same item's record in another block, a field of it
    the first record does not have): rows and list items joined on their head text. The answer field never
    repeats the key's value or the item's name (the question would name its own answer)."""
    heads: dict[str, list[Record]] = {}
    for _, b in ctx.doc.blocks():
        for r in ctx.records(b):
            if r.head is not None:
                heads.setdefault(r.head.text, []).append(r)
    out = []
    for recs in heads.values():
        for r1 in recs:
            keys = [k for k in unique_keys(ctx.records(r1.block)) if k in r1.fields]
            for r2 in recs:
                if r2.block is r1.block:
                    continue
                for t, f in r2.fields.items():
                    if t not in r1.fields and not named_in(f, r1.label):
                        out.extend((r1, k, r2, t) for k in keys if not named_in(f, r1.fields[k].text))
    return out


JOIN = ("What is the {t} in {wb} of the {noun} whose {k} is {v} in {wa}?",
        "{Wa} gives one {noun} a {k} of {v}. What {t} does {wb} show for that {noun}?",
        "Find the {noun} with {k} {v} in {wa}; what is its {t} according to {wb}?",
        "According to {wb}, what is the {t} of the {noun} that {wa} lists with {k} {v}?",
        "Which {t} does {wb} record for the {noun} whose {k} in {wa} is {v}?")


def record_join(ctx: QAContext, links: list[tuple[Record, str, Record, str]], rng: Rng) -> Draft | None:
    r1, k, r2, t = ctx.prefer_apart(links, lambda x: (x[0].block, x[2].block), rng)
    key, f = r1.fields[k], r2.fields[t]
    wa, wb = ctx.ref(r1.block), ctx.ref(r2.block)
    q = pick(rng, JOIN, t=t, wb=wb, noun=r1.noun, k=k, v=key.text, wa=wa)
    return unless_own_start(ctx, Draft("multi_hop", ELEMENT_OF_BLOCK[r2.block.type], q, answer_for_value(f.value),
                                       f.text, [
        Claim(f"The {r1.noun} with {k} {key.text} in {wa} is '{r1.head.text}'.", StringAnswer(value=r1.head.text),
              [key.id, r1.head.id]),
        Claim(f"The {t} of the {r2.noun} '{r2.head.text}' in {wb} is {f.text}.", answer_for_value(f.value),
              [r2.head.id, f.id])]))
