"""Consistency checks of a planned document, shared by the planner and property tests.

Each returns a list of problems (empty: consistent) so failures name the offending fact. Besides
arithmetic (totals, shares, changes), the semantic checks: every number and date has a semantic type, a
total only sums additive quantities, a change is plausible and a change of rates is in percentage
points, running totals never go down, a share of one whole has one value; and the coherence checks:
addresses hold together, one reference number, nothing reported after the as-at date, names keep their
case in prose, a recipe's length and charts.
"""

from __future__ import annotations

import re
from decimal import Decimal

from synthdocqa.generation.content.calendar import period_end, period_months
from synthdocqa.generation.content.names import address_problems
from synthdocqa.generation.domains import get_domain, get_recipe, view
from synthdocqa.ir import DocumentIR, FigureBlock, FormBlock, TableBlock, block_spans
from synthdocqa.ir.answers import numeric
from synthdocqa.ir.arithmetic_rules import ADDITIVE, PERCENTAGE_POINTS, quantity_allows
from synthdocqa.ir.derivations import derivation_problems as fact_derivation_problems
from synthdocqa.ir.vocab import QUANTITIES

MAX_CHANGE = Decimal(60)
"""Largest plausible percent change between two reported periods (in percent)."""

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
    """Totals add up exactly; shares and changes match their parts (0.1, half-even); day counts match; the
    referee that ``corpus.verify`` runs (``ir.derivations``)."""
    return fact_derivation_problems(doc.facts)


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


# ----------------------------------------------------------------- semantics

NUMERIC_KINDS = {"money": {"amount", "ratio"}, "percent": {"rate"}, "date": {"date"},
                 "number": set(QUANTITIES) - {"date"}}


def quantity_problems(doc: DocumentIR) -> list[str]:
    """Every number and date carries a semantic type that fits its value kind."""
    return [f"{f.id} ({f.label}): {f.value.kind} fact with quantity {f.quantity!r}" for f in doc.facts
            if f.value.kind in NUMERIC_KINDS and f.quantity not in NUMERIC_KINDS[f.value.kind]]


def summary_problems(doc: DocumentIR) -> list[str]:
    """A total sums additive quantities only (never rates, ratios or scores)."""
    facts = doc.fact_index()
    out = []
    for f in doc.facts:
        if f.derivation is not None and f.derivation.op == "sum":
            kinds = {facts[o].quantity for o in f.derivation.operands} | {f.quantity}
            if not kinds <= ADDITIVE:
                out.append(f"{f.id} ({f.label}): a sum over {sorted(map(str, kinds))}")
    for _, b in doc.blocks():
        if isinstance(b, TableBlock) and b.total_row and b.rows[-1][0].text == "Total":
            for span in b.rows[-1][1:]:
                for fid in span.fact_ids:
                    d = facts[fid].derivation
                    if facts[fid].quantity not in ADDITIVE and not (d and d.op in ("percent_change", "difference")):
                        out.append(f"{b.id}: 'Total' row cell {fid} of a {facts[fid].quantity} column")
    return out


def change_problems(doc: DocumentIR) -> list[str]:
    """Changes are plausible (|percent change| <= 60%), never a percent change of a percentage, and a change
    of rates is a difference in percentage points under a "Change (pp)" header."""
    facts = doc.fact_index()
    out = []
    for f in doc.facts:
        d = f.derivation
        if d is None or d.op not in ("percent_change", "difference"):
            continue
        ops = [facts[o] for o in d.operands]
        if d.op == "percent_change":
            if any(not quantity_allows(o.quantity, "percent_change") for o in ops):
                out.append(f"{f.id}: percent change of {ops[0].quantity} values")
            if abs(f.value.value) > MAX_CHANGE:
                out.append(f"{f.id} ({f.label}): implausible change {f.value.value}%")
        elif ops[0].quantity == "rate" and (f.value.kind != "number" or f.value.unit != PERCENTAGE_POINTS):
            out.append(f"{f.id}: a change of rates not in percentage points")
    for _, b in doc.blocks():
        if not isinstance(b, TableBlock) or not b.columns[-1].startswith("Change"):
            continue
        cells = [facts[fid] for row in b.rows for fid in row[-1].fact_ids]
        rates = [c for c in cells if c.derivation and facts[c.derivation.operands[0]].quantity == "rate"]
        if rates and b.columns[-1] != "Change (pp)":
            out.append(f"{b.id}: rate changes under {b.columns[-1]!r}")
        if b.columns[-1] == "Change (pp)" and len(rates) != len(cells):
            out.append(f"{b.id}: 'Change (pp)' over values that are not rates")
    return out


def _metric_of(doc: DocumentIR, attribute: str):
    return get_domain(doc.domain).metric(attribute) if attribute else None


