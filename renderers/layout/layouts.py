"""The procedural layout library: a layout is a pure function of (library seed, index).

``layout_for(seed, index)`` draws page size, margins, header/footer variants, an arrangement of slot
regions (each accepting some element types, with a block capacity) and a style (font pair, sizes, colour
theme, table style) from ``Rng(seed, ("layout", index))``. Nothing is read from disk: a layout id
``s<seed>-<index>`` is enough to rebuild it (``layout_from_id``). ``describe`` gives the one-sentence
text descriptor used for CLIP text/image pairs; ``renderers.layout.thumbs`` draws the wireframe thumbnail.

One module, though long: a layout's model, its seeded drawing, what it accepts and its descriptor are one
pure function of (seed, index) and its library, and read best together.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Literal

from pydantic import Field

from synthdocqa.ir.base import Model
from synthdocqa.ir.blocks import ELEMENT_OF_BLOCK, Block
from synthdocqa.ir.boxes import Box
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import ELEMENT_TYPES, STYLE_FAMILIES, ElementType, PageSize, StyleFamily

from ..pdf.fonts import SANS_FAMILIES, SERIF_FAMILIES

DEFAULT_LIBRARY_SEED = 20261130
DEFAULT_LIBRARY_SIZE = 10_000

PAGE_SIZES: dict[PageSize, tuple[float, float]] = {"Letter": (612.0, 792.0), "A4": (595.28, 841.89)}

HeaderVariant = Literal["letterhead", "logo_block", "running_title", "band", "minimal"]
FooterVariant = Literal["page_number", "confidentiality", "page_number_confidentiality", "ruled_page_number",
                        "document_reference"]
Arrangement = Literal["single", "columns", "band_top", "band_bottom", "sidebar_left", "sidebar_right",
                      "split_half"]
TableStyle = Literal["grid", "zebra", "minimal", "ruled"]

THEMES: dict[str, dict[str, str]] = {
    # primary (headings, rules), accent (chart series 2, highlights), light (zebra rows, bands), text
    "blue": {"primary": "#1f4e79", "accent": "#2e86c1", "light": "#e8f1f8", "text": "#1b1b1b"},
    "navy": {"primary": "#14213d", "accent": "#fca311", "light": "#eef0f4", "text": "#111111"},
    "teal": {"primary": "#0b6e6e", "accent": "#3fb8af", "light": "#e6f4f3", "text": "#1a1a1a"},
    "green": {"primary": "#2d6a4f", "accent": "#74c69d", "light": "#ebf5ef", "text": "#1a1a1a"},
    "burgundy": {"primary": "#6d1a36", "accent": "#b5838d", "light": "#f6ecee", "text": "#1c1c1c"},
    "graphite": {"primary": "#333d47", "accent": "#8a9ba8", "light": "#eff1f3", "text": "#121212"},
    "orange": {"primary": "#b4490f", "accent": "#f4a259", "light": "#fdf0e6", "text": "#1d1d1d"},
    "purple": {"primary": "#4a2c6d", "accent": "#9b72cf", "light": "#f1ecf7", "text": "#1b1b1b"},
    "black": {"primary": "#000000", "accent": "#666666", "light": "#f0f0f0", "text": "#000000"},
}

# Per style family: weights for themes, header/footer variants, table styles, font pairs, arrangements.
_FAMILY_PREFS: dict[str, dict[str, dict[str, float]]] = {
    "corporate": {
        "theme": {"blue": 3, "navy": 2, "teal": 2, "graphite": 1},
        "header": {"letterhead": 3, "logo_block": 2, "running_title": 1, "band": 1},
        "footer": {"page_number_confidentiality": 3, "page_number": 2, "confidentiality": 1},
        "table": {"zebra": 3, "minimal": 2, "grid": 1},
        "fonts": {"sans": 4, "serif_head": 1},
        "arrangement": {"single": 4, "band_top": 2, "columns": 1, "sidebar_right": 1, "split_half": 1},
    },
    "modern": {
        "theme": {"teal": 2, "orange": 2, "purple": 2, "green": 1, "blue": 1},
        "header": {"band": 3, "logo_block": 2, "minimal": 2},
        "footer": {"page_number": 2, "ruled_page_number": 2, "document_reference": 1},
        "table": {"minimal": 3, "zebra": 2},
        "fonts": {"sans": 5},
        "arrangement": {"single": 2, "sidebar_left": 2, "sidebar_right": 1, "split_half": 2, "band_top": 2,
                        "columns": 1},
    },
    "classic": {
        "theme": {"burgundy": 3, "navy": 2, "black": 2, "green": 1},
        "header": {"running_title": 3, "letterhead": 2, "minimal": 1},
        "footer": {"page_number": 3, "ruled_page_number": 2},
        "table": {"ruled": 4, "grid": 1},
        "fonts": {"serif": 4, "serif_head": 1},
        "arrangement": {"single": 4, "columns": 2, "band_bottom": 1},
    },
    "technical": {
        "theme": {"graphite": 3, "green": 2, "blue": 1, "black": 1},
        "header": {"running_title": 2, "band": 2, "minimal": 2},
        "footer": {"document_reference": 3, "page_number": 2},
        "table": {"grid": 4, "ruled": 1},
        "fonts": {"sans": 3, "serif": 1},
        "arrangement": {"columns": 3, "band_top": 2, "band_bottom": 1, "single": 2, "split_half": 1},
    },
    "government": {
        "theme": {"black": 2, "navy": 3, "blue": 1},
        "header": {"logo_block": 3, "letterhead": 2, "running_title": 1},
        "footer": {"page_number_confidentiality": 2, "confidentiality": 2, "document_reference": 1},
        "table": {"grid": 3, "ruled": 2},
        "fonts": {"serif": 2, "sans": 2},
        "arrangement": {"single": 4, "band_top": 1, "columns": 1},
    },
}

_ID_RE = re.compile(r"^s(\d+)-(\d+)$")


class Margins(Model):
    top: float = Field(gt=0)
    right: float = Field(gt=0)
    bottom: float = Field(gt=0)
    left: float = Field(gt=0)


class Slot(Model):
    """A region of the page body that takes blocks of the element types it accepts, in reading order."""

    id: str
    role: Literal["main", "column", "band", "sidebar", "half"]
    """Slots are listed in reading order; the flow fills them in that order."""
    bbox: Box = Field(description="[x0, y0, x1, y1] points, top-left origin")
    accepts: list[ElementType] = Field(min_length=1)
    capacity: int = Field(ge=1, description="QA-bearing blocks this slot is designed to hold")

    @property
    def width(self) -> float:
        return self.bbox[2] - self.bbox[0]

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]


HEADER_HEIGHTS: dict[str, float] = {"letterhead": 74.0, "logo_block": 64.0, "running_title": 34.0, "band": 56.0,
                                    "minimal": 24.0}
"""Height (points, on the library's paper) each header variant takes above the body."""


class Style(Model):
    style_family: StyleFamily
    theme: str
    primary: str
    accent: str
    light: str
    text: str
    heading_font: str = Field(description="font family of headings (renderers.pdf.fonts.FAMILIES)")
    body_font: str
    body_size: float = Field(ge=7, le=12.5)
    heading_size: float = Field(ge=10, le=24)
    leading: float = Field(ge=1.1, le=1.6, description="line height / font size")
    table_style: TableStyle
    heading_upper: bool = False
    rule_weight: float = Field(ge=0.3, le=2.0)


class Frame(Model):
    """A document's page furniture: margins, header and footer variants and the heights they take."""

    margins: Margins
    header: HeaderVariant
    footer: FooterVariant
    header_height: float
    footer_height: float


class Layout(Model):
    id: str
    seed: int
    index: int
    page_size: PageSize
    width: float
    height: float
    margins: Margins
    columns: int = Field(ge=1, le=3)
    column_gap: float
    arrangement: Arrangement
    header: HeaderVariant
    footer: FooterVariant
    header_height: float
    footer_height: float
    body: Box
    slots: list[Slot] = Field(min_length=1)
    style: Style

    def in_house(self, page_size: PageSize, style: Style, frame: Frame | None = None) -> Layout:
        """This layout's geometry on a document's paper (every box and margin scaled to it, so A4 columns
        stay columns on Letter) in the document's house style (fonts, colours, table style) and, given a
        ``frame``, inside the document's furniture (margins, header and footer variants and heights; the
        body and its slots mapped onto the frame's body): retrieval picks the arrangement of a page, the
        document decides how it looks and where its header, footer and margins sit."""
        if page_size == self.page_size and style == self.style and frame is None:
            return self
        w, h = PAGE_SIZES[page_size]
        kx, ky = w / self.width, h / self.height
        m = self.margins
        margins = Margins(top=round(m.top * ky, 2), right=round(m.right * kx, 2), bottom=round(m.bottom * ky, 2),
                          left=round(m.left * kx, 2))
        header, footer = self.header, self.footer
        hh, fh = round(self.header_height * ky, 2), round(self.footer_height * ky, 2)
        if frame is not None:
            margins, header, footer, hh, fh = frame.margins, frame.header, frame.footer, frame.header_height, \
                frame.footer_height
        new_body = (margins.left, margins.top + hh, w - margins.right, h - margins.bottom - fh)
        ob = self.body
        sx, sy = (new_body[2] - new_body[0]) / (ob[2] - ob[0]), (new_body[3] - new_body[1]) / (ob[3] - ob[1])

        def box(b: Box) -> list[float]:  # the old body onto the new one
            return [round(new_body[0] + (b[0] - ob[0]) * sx, 2), round(new_body[1] + (b[1] - ob[1]) * sy, 2),
                    round(new_body[0] + (b[2] - ob[0]) * sx, 2), round(new_body[1] + (b[3] - ob[1]) * sy, 2)]

        data = self.model_dump()
        data.update(
            page_size=page_size, width=w, height=h, column_gap=round(self.column_gap * sx, 2),
            margins=margins.model_dump(), header=header, footer=footer, header_height=hh, footer_height=fh,
            body=box(ob), slots=[{**s.model_dump(), "bbox": box(s.bbox)} for s in self.slots],
            style=style.model_dump())
        return Layout.model_validate(data)

    def full_width(self) -> Layout:
        """This layout with its body as one slot that takes every element (a cover or contents page is
        set across the page, whatever columns or sidebars its retrieved layout has)."""
        slot = Slot(id="main", role="main", bbox=list(self.body), accepts=list(ELEMENT_TYPES),
                    capacity=sum(s.capacity for s in self.slots))
        return self.model_copy(update={"slots": [slot], "arrangement": "single", "columns": 1})

    def frame(self, page_size: PageSize, header: HeaderVariant | None = None) -> Frame:
        """This layout's furniture on ``page_size`` (margins scaled), with another header variant if given
        (at that variant's height)."""
        w, h = PAGE_SIZES[page_size]
        kx, ky = w / self.width, h / self.height
        m = self.margins
        header = header or self.header
        hh = self.header_height if header == self.header else HEADER_HEIGHTS[header]
        return Frame(margins=Margins(top=round(m.top * ky, 2), right=round(m.right * kx, 2),
                                     bottom=round(m.bottom * ky, 2), left=round(m.left * kx, 2)),
                     header=header, footer=self.footer, header_height=round(hh * ky, 2),
                     footer_height=round(self.footer_height * ky, 2))

    @cached_property
    def accepted_counts(self) -> dict[str, int]:
        """Per element type: total capacity of the slots accepting it."""
        out = {t: 0 for t in ELEMENT_TYPES}
        for s in self.slots:
            for t in s.accepts:
                out[t] += s.capacity
        return out


def layout_id(seed: int, index: int) -> str:
    return f"s{seed}-{index:06d}"


def parse_layout_id(lid: str) -> tuple[int, int]:
    m = _ID_RE.match(lid)
    if not m:
        raise ValueError(f"malformed layout id {lid!r}; expected 's<seed>-<index>'")
    return int(m.group(1)), int(m.group(2))


def layout_from_id(lid: str) -> Layout:
    seed, index = parse_layout_id(lid)
    return layout_for(seed, index)


def _weighted(rng: Rng, weights: dict[str, float]) -> str:
    keys = sorted(weights)
    return rng.choice(keys, p=[weights[k] for k in keys])


def _font_pair(rng: Rng, mode: str) -> tuple[str, str]:
    if mode == "sans":
        body = rng.choice(SANS_FAMILIES)
        return (body if rng.bernoulli(0.5) else rng.choice(SANS_FAMILIES)), body
    if mode == "serif":
        body = rng.choice(SERIF_FAMILIES)
        return (rng.choice(SANS_FAMILIES) if rng.bernoulli(0.35) else body), body
    # serif headings over sans body
    return rng.choice(SERIF_FAMILIES), rng.choice(SANS_FAMILIES)


def layout_for(seed: int, index: int) -> Layout:
    """The layout number ``index`` of the library with seed ``seed`` (pure, ~0.2 ms)."""
    if index < 0:
        raise ValueError(f"layout index must be >= 0, got {index}")
    rng = Rng(seed, ("layout", index))
    family = STYLE_FAMILIES[index % len(STYLE_FAMILIES)]  # balanced families across the library
    prefs = _FAMILY_PREFS[family]
    page_size = "A4" if rng.bernoulli(0.45) else "Letter"
    width, height = PAGE_SIZES[page_size]
    side = round(rng.uniform(44, 72), 1)
    margins = Margins(top=round(rng.uniform(30, 50), 1), bottom=round(rng.uniform(28, 46), 1),
                      left=side, right=round(side + rng.choice([0.0, 0.0, 6.0, -6.0]), 1))
    header = _weighted(rng.fork("header"), prefs["header"])
    footer = _weighted(rng.fork("footer"), prefs["footer"])
    header_height = HEADER_HEIGHTS[header]
    footer_height = 34.0 if footer in ("page_number_confidentiality", "document_reference") else 26.0
    arrangement = _weighted(rng.fork("arrangement"), prefs["arrangement"])
    columns = {"single": 1, "band_top": 2, "band_bottom": 2, "sidebar_left": 2, "sidebar_right": 2,
               "split_half": 1, "columns": 2}[arrangement]
    if arrangement in ("columns", "band_top", "band_bottom") and rng.bernoulli(0.3):
        columns = 3
    gap = round(rng.uniform(14, 24), 1)
    bx0, by0 = margins.left, margins.top + header_height
    bx1, by1 = width - margins.right, height - margins.bottom - footer_height
    body = (round(bx0, 2), round(by0, 2), round(bx1, 2), round(by1, 2))
    slots = _slots(rng.fork("slots"), arrangement, columns, gap, body)

    style_rng = rng.fork("style")
    theme = _weighted(style_rng, prefs["theme"])
    heading_font, body_font = _font_pair(style_rng, _weighted(style_rng, prefs["fonts"]))
    body_size = round(style_rng.uniform(8.6, 10.4) - (0.6 if columns == 3 else 0.0), 1)
    style = Style(
        style_family=family, theme=theme, **THEMES[theme], heading_font=heading_font, body_font=body_font,
        body_size=body_size, heading_size=round(body_size * style_rng.uniform(1.45, 1.9), 1),
        leading=round(style_rng.uniform(1.22, 1.42), 2),
        table_style=_weighted(style_rng, prefs["table"]),
        heading_upper=style_rng.bernoulli(0.25 if family in ("government", "technical") else 0.08),
        rule_weight=round(style_rng.uniform(0.5, 1.5), 2),
    )
    return Layout(id=layout_id(seed, index), seed=seed, index=index, page_size=page_size, width=width,
                  height=height, margins=margins, columns=columns, column_gap=gap, arrangement=arrangement,
                  header=header, footer=footer, header_height=header_height, footer_height=footer_height,
                  body=body, slots=slots, style=style)


_WIDE: list[ElementType] = list(ELEMENT_TYPES)
_BAND_FIRST: tuple[ElementType, ...] = ("table", "figure", "form")
"""A band is where wide tables, charts and forms go: they come first in its ``accepts``."""


def _slots(rng: Rng, arrangement: str, columns: int, gap: float,
           body: tuple[float, float, float, float]) -> list[Slot]:
    x0, y0, x1, y1 = body
    w, h = x1 - x0, y1 - y0

    def cols(top: float, bottom: float, n: int, prefix: str) -> list[Slot]:
        cw = (w - gap * (n - 1)) / n
        narrow_accepts = ["text", "figure", "annotation"] + (["table", "form"] if n == 2 else [])
        cap = max(1, round((bottom - top) / 330))  # ~2 blocks per full-height column: content spreads
        return [Slot(id=f"{prefix}{i + 1}", role="column",
                     bbox=(round(x0 + i * (cw + gap), 2), round(top, 2), round(x0 + i * (cw + gap) + cw, 2),
                           round(bottom, 2)),
                     accepts=list(narrow_accepts), capacity=cap) for i in range(n)]

    if arrangement == "single":
        return [Slot(id="main", role="main", bbox=body, accepts=list(_WIDE), capacity=rng.integers(3, 6))]
    if arrangement == "split_half":
        cut = round(y0 + h * rng.uniform(0.42, 0.58), 2)
        return [Slot(id="top", role="half", bbox=(x0, y0, x1, round(cut - gap / 2, 2)), accepts=list(_WIDE),
                     capacity=rng.integers(1, 3)),
                Slot(id="bottom", role="half", bbox=(x0, round(cut + gap / 2, 2), x1, y1), accepts=list(_WIDE),
                     capacity=rng.integers(1, 3))]
    if arrangement == "columns":
        return cols(y0, y1, columns, "col")
    if arrangement in ("band_top", "band_bottom"):
        band_h = h * rng.uniform(0.32, 0.48)
        band_accepts = [*_BAND_FIRST, *(t for t in ELEMENT_TYPES if t not in _BAND_FIRST)]
        if arrangement == "band_top":
            band = Slot(id="band", role="band", bbox=(x0, y0, x1, round(y0 + band_h, 2)), accepts=band_accepts,
                        capacity=rng.integers(1, 3))
            return [band] + cols(y0 + band_h + gap, y1, columns, "col")
        band = Slot(id="band", role="band", bbox=(x0, round(y1 - band_h, 2), x1, y1), accepts=band_accepts,
                    capacity=rng.integers(1, 3))
        return cols(y0, y1 - band_h - gap, columns, "col") + [band]
    # sidebars: a narrow column for notes, key figures and annotations next to a wide main column
    side_w = w * rng.uniform(0.26, 0.33)
    main = list(_WIDE)
    side = ["text", "figure", "annotation"]
    if arrangement == "sidebar_left":  # slots are listed in reading order: the main column first
        side_cap = rng.integers(1, 3)
        return [Slot(id="main", role="main", bbox=(round(x0 + side_w + gap, 2), y0, x1, y1), accepts=main,
                     capacity=rng.integers(2, 5)),
                Slot(id="side", role="sidebar", bbox=(x0, y0, round(x0 + side_w, 2), y1), accepts=side,
                     capacity=side_cap)]
    return [Slot(id="main", role="main", bbox=(x0, y0, round(x1 - side_w - gap, 2), y1), accepts=main,
                 capacity=rng.integers(2, 5)),
            Slot(id="side", role="sidebar", bbox=(round(x1 - side_w, 2), y0, x1, y1), accepts=side,
                 capacity=rng.integers(1, 3))]


# ---------------------------------------------------------------------------------------------------------
# Compatibility with a page's blocks


def page_element_counts(blocks: Iterable[Block]) -> Counter[str]:
    """QA-bearing element counts of a page (headings and footnotes ride along with text)."""
    c: Counter[str] = Counter()
    for b in blocks:
        if b.type in ("heading", "footnote"):
            continue
        c[ELEMENT_OF_BLOCK[b.type]] += 1
    return c


def wide_needs(blocks: Iterable[Block]) -> int:
    """Blocks that need a wide slot (tables with many columns, forms with many fields)."""
    n = 0
    for b in blocks:
        if b.type == "table" and len(b.columns) > 4:
            n += 1
        elif b.type == "form" and len(b.fields) > 4:
            n += 1
    return n


def is_compatible(layout: Layout, blocks: Sequence[Block]) -> bool:
    """Structural constraint: every element type of the page has an accepting slot with enough capacity,
    and wide tables/forms have a slot at least 300 pt wide. (Overflow still carries to a next page.)"""
    counts = page_element_counts(blocks)
    acc = layout.accepted_counts
    for t, n in counts.items():
        if acc.get(t, 0) == 0:
            return False
        if t != "text" and acc[t] < n:
            return False
    if wide_needs(blocks) and not any(s.width >= 300 and ("table" in s.accepts) for s in layout.slots):
        return False
    return True


# ---------------------------------------------------------------------------------------------------------
# Descriptor text

_NUM = {1: "one", 2: "two", 3: "three"}
_HEADER_TEXT = {"letterhead": "a letterhead with logo and company address", "logo_block": "a logo block header",
                "running_title": "a running-title header", "band": "a coloured header band",
                "minimal": "a minimal header"}
_FOOTER_TEXT = {"page_number": "page numbers", "confidentiality": "a confidentiality line",
                "page_number_confidentiality": "page numbers and a confidentiality line",
                "ruled_page_number": "a ruled footer with page numbers",
                "document_reference": "a document reference and page numbers"}
_ROLE_TEXT = {"main": "a main area", "column": "a column", "band": "a full-width band", "sidebar": "a sidebar",
              "half": "a half-page area"}
_TYPE_WORD = {"text": "text", "table": "tables", "figure": "charts", "form": "forms", "annotation": "stamps"}


def _accept_phrase(accepts: Sequence[str]) -> str:
    words = [_TYPE_WORD[t] for t in accepts if t != "annotation" or len(accepts) <= 3]
    if set(accepts) >= {"text", "table", "figure", "form"}:
        return "any content"
    return " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def describe(layout: Layout) -> str:
    """One sentence a page query can match, e.g. for CLIP text/image training pairs."""
    arr = layout.arrangement
    n = _NUM[layout.columns]
    if arr == "single":
        body = "a single full-width column for any content"
    elif arr == "split_half":
        body = "two stacked full-width areas (top and bottom halves) for any content"
    elif arr == "columns":
        body = f"{n} equal columns for {_accept_phrase(layout.slots[0].accepts)}"
    elif arr == "band_top":
        body = f"a full-width band at the top for a wide table or chart above {n} columns"
    elif arr == "band_bottom":
        body = f"{n} columns above a full-width band at the bottom for a wide table or chart"
    else:
        side = "left" if arr == "sidebar_left" else "right"
        body = f"a wide main column with a narrow {side} sidebar for notes, key figures and stamps"
    st = layout.style
    return (f"{layout.page_size} page, {n}-column, with {_HEADER_TEXT[layout.header]}, {body}, "
            f"{_FOOTER_TEXT[layout.footer]} in the footer; {st.style_family} style, {st.theme} theme, "
            f"{st.heading_font} headings, {st.body_font} body text, {st.table_style} tables.")


def layout_row(layout: Layout) -> dict[str, object]:
    """Flat row for layouts.parquet/jsonl: parameters plus the descriptor."""
    st = layout.style
    return {
        "id": layout.id, "seed": layout.seed, "index": layout.index, "page_size": layout.page_size,
        "width": layout.width, "height": layout.height, "columns": layout.columns,
        "arrangement": layout.arrangement, "header": layout.header, "footer": layout.footer,
        "margin_top": layout.margins.top, "margin_right": layout.margins.right,
        "margin_bottom": layout.margins.bottom, "margin_left": layout.margins.left,
        "n_slots": len(layout.slots),
        "slots_json": "[" + ",".join(s.model_dump_json() for s in layout.slots) + "]",
        **{f"capacity_{t}": layout.accepted_counts[t] for t in ELEMENT_TYPES},
        "style_family": st.style_family, "theme": st.theme, "heading_font": st.heading_font,
        "body_font": st.body_font, "body_size": st.body_size, "heading_size": st.heading_size,
        "table_style": st.table_style, "descriptor": describe(layout),
    }


class LayoutLibrary:
    """``count`` layouts of one seed; generated lazily and cached (no files needed to render)."""

    def __init__(self, seed: int = DEFAULT_LIBRARY_SEED, count: int = DEFAULT_LIBRARY_SIZE) -> None:
        if count < 1:
            raise ValueError(f"library count must be >= 1, got {count}")
        self.seed = seed
        self.count = count
        self._cache: dict[int, Layout] = {}
        self._by_family: dict[str, list[int]] | None = None

    def __len__(self) -> int:
        return self.count

    def ids(self) -> list[str]:
        return [layout_id(self.seed, i) for i in range(self.count)]

    def get(self, index: int) -> Layout:
        if not 0 <= index < self.count:
            raise IndexError(f"layout index {index} outside library of {self.count}")
        lay = self._cache.get(index)
        if lay is None:
            lay = self._cache[index] = layout_for(self.seed, index)
        return lay

    def by_id(self, lid: str) -> Layout:
        """Any layout id resolves (also of other seeds): the id determines the layout."""
        seed, index = parse_layout_id(lid)
        if seed == self.seed and index < self.count:
            return self.get(index)
        return layout_for(seed, index)

    def family_indices(self, family: str) -> list[int]:
        """Indices of a style family (families rotate with the index, so no generation is needed)."""
        if family not in STYLE_FAMILIES:
            return list(range(self.count))
        k = STYLE_FAMILIES.index(family)
        return list(range(k, self.count, len(STYLE_FAMILIES)))

    def __iter__(self):
        return (self.get(i) for i in range(self.count))


_DEFAULT: LayoutLibrary | None = None


def default_library() -> LayoutLibrary:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = LayoutLibrary()
    return _DEFAULT
