"""Flows of the text-like blocks (heading, paragraph, list, footnote) and of tables."""

from __future__ import annotations

from dataclasses import dataclass, field

from reportlab.pdfbase.pdfmetrics import getAscentDescent, stringWidth

from ir.blocks import FootnoteBlock, HeadingBlock, ListBlock, Span, TableBlock, TextBlock

from .pdf_ctx import DrawCtx, mix
from .pdf_flow import Flow, Piece, remaining_spans
from .pdf_text import Line, plain_line, wrap_spans
from .pdf_theme import Theme


def _baseline_offset(font: str, size: float, line_h: float) -> float:
    """Distance from a line box's top to its baseline (ascent plus half the extra leading)."""
    asc, desc = getAscentDescent(font, size)
    return asc + (line_h - (asc - desc)) / 2


# --------------------------------------------------------------------------------------------------------
class HeadingFlow(Flow):
    keep_with_next = True
    counts = False

    def __init__(self, block: HeadingBlock, theme: Theme, first_on_page: bool = False) -> None:
        self.block_id = block.id
        self.block = block
        self.t = theme
        self.size = {1: theme.layout.style.heading_size, 2: round(theme.size * 1.3, 1),
                     3: round(theme.size * 1.1, 1)}[block.level]
        self.font = theme.head

    def take(self, width, avail, fresh):
        t, size = self.t, self.size
        lines = wrap_spans(self.block.spans, self.font, size, width)
        lh = size * 1.2
        before = 0 if fresh else size * 0.5
        rule = 6.0 if self.block.level == 1 else 0.0
        height = before + lh * len(lines) + rule + size * 0.35
        if height > avail and not fresh:
            return None, self
        colour = t.primary if self.block.level < 3 else t.text
        spans = self.block.spans

        def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
            yy = y + before
            off = _baseline_offset(self.font, size, lh)
            for line in lines:
                ctx.line(line, x, yy + off, self.font, size, colour, spans, self.block_id)
                yy += lh
            if rule:
                ctx.hline(x, x + w, yy + 2.5, t.primary, t.layout.style.rule_weight)

        return Piece(height, draw), None


# --------------------------------------------------------------------------------------------------------
@dataclass
class Item:
    spans: list[Span]
    marker: str = ""  # bullet/number drawn in the hanging indent ("" = plain paragraph)
    continued: bool = False  # a remainder: the marker was already drawn


