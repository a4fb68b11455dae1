"""What the prose says of a table or chart: the sentence that refers to it by number and those on its values.

``discussion`` is the paragraph below an exhibit: its reference, then ``commentary`` (its highest and lowest
values, its total, quoted from its cells). Literal text: QA provenance stays with the exhibit's cells, and the
planner may hold it over to the next page or cut it to its reference (``first_sentence``). ``exhibit_ref`` and
``exhibit_ref_in`` find the "Table N" / "Figure N" an exhibit carries or a paragraph names, ``exhibit_metric``
the measure it reports.
"""

from __future__ import annotations

import re

from synthdocqa.ir.blocks import FigureBlock, TableBlock, TextBlock
from synthdocqa.ir.rng import Rng

from .book import DocContext, lit
from .prose_text import TEXT, _fill, with_unit
from .registers import register
from .wording import lower_common, plural, verb

REFERENCE_SENTENCES = TEXT.exhibits.reference_sentences
TOTAL_COMMENT = TEXT.exhibits.total_comment
MEAN_COMMENT = TEXT.exhibits.mean_comment
CHART_COMMENTS = TEXT.exhibits.chart_comments
CATEGORY_COMMENTS = TEXT.exhibits.category_comments
DATED_ROWS_COMMENTS = TEXT.exhibits.dated_rows_comments

_EXHIBIT_NO = re.compile(r"^((?:Table|Figure) \d+)\. (.+)$")


def exhibit_ref(block) -> tuple[str, str] | None:
    """("Table 4", "research income by faculty, H1 2026") of a numbered table or figure (None otherwise)."""
    caption = block.caption if block.type == "table" else block.title
    m = _EXHIBIT_NO.match(caption)
    if not m:
        return None
    what = m.group(2)
    first = what.split(" ")[0]
    if not (first.isupper() and len(first) > 1):  # "Revenue by region" -> "revenue by region"; "EBITDA" stays
        what = what[0].lower() + what[1:]
    return m.group(1), what


_MENTION = re.compile(r"\b(?:Table|Figure) \d+\b")


def exhibit_ref_in(block: TextBlock) -> str | None:
    """The first "Table N" / "Figure N" a paragraph refers to (None when it refers to none)."""
    m = _MENTION.search(" ".join(s.text for s in block.spans))
    return m.group(0) if m else None


def first_sentence(block: TextBlock) -> TextBlock:
    """The paragraph cut to its first sentence (a discussion's reference to its exhibit)."""
    text = block.spans[0].text.split(". ")[0].rstrip(".") + "."
    return block.model_copy(update={"spans": [block.spans[0].model_copy(update={"text": text})]})


def discussion(ctx: DocContext, rng: Rng, block, n_sentences: int) -> TextBlock | None:
    """The prose about a table or chart: a sentence that refers to it by number and what it shows (its
    highest and lowest values, its total, quoted from its cells), at most ``n_sentences``. Literal text: QA
    provenance stays with the exhibit's cells, and the planner may hold it over to the next page or cut it to
    its reference. What the organisation makes of it is a paragraph of its own (``reflection`` on the
    exhibit's measure), placed only where it fits."""
    ref = exhibit_ref(block)
    if ref is None:
        return None
    no, what = ref
    if not re.search(r"[,:\d]| by | per | of ", what):  # a plain name ("action tracker") takes its article:
        what = f"the {what}"  # "Table 4 gives the action tracker"
    # an exhibit is always referred to: once every reference is said twice, the least said again
    template = ctx.template(rng, REFERENCE_SENTENCES) or rng.choice(REFERENCE_SENTENCES)
    head = what.split(",")[0].split(" by ")[0]
    sentences = [template.format(Ref=no, ref=no, what=what, What=what[0].upper() + what[1:],
                                 verb=verb(head, "is"))]  # "schedule of postings is", "order lines are"
    said = commentary(ctx, rng, block)
    printed: set[str] = ctx.used("sentence")  # one text: no sentence of it printed twice
    for line in re.split(r"(?<=\.) (?=[A-Z])", said.spans[0].text) if said is not None else ():
        if line not in printed:
            printed.add(line)
            sentences.append(line)
    return TextBlock(id=ctx.book.block_id(), spans=[lit(" ".join(sentences))], running=True)


