"""Reading drawn values: a fact of a table, form or prose block, a chart point, an annotation, and a row
found by one of its values ("Who owns the action due on 10 December 2026?")."""

from __future__ import annotations

import re

from synthdocqa.ir.answers import answer_for_value, numeric
from synthdocqa.ir.blocks import (
    ELEMENT_OF_BLOCK,
    AnnotationBlock,
    Block,
    FigureBlock,
    FormBlock,
    ListBlock,
    TableBlock,
)
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.values import DateValue, MoneyValue, NumberValue, PercentValue, PersonValue

from .claims import Claim, Draft
from .context import QAContext, Record, lc
from .naming import ANNOTATION_NAMES, describe, field_name
from .phrasing import pick

WHERE = {
    "person": ("In {where}, who is the {d}?", "Who is named as the {d} in {where}?",
               "According to {where}, who is the {d}?", "Which person does {where} give as the {d}?",
               "Name the {d} given in {where}."),
    "date": ("In {where}, what is the {d}?", "What date does {where} give as the {d}?",
             "According to {where}, when is the {d}?", "Which date is recorded as the {d} in {where}?",
             "Find the {d} in {where}."),
    "number": ("In {where}, what is the {d}?", "What value does {where} give for the {d}?",
               "According to {where}, how much is the {d}?", "What is the {d} reported in {where}?",
               "Reading {where}, what is the {d}?", "Find the {d} in {where}."),
    "other": ("In {where}, what is the {d}?", "What is the {d} given in {where}?",
              "According to {where}, what is the {d}?", "What does {where} state as the {d}?",
              "Reading {where}, what is the {d}?"),
}
NOWHERE = {
    "person": ("Who is the {d}?", "Who is named as the {d}?", "Which person is the {d}?",
               "According to the document, who is the {d}?", "Name the {d}."),
    "date": ("What is the {d}?", "What date is given as the {d}?", "Which date does the document give as the {d}?",
             "When is the {d}, according to the document?", "State the {d}."),
    "number": ("What is the {d}?", "How much is the {d}?", "What value does the document give for the {d}?",
               "According to the document, what is the {d}?", "State the {d}."),
    "other": ("What is the {d}?", "What does the document give as the {d}?", "According to the document, what is "
              "the {d}?", "State the {d}.", "Which value is recorded as the {d}?"),
}
CHART = ("In {where}, what value is shown for the {d}?", "What does {where} show for the {d}?",
         "According to {where}, what is the {d}?", "What is the {d} plotted in {where}?",
         "Reading {where}, what is the {d}?", "What value is labelled for the {d} in {where}?")


def value_kind(f: Fact) -> str:
    v = f.value
    if isinstance(v, PersonValue):
        return "person"
    if isinstance(v, DateValue):
        return "date"
    if isinstance(v, MoneyValue | NumberValue | PercentValue):
        return "number"
    return "other"


def self_located(b: Block, f: Fact) -> bool:
    """Whether a fact's label already says where it is (a form's facts name the form, a list item its list)."""
    title = getattr(b, "title", "") or ""
    return isinstance(b, FormBlock | ListBlock) and bool(title) and title.lower() in f.label.lower()


def ask_fact(ctx: QAContext, b: Block, f: Fact, rng: Rng, element: str | None = None) -> Draft:
    """A question whose answer is one drawn fact of block ``b``, worded from its label."""
    kind = value_kind(f)
    d = lc(describe(f))
    where = ctx.place(b, [f])
    if self_located(b, f) or not where:
        q = pick(rng, NOWHERE[kind], d=d)
    else:
        q = pick(rng, WHERE[kind], d=d, where=where)
    return Draft("lookup", element or ELEMENT_OF_BLOCK[b.type], q, answer_for_value(f.value), f.text,
                 [ctx.claim_fact(f)])


def lookup(ctx: QAContext, b: Block, rng: Rng) -> Draft | None:
    """A drawn value of a table, form or prose block; a form without filled fields asks a checkbox."""
    fids = ctx.drawn_fact_ids(b)
    if isinstance(b, FormBlock):
        fids = [ctx.drawn_fact(fl.value).id for fl in b.fields if ctx.drawn_fact(fl.value) is not None]
        if not fids:
            from .compare import boolean
            return boolean(ctx, b, rng)
    if isinstance(b, TableBlock):
        numeric = {p.fact.id for p in ctx.points(b)}
        if numeric and rng.bernoulli(0.5):
            fids = [f for f in fids if f in numeric]
    if not fids:
        return None
    return ask_fact(ctx, b, ctx.facts[rng.choice(fids)], rng)