def trajectory_problems(doc: DocumentIR) -> list[str]:
    """Running totals (cost to date, progress) never go down from one period to a later one (within a table
    or chart: a chart's compact ``$1.4M`` is a rounding of a table's ``$1,410,000``)."""
    by_item: dict[tuple[str, str, str], dict[str, Decimal]] = {}
    for f in doc.facts:
        m = _metric_of(doc, f.attribute)
        if m is None or m.behaviour != "cumulative" or period_months(f.period) is None:
            continue
        named = re.match(rf"^{re.escape(m.name)} of (?P<item>.+?) in {re.escape(f.period)}\b", f.label)
        if named is None:  # totals and averages of a table
            continue
        item = named["item"]
        by_item.setdefault((m.slug, item, f.group), {})[f.period] = numeric(f.value)
    out = []
    for (slug, item, _), series in by_item.items():
        ordered = sorted(series, key=lambda p: (period_end(p), period_months(p)[1]))
        ends = [(period_end(p), series[p]) for p in ordered]
        for (e1, v1), (e2, v2) in zip(ends, ends[1:], strict=False):
            if e2 > e1 and v2 < v1:
                out.append(f"{slug} of {item}: {v1} at {e1} then {v2} at {e2}")
    return out


_SHARE = re.compile(r"^Share of (?P<who>.+?) in (?:the Table \d+ total of )?(?P<what>.+?) \((?P<period>[^)]+)\)")


def share_problems(doc: DocumentIR) -> list[str]:
    """One whole, one share per part: "Share of X" of a (metric, period) has one value in a document."""
    seen: dict[tuple[str, str, str], Decimal] = {}
    out = []
    for f in doc.facts:
        m = _SHARE.match(f.label)
        if m is None or m["who"].startswith("the other "):
            continue
        key = (m["who"], f.attribute, m["period"])
        if key in seen and seen[key] != f.value.value:
            out.append(f"{f.id}: share of {m['who']} ({f.attribute}, {m['period']}) is {f.value.value} and "
                       f"{seen[key]}")
        seen.setdefault(key, f.value.value)
    return out


_TABLE_REF = re.compile(r"\s*\((?:Table|Figure) \d+\)")


def whole_problems(doc: DocumentIR) -> list[str]:
    """One quantity, one value: every table's total of a metric over a period is the same number (the rows
    not listed are grouped as "Other"), and so is every change of that total."""
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    out = []
    for f in doc.facts:
        if not (f.label.startswith("Total ") or f.label.startswith("Change in ") and " of the total " in f.label):
            continue
        key = (_TABLE_REF.sub("", f.label), f.period)
        if key in seen and seen[key][1] != f.text:
            out.append(f"{f.id}: {key[0]!r} is {f.text} here and {seen[key][1]} in {seen[key][0]}")
        seen.setdefault(key, (f.id, f.text))
    return out


# ----------------------------------------------------------------- coherence

def identity_problems(doc: DocumentIR) -> list[str]:
    """Every organisation's address holds together (city, postcode, country, phone); the issuer's people
    have numbers in the issuer's city."""
    out = []
    orgs = [e for e in doc.entities if e.kind == "organisation"]
    for e in orgs:
        out += [f"{e.id} {e.name}: {p}" for p in address_problems(e.attributes)]
    issuer = orgs[0] if orgs else None
    for e in doc.entities:
        if issuer is not None and e.kind == "person" and "phone" in e.attributes:
            area = issuer.attributes["phone"].rsplit(" ", 2)[0].split(" ")[:2]
            if e.attributes["phone"].split(" ")[:2] != area:
                out.append(f"{e.id} {e.name}: phone {e.attributes['phone']} not in {issuer.attributes['city']}")
    return out


def reference_problems(doc: DocumentIR) -> list[str]:
    """One reference number per document: set, in the title when the recipe's title cites it, and the only
    identifier shaped like it."""
    ref = doc.reference
    if not ref:
        return ["document has no reference number"]
    out = []
    if "{ident}" in get_recipe(doc.recipe).title_pattern and ref not in doc.title:
        out.append(f"title {doc.title!r} lacks the reference {ref}")
    shape = re.compile(rf"\b{re.escape(ref.split('-')[0])}-\d{{4}}-\d{{5}}\b")
    for f in doc.facts:
        for other in shape.findall(f.text):
            if other != ref:
                out.append(f"{f.id}: a second reference {other} (document: {ref})")
    for _, b in doc.blocks():
        for s in block_spans(b):
            for other in shape.findall(s.text):
                if other != ref:
                    out.append(f"{b.id}: a second reference {other} (document: {ref})")
    for other in shape.findall(doc.title):
        if other != ref:
            out.append(f"title: a second reference {other}")
    return out


_TITLE_QUARTER = re.compile(r"\bQ[1-4] \d{4}\b")


