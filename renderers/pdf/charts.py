"""Charts (bar, line, pie) drawn with reportlab.graphics, whose value labels are the facts' strings.

The plot (axes, grid, bars, lines, wedges, category labels, legend) is a reportlab ``Drawing``; the value
labels are drawn through ``DrawCtx`` so each gets a SpanBox. When value labels would collide or do not
fit (dense grouped bars, several line series), the chart carries a data table under the plot instead
(as spreadsheet charts do), so every fact string is still drawn and legible.

One module, though long: the three chart kinds are one flow (``FigureFlow``) sharing its plan, axes,
label placement, legend and data-table fallback.
"""

from __future__ import annotations

import math

from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Circle, Drawing, Line, PolyLine, Rect, String, Wedge
from reportlab.lib.colors import HexColor
from reportlab.pdfbase.pdfmetrics import getAscentDescent, stringWidth

from synthdocqa.ir.blocks import FigureBlock, Span, TableBlock

from .blocks import MIN_TEXT_SIZE, TableFlow
from .ctx import DrawCtx
from .flow import Flow, Piece
from .text import wrap_text
from .theme import Theme


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Round axis ticks covering [lo, hi] (1-2-2.5-5 steps)."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(n, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks = []
    v = start
    while v < hi + step * 0.999:
        ticks.append(round(v, 10))
        v += step
    return ticks


def _fmt_tick(v: float) -> str:
    a = abs(v)
    if a >= 1e9:
        return f"{v / 1e9:g}B"
    if a >= 1e6:
        return f"{v / 1e6:g}M"
    if a >= 1e4:
        return f"{v / 1e3:g}k"
    return f"{v:,.10g}" if a >= 1 or v == 0 else f"{v:.3g}"