def chart_reading(ctx: QAContext, b: FigureBlock, rng: Rng) -> Draft | None:
    fids = [f for s in b.series for p in s.points for f in p.fact_ids[:1] if ctx.drawn(f)]
    if not fids:
        return None
    f = ctx.facts[rng.choice(fids)]
    q = pick(rng, CHART, d=lc(describe(f)), where=ctx.place(b, [f]))
    return Draft("chart_reading", "figure", q, answer_for_value(f.value), f.text, [ctx.claim_fact(f)])


ANNOTATION = {
    "date": ("What date is written on {ann}?", "Which date does {ann} show?",
             "What date appears on {ann}?", "How is {ann} dated?", "Read {ann}: what date does it give?"),
    "person": ("Whose name is on {ann}?", "Which person is named in {ann}?",
               "Who does {ann} name?", "What name appears on {ann}?", "Read {ann}: whose name is given?"),
    "signature": ("Whose signature is on {on}?", "Whose signature appears on {on}?", "Which person's signature is on {on}?",
                  "Whose signature can be seen on {on}?", "Name the person whose signature is on {on}."),
    "other": ("What does {ann} say about the {d}?", "According to {ann}, what is the {d}?",
              "Reading {ann}, what is the {d}?", "What is the {d} on {ann}?", "What {d} is given on {ann}?"),
}
"""``{ann}``: "the stamp" where the document has one stamp with a drawn value, else "the stamp on page 3";
``{on}``: "the document" for its only signature, else "page 5"."""


def annotation_reading(ctx: QAContext, b: AnnotationBlock, rng: Rng) -> Draft | None:
    fids = [fid for s in b.spans for fid in s.fact_ids if ctx.drawn(fid)]
    if not fids:
        return None
    f = ctx.facts[rng.choice(fids)]
    kind = value_kind(f)
    key = "signature" if kind == "person" and b.kind == "signature" else kind if kind in ANNOTATION else "other"
    kind_name = ANNOTATION_NAMES[b.kind]
    d = re.sub(rf"\s+(?:in|on) the (?:\w+ )?{kind_name}\b.*$", "", lc(describe(f)))  # the question names it
    alone = sum(1 for _, o in ctx.doc.blocks() if isinstance(o, AnnotationBlock) and o.kind == b.kind
                and any(ctx.drawn(x) for s in o.spans for x in s.fact_ids)) == 1
    page = str(min(ctx.pages_of(f.id)))
    ann = f"the {kind_name}" if alone else f"the {kind_name} on page {page}"
    q = pick(rng, ANNOTATION[key], ann=ann, on="the document" if alone else f"page {page}", d=d)
    return Draft("annotation_reading", "annotation", q, answer_for_value(f.value), f.text, [ctx.claim_fact(f)])


# ------------------------------------------------------------------ a row found by one of its values

REVERSE = {
    "head": ("Which {noun} in {where} has {kj} {vj}?", "In {where}, which {noun} has a {kj} of {vj}?",
             "Name the {noun} in {where} whose {kj} is {vj}.", "What is the {noun} with {kj} {vj} in {where}?",
             "{Where} lists one {noun} with {kj} {vj}: which is it?"),
    "person": ("In {where}, who is the {ka} of the {noun} whose {kj} is {vj}?",
               "Who is the {ka} of the {noun} with {kj} {vj} in {where}?",
               "Which person is the {ka} for the {noun} whose {kj} is {vj} in {where}?",
               "{Where} lists a {noun} with {kj} {vj}: who is its {ka}?",
               "Name the {ka} of the {noun} in {where} whose {kj} is {vj}."),
    "other": ("In {where}, what is the {ka} of the {noun} whose {kj} is {vj}?",
              "What {ka} does {where} give for the {noun} with {kj} {vj}?",
              "{Where} lists a {noun} with {kj} {vj}. What is its {ka}?",
              "For the {noun} whose {kj} is {vj} in {where}, what is the {ka}?",
              "Which {ka} belongs to the {noun} with {kj} {vj} in {where}?"),
}


