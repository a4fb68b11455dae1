"""Flows of the text-like blocks (heading, paragraph, list, footnote) and of tables."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from reportlab.pdfbase.pdfmetrics import getAscentDescent, stringWidth

from synthdocqa.ir.blocks import FootnoteBlock, HeadingBlock, ListBlock, Span, TableBlock, TextBlock

from .ctx import DrawCtx, mix
from .flow import Flow, Piece, remaining_spans
from .text import Line, plain_line, size_for_words, wrap_spans, wrap_text
from .theme import Theme

MIN_TEXT_SIZE = 6.0
"""Text shrinks down to this size when one of its words is wider than its line (never breaks a word)."""


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
        t = self.t
        size = size_for_words(self.block.spans, self.font, self.size, width, max(t.size, self.size * 0.6))
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
        inner = max(width - self.indent, 20)
        size = min(size_for_words(item.spans, self.font, self.size, inner, MIN_TEXT_SIZE) for item in self.items)
        if size < self.size:  # a word wider than the line: smaller type rather than a word broken in two
            k = size / self.size
            return replace(self, size=size, indent=self.indent * k, item_gap=self.item_gap * k).take(width, avail,
                                                                                                 fresh)
        marker_w = max((stringWidth(it.marker, self.font, self.size) for it in self.items if it.marker), default=0.0)
        if marker_w and 2 + marker_w + self.size * 0.35 > self.indent:  # "14" or "10." wider than the indent
            return replace(self, indent=2 + marker_w + self.size * 0.35).take(width, avail, fresh)
        lh = self.size * t.leading
        ops: list[tuple[str, object]] = []
        used = 0.0
        title_h = 0.0
        title_size, title_lines = 0.0, []
        if self.title:
            title_size, title_lines = wrap_text(self.title, t.bold, self.size * 1.02, width, MIN_TEXT_SIZE)
            title_h = self.size * 1.45 + (len(title_lines) - 1) * title_size * 1.25
            if title_h + lh > avail and not fresh:
                return None, self
            used += title_h
        for k, item in enumerate(self.items):
            ind = self.indent if (item.marker or item.continued or self.indent) else 0.0
            lines = wrap_spans(item.spans, self.font, self.size, max(width - ind, 20))
            fit = int((avail - used + 1e-6) // lh)
            title = (title_size, title_lines, title_h)
            if fit <= 0 and (ops or not fresh):
                return self._piece(ops, used, width, title), self._rest(k, item, [], lines)
            if fit < len(lines):
                if fit == 0:
                    fit = 1  # fresh slot smaller than one line: draw it anyway
                ops.append(("item", (item, lines[:fit], ind)))
                used += lh * fit
                return self._piece(ops, used, width, title), self._rest(k, item, lines[:fit], lines)
            ops.append(("item", (item, lines, ind)))
            used += lh * len(lines) + (self.item_gap if k < len(self.items) - 1 else 0)
        used += min(self.size * 0.5, max(avail - used, 0.0))  # trailing space, as far as there is room
        return self._piece(ops, used, width, (title_size, title_lines, title_h)), None

    def retheme(self, theme: Theme) -> LinesFlow:
        th = theme.for_text(self.title + "".join(s.text for it in self.items for s in it.spans))
        if th == self.theme:
            return self
        k = th.size / self.theme.size
        return replace(self, theme=th, font=th.body, size=round(self.size * k, 1), indent=self.indent * k,
                       item_gap=self.item_gap * k, colour=th.muted if self.colour == self.theme.muted else th.text)

    def _rest(self, k: int, item: Item, done: list[Line], lines: list[Line]) -> LinesFlow | None:
        rest_items = []
        if not done:  # nothing of the item drawn here: it starts the next slot whole, with its own marker
            rest_items.append(item)
        elif len(done) < len(lines):
            rest_items.append(Item(remaining_spans(lines[len(done):], item.spans), "",
                                   continued=bool(item.marker or item.continued)))
        rest_items += self.items[k + 1:]
        if not rest_items:
            return None
        return LinesFlow(block_id=self.block_id, items=rest_items, theme=self.theme, font=self.font,
                         size=self.size, colour=self.colour, indent=self.indent, item_gap=self.item_gap,
                         highlight=self.highlight, element=self.element)

    def _piece(self, ops, height: float, width: float, title: tuple[float, list[str], float]) -> Piece | None:
        title_size, title_lines, title_h = title
        if not ops and not title_h:
            return None
        t = self.theme
        lh = self.size * t.leading
        off = _baseline_offset(self.font, self.size, lh)

        def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
            yy = y
            for i, line in enumerate(title_lines):
                ctx.text(line, x, yy + self.size * 1.05 + i * title_size * 1.25, t.bold, title_size, t.text)
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
TABLE_PAD = 4.0
TABLE_MIN_SIZE = 6.5
"""Tables shrink to this size before cells wrap at spaces."""
TABLE_SMALLEST_SIZE = 5.5
"""...and to this size before a word or number would have to break."""


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
        self.size_given = size
        self.base_size = size or round(theme.size * 0.92, 1)
        self.style = style or theme.table_style
        self._min_width: float | None = None

    def retheme(self, theme: Theme) -> TableFlow:
        th = theme.for_text(self.block.model_dump_json())
        if th == self.t:
            return self
        size = None if self.size_given is None else round(self.size_given * th.size / self.t.size, 1)
        return TableFlow(self.block, th, self.rows, self.part, size, self.style)

    # -- geometry -------------------------------------------------------------------------------------
    def _needs(self, size: float) -> tuple[list[float], list[float]]:
        """Per column at ``size``: the natural width (no wrapping) and the least width at which no word
        or number has to break (header in bold, a total row in bold), padding included."""
        t, pad = self.t, TABLE_PAD
        natural, least = [], []
        last = len(self.block.rows) - 1
        for j, name in enumerate(self.block.columns):
            nat = stringWidth(" ".join(name.split()), t.bold, size)
            low = max((stringWidth(w, t.bold, size) for w in name.split()), default=0.0)
            for i, row in enumerate(self.block.rows):
                font = t.bold if self.block.total_row and i == last else t.body
                text = " ".join(row[j].text.split())
                nat = max(nat, stringWidth(text, font, size))
                low = max(low, max((stringWidth(w, font, size) for w in text.split()), default=0.0))
            natural.append(nat + 2 * pad + 0.01)
            least.append(max(low, 8.0) + 2 * pad + 0.01)
        return natural, least

    @property
    def min_width(self) -> float:
        """The narrowest slot that holds the table at ``TABLE_MIN_SIZE`` without breaking a word."""
        if self._min_width is None:
            self._min_width = sum(self._needs(min(TABLE_MIN_SIZE, self.base_size))[1])
        return self._min_width

    def _fit(self, width: float) -> tuple[float, list[float]]:
        """Font size and column widths: shrink the font (to ``TABLE_MIN_SIZE``) before wrapping cells at
        spaces, and further (to ``TABLE_SMALLEST_SIZE``) before anything would break inside a word."""
        size = self.base_size
        while True:
            natural, least = self._needs(size)
            if sum(natural) <= width:
                extra = (width - sum(natural)) / len(natural)
                return size, [n + extra for n in natural]
            if size <= TABLE_MIN_SIZE:
                break
            size = max(round(size - 0.5, 1), TABLE_MIN_SIZE)
        while sum(least) > width and size > TABLE_SMALLEST_SIZE:
            size = max(round(size - 0.5, 1), TABLE_SMALLEST_SIZE)
            natural, least = self._needs(size)
        if sum(least) >= width:  # words wider than the slot even at the smallest size: they must break
            scale = width / sum(least)
            return size, [m * scale for m in least]
        spare = width - sum(least)
        want = [max(n - m, 0) for n, m in zip(natural, least, strict=True)]
        tw = sum(want) or 1
        return size, [m + spare * w / tw for m, w in zip(least, want, strict=True)]

    def take(self, width, avail, fresh):
        t = self.t
        size, widths = self._fit(width)
        pad = TABLE_PAD
        lh = size * 1.3
        cap_size = t.size * 0.9
        caption = self.block.caption
        if self.part:
            caption = (caption + " (continued)") if caption else "(continued)"
        cap_font = t.italic if self.part else t.bold
        cap_size, cap_lines = wrap_text(caption, cap_font, cap_size, width, MIN_TEXT_SIZE) if caption else (0.0, [])
        cap_h = t.size * 0.9 * 1.6 + (len(cap_lines) - 1) * cap_size * 1.25 if caption else 0.0
        header_lines = [wrap_spans([Span(text=c)], t.bold, size, w - 2 * pad) for c, w in
                        zip(self.block.columns, widths, strict=True)]
        head_h = max(len(x) for x in header_lines) * lh + 2 * pad
        rows_lines = []
        bold_row = len(self.block.rows) - 1 if self.block.total_row else -1
        first = len(self.block.rows) - len(self.rows)
        for i, row in enumerate(self.rows):
            font = t.bold if first + i == bold_row else t.body
            rows_lines.append([wrap_spans([cell], font, size, w - 2 * pad) or [plain_line("")]
                               for cell, w in zip(row, widths, strict=True)])
        row_h = [max(len(c) for c in r) * lh + 2 * pad for r in rows_lines]
        used = cap_h + head_h + 4.0  # the bottom padding counts against the room too
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
        rest = None if is_last_part else TableFlow(self.block, t, self.rows[n:], self.part + 1, self.size_given,
                                                   self.style)
        numeric = set(self.block.numeric_columns)
        total_row = self.block.total_row and is_last_part
        style = self.style

        def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
            total_w = sum(widths)
            yy = y
            for i, line in enumerate(cap_lines):
                ctx.text(line, x, yy + cap_size * 1.1 + i * cap_size * 1.25, cap_font, cap_size, t.text)
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