SLANT = 35.0
"""Degrees of slanted category labels."""


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class FigureFlow(Flow):
    element = "figure"

    def __init__(self, block: FigureBlock, theme: Theme) -> None:
        self.block_id = block.id
        self.b = block
        self.t = theme
        self._min_width: float | None = None

    @property
    def min_width(self) -> float:
        """A chart needs 150 pt, and room for its data table (when it has to carry one) unbroken."""
        if self._min_width is None:
            self._min_width = max(150.0, self._table_flow().min_width)
        return self._min_width

    def _data_table(self) -> TableBlock:
        b = self.b
        n = max([len(b.categories)] + [len(s.points) for s in b.series])  # ragged series still fit
        cats = list(b.categories) + [""] * (n - len(b.categories))
        rows = [[Span(text=s.name)] + list(s.points) + [Span(text="")] * (n - len(s.points)) for s in b.series]
        return TableBlock(id=b.id, columns=[b.unit_label or "Series"] + cats, rows=rows,
                          numeric_columns=list(range(1, n + 1)))

    def take(self, width, avail, fresh):
        t, b = self.t, self.b
        title_size, title_lines = wrap_text(b.title, t.head, t.size * 1.0, width, MIN_TEXT_SIZE) if b.title else (0, [])
        title_h = t.size * 1.7 + (len(title_lines) - 1) * title_size * 1.25 if b.title else 0.0
        cap_size, cap_lines = wrap_text(b.caption, t.italic, t.size * 0.85, width, MIN_TEXT_SIZE) if b.caption \
            else (0, [])
        cap_h = t.size * 0.85 * 1.8 + (len(cap_lines) - 1) * cap_size * 1.25 if b.caption else 0.0
        legend = self._legend_rows(width) if (len(b.series) > 1 and b.chart != "pie") else []
        legend_h = t.size * 1.6 * len(legend)
        want = min(width * 0.42, 170.0) if b.chart == "pie" else min(width * 0.56, 250.0)
        plot_h = want
        plan = self._plan(width, plot_h)
        needs_table = b.chart == "pie" and len(b.series) > 1  # a pie shows one series; the table all
        table = self._table_piece(width) if plan is None or needs_table else None
        extra = title_h + cap_h + legend_h + (table.height + 6 if table else 0) + 8
        if plot_h + extra > avail:
            plot_h = max(avail - extra, 110.0)
            plan = self._plan(width, plot_h)
            table = self._table_piece(width) if plan is None or needs_table else None
            extra = title_h + cap_h + legend_h + (table.height + 6 if table else 0) + 8
            if plot_h + extra > avail and not fresh:
                return None, self
        height = plot_h + extra

        def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
            yy = y
            for i, line in enumerate(title_lines):
                ctx.text(line, x, yy + title_size * 1.15 + i * title_size * 1.25, t.head, title_size, t.text)
            yy += title_h
            if legend:
                self._legend(ctx, x, yy, legend)
                yy += legend_h
            self._draw_plot(ctx, x, yy, width, plot_h, plan)
            yy += plot_h + 4
            if table:
                table.draw(ctx, x, yy, width)
                yy += table.height + 6
            for i, line in enumerate(cap_lines):
                ctx.text(line, x, yy + cap_size * 1.2 + i * cap_size * 1.25, t.italic, cap_size, t.muted)

        return Piece(height, draw), None

    def _table_flow(self) -> TableFlow:
        return TableFlow(self._data_table(), self.t, size=round(self.t.size * 0.82, 1), style="grid")

    def _table_piece(self, width: float) -> Piece:
        piece, _ = self._table_flow().take(width, 10_000, True)
        assert piece is not None
        return piece

    def _legend_rows(self, width: float) -> list[list[tuple[int, float, str, float]]]:
        """Legend entries in rows that fit ``width``: (series index, x offset, name, size) each."""
        t = self.t
        rows: list[list[tuple[int, float, str, float]]] = [[]]
        xx = 0.0
        for i, s in enumerate(self.b.series):
            size = min(t.size * 0.82, max(MIN_TEXT_SIZE, (width - 11) / max(stringWidth(s.name, t.body, 1.0), 1e-6)))
            w = 11 + stringWidth(s.name, t.body, size)
            if rows[-1] and xx + w > width:
                rows.append([])
                xx = 0.0
            rows[-1].append((i, xx, s.name, size))
            xx += w + 12
        return rows

    def _legend(self, ctx: DrawCtx, x: float, y: float, rows) -> None:
        t = self.t
        cols = t.series_colours()
        for r, row in enumerate(rows):
            yy = y + r * t.size * 1.6
            for i, dx, name, size in row:
                ctx.rect(x + dx, yy + 2, x + dx + 8, yy + 10, fill=cols[i % len(cols)])
                ctx.text(name, x + dx + 11, yy + 9, t.body, size, t.text)

    # -- planning: where each value label goes (None => data-table mode) --------------------------------
    def _plan(self, width: float, plot_h: float, cats_optional: bool = False):
        b = self.b
        if any(len(s.points) != len(b.categories) for s in b.series):
            return None  # points do not match the categories one to one: show the values as a table
        if b.chart == "pie":
            return self._plan_pie(width, plot_h)
        t = self.t
        size = max(6.0, round(t.size * 0.74, 1))
        values = [v for s in b.series for v in s.values]
        if b.chart == "line" and min(values) > 0:  # a line chart need not start at zero
            span_v = (max(values) - min(values)) or abs(max(values)) or 1.0
            vmin, vmax = max(0.0, min(values) - span_v * 0.35), max(values)
        else:
            vmin, vmax = min(values + [0.0]), max(values + [0.0])
        ticks = nice_ticks(vmin, vmax + (vmax - vmin) * 0.12)
        tick_w = max(stringWidth(_fmt_tick(v), t.body, size) for v in ticks)
        left = tick_w + 8 + (size * 1.6 if b.unit_label else 0)
        n = len(b.categories)
        pw = width - left - 6
        cats, bottom = self._category_mode(left, pw / n, size, plot_h)
        if cats == "none" and not cats_optional:
            return None  # the categories cannot be labelled under the plot: the data table names them
        ph = plot_h - bottom - 6
        if ph < 50:
            return None
        lo, hi = ticks[0], ticks[-1]

        def ymap(v: float) -> float:  # value -> top-left y within the plot box (0 = top of plot)
            return 6 + ph * (1 - (v - lo) / (hi - lo))

        asc, desc = getAscentDescent(t.body, size)
        th = asc - desc
        labels = []  # (series, point, x, baseline, rotated)
        boxes: list[tuple[float, float, float, float]] = []
        m = len(b.series)
        group = pw / n
        if b.chart == "bar":
            bw = group * 0.72 / m
            for si, s in enumerate(b.series):
                for ci, (span, v) in enumerate(zip(s.points, s.values, strict=True)):
                    cx = left + ci * group + group * 0.14 + bw * (si + 0.5)
                    txt = " ".join(span.text.split())
                    lw = stringWidth(txt, t.body, size)
                    top = ymap(max(v, 0.0))
                    bot = ymap(min(v, 0.0))
                    if lw <= bw * 1.9 if m == 1 else lw <= bw + 1.5:
                        base = top - 2.5 - (-desc) if v >= 0 else bot + 2 + asc
                        box = (cx - lw / 2, base - asc, cx + lw / 2, base - desc)
                        rot = False
                    else:
                        if bw < th + 1:
                            return None
                        # vertical label reading upwards, just above (or below) the bar
                        y0 = top - 3 - lw if v >= 0 else bot + 3
                        box = (cx - th / 2, y0, cx + th / 2, y0 + lw)
                        base = y0 + lw
                        rot = True
                    if box[1] < 0 or box[3] > 6 + ph + 1e-6 or any(_overlaps(box, o) for o in boxes):
                        return None
                    boxes.append(box)
                    labels.append((si, ci, cx, base, rot))
        else:  # line
            for si, s in enumerate(b.series):
                for ci, (span, v) in enumerate(zip(s.points, s.values, strict=True)):
                    cx = left + ci * group + group / 2
                    txt = " ".join(span.text.split())
                    lw = stringWidth(txt, t.body, size)
                    py = ymap(v)
                    placed = False
                    for base in (py - 4 - (-desc), py + 5 + asc):
                        box = (cx - lw / 2, base - asc, cx + lw / 2, base - desc)
                        if box[0] < left - 2 or box[2] > width or box[1] < 0 or box[3] > 6 + ph:
                            continue
                        if any(_overlaps(box, o) for o in boxes):
                            continue
                        boxes.append(box)
                        labels.append((si, ci, cx, base, False))
                        placed = True
                        break
                    if not placed:
                        return None
        return {"size": size, "ticks": ticks, "left": left, "ph": ph, "group": group, "labels": labels,
                "cats": cats, "ymap": ymap, "pw": pw}

    def _category_mode(self, left: float, group: float, size: float, plot_h: float) -> tuple[str, float]:
        """How category labels go under the plot without touching each other or leaving the chart:
        ``flat`` (centred), ``slant`` (35 degrees), ``vertical`` or ``none``; and the height they need."""
        t = self.t
        asc, desc = getAscentDescent(t.body, size)
        th = asc - desc
        widths = [stringWidth(c, t.body, size) for c in self.b.categories]
        widest = max(widths)
        if widest <= group - 4:
            return "flat", size * 2.2
        sa, ca = math.sin(math.radians(SLANT)), math.cos(math.radians(SLANT))
        slant_bottom = widest * sa + th * ca + 12
        inside = all(left + (i + 0.5) * group + 3 - w * ca - th * sa >= 0 for i, w in enumerate(widths))
        if group * sa >= th * 1.15 and inside and slant_bottom <= plot_h * 0.42:
            return "slant", slant_bottom
        if group >= th * 1.2 and widest + 12 <= plot_h * 0.42:
            return "vertical", widest + 12
        return "none", size * 0.8

    def _plan_pie(self, width: float, plot_h: float):
        t = self.t
        b = self.b
        s = b.series[0]
        size = max(6.5, round(t.size * 0.82, 1))
        rows = []
        for ci, cat in enumerate(b.categories):
            rows.append((cat, " ".join(s.points[ci].text.split())))
        name_w = max(stringWidth(c, t.body, size) for c, _ in rows)
        val_w = max(stringWidth(v, t.bold, size) for _, v in rows)
        legend_w = 14 + name_w + 10 + val_w
        row_h = size * 1.55
        r = min(plot_h / 2 - 6, (width - legend_w - 24) / 2)
        if r < 35 or len(rows) * row_h > plot_h:
            return None
        return {"size": size, "r": r, "rows": rows, "legend_w": legend_w, "row_h": row_h, "name_w": name_w}

    # -- drawing --------------------------------------------------------------------------------------
    def _draw_plot(self, ctx: DrawCtx, x: float, y: float, width: float, plot_h: float, plan) -> None:
        b, t = self.b, self.t
        cols = [HexColor(c) for c in t.series_colours()]
        if plan is None:  # data-table mode: the plot without value labels
            plan = self._plan_unlabelled(width, plot_h)
            labels = False
        else:
            labels = True
        d = Drawing(width, plot_h)
        if b.chart == "pie":
            self._pie(ctx, d, x, y, width, plot_h, plan, cols, labels)
            renderPDF.draw(d, ctx.c, x, ctx.height - (y + plot_h))
            if labels:
                self._pie_legend(ctx, x, y, width, plot_h, plan, cols)
            return
        size, ticks, left, ph, group = plan["size"], plan["ticks"], plan["left"], plan["ph"], plan["group"]
        ymap = plan["ymap"]

        def dy(v_top: float) -> float:  # top-left y within the drawing -> drawing y (bottom-left origin)
            return plot_h - v_top

        grid = HexColor(t.rule)
        for v in ticks:
            yy = dy(ymap(v))
            d.add(Line(left, yy, left + plan["pw"], yy, strokeColor=grid, strokeWidth=0.4))
            d.add(String(left - 4, yy - size * 0.35, _fmt_tick(v), fontName=t.body, fontSize=size,
                         fillColor=HexColor(t.muted), textAnchor="end"))
        zero = dy(ymap(0.0)) if ticks[0] <= 0 <= ticks[-1] else dy(ymap(ticks[0]))
        d.add(Line(left, zero, left + plan["pw"], zero, strokeColor=HexColor(t.text), strokeWidth=0.8))
        d.add(Line(left, dy(ymap(ticks[-1])), left, dy(ymap(ticks[0])), strokeColor=HexColor(t.text),
                   strokeWidth=0.6))
        if b.unit_label:
            s = String(0, 0, b.unit_label, fontName=t.body, fontSize=size, fillColor=HexColor(t.muted),
                       textAnchor="middle")
            from reportlab.graphics.shapes import Group

            g = Group(s)
            g.transform = (0, 1, -1, 0, size * 1.0, dy(6 + ph / 2))
            d.add(g)
        m = len(b.series)
        for ci, cat in enumerate(b.categories):
            cx = left + ci * group + group / 2
            if plan["cats"] in ("slant", "vertical"):
                from reportlab.graphics.shapes import Group

                g = Group(String(0, 0, cat, fontName=t.body, fontSize=size, fillColor=HexColor(t.text),
                                 textAnchor="end"))
                if plan["cats"] == "slant":
                    a = math.radians(SLANT)
                    g.transform = (math.cos(a), math.sin(a), -math.sin(a), math.cos(a), cx + 3, dy(6 + ph) - 6)
                else:  # reading upwards, ending just under the axis, centred on the category
                    asc, desc = getAscentDescent(t.body, size)
                    g.transform = (0, 1, -1, 0, cx + (asc + desc) / 2, dy(6 + ph) - 5)
                d.add(g)
            elif plan["cats"] == "flat":
                d.add(String(cx, dy(6 + ph) - size * 1.4, cat, fontName=t.body, fontSize=size,
                             fillColor=HexColor(t.text), textAnchor="middle"))
        if b.chart == "bar":
            bw = group * 0.72 / m
            for si, s in enumerate(b.series):
                for ci, v in enumerate(s.values[:len(b.categories)]):
                    x0 = left + ci * group + group * 0.14 + bw * si
                    top, bot = ymap(max(v, 0.0)), ymap(min(v, 0.0))
                    d.add(Rect(x0, dy(bot), bw * 0.94, max(bot - top, 0.3), fillColor=cols[si % len(cols)],
                               strokeColor=None))
        else:
            for si, s in enumerate(b.series):
                pts = []
                for ci, v in enumerate(s.values[:len(b.categories)]):
                    pts += [left + ci * group + group / 2, dy(ymap(v))]
                d.add(PolyLine(pts, strokeColor=cols[si % len(cols)], strokeWidth=1.6))
                for k in range(0, len(pts), 2):
                    d.add(Circle(pts[k], pts[k + 1], 2.2, fillColor=cols[si % len(cols)], strokeColor=None))
        renderPDF.draw(d, ctx.c, x, ctx.height - (y + plot_h))
        if labels:
            for si, ci, cx, base, rot in plan["labels"]:
                span = b.series[si].points[ci]
                txt = " ".join(span.text.split())
                if rot:
                    with ctx.rotated(x + cx, y + base, 90):
                        asc, desc = getAscentDescent(t.body, size)
                        ctx.text(txt, 0, (asc + desc) / 2, t.body, size, t.text, span.fact_ids, b.id)
                else:
                    ctx.text(txt, x + cx, y + base, t.body, size, t.text, span.fact_ids, b.id, anchor="middle")

    def _plan_unlabelled(self, width: float, plot_h: float):
        """Geometry for a plot whose values go to the data table (no label collisions to avoid)."""
        b = self.b
        if b.chart == "pie":
            r = max(min(plot_h / 2 - 6, width / 2 - 10), 20)
            return {"r": r}
        saved = b.series
        stub = [s.model_copy(update={"points": [Span(text=".")] * len(s.points)}) for s in saved]
        self.b = b.model_copy(update={"series": stub})
        try:
            plan = self._plan(width, plot_h, cats_optional=True)
        finally:
            self.b = b
        if plan is None:  # even dots collide: fall back to minimal geometry
            t = self.t
            size = max(6.0, round(t.size * 0.74, 1))
            values = [v for s in b.series for v in s.values]
            lo_v, hi_v = min(values + [0.0]), max(values + [0.0])
            ticks = nice_ticks(lo_v, hi_v + (hi_v - lo_v) * 0.1)
            left = max(stringWidth(_fmt_tick(v), t.body, size) for v in ticks) + 8 + (size * 1.6 if b.unit_label else 0)
            ph = max(plot_h - 20, 20)
            lo, hi = ticks[0], ticks[-1]
            plan = {"size": size, "ticks": ticks, "left": left, "ph": ph, "pw": width - left - 6,
                    "group": (width - left - 6) / len(b.categories), "labels": [], "cats": "none",
                    "ymap": lambda v: 6 + ph * (1 - (v - lo) / (hi - lo))}
        return plan

    def _pie(self, ctx, d, x, y, width, plot_h, plan, cols, labels: bool) -> None:
        s = self.b.series[0]
        r = plan["r"]
        cx = r + 8 if labels else width / 2
        cy = plot_h / 2
        total = sum(abs(v) for v in s.values) or 1.0
        ang = 90.0
        for i, v in enumerate(s.values):
            sweep = 360.0 * abs(v) / total
            if sweep > 0.05:
                d.add(Wedge(cx, cy, r, ang - sweep, ang, fillColor=cols[i % len(cols)],
                            strokeColor=HexColor("#ffffff"), strokeWidth=1.0))
            ang -= sweep

    def _pie_legend(self, ctx, x, y, width, plot_h, plan, cols) -> None:
        t = self.t
        s = self.b.series[0]
        size, row_h = plan["size"], plan["row_h"]
        lx = x + plan["r"] * 2 + 24
        ly = y + max((plot_h - row_h * len(plan["rows"])) / 2, 0)
        asc, _ = getAscentDescent(t.body, size)
        for i, (cat, val) in enumerate(plan["rows"]):
            yy = ly + i * row_h
            ctx.rect(lx, yy + 1, lx + 8, yy + 9, fill=t.series_colours()[i % len(cols)])
            ctx.text(cat, lx + 14, yy + asc, t.body, size, t.text)
            ctx.text(val, lx + plan["legend_w"], yy + asc, t.bold, size, t.text, s.points[i].fact_ids, self.b.id,
                     anchor="end")
