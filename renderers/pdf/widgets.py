"""Forms (labelled fields, checkboxes, signature lines) and annotations (stamps, handwritten notes,
signatures, highlights)."""

from __future__ import annotations

import math

from reportlab.pdfbase.pdfmetrics import getAscentDescent, stringWidth

from synthdocqa.ir.blocks import AnnotationBlock, FormBlock

from .blocks import MIN_TEXT_SIZE, LinesFlow, _baseline_offset
from .blocks import Item as LineItem
from .ctx import DrawCtx, mix
from .flow import Flow, Piece
from .text import size_for_words, wrap_spans, wrap_text
from .theme import Theme


def _fit_size(text: str, font: str, size: float, width: float) -> float:
    """``size``, or the size at which a one-line label fits ``width`` (not under ``MIN_TEXT_SIZE``)."""
    w = stringWidth(text, font, size)
    return size if w <= width or w <= 0 else max(MIN_TEXT_SIZE, math.floor(size * width / w * 10) / 10)


class FormFlow(Flow):
    """A form split between rows of fields; the title bar repeats with "(continued)"."""

    element = "form"
    min_width = 180.0

    def __init__(self, block: FormBlock, theme: Theme, done: tuple[int, int, int] = (0, 0, 0)) -> None:
        self.block_id = block.id
        self.b = block
        self.t = theme
        self.done = done  # fields, checkboxes and signature lines already drawn (rows depend on the width)

    def retheme(self, theme: Theme) -> FormFlow:
        th = theme.for_text(self.b.model_dump_json())
        return self if th == self.t else FormFlow(self.b, th, self.done)

    def _units(self, width: float):
        """Rows still to draw at this width: ("fields", [idx]), ("checks", [idx]), ("sign", [idx])."""
        b = self.b
        f0, c0, s0 = self.done
        ncols = 2 if width >= 340 else 1
        units = []
        for i in range(f0, len(b.fields), ncols):
            units.append(("fields", list(range(i, min(i + ncols, len(b.fields))))))
        k = max(1, int(width // 165))
        box = self.t.size * 0.95 + 5 + 12  # tick box, gap, and room before the next checkbox
        widest = max((stringWidth(c.label, self.t.body, self.t.size) for c in b.checkboxes), default=0.0)
        while k > 1 and box + widest > width / k:
            k -= 1
        for i in range(c0, len(b.checkboxes), k):
            units.append(("checks", list(range(i, min(i + k, len(b.checkboxes))))))
        if len(b.signature_lines) > s0:
            ks = max(1, min(len(b.signature_lines) - s0, int(width // 170)))
            for i in range(s0, len(b.signature_lines), ks):
                units.append(("sign", list(range(i, min(i + ks, len(b.signature_lines))))))
        return units, ncols, k

    def take(self, width, avail, fresh):
        t, b = self.t, self.b
        units, ncols, kcheck = self._units(width)
        size = t.size
        lsize = round(size * 0.78, 1)
        lh = size * 1.25
        gap = 8.0
        title = b.title or "Form"
        if any(self.done):
            title += " (continued)"
        title_size, title_lines = wrap_text(title, t.head, size * 1.05, width - 12, MIN_TEXT_SIZE)
        title_h = size * 2.0 + (len(title_lines) - 1) * title_size * 1.25
        col_w = (width - gap * (ncols - 1)) / ncols

        def unit_height(u):
            kind, idx = u
            if kind == "fields":
                hs = []
                for i in idx:
                    value = b.fields[i].value
                    vsize = size_for_words([value], t.body, size, col_w - 10, MIN_TEXT_SIZE)
                    lines = wrap_spans([value], t.body, vsize, col_w - 10) or [None]
                    hs.append(lsize * 1.5 + len(lines) * lh + 8 + 6)
                return max(hs)
            if kind == "checks":
                return size * 1.9
            return 44.0

        heights = [unit_height(u) for u in units]
        used = title_h + 4 + 6  # title bar and the space under the form
        n = 0
        while n < len(units) and used + heights[n] <= avail + 1e-6:
            used += heights[n]
            n += 1
        if n < len(units) and not fresh:
            return None, self  # a form starts whole in a fresh slot; it splits only if a fresh slot is too small
        if n == 0 and units:
            used += heights[0]
            n = 1
        chosen = units[:n]
        chosen_h = heights[:n]
        done = list(self.done)
        for kind, idx in chosen:
            done[("fields", "checks", "sign").index(kind)] = idx[-1] + 1
        rest = FormFlow(b, t, (done[0], done[1], done[2])) if n < len(units) else None

        def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
            ctx.rect(x, y, x + width, y + title_h - 2, fill=t.primary)
            for i, line in enumerate(title_lines):
                ctx.text(line, x + 6, y + size * 2.0 * 0.66 + i * title_size * 1.25, t.head, title_size, "#ffffff")
            yy = y + title_h + 4
            off = _baseline_offset(t.body, size, lh)
            for (kind, idx), uh in zip(chosen, chosen_h, strict=True):
                if kind == "fields":
                    for c, i in enumerate(idx):
                        f = b.fields[i]
                        fx = x + c * (col_w + gap)
                        ctx.text(f.label, fx, yy + lsize * 1.05, t.bold, _fit_size(f.label, t.bold, lsize, col_w),
                                 t.muted)
                        vsize = size_for_words([f.value], t.body, size, col_w - 10, MIN_TEXT_SIZE)
                        lines = wrap_spans([f.value], t.body, vsize, col_w - 10)
                        by = yy + lsize * 1.5
                        bh = max(len(lines), 1) * lh + 8
                        ctx.rect(fx, by, fx + col_w, by + bh, fill=mix(t.light, "#ffffff", 0.5), stroke=t.rule,
                                 width=0.7)
                        for li, line in enumerate(lines):
                            ctx.line(line, fx + 5, by + 4 + li * lh + off, t.body, vsize, t.text, [f.value], b.id)
                elif kind == "checks":
                    cw = width / kcheck
                    for c, i in enumerate(idx):
                        cb = b.checkboxes[i]
                        cx = x + c * cw
                        bs = size * 0.95
                        top = yy + (size * 1.9 - bs) / 2
                        ctx.rect(cx, top, cx + bs, top + bs, stroke=t.text, width=0.8)
                        if cb.checked:
                            ctx.line_seg(cx + bs * 0.18, top + bs * 0.55, cx + bs * 0.42, top + bs * 0.82, t.primary,
                                         1.4)
                            ctx.line_seg(cx + bs * 0.42, top + bs * 0.82, cx + bs * 0.86, top + bs * 0.16, t.primary,
                                         1.4)
                        asc, desc = getAscentDescent(t.body, size)
                        base = top + bs / 2 + (asc + desc) / 2
                        x0, x1 = ctx.text(cb.label, cx + bs + 5, base, t.body,
                                          _fit_size(cb.label, t.body, size, cw - bs - 12), t.text)
                        if cb.fact_ids:
                            # the box records the label (the text layer's witness) and spans the tick box too
                            ctx._record(b.id, cb.fact_ids, cb.label, cx, min(top, base - asc), x1,
                                        max(top + bs, base - desc))
                else:
                    sw = min(180.0, (width - 20 * (len(idx) - 1)) / len(idx))
                    for c, i in enumerate(idx):
                        sx = x + c * (sw + 20)
                        ctx.hline(sx, sx + sw, yy + 28, t.text, 0.7)
                        label = b.signature_lines[i]
                        ctx.text(label, sx, yy + 28 + lsize * 1.4, t.body, _fit_size(label, t.body, lsize, sw), t.muted)
                yy += uh

        return Piece(used, draw), rest


class AnnotationFlow(Flow):
    element = "annotation"
    min_width = 120.0

    def __init__(self, block: AnnotationBlock, theme: Theme) -> None:
        self.block_id = block.id
        self.b = block
        self.t = theme

    def take(self, width, avail, fresh):
        kind = self.b.kind
        if kind == "highlight":
            return self._highlight(width, avail, fresh)
        if kind == "stamp":
            piece = self._stamp(width)
        elif kind == "handwritten_note":
            piece = self._note(width)
        else:
            piece = self._signature(width)
        if piece.height > avail and not fresh:
            return None, self
        return piece, None

    def _highlight(self, width, avail, fresh):
        t = self.t
        c = self.b.color
        lum = (0.299 * int(c[1:3], 16) + 0.587 * int(c[3:5], 16) + 0.114 * int(c[5:7], 16)) / 255
        marker = c if lum > 0.6 else "#fff176"  # a highlighter is light; dark colours would hide the text
        flow = LinesFlow(block_id=self.b.id, items=[LineItem(list(self.b.spans))], theme=t, font=t.body, size=t.size,
                         colour=t.text, highlight=marker, element="annotation")
        return flow.take(width, avail, fresh)

    def _stamp(self, width: float) -> Piece:
        """A rotated, double-bordered rubber stamp placed at the right of the slot."""
        t, b = self.t, self.b
        font = t.head
        sizes = [15.0] + [8.5] * (len(b.spans) - 1)
        lines = []
        for span, size in zip(b.spans, sizes, strict=True):
            lines += [(ln, size, span) for ln in wrap_spans([span], font, size, min(width, 260) - 20)]
        tw = max(stringWidth(ln.text, font, s) for ln, s, _ in lines)
        bw = tw + 22
        bh = sum(s * 1.25 for _, s, _ in lines) + 14
        deg = b.rotation or 0.0
        a = math.radians(abs(deg))
        hull_w = bw * math.cos(a) + bh * math.sin(a)
        hull_h = bw * math.sin(a) + bh * math.cos(a)
        height = hull_h + 10

        def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
            cx = x + max(w - hull_w / 2 - 12, hull_w / 2)
            cy = y + height / 2
            # frame origin: the stamp box's top-left corner, rotated about the hull centre
            ra = math.radians(deg)
            ox = cx - (bw / 2 * math.cos(ra) + bh / 2 * math.sin(ra))
            oy = cy - (-bw / 2 * math.sin(ra) + bh / 2 * math.cos(ra))
            with ctx.rotated(ox, oy, deg):
                ctx.c.saveState()
                ctx.c.setStrokeAlpha(0.85)
                ctx.c.setFillAlpha(0.85)
                ctx.rect(0, 0, bw, bh, stroke=b.color, width=2.2, radius=5)
                ctx.rect(3, 3, bw - 3, bh - 3, stroke=b.color, width=0.8, radius=3)
                yy = 7.0
                for ln, size, span in lines:
                    asc, _ = getAscentDescent(font, size)
                    ctx.line(ln, 11, yy + asc, font, size, b.color, [span], b.id, align="center", width=tw)
                    yy += size * 1.25
                ctx.c.restoreState()

        return Piece(height, draw)

    def _note(self, width: float) -> Piece:
        """A handwriting-style note in a script font, on a slightly rotated sticky note."""
        t, b = self.t, self.b
        font, size = t.hand, 11.0
        nw = min(width - 16, 230.0)
        lines = wrap_spans(list(b.spans), font, size, nw - 18)
        lh = size * 1.3
        nh = len(lines) * lh + 16
        deg = max(min(b.rotation, 6.0), -6.0)
        a = math.radians(abs(deg))
        hull_h = nw * math.sin(a) + nh * math.cos(a)
        hull_w = nw * math.cos(a) + nh * math.sin(a)
        height = hull_h + 10
        ink = b.color

        def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
            cx = x + min(hull_w / 2 + 8, w / 2)
            cy = y + height / 2
            ra = math.radians(deg)
            ox = cx - (nw / 2 * math.cos(ra) + nh / 2 * math.sin(ra))
            oy = cy - (-nw / 2 * math.sin(ra) + nh / 2 * math.cos(ra))
            with ctx.rotated(ox, oy, deg):
                ctx.rect(2, 2.5, nw + 2, nh + 2.5, fill="#000000", alpha=0.12)
                ctx.rect(0, 0, nw, nh, fill="#fff3a6")
                yy = 8.0
                asc, _ = getAscentDescent(font, size)
                for ln in lines:
                    ctx.line(ln, 9, yy + asc, font, size, ink, b.spans, b.id)
                    yy += lh

        return Piece(height, draw)

    def _signature(self, width: float) -> Piece:
        """A script signature over a line, with the remaining spans (name, title, date) in small type."""
        t, b = self.t, self.b
        sig = b.spans[0]
        size = 22.0
        sw = min(max(stringWidth(sig.text, t.sign, size) + 20, 150), width)
        sig_lines = wrap_spans([sig], t.sign, size, sw)
        small = t.size * 0.85
        rest_lines = []
        for span in b.spans[1:]:
            rest_lines += [(ln, span) for ln in wrap_spans([span], t.body, small, sw)]
        height = len(sig_lines) * size * 1.15 + 8 + len(rest_lines) * small * 1.35 + 10
        ink = "#1a3a8f" if b.color.lower() == "#b00020" else b.color

        def draw(ctx: DrawCtx, x: float, y: float, w: float) -> None:
            yy = y + 2
            asc, _ = getAscentDescent(t.sign, size)
            for ln in sig_lines:
                ctx.line(ln, x + 8, yy + asc * 0.9, t.sign, size, ink, [sig], b.id)
                yy += size * 1.15
            yy += 2
            ctx.hline(x, x + sw, yy, t.text, 0.7)
            yy += 6
            a2, _ = getAscentDescent(t.body, small)
            for ln, span in rest_lines:
                ctx.line(ln, x, yy + a2, t.body, small, t.muted, [span], b.id)
                yy += small * 1.35

        return Piece(height, draw)
