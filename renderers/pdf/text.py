"""Literal text layout: spans -> words -> wrapped lines, with the exact drawn fragment of every span.

No markup parser is involved (reportlab Paragraph would interpret ``<b>``/``&``): text is measured with
``pdfmetrics.stringWidth`` and drawn with ``canvas.drawString``, so every character is drawn as given.
Whitespace runs are drawn as one space. A fact-bearing span that fits on a line is kept whole (its
spaces do not break), so a fact string is never split across lines unless it is wider than the line;
then it breaks at spaces (or characters) and one SpanBox is recorded per line fragment, each with that
fragment's exact text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from reportlab.pdfbase.pdfmetrics import stringWidth

from synthdocqa.ir.blocks import Span

_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Part:
    """Characters of one span inside one word (``span`` indexes the caller's span list)."""

    text: str
    span: int


@dataclass
class Word:
    parts: list[Part]

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts)


@dataclass
class Line:
    words: list[Word] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    def fragments(self) -> list[tuple[int, int, int]]:
        """(span index, start char, end char) of each span's run on this line, in order."""
        out: list[list[int]] = []
        pos = 0
        for wi, w in enumerate(self.words):
            if wi:
                pos += 1
            for p in w.parts:
                if out and out[-1][0] == p.span:
                    out[-1][2] = pos + len(p.text)
                else:
                    out.append([p.span, pos, pos + len(p.text)])
                pos += len(p.text)
        return [(s, a, b) for s, a, b in out]


def normalise(text: str) -> str:
    return _WS.sub(" ", text)


def words_of(spans: list[Span], font: str, size: float, max_width: float) -> list[Word]:
    """Break spans into words; fact spans narrower than ``max_width`` stay one unbreakable unit."""
    tokens: list[Part | None] = []  # None = breakable space
    for i, span in enumerate(spans):
        text = normalise(span.text)
        if not text:
            continue
        # what sticks to the span's end (the "." after an address) must fit the line with it, or the unit
        # would leave that punctuation alone on the next line
        nxt = normalise(spans[i + 1].text) if i + 1 < len(spans) and text[-1] != " " else ""
        stuck = nxt.split(" ", 1)[0]
        if span.fact_ids and text.strip() and \
                stringWidth(text.strip() + stuck, font, size) <= max_width + 1e-6:
            if text[0] == " ":
                tokens.append(None)
            tokens.append(Part(text.strip(), i))
            if text[-1] == " " and len(text) > 1:
                tokens.append(None)
            continue
        pieces = text.split(" ")
        for k, piece in enumerate(pieces):
            if k:
                tokens.append(None)
            if piece:
                tokens.append(Part(piece, i))
    words: list[Word] = []
    cur: list[Part] = []
    for t in tokens:
        if t is None:
            if cur:
                words.append(Word(cur))
                cur = []
        else:
            cur.append(t)
    if cur:
        words.append(Word(cur))
    out: list[Word] = []
    for w in words:
        out.extend(_split_wide(w, font, size, max_width))
    return out


def _split_wide(word: Word, font: str, size: float, max_width: float) -> list[Word]:
    """A word wider than the line is cut at character boundaries (long identifiers, URLs)."""
    if stringWidth(word.text, font, size) <= max_width + 1e-6:
        return [word]
    chunks: list[Word] = []
    cur: list[Part] = []
    width = 0.0
    for p in word.parts:
        buf = ""
        for ch in p.text:
            cw = stringWidth(ch, font, size)
            if width + cw > max_width and (buf or cur):
                if buf:
                    cur.append(Part(buf, p.span))
                chunks.append(Word(cur))
                cur, buf, width = [], "", 0.0
            buf += ch
            width += cw
        if buf:
            cur.append(Part(buf, p.span))
    if cur:
        chunks.append(Word(cur))
    return chunks


def wrap(words: list[Word], font: str, size: float, width: float) -> list[Line]:
    """Greedy line breaking (left-aligned, single spaces)."""
    lines: list[Line] = []
    cur = Line()
    cur_w = 0.0
    space = stringWidth(" ", font, size)
    for w in words:
        ww = stringWidth(w.text, font, size)
        if cur.words and cur_w + space + ww > width + 1e-6:
            lines.append(cur)
            cur, cur_w = Line(), 0.0
        cur_w = ww if not cur.words else cur_w + space + ww
        cur.words.append(w)
    if cur.words:
        lines.append(cur)
    return lines


def wrap_spans(spans: list[Span], font: str, size: float, width: float) -> list[Line]:
    return wrap(words_of(spans, font, size, width), font, size, width)


def plain_line(text: str, span: int = -1) -> Line:
    """A single line of literal text (no wrapping), e.g. a table cell that fits."""
    words = [Word([Part(t, span)]) for t in normalise(text).split(" ") if t]
    return Line(words)


def widest_word(spans: list[Span], font: str, size: float) -> float:
    """Width of the widest run of characters between spaces (spans join without a space between them)."""
    text = normalise("".join(s.text for s in spans))
    return max((stringWidth(w, font, size) for w in text.split(" ") if w), default=0.0)


def size_for_words(spans: list[Span], font: str, size: float, width: float, smallest: float) -> float:
    """``size``, or the smaller size (not under ``smallest``) at which every word fits ``width``: text
    shrinks rather than breaking inside a word or number."""
    widest = widest_word(spans, font, size)
    if widest <= width or widest <= 0:
        return size
    return max(smallest, math.floor(size * width / widest * 10) / 10)


def wrap_text(text: str, font: str, size: float, width: float, smallest: float) -> tuple[float, list[str]]:
    """A plain title or caption in lines that fit ``width``: wrapped at spaces, the font shrunk (not under
    ``smallest``) when one word is wider than the line."""
    size = size_for_words([Span(text=text)], font, size, width, smallest)
    return size, [ln.text for ln in wrap_spans([Span(text=text)], font, size, width)]
