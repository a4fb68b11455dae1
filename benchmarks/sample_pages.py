"""Realistic text pages for the degradation benchmarks: reportlab PDF -> pymupdf raster, with the
ground-truth text of every line (for OCR character error rates). Deterministic for a given seed."""

from __future__ import annotations

import io

import numpy as np

from synthdocqa.ir.rng import Rng

_WORDS = (
    "invoice payment account balance quarterly revenue contract supplier delivery schedule amount "
    "total net gross tax rate customer order shipment warehouse report summary policy premium claim "
    "approval manager director finance department budget forecast variance audit compliance region "
    "service agreement renewal period effective date terms conditions signature reference number "
    "description quantity unit price discount subtotal currency remittance vendor purchase"
).split()


def _line(rng: Rng, n_words: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(n_words)]
    if rng.bernoulli(0.4):
        words.insert(rng.integers(0, len(words)), f"{rng.integers(10, 99999):,}.{rng.integers(0, 99):02d}")
    if rng.bernoulli(0.2):
        words.insert(rng.integers(0, len(words)), f"2026-{rng.integers(1, 13):02d}-{rng.integers(1, 29):02d}")
    text = " ".join(words)
    return text[0].upper() + text[1:]


def make_page(seed: int, dpi: int = 200) -> tuple[np.ndarray, list[str]]:
    """One Letter page (RGB uint8 at ``dpi``) of headed paragraphs and a small table; plus its lines."""
    import pymupdf
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    rng = Rng(seed, ("bench", "page"))
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter, invariant=1)
    w, h = letter
    lines: list[str] = []
    y = h - 72
    title = f"Quarterly Statement {rng.integers(100, 999)}"
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, y, title)
    lines.append(title)
    y -= 30
    font = rng.choice(["Helvetica", "Times-Roman", "Courier"])
    while y > 230:
        c.setFont("Helvetica-Bold", 11)
        head = _line(rng, 3)
        c.drawString(72, y, head)
        lines.append(head)
        y -= 18
        c.setFont(font, 10)
        for _ in range(rng.integers(3, 7)):
            text = _line(rng, 9 if font != "Courier" else 7)
            c.drawString(72, y, text)
            lines.append(text)
            y -= 14
        y -= 10
    c.setFont(font, 8)
    c.line(72, y + 12, 72 + 450, y + 12)  # rules above and below the table, clear of the text
    for _ in range(5):
        cells = [rng.choice(_WORDS).title(), str(rng.integers(1, 500)), f"{rng.integers(100, 9999)}.00"]
        for i, cell in enumerate(cells):
            c.drawString(72 + i * 150, y, cell)
        lines.append(" ".join(cells))
        y -= 14
    c.line(72, y + 6, 72 + 450, y + 6)
    c.setFont(font, 7)
    y -= 8
    for _ in range(2):  # small print, as in footnotes and terms
        text = _line(rng, 12)
        c.drawString(72, y, text)
        lines.append(text)
        y -= 9
    c.setFont(font, 6.5)
    for grey in (0.35, 0.5):  # a contrast ladder of footer print: lost line by line as scans worsen
        c.setFillGray(grey)
        text = _line(rng, 12)
        c.drawString(72, y, text)
        lines.append(text)
        y -= 8
    c.setFillGray(0.0)
    c.showPage()
    c.save()
    doc = pymupdf.open(stream=buf.getvalue(), filetype="pdf")
    pix = doc[0].get_pixmap(dpi=dpi, alpha=False)
    img = np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width, 3).copy()
    doc.close()
    return img, lines