@dataclass
class LinesFlow(Flow):
    """Paragraphs and list items: splits between lines, re-wraps the rest at the next slot's width."""

    block_id: str = ""
    items: list[Item] = field(default_factory=list)
    theme: Theme | None = None
    font: str = ""
    size: float = 10.0
    colour: str = "#000000"
    indent: float = 0.0
    item_gap: float = 3.0
    title: str = ""
    highlight: str | None = None  # fill colour drawn behind every line (highlight annotations)
    element: str = "text"

    def take(self, width, avail, fresh):
        t = self.theme
        lh = self.size * t.leading
        ops: list[tuple[str, object]] = []
        used = 0.0
        title_h = 0.0
        if self.title:
            title_h = self.size * 1.45
            if title_h + lh > avail and not fresh:
                return None, self
            used += title_h
        for k, item in enumerate(self.items):
            ind = self.indent if (item.marker or item.continued or self.indent) else 0.0
            lines = wrap_spans(item.spans, self.font, self.size, max(width - ind, 20))
            fit = int((avail - used + 1e-6) // lh)
            if fit <= 0 and (ops or not fresh):
                return self._piece(ops, used, width, title_h), self._rest(k, item, [], lines)
            if fit < len(lines):
                if fit == 0:
                    fit = 1  # fresh slot smaller than one line: draw it anyway
                ops.append(("item", (item, lines[:fit], ind)))
                used += lh * fit
                return self._piece(ops, used, width, title_h), self._rest(k, item, lines[:fit], lines)
            ops.append(("item", (item, lines, ind)))
            used += lh * len(lines) + (self.item_gap if k < len(self.items) - 1 else 0)
        used += self.size * 0.5
        return self._piece(ops, used, width, title_h), None

    def _rest(self, k: int, item: Item, done: list[Line], lines: list[Line]) -> LinesFlow | None:
        rest_items = []
        if len(done) < len(lines):
            rest_items.append(Item(remaining_spans(lines[len(done):], item.spans), "",
                                   continued=bool(item.marker or item.continued)))
        rest_items += self.items[k + 1:]
        if not rest_items:
            return None
        return LinesFlow(block_id=self.block_id, items=rest_items, theme=self.theme, font=self.font,
                         size=self.size, colour=self.colour, indent=self.indent, item_gap=self.item_gap,
                         highlight=self.highlight, element=self.element)

    def _piece(self, ops, height: float, width: float, title_h: float) -> Piece | None:
        if not ops and not title_h:
            return None
        t = self.theme
        lh = self.size * t.leading
        off = _baseline_offset(self.font, self.size, lh)

        def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
            yy = y
            if self.title:
                ctx.text(self.title, x, yy + self.size * 1.05, t.bold, self.size * 1.02, t.text)
                yy += title_h
            for _, (item, lines, ind) in ops:
                for li, line in enumerate(lines):
                    if li == 0 and item.marker:
                        ctx.text(item.marker, x + 2, yy + off, self.font, self.size, t.primary)
                    if self.highlight:
                        lw = stringWidth(line.text, self.font, self.size)
                        ctx.rect(x + ind - 1.5, yy + 0.5, x + ind + lw + 1.5, yy + lh - 0.5, fill=self.highlight,
                                 alpha=0.55)
                    ctx.line(line, x + ind, yy + off, self.font, self.size, self.colour, item.spans,
                             self.block_id)
                    yy += lh
                yy += self.item_gap

        return Piece(height, draw)


def text_flow(block: TextBlock, theme: Theme) -> LinesFlow:
    return LinesFlow(block_id=block.id, items=[Item(list(block.spans))], theme=theme, font=theme.body,
                     size=theme.size, colour=theme.text, item_gap=theme.size * 0.4)


def list_flow(block: ListBlock, theme: Theme) -> LinesFlow:
    items = []
    for i, spans in enumerate(block.items):
        marker = f"{i + 1}." if block.ordered else "\u2022"
        items.append(Item(list(spans), marker))
    indent = theme.size * (2.0 if block.ordered and len(block.items) >= 10 else 1.6)
    return LinesFlow(block_id=block.id, items=items, theme=theme, font=theme.body, size=theme.size,
                     colour=theme.text, indent=indent, item_gap=theme.size * 0.25, title=block.title)


def footnote_flow(block: FootnoteBlock, theme: Theme) -> LinesFlow:
    size = round(theme.size * 0.78, 1)
    return LinesFlow(block_id=block.id, items=[Item(list(block.spans), block.marker)], theme=theme,
                     font=theme.body, size=size, colour=theme.muted, indent=size * 1.4, item_gap=1.0)


# --------------------------------------------------------------------------------------------------------
class TableFlow(Flow):
    """A table that splits between rows; every part repeats the header row."""

    element = "table"

    def __init__(self, block: TableBlock, theme: Theme, rows: list[list[Span]] | None = None,
                 part: int = 0, size: float | None = None, style: str | None = None) -> None:
        self.block_id = block.id
        self.block = block
        self.t = theme
        self.rows = block.rows if rows is None else rows
        self.part = part
        self.base_size = size or round(theme.size * 0.92, 1)
        self.style = style or theme.table_style
        self.min_width = 60.0 * min(len(block.columns), 4)

    # -- geometry -------------------------------------------------------------------------------------
    def _fit(self, width: float) -> tuple[float, list[float]]:
        """Font size and column widths: shrink the font (to 6.5 pt) before wrapping fact cells."""
        cols = self.block.columns
        pad = 4.0
        size = self.base_size
        while True:
            natural = []
            for j, name in enumerate(cols):
                w = stringWidth(name, self.t.bold, size)
                for row in self.block.rows:
                    w = max(w, stringWidth(" ".join(row[j].text.split()), self.t.body, size))
                natural.append(w + 2 * pad)
            if sum(natural) <= width or size <= 6.5:
                break
            size = round(size - 0.5, 1)
        total = sum(natural)
        if total <= width:
            extra = (width - total) / len(cols)
            return size, [n + extra for n in natural]
        # still too wide: header words may wrap; give every column at least its widest word
        minw = []
        for j, name in enumerate(cols):
            words = name.split() + [w for row in self.block.rows for w in row[j].text.split()]
            minw.append(max([stringWidth(w, self.t.body, size) for w in words] + [12]) + 2 * pad)
        if sum(minw) >= width:
            scale = width / sum(minw)
            return size, [m * scale for m in minw]
        spare = width - sum(minw)
        want = [max(n - m, 0) for n, m in zip(natural, minw, strict=True)]
        tw = sum(want) or 1
        return size, [m + spare * w / tw for m, w in zip(minw, want, strict=True)]

    def take(self, width, avail, fresh):
        t = self.t
        size, widths = self._fit(width)
        pad = 4.0
        lh = size * 1.3
        cap_size = t.size * 0.9
        caption = self.block.caption
        if self.part:
            caption = (caption + " (continued)") if caption else "(continued)"
        cap_h = cap_size * 1.6 if caption else 0.0
        header_lines = [wrap_spans([Span(text=c)], t.bold, size, w - 2 * pad) for c, w in
                        zip(self.block.columns, widths, strict=True)]
        head_h = max(len(x) for x in header_lines) * lh + 2 * pad
        rows_lines = []
        for row in self.rows:
            rows_lines.append([wrap_spans([cell], t.body, size, w - 2 * pad) or [plain_line("")]
                               for cell, w in zip(row, widths, strict=True)])
        row_h = [max(len(c) for c in r) * lh + 2 * pad for r in rows_lines]
        used = cap_h + head_h
        n = 0
        while n < len(self.rows) and used + row_h[n] <= avail + 1e-6:
            used += row_h[n]
            n += 1
        if n == 0:
            if not fresh:
                return None, self
            n, used = 1, used + row_h[0]
        if n < len(self.rows) and n < 3 and not fresh and len(self.rows) > 3:
            return None, self  # avoid orphaned one- or two-row fragments at a slot's end
        is_last_part = n == len(self.rows)
        rest = None if is_last_part else TableFlow(self.block, t, self.rows[n:], self.part + 1, self.base_size,
                                                   self.style)
        numeric = set(self.block.numeric_columns)
        total_row = self.block.total_row and is_last_part
        style = self.style
        used += 4.0

        def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
            total_w = sum(widths)
            yy = y
            if caption:
                ctx.text(caption, x, yy + cap_size * 1.1, t.italic if self.part else t.bold, cap_size, t.text)
                yy += cap_h
            # header
            head_fill = t.primary if style in ("grid", "zebra") else None
            head_col = "#ffffff" if head_fill else t.primary
            if head_fill:
                ctx.rect(x, yy, x + total_w, yy + head_h, fill=head_fill)
            if style == "ruled":
                ctx.hline(x, x + total_w, yy, t.text, 1.2)
            off = _baseline_offset(t.bold, size, lh)
            xx = x
            for j, lines in enumerate(header_lines):
                for li, line in enumerate(lines):
                    align = "right" if j in numeric else "left"
                    ctx.line(line, xx + pad, yy + pad + li * lh + off, t.bold, size, head_col, [], self.block_id,
                             align=align, width=widths[j] - 2 * pad)
                xx += widths[j]
            yy += head_h
            if style in ("minimal", "ruled"):
                ctx.hline(x, x + total_w, yy, t.primary if style == "minimal" else t.text, 0.8)
            top_rows = yy
            for i in range(n):
                cells = rows_lines[i]
                rh = row_h[i]
                is_total = total_row and i == n - 1
                if style == "zebra" and i % 2 == 1:
                    ctx.rect(x, yy, x + total_w, yy + rh, fill=t.light)
                if is_total:
                    ctx.rect(x, yy, x + total_w, yy + rh, fill=mix(t.light, t.primary, 0.12))
                    ctx.hline(x, x + total_w, yy, t.text, 0.9)
                font = t.bold if is_total else t.body
                off = _baseline_offset(font, size, lh)
                xx = x
                for j, lines in enumerate(cells):
                    align = "right" if j in numeric else "left"
                    for li, line in enumerate(lines):
                        ctx.line(line, xx + pad, yy + pad + li * lh + off, font, size, t.text, [self.rows[i][j]],
                                 self.block_id, align=align, width=widths[j] - 2 * pad)
                    xx += widths[j]
                yy += rh
                if style == "minimal" and i < n - 1:
                    ctx.hline(x, x + total_w, yy, t.rule, 0.3)
            if style == "grid":
                ctx.rect(x, y + cap_h, x + total_w, yy, stroke=t.rule, width=0.6)
                xx = x
                for j in range(len(widths) - 1):
                    xx += widths[j]
                    ctx.line_seg(xx, y + cap_h, xx, yy, t.rule, 0.5)
                ry = top_rows
                for i in range(n - 1):
                    ry += row_h[i]
                    ctx.hline(x, x + total_w, ry, t.rule, 0.5)
            elif style in ("ruled", "zebra", "minimal"):
                ctx.hline(x, x + total_w, yy, t.text if style == "ruled" else t.primary,
                          1.2 if style == "ruled" else 0.8)

        return Piece(used, draw), rest
