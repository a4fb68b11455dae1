"""Text side of layout retrieval: paraphrased layout queries, page queries, the train/held-out split.

CLIP is trained on (thumbnail, text) pairs where the text is the library's descriptor or a paraphrase
built from the layout's structure (synonyms, clause order and dropped attributes vary), so that queries
worded like a planner's ``layout_query`` or a user's search ("two-column page with a wide table and a bar
chart") land on the right layouts. Structural constraints of a query (what the evaluation's structural
precision checks) are the body arrangement and the number of columns: they decide where blocks can go.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

import numpy as np

from synthdocqa.ir.blocks import Block
from synthdocqa.ir.document import DocumentIR, PagePlan
from synthdocqa.ir.vocab import CHART_KINDS

from .layouts import Layout, describe, page_element_counts

HELD_OUT_PERCENT = 10


def is_held_out(layout_id: str) -> bool:
    """Deterministic ~10 % split by id hash: held-out layouts are never used for training."""
    h = int.from_bytes(hashlib.blake2b(f"heldout:{layout_id}".encode(), digest_size=8).digest(), "little")
    return h % 100 < HELD_OUT_PERCENT


def structure_key(layout: Layout) -> tuple[str, int]:
    """The structural constraint a query about this layout states: (arrangement, columns)."""
    return layout.arrangement, layout.columns


_NUM = {1: ("one", "single", "1"), 2: ("two", "two", "2"), 3: ("three", "three", "3")}
_SIZE = {"Letter": ["Letter", "US Letter", "letter-size"], "A4": ["A4", "A4-size", "A4 portrait"]}
_HEADER = {
    "letterhead": ["a letterhead with logo and company address", "a company letterhead", "a letterhead header"],
    "logo_block": ["a logo block header", "a logo and title at the top", "a header with a logo block"],
    "running_title": ["a running-title header", "a running title at the top", "a running header title"],
    "band": ["a coloured header band", "a solid colour band across the top", "a colour header bar"],
    "minimal": ["a minimal header", "a plain header rule", "a minimal header line"],
}
_FOOTER = {
    "page_number": ["page numbers in the footer", "a page-number footer", "numbered pages"],
    "confidentiality": ["a confidentiality line in the footer", "a confidential footer notice",
                        "a confidentiality footer"],
    "page_number_confidentiality": ["page numbers and a confidentiality line in the footer",
                                    "a confidential footer with page numbers",
                                    "a footer with a confidentiality notice and page numbers"],
    "ruled_page_number": ["a ruled footer with page numbers", "a footer rule and page number",
                          "page numbers under a footer rule"],
    "document_reference": ["a document reference and page numbers in the footer",
                           "a footer with the document reference", "a reference-number footer"],
}


def _cols_word(n: int, gen: np.random.Generator) -> str:
    words = _NUM[n]
    return str(gen.choice([f"{words[0]}-column", f"{words[2]}-column", f"{words[1]} column"]))


def _body_phrases(layout: Layout) -> list[str]:
    n = _NUM[layout.columns][0]
    arr = layout.arrangement
    if arr == "single":
        return ["a single full-width column", "one wide text column for any content",
                "a full-width body for text, tables and charts", "a single-column body"]
    if arr == "split_half":
        return ["two stacked full-width areas", "top and bottom halves for wide content",
                "a page split into an upper and a lower full-width area", "two full-width halves"]
    if arr == "columns":
        return [f"{n} equal columns", f"{n} columns of text and charts", f"text flowing in {n} columns",
                f"a {n}-column body"]
    if arr == "band_top":
        return [f"a full-width band at the top above {n} columns", f"a wide table or chart across the top "
                f"and {n} columns below", f"a wide table at the top over {n} text columns",
                f"a top band with a wide chart above {n} columns"]
    if arr == "band_bottom":
        return [f"{n} columns above a full-width band at the bottom", f"{n} text columns with a wide table "
                f"across the bottom", f"a wide chart at the bottom below {n} columns",
                f"a bottom band for a wide table under {n} columns"]
    side = "left" if arr == "sidebar_left" else "right"
    return [f"a wide main column with a narrow {side} sidebar", f"a {side} sidebar for notes and key figures",
            f"a narrow {side} sidebar next to the main text", f"a main column and a {side}-hand sidebar"]


def paraphrase(layout: Layout, gen: np.random.Generator, keep: float = 1.0) -> str:
    """A query describing ``layout`` in varied words; each non-structural clause kept with prob. ``keep``."""
    size = str(gen.choice(_SIZE[layout.page_size]))
    cols = _cols_word(layout.columns, gen)
    body = str(gen.choice(_body_phrases(layout)))
    clauses = [str(gen.choice(_HEADER[layout.header])), str(gen.choice(_FOOTER[layout.footer]))]
    st = layout.style
    style_bits = [f"{st.theme} theme", f"{st.style_family} style"]
    gen.shuffle(clauses)
    clauses = [c for c in clauses if gen.random() < keep]
    style_bits = [s for s in style_bits if gen.random() < keep]
    head = f"{cols} {size} page" if gen.random() < keep else f"{cols} page"
    parts = [head, "with " + body] + (["and " + " and ".join(clauses)] if clauses else [])
    text = " ".join(parts)
    if style_bits:
        text += ", " + ", ".join(style_bits)
    return text


_MARKS = ("a rotated stamp", "a handwritten note", "a signature", "a highlighted passage")


def content_query(layout: Layout, gen: np.random.Generator) -> str:
    """A planner-style page query (what the page holds, not how it looks) that this layout can carry."""
    arr = layout.arrangement

    def table(wide: bool) -> str:
        return f"a {'wide ' if wide else ''}table of {int(gen.integers(3, 16))} rows"

    def chart() -> str:
        return f"a {gen.choice(CHART_KINDS)} chart"

    items: list[str] = ["a section heading"] if gen.random() < 0.8 else []
    if arr in ("band_top", "band_bottom"):
        wide = [table(True), chart()][int(gen.integers(0, 2))]
        text = "paragraphs of text"
        items += [wide, text] if arr == "band_top" else [text, wide]
    elif arr == "columns":
        items += ["paragraphs of text", chart()]
        if layout.columns == 2 and gen.random() < 0.5:
            items.append(table(False))
        if gen.random() < 0.4:
            items.append(f"a list of {int(gen.integers(3, 8))} items")
    elif arr in ("sidebar_left", "sidebar_right"):
        items += ["paragraphs of text", [table(True), chart()][int(gen.integers(0, 2))], str(gen.choice(_MARKS))]
    elif arr == "split_half":
        items += [table(True), chart()] if gen.random() < 0.5 else [chart(), table(True)]
    else:
        pool = ["paragraphs of text", table(gen.random() < 0.5), chart(),
                f"a form with {int(gen.integers(3, 9))} fields and {int(gen.integers(0, 4))} checkboxes",
                f"a list of {int(gen.integers(3, 8))} items"]
        items += [pool[int(i)] for i in sorted(gen.choice(len(pool), size=int(gen.integers(1, 4)), replace=False))]
    body = ", ".join(items[:-1]) + (" and " + items[-1] if len(items) > 1 else items[0])
    return f"page with {body}, {layout.style.style_family} style"


def training_texts(layout: Layout, gen: np.random.Generator) -> str:
    """One training text for ``layout``: the descriptor, a paraphrase (some clauses dropped) or a
    planner-style content query."""
    u = gen.random()
    if u < 0.3:
        return describe(layout)
    if u < 0.55:
        return paraphrase(layout, gen, keep=1.0)
    if u < 0.8:
        return paraphrase(layout, gen, keep=0.6)
    return content_query(layout, gen)


# --- page queries ----------------------------------------------------------------------------------------

_ELEMENT_WORDS = {"table": ("a table", "tables"), "form": ("a form", "forms"),
                  "annotation": ("a stamp", "stamps"), "text": ("text", "text")}
_CHART_WORDS = {"bar": "a bar chart", "line": "a line chart", "pie": "a pie chart"}


def page_query(page: PagePlan, style_family: str = "") -> str:
    """The query for a page: the planner's ``layout_query`` when given, else one built from its blocks."""
    base = page.layout_query.strip() or blocks_query(page.blocks)
    if style_family and style_family not in base:
        base = f"{base.rstrip('.')}, {style_family} style"
    return base


def blocks_query(blocks: Sequence[Block]) -> str:
    """E.g. "page with a wide table, a bar chart and text" from a page's blocks."""
    parts: list[str] = []
    counts: Counter[str] = page_element_counts(blocks)
    for b in blocks:
        if b.type == "table":
            wide = len(b.columns) > 4
            parts.append("a wide table" if wide else "a table")
        elif b.type == "figure":
            parts.append(_CHART_WORDS.get(b.chart, "a chart"))
        elif b.type == "form":
            parts.append("a form")
        elif b.type == "annotation":
            parts.append("a stamp" if b.kind == "stamp" else "a note")
    seen: list[str] = []
    for p in parts:
        if p not in seen:
            seen.append(p)
    if counts.get("text"):
        seen.append("text")
    if not seen:
        return "page with text"
    return "page with " + (seen[0] if len(seen) == 1 else ", ".join(seen[:-1]) + " and " + seen[-1])


def doc_queries(doc: DocumentIR) -> list[str]:
    return [page_query(p, doc.style_family) for p in doc.pages]
