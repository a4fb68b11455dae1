"""Reading one drawn value: a table cell, a form field, a text fact, a chart point, an annotation."""

from __future__ import annotations

from ..answers import answer_for_value
from ..blocks import ELEMENT_OF_BLOCK, AnnotationBlock, Block, FigureBlock, FormBlock, TableBlock, block_spans
from ..rng import Rng
from ..values import DateValue, PersonValue
from .claims import Draft
from .compare import boolean
from .context import QAContext, caption_of, lc

ANNOTATION_NAMES = {"stamp": "stamp", "handwritten_note": "handwritten note", "signature": "signature",
                    "highlight": "highlighted passage"}


def lookup(ctx: QAContext, b: Block, rng: Rng) -> Draft | None:
    """A drawn value of any block; figures, annotations and field-less forms hand over to their own type."""
    el = ELEMENT_OF_BLOCK[b.type]
    if isinstance(b, TableBlock):
        cols = ctx.numeric_columns(b) or list(range(1, len(b.columns)))
        j = rng.choice(cols)
        cells = [(row[0].text.strip(), row[j]) for row in b.rows if any(ctx.drawn(f) for f in row[j].fact_ids)]
        if not cells:
            return None
        row_label, span = rng.choice(cells)
        f = ctx.facts[next(fid for fid in span.fact_ids if ctx.drawn(fid))]
        cap = caption_of(b)
        q = rng.choice([f"In the {cap}, what is the {b.columns[j]} for {row_label}?",
                        f"What {b.columns[j]} does the {cap} report for {row_label}?",
                        f"According to the {cap}, what is the {b.columns[j]} of {row_label}?"])
    elif isinstance(b, FormBlock):
        fields = [fl for fl in b.fields if any(ctx.drawn(f) for f in fl.value.fact_ids)]
        if not fields:
            return boolean(ctx, b, rng)
        fl = rng.choice(fields)
        f = ctx.facts[next(fid for fid in fl.value.fact_ids if ctx.drawn(fid))]
        form = f"form '{b.title}'" if b.title else "form"
        q = rng.choice([f"What is entered in the '{fl.label}' field of the {form}?",
                        f"On the {form}, what is the {fl.label}?"])
    elif isinstance(b, FigureBlock):
        return chart_reading(ctx, b, rng)
    elif isinstance(b, AnnotationBlock):
        return annotation_reading(ctx, b, rng)
    else:
        fids = [fid for s in block_spans(b) for fid in s.fact_ids if ctx.drawn(fid)]
        f = ctx.facts[rng.choice(fids)]
        q = rng.choice([f"What is the {lc(f.label)}?", f"According to the document, what is the {lc(f.label)}?",
                        f"What {lc(f.label)} does the document state?"])
    return Draft("lookup", el, q, answer_for_value(f.value), f.text, [ctx.claim_fact(f)])


def chart_reading(ctx: QAContext, b: FigureBlock, rng: Rng) -> Draft | None:
    pts = [(s.name, b.categories[i], p) for s in b.series for i, p in enumerate(s.points)
           if i < len(b.categories) and any(ctx.drawn(f) for f in p.fact_ids)]
    if not pts:
        return None
    series, cat, p = rng.choice(pts)
    f = ctx.facts[next(fid for fid in p.fact_ids if ctx.drawn(fid))]
    title = f"chart '{b.title}'" if b.title else f"{b.chart} chart"
    what = f"{series} for {cat}" if len(b.series) > 1 else cat
    q = rng.choice([f"In the {title}, what value is shown for {what}?",
                    f"What does the {title} report for {what}?"])
    return Draft("chart_reading", "figure", q, answer_for_value(f.value), f.text, [ctx.claim_fact(f)])


def annotation_reading(ctx: QAContext, b: AnnotationBlock, rng: Rng) -> Draft | None:
    fids = [fid for s in b.spans for fid in s.fact_ids if ctx.drawn(fid)]
    if not fids:
        return None
    f = ctx.facts[rng.choice(fids)]
    page = ctx.ev[f.id][0].page_no
    kind = ANNOTATION_NAMES[b.kind]
    if isinstance(f.value, DateValue):
        q = f"What date is written on the {kind} on page {page}?"
    elif isinstance(f.value, PersonValue):
        q = rng.choice([f"Whose name is on the {kind} on page {page}?", f"Who signed on page {page}?"]
                       if b.kind == "signature" else [f"Which person is named in the {kind} on page {page}?"])
    elif b.kind == "stamp":
        q = f"What does the {kind} on page {page} say about the {lc(f.label)}?"
    else:
        q = f"According to the {kind} on page {page}, what is the {lc(f.label)}?"
    return Draft("annotation_reading", "annotation", q, answer_for_value(f.value), f.text, [ctx.claim_fact(f)])
