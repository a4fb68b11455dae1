"""Page furniture: letterheads with drawn logos, running titles, header bands, page numbers, confidentiality
lines and document references. None of it carries facts (no SpanBoxes)."""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.pdfbase.pdfmetrics import stringWidth

from synthdocqa.ir.rng import Rng

from .ctx import DrawCtx, mix
from .theme import Theme


@dataclass(frozen=True)
class DocInfo:
    doc_id: str
    title: str
    organisation: str
    address: str
    logo_seed: int
    reference: str
    confidential: bool = True
    """Whether the document is marked confidential: a layout's confidentiality footer draws its line only then
    (without it, the footer's page number alone)."""


def fit_text(text: str, font: str, size: float, width: float) -> str:
    """Shorten chrome text with an ellipsis to fit (chrome only: content text is never shortened)."""
    if stringWidth(text, font, size) <= width:
        return text
    while text and stringWidth(text + "\u2026", font, size) > width:
        text = text[:-1]
    return text.rstrip() + "\u2026"


def fit_size(text: str, font: str, size: float, width: float, smallest: float) -> float:
    """The size (down to ``smallest``) at which chrome text fits ``width``: a running title shrinks a little
    before it is shortened."""
    while size > smallest and stringWidth(text, font, size) > width:
        size = round(size - 0.5, 1)
    return max(size, smallest)


def draw_logo(ctx: DrawCtx, x: float, y: float, s: float, theme: Theme, seed: int) -> None:
    """A small abstract logo from drawn shapes (variant chosen by the document's seed)."""
    rng = Rng(seed, ("logo",))
    variant = rng.integers(0, 4)
    c = ctx.c
    p, a = theme.primary, theme.accent
    if variant == 0:  # two overlapping squares
        ctx.rect(x, y + s * 0.25, x + s * 0.75, y + s, fill=p)
        ctx.rect(x + s * 0.25, y, x + s, y + s * 0.75, fill=a, alpha=0.85)
    elif variant == 1:  # ring with a dot
        c.saveState()
        c.setStrokeColor(ctx_colour(p))
        c.setLineWidth(s * 0.14)
        c.circle(x + s / 2, ctx.height - (y + s / 2), s * 0.4, stroke=1, fill=0)
        c.setFillColor(ctx_colour(a))
        c.circle(x + s / 2, ctx.height - (y + s / 2), s * 0.14, stroke=0, fill=1)
        c.restoreState()
    elif variant == 2:  # three rising bars
        for i in range(3):
            h = s * (0.45 + 0.27 * i)
            ctx.rect(x + i * s * 0.36, y + s - h, x + i * s * 0.36 + s * 0.27, y + s, fill=p if i < 2 else a)
    else:  # triangle and bar
        c.saveState()
        c.setFillColor(ctx_colour(p))
        path = c.beginPath()
        path.moveTo(x, ctx.height - (y + s))
        path.lineTo(x + s * 0.5, ctx.height - y)
        path.lineTo(x + s, ctx.height - (y + s))
        path.close()
        c.drawPath(path, stroke=0, fill=1)
        c.restoreState()
        ctx.rect(x + s * 0.1, y + s * 0.78, x + s * 0.9, y + s * 0.9, fill=a)


def ctx_colour(hex_str: str):
    from .ctx import colour

    return colour(hex_str)