def unique_keys(recs: list[Record]) -> list[str]:
    """Fields whose drawn text differs in every record (so one value finds one row): dates, names,
    references; not measured numbers (a row is not looked up by its amount)."""
    names = set.intersection(*(set(r.fields) for r in recs)) if recs else set()
    return sorted(n for n in names if len({r.fields[n].text for r in recs}) == len(recs)
                  and numeric(recs[0].fields[n].value) is None)


def head_name(b: Block, rec: Record) -> str:
    """How a question names a row's head: '' when the head is the row itself ("which action"), else its
    column ("the date of the entry")."""
    if isinstance(b, TableBlock):
        name = field_name(b.columns[0])
        return "" if name == rec.noun else name
    return ""


def reverse_lookup(ctx: QAContext, b: Block, rng: Rng) -> Draft | None:
    """A row of a table (or item of a list) found by a value unique to it; asks another of its values."""
    recs = ctx.records(b)
    keys = unique_keys(recs)
    if len(recs) < 2 or not keys:
        return None
    kj = rng.choice(keys)
    rec = rng.choice(recs)
    if kj.split()[0] == rec.noun.split()[0]:
        return None  # "the risk id with risk X": the row is its key, named twice
    key = rec.fields[kj]
    answers = [(n, f) for n, f in rec.fields.items() if n != kj]
    if rec.head is not None:
        answers.append((head_name(b, rec), rec.head))
    if not answers:
        return None
    ka, f = rng.choice(answers)
    if ka and sum(1 for r in recs if r.fields.get(ka) and r.fields[ka].text == f.text) == len(recs):
        return None  # every row has the same answer: the key would not matter
    if {ka.lower(), kj.lower()} & (FUNCTION_WORDS - {"name", "value"}):
        return None  # "who is the by of the time ...": a column named by a preposition is no noun to ask by
    form = "head" if not ka else "person" if isinstance(f.value, PersonValue) else "other"
    where = ctx.ref(b)
    q = pick(rng, REVERSE[form], noun=rec.noun, where=where, kj=kj, vj=key.text, ka=ka)
    said = f"The {rec.noun} with {kj} {key.text} in {where} is {f.text}." if not ka else \
        f"The {ka} of the {rec.noun} with {kj} {key.text} in {where} is {f.text}."
    # one relational claim on both facts: the key's row holds the answer
    return Draft("lookup", ELEMENT_OF_BLOCK[b.type], q, answer_for_value(f.value), f.text,
                 [Claim(said, answer_for_value(f.value), [key.id, f.id])])


FUNCTION_WORDS = frozenset({"by", "for", "of", "on", "at", "to", "from", "with", "in", "name", "value"})
"""Attributes that are no noun a question can name a detail by ("whose by is ...")."""
WHOSE = ("Whose {attr} is {v}?", "Who can be reached at {v}?", "Which person does the document give the {attr} {v} for?",
         "Which person has the {attr} {v}?", "Name the person whose {attr} is {v}.")


def whose(ctx: QAContext, b: Block, rng: Rng) -> Draft | None:
    """A person found by one of their details stated in the same paragraph ("Whose direct line is ...?")."""
    pairs = person_details(ctx, b)
    if not pairs:
        return None
    person, f = rng.choice(pairs)
    attr = f.attribute.replace("_", " ")
    if attr.lower() in FUNCTION_WORDS or len(attr) < 3:
        return None  # "whose by is X": the detail has no noun to ask by
    q = pick(rng, WHOSE, attr=attr, v=f.text)
    return Draft("lookup", ELEMENT_OF_BLOCK[b.type], q, answer_for_value(person.value), person.text,
                 [Claim(f"The {f.attribute.replace('_', ' ')} of {person.text} is {f.text}.",
                        answer_for_value(person.value), [f.id, person.id])])


def person_details(ctx: QAContext, b: Block) -> list[tuple[Fact, Fact]]:
    """(person named in a block, a detail of theirs stated in the same block) pairs."""
    facts = [ctx.facts[f] for f in ctx.drawn_fact_ids(b)]
    people = {f.value.entity_id: f for f in facts if isinstance(f.value, PersonValue) and f.value.entity_id}
    return [(people[f.subject], f) for f in facts if f.subject in people and f.attribute
            and not isinstance(f.value, PersonValue)]