def exhibit_metric(ctx: DocContext, block):
    """The domain measure a table's first numeric column or a chart's first series reports (None if none)."""
    label = ""
    if isinstance(block, TableBlock) and block.numeric_columns:
        j = block.numeric_columns[0]
        ids = [row[j].fact_ids[0] for row in block.rows if row[j].fact_ids]
        label = ctx.book.by_id[ids[0]].label if ids else ""
    elif isinstance(block, FigureBlock) and block.series[0].points[0].fact_ids:
        label = ctx.book.by_id[block.series[0].points[0].fact_ids[0]].label
    name = label.split(" of ")[0]
    return next((m for m in ctx.domain.metrics if m.name == name), None)


def _metric_of(label: str) -> str:
    """The metric a value's label names (labels read "<metric> of <item> in <period>")."""
    return lower_common(label.split(" of ")[0])


def _dated_rows(ctx: DocContext, rng: Rng, block: TableBlock) -> TextBlock | None:
    """What a register keyed by date says at a glance (a ledger, a schedule of postings): how many entries,
    from which date to which (literal text: the dates are its cells'). None for any other table."""
    body = block.rows[:-1] if block.total_row else block.rows
    dates = [ctx.book.by_id[row[0].fact_ids[0]] for row in body if row[0].fact_ids]
    dates = [f for f in dates if f.value.kind == "date"]
    if len(dates) < 3 or len(dates) != len(body):
        return None
    first, last = min(dates, key=lambda f: f.value.value), max(dates, key=lambda f: f.value.value)
    said = ctx.template(rng, DATED_ROWS_COMMENTS)
    if said is None or first.value.value == last.value.value:
        return None
    text = said.format(n=len(dates), first=first.text, last=last.text)
    return TextBlock(id=ctx.book.block_id(), spans=[lit(text)])


def commentary(ctx: DocContext, rng: Rng, block) -> TextBlock | None:
    """A paragraph restating facts of a table or chart on the page (literal text, see module doc); names of
    items keep their case."""
    index = ctx.book.by_id
    if isinstance(block, TableBlock) and block.numeric_columns:
        j = block.numeric_columns[0]
        body = block.rows[:-1] if block.total_row else block.rows
        cells = [(row[0].text, index[row[j].fact_ids[0]]) for row in body if row[j].fact_ids
                 and not row[0].fact_ids]  # rows named by literal labels (not registers keyed by date)
        cells = [(lab, f) for lab, f in cells if f.value.kind in ("money", "number", "percent")
                 and not lab.startswith("Other ")]
        if len(cells) < 2:
            return _dated_rows(ctx, rng, block)
        key = lambda c: c[1].value.absolute() if hasattr(c[1].value, "absolute") else c[1].value.value  # noqa: E731
        top, low = max(cells, key=key), min(cells, key=key)
        metric = _metric_of(top[1].label)
        said = ctx.template(rng, register(ctx).table_comments)  # no skeleton a third time: no comment then
        if said is None:
            return None
        text = _fill(said, ctx, rng, top=top[0], low=low[0], top_text=with_unit(top[1]),
                     low_text=with_unit(low[1]), metric_lc=metric)
        last = block.rows[-1]
        if block.total_row and last[j].fact_ids:
            total = index[last[j].fact_ids[0]]  # a sum says "in total", an average row "on average"
            summed = last[0].text == "Total" or (total.derivation is not None and total.derivation.op == "sum")
            if not summed:  # "On average, average transit time ..." says it twice
                metric = metric.removeprefix("average ").removeprefix("mean ")
            template = ctx.template(rng, TOTAL_COMMENT if summed else MEAN_COMMENT)
            text += "" if template is None else " " + template.format(metric_lc=metric, total_text=with_unit(index[last[j].fact_ids[0]]),
                                          item_kinds=plural(ctx.domain.item_kind))
        return TextBlock(id=ctx.book.block_id(), spans=[lit(text)])
    if isinstance(block, FigureBlock) and block.chart != "pie":
        s = block.series[0]
        i_top = max(range(len(s.values)), key=lambda i: s.values[i])
        i_low = min(range(len(s.values)), key=lambda i: s.values[i])
        first = index[s.points[0].fact_ids[0]] if s.points[0].fact_ids else None
        if first is None or i_top == i_low:
            return None
        metric = _metric_of(first.label)
        over_time = block.categories[0] not in ctx.domain.items
        top_text, low_text = with_unit(index[s.points[i_top].fact_ids[0]]), with_unit(index[s.points[i_low].fact_ids[0]])
        said = ctx.template(rng, CHART_COMMENTS if over_time else CATEGORY_COMMENTS)
        if said is None:
            return None
        text = _fill(said, ctx, rng, series=s.name,
                     metric_lc=metric, top=block.categories[i_top], low=block.categories[i_low], top_text=top_text,
                     low_text=low_text)
        return TextBlock(id=ctx.book.block_id(), spans=[lit(text)])
    return None