def draw_header(ctx: DrawCtx, theme: Theme, info: DocInfo, page_no: int, section: str = "") -> None:
    """The page's header in the layout's variant; ``section`` (the running section, "" for none) takes the
    place of the secondary line (the organisation or the title) where the variant has one."""
    lay = theme.layout
    m = lay.margins
    x0, x1 = m.left, lay.width - m.right
    top = m.top
    hb = m.top + lay.header_height - 10  # header bottom line
    t = theme
    small = 7.2
    if lay.header == "letterhead":
        draw_logo(ctx, x0, top, 38, t, info.logo_seed)
        ctx.text(fit_text(info.organisation, t.head, 15, x1 - x0 - 220), x0 + 48, top + 17, t.head, 15, t.primary)
        sub = f"{info.title}  \u00b7  {section}" if section else info.title
        ctx.text(fit_text(sub, t.body, 8.5, x1 - x0 - 220), x0 + 48, top + 31, t.body, 8.5, t.muted)
        for i, line in enumerate(info.address.split("\n")[:3]):
            ctx.text(fit_text(line, t.body, small, 160), x1, top + 9 + i * 9.5, t.body, small, t.muted,
                     anchor="end")
        ctx.hline(x0, x1, hb, t.primary, 1.6)
        ctx.hline(x0, x1, hb + 2.6, t.accent, 0.6)
    elif lay.header == "logo_block":
        draw_logo(ctx, x0, top, 30, t, info.logo_seed)
        right = fit_text(section or info.title, t.body, small + 0.6, 190)
        room = x1 - stringWidth(right, t.body, small + 0.6) - 12 - (x0 + 40)  # the name stops short of the title
        ctx.text(fit_text(info.organisation, t.head, 12.5, min(x1 - x0 - 200, room)), x0 + 40, top + 14, t.head,
                 12.5, t.text)
        ctx.text(right, x1, top + 12, t.body, small + 0.6, t.muted, anchor="end")
        ctx.text(info.reference, x1, top + 23, t.body, small, t.muted, anchor="end")
        ctx.hline(x0, x1, hb, t.rule, 0.8)
    elif lay.header == "running_title":
        size = fit_size(info.title, t.head_regular, 9, x1 - x0 - 150, 7.5)
        ctx.text(fit_text(info.title, t.head_regular, size, x1 - x0 - 150), x0, top + 11, t.head_regular, size,
                 t.primary)
        ctx.text(fit_text(section or info.organisation, t.body, small + 0.5, 140), x1, top + 11, t.body,
                 small + 0.5, t.muted, anchor="end")
        ctx.hline(x0, x1, hb, t.primary, lay.style.rule_weight)
    elif lay.header == "band":
        ctx.rect(0, 0, lay.width, hb - 4, fill=t.primary)
        ctx.rect(0, hb - 4, lay.width, hb - 1.5, fill=t.accent)
        title = info.title.upper() if lay.style.heading_upper else info.title
        size = fit_size(title, t.head, 13, x1 - x0 - 150, 9.5)
        ctx.text(fit_text(title, t.head, size, x1 - x0 - 150), x0, top + 16, t.head, size, "#ffffff")
        ctx.text(fit_text(section or info.organisation, t.body, 8, 140), x1, top + 15, t.body, 8,
                 mix(t.light, "#ffffff", 0.3), anchor="end")
    else:  # minimal
        line = "  \u00b7  ".join(x for x in (info.organisation, info.title, section) if x)
        ctx.text(fit_text(line, t.body, small, x1 - x0), x0, top + 8, t.body, small, t.muted)
        ctx.hline(x0, x1, hb, t.rule, 0.4)


def draw_footer(ctx: DrawCtx, theme: Theme, info: DocInfo, page_no: int, total: int) -> None:
    lay = theme.layout
    m = lay.margins
    x0, x1 = m.left, lay.width - m.right
    fy = lay.height - m.bottom - lay.footer_height + 8
    t = theme
    size = 7.4
    page = f"Page {page_no} of {total}"
    conf = "CONFIDENTIAL \u2014 internal use only. Do not distribute without authorisation."
    footer = lay.footer
    if not info.confidential and footer in ("confidentiality", "page_number_confidentiality"):
        footer = "page_number"  # the layout's place for the mark stays empty on a document not marked so
    if footer in ("ruled_page_number", "page_number_confidentiality", "document_reference"):
        ctx.hline(x0, x1, fy, t.rule, 0.6)
    base = fy + 12
    if footer == "page_number":
        ctx.text(page, (x0 + x1) / 2, base, t.body, size, t.muted, anchor="middle")
    elif footer == "ruled_page_number":
        ctx.text(str(page_no), x1, base, t.bold, size + 0.6, t.primary, anchor="end")
        ctx.text(fit_text(info.title, t.body, size, x1 - x0 - 60), x0, base, t.body, size, t.muted)
    elif footer == "confidentiality":
        ctx.text(conf, (x0 + x1) / 2, base, t.bold, size, "#a01818", anchor="middle")
    elif footer == "page_number_confidentiality":
        ctx.text(fit_text(conf, t.bold, size, x1 - x0 - 90), x0, base, t.bold, size, "#a01818")
        ctx.text(page, x1, base, t.body, size, t.muted, anchor="end")
        ctx.text(info.organisation, x0, base + 10, t.body, size - 0.8, t.muted)
    else:  # document reference
        ctx.text(f"Ref. {info.reference}", x0, base, t.body, size, t.muted)
        ctx.text(page, x1, base, t.body, size, t.muted, anchor="end")
        ctx.text(fit_text(info.organisation, t.body, size - 0.8, 200), (x0 + x1) / 2, base + 10, t.body, size - 0.8,
                 t.muted, anchor="middle")
