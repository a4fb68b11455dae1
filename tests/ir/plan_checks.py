"""Consistency checks of a planned document, shared by the planner and property tests.

Each returns a list of problems (empty: consistent) so failures name the offending fact.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from ir import DocumentIR, FigureBlock, FormBlock, block_spans
from ir.answers import numeric

TENTH = Decimal("0.1")
ORDERED_DATES = (("invoice_date", "due_date"), ("window_open", "window_close"), ("submitted", "decision_date"),
                 ("period_start", "period_end"))


def span_problems(doc: DocumentIR) -> list[str]:
    """Every fact span draws its facts' exact text; every fact is drawn somewhere."""
    facts = doc.fact_index()
    drawn: set[str] = set()
    out = []
    for _, b in doc.blocks():
        for s in block_spans(b):
            for fid in s.fact_ids:
                drawn.add(fid)
                if facts[fid].text not in s.text:
                    out.append(f"{b.id}: span {s.text!r} lacks text {facts[fid].text!r} of {fid}")
        if isinstance(b, FormBlock):
            for cb in b.checkboxes:
                for fid in cb.fact_ids:
                    drawn.add(fid)
                    f = facts[fid]
                    if f.text != cb.label or f.value.value != cb.checked:
                        out.append(f"{b.id}: checkbox {cb.label!r} disagrees with {fid}")
    out += [f"{f.id} ({f.label}) is never drawn" for f in doc.facts if f.id not in drawn]
    return out


def derivation_problems(doc: DocumentIR) -> list[str]:
    """Totals add up exactly; shares and changes match their parts (0.1, half-even); day counts match."""
    facts = doc.fact_index()
    out = []
    for f in doc.facts:
        d = f.derivation
        if d is None:
            continue
        ops = [facts[o] for o in d.operands]
        if d.op == "sum":
            want = sum((numeric(o.value) for o in ops), Decimal(0))
            if numeric(f.value) != want:
                out.append(f"{f.id}: total {numeric(f.value)} != sum {want}")
            if {o.value.kind for o in ops} != {f.value.kind}:
                out.append(f"{f.id}: total kind differs from its cells")
        elif d.op == "share":
            part, total = (numeric(o.value) for o in ops)
            want = (part / total * 100).quantize(TENTH, rounding=ROUND_HALF_EVEN)
            if f.value.value != want:
                out.append(f"{f.id}: share {f.value.value} != {want}")
        elif d.op == "percent_change":
            a, b = (numeric(o.value) for o in ops)
            want = ((b - a) / a * 100).quantize(TENTH, rounding=ROUND_HALF_EVEN)
            if f.value.value != want:
                out.append(f"{f.id}: change {f.value.value} != {want}")
        elif d.op == "days_between":
            a, b = (o.value.value for o in ops)
            if f.value.value != Decimal((b - a).days):
                out.append(f"{f.id}: {f.value.value} days != {(b - a).days}")
        else:
            out.append(f"{f.id}: unexpected derivation {d.op}")
    return out


def date_problems(doc: DocumentIR) -> list[str]:
    """Paired dates of one block are ordered; register postings never go back in time."""
    out = []
    by_group: dict[str, dict[str, list]] = {}
    for f in doc.facts:
        by_group.setdefault(f.group, {}).setdefault(f.attribute, []).append(f)
    for group, attrs in by_group.items():
        for first, second in ORDERED_DATES:
            for a, b in zip(attrs.get(first, []), attrs.get(second, []), strict=False):
                if not a.value.value < b.value.value:
                    out.append(f"{group}: {first} {a.value.value} not before {second} {b.value.value}")
        posts = [f.value.value for f in attrs.get("posting_date", [])]
        if posts != sorted(posts):
            out.append(f"{group}: register dates out of order")
    return out


def figure_problems(doc: DocumentIR) -> list[str]:
    """Pie shares sum to exactly 100.0; plotted values equal the facts' values."""
    facts = doc.fact_index()
    out = []
    for _, b in doc.blocks():
        if not isinstance(b, FigureBlock):
            continue
        for s in b.series:
            vals = [facts[p.fact_ids[0]].value for p in s.points]
            if b.chart == "pie" and sum(v.value for v in vals) != Decimal(100):
                out.append(f"{b.id}: pie shares sum to {sum(v.value for v in vals)}")
            for v, plotted in zip(vals, s.values, strict=True):
                shown = v.amount if v.kind == "money" else v.value
                if float(shown) != plotted:
                    out.append(f"{b.id}: plotted {plotted} != fact value {shown}")
    return out


def entity_problems(doc: DocumentIR) -> list[str]:
    """Names of people/organisations are their entity's name; subjects point at entities."""
    ents = {e.id: e for e in doc.entities}
    out = []
    for f in doc.facts:
        if f.value.kind in ("person", "organisation"):
            e = ents.get(f.value.entity_id)
            if e is None or e.name != f.value.name or f.text != e.name or f.subject != e.id:
                out.append(f"{f.id}: {f.value.kind} {f.value.name!r} not tied to its entity")
    names = [e.name for e in doc.entities]
    if len(names) != len(set(names)):
        out.append("two entities share a name")
    return out


def label_problems(doc: DocumentIR) -> list[str]:
    """A quantity has one value per document: facts with the same label agree."""
    seen: dict[str, object] = {}
    out = []
    for f in doc.facts:
        if f.label in seen and seen[f.label] != f.value:
            out.append(f"{f.id}: {f.label!r} has two values ({seen[f.label]} vs {f.value})")
        seen.setdefault(f.label, f.value)
    return out


def caption_problems(doc: DocumentIR) -> list[str]:
    """Table captions and figure titles are unique within a document (questions cite them)."""
    names = [b.caption if b.type == "table" else b.title for _, b in doc.blocks() if b.type in ("table", "figure")]
    dup = sorted({n for n in names if names.count(n) > 1})
    return [f"duplicate caption {n!r}" for n in dup]


def all_problems(doc: DocumentIR) -> list[str]:
    return (span_problems(doc) + derivation_problems(doc) + date_problems(doc) + figure_problems(doc)
            + entity_problems(doc) + label_problems(doc) + caption_problems(doc))