def period_problems(doc: DocumentIR) -> list[str]:
    """Nothing is reported for a period that ends after the document's as-at date."""
    if doc.as_at is None:
        return ["document has no as-at date"]
    out = []
    for f in doc.facts:
        end = period_end(f.period) if f.period else None
        if f.period and end is None:
            out.append(f"{f.id}: period {f.period!r} is not a period")
        elif end is not None and end > doc.as_at:
            out.append(f"{f.id}: period {f.period} ends {end}, after the as-at date {doc.as_at}")
    for q in _TITLE_QUARTER.findall(doc.title):
        if period_end(q) > doc.as_at:
            out.append(f"title reports {q}, after {doc.as_at}")
    for _, b in doc.blocks():
        if isinstance(b, FigureBlock):
            for c in b.categories:
                end = period_end(c)
                if end is not None and end > doc.as_at:
                    out.append(f"{b.id}: chart category {c} ends after {doc.as_at}")
    return out


def _views(doc: DocumentIR):
    """The domain as the document's sections see it: its trade and each lens its recipe names."""
    d, recipe = get_domain(doc.domain), get_recipe(doc.recipe)
    return [d, *(view(d, lens) for lens in {recipe.lens, *(s.lens for s in recipe.grammar)} - {""})]


def casing_problems(doc: DocumentIR) -> list[str]:
    """Proper names (the domain's items, a lens's sites) keep their case in prose: never ``zone d coastal``."""
    views = _views(doc)
    common = " ".join(w for d in views for w in d.actions + d.topics + d.checks).lower()  # "the data centre" in
    names = sorted({i for d in views for i in d.items  # an action is no name; a department is lower-cased
                    if sum(c.isupper() for c in i) >= 2 and i.lower() not in common  # as a noun's modifier
                    and i not in views[0].departments})  # ("the customer service ledger")
    return [f"{bid}: {n!r} lower-cased in {text[:60]!r}" for bid, n, text in
            _prose_hits(doc, {n: rf"(?<![A-Za-z]){re.escape(n.lower())}(?![a-z])" for n in names})]


def count_unit_problems(doc: DocumentIR) -> list[str]:
    """A count's unit agrees in number in prose: ``1 incident``, never ``1 incidents``."""
    units = {m.unit for d in _views(doc) for m in d.metrics if m.quantity == "count" and m.unit.endswith("s")}
    return [f"{bid}: '1 {u}' in {text[:60]!r}" for bid, u, text in
            _prose_hits(doc, {u: rf"(?<![\d.,])(?<!Table )(?<!Figure )1 {re.escape(u)}\b" for u in units})]


def _prose_hits(doc: DocumentIR, patterns: dict[str, str]) -> list[tuple[str, str, str]]:
    """(block id, key, span text) of every span of the document that a pattern (by key) matches."""
    return [(b.id, key, s.text) for _, b in doc.blocks() for s in block_spans(b)
            for key, pattern in patterns.items() if re.search(pattern, s.text)]


def status_problems(doc: DocumentIR) -> list[str]:
    """An action's status agrees with its due date: overdue only when due before the as-at date, open, in
    progress or on hold only when not yet due."""
    due: dict[str, object] = {}
    for f in doc.facts:
        m = re.match(r"^Due date of the action '(.+)'$", f.label)
        if m:
            due[m[1]] = f.value.value
    out = []
    for f in doc.facts:
        m = re.match(r"^Status of the action '(.+)'$", f.label)
        if m is None or m[1] not in due or doc.as_at is None or f.value.value == "Completed":
            continue
        if (f.value.value == "Overdue") != (due[m[1]] < doc.as_at):
            out.append(f"{f.id}: action {m[1]!r} {f.value.value} but due {due[m[1]]} (as at {doc.as_at})")
    return out


def recipe_problems(doc: DocumentIR) -> list[str]:
    """The document's length is in its recipe's range and its charts are ones the recipe may hold."""
    r = get_recipe(doc.recipe)
    out = []
    if not r.fits(len(doc.pages)):
        out.append(f"{doc.recipe} of {len(doc.pages)} pages (range {r.pages[0]}-{r.pages[2]})")
    for _, b in doc.blocks():
        if isinstance(b, FigureBlock) and b.chart not in r.charts:
            out.append(f"{b.id}: a {b.chart} chart in a {doc.recipe} (allowed: {list(r.charts)})")
    return out


def semantic_problems(doc: DocumentIR) -> list[str]:
    return (quantity_problems(doc) + summary_problems(doc) + change_problems(doc) + trajectory_problems(doc)
            + share_problems(doc) + whole_problems(doc))


def coherence_problems(doc: DocumentIR) -> list[str]:
    return (identity_problems(doc) + reference_problems(doc) + period_problems(doc) + casing_problems(doc)
            + count_unit_problems(doc) + status_problems(doc))


def all_problems(doc: DocumentIR) -> list[str]:
    """Every check that holds for any spec (the recipe's length and charts hold where the spec allows:
    ``recipe_problems``)."""
    return (span_problems(doc) + derivation_problems(doc) + date_problems(doc) + figure_problems(doc)
            + entity_problems(doc) + label_problems(doc) + caption_problems(doc) + semantic_problems(doc)
            + coherence_problems(doc))
