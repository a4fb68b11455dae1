"""Document-level lint: what a reader of a whole document rejects, found from the corpus files.

A page can be clean while the document is not. These checks read one document end to end (its IR, render
map and the PDF's own pages and text):

- ``page_size``: every page on the same paper;
- ``font_families``: at most ``MAX_BODY_FAMILIES`` font families carry the paragraphs' text (read from the
  PDF's spans inside the paragraphs' boxes; forms, stamps and handwriting may differ, as in real documents);
- ``contents_page``: each table-of-contents row gives the page on which the PDF draws its heading (found
  in the PDF's text as a heading-sized line, not taken from the renderer's record);
- ``repeated_rows`` / ``repeated_caption``: no table repeats another's rows (``generation.content.repeats``),
  no caption or figure title recurs;
- ``empty_section``: no heading followed only by an overlay or by another heading;
- ``unreferenced_exhibit``: every numbered table and figure is referred to ("Table 4") in a paragraph;
- ``prose_share``: the share of the content area that paragraphs cover lies in the recipe's range
  (``Recipe.prose_share``).
"""

from __future__ import annotations

import re
from collections import Counter

from synthdocqa.generation.content.front_matter import (
    contents_table,
    heading_text,
    numbered_headings,
    printed_pages,
)
from synthdocqa.generation.content.repeats import repeated_captions, repeated_tables
from synthdocqa.generation.domains import RECIPE_BY_SLUG
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.rendermap import RenderMap

MAX_BODY_FAMILIES = 3
"""Font families that may carry a document's paragraphs (a body face, a heading face, one for emphasis)."""
OVERLAY_FAMILIES = ("Kalam", "Satisfy")
"""Handwriting and signature faces: drawn over the document, never its body text."""
PARAGRAPH_TYPES = ("text_block", "list")
CONTENT_TYPES = ("text_block", "list", "table", "figure", "form", "footnote", "heading")
"""What the prose share counts as content (overlays such as stamps sit on top of content)."""
HEADING_MIN_SIZE = 10.0
"""Heading lines are drawn at least this size (points); the running headers' section names are smaller."""

_EXHIBIT = re.compile(r"^((?:Table|Figure) \d+)\.")


def _problem(doc_id: str, check: str, detail: str, page_no: int | None = None):
    from .lint import LintProblem

    return LintProblem(doc_id=doc_id, page_no=page_no, kind="document", check=check, detail=detail)


def _inside(bbox, box) -> bool:
    cx, cy = (bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2
    return box[0] - 1 <= cx <= box[2] + 1 and box[1] - 1 <= cy <= box[3] + 1


def read_spans(pdf: bytes) -> list[list[tuple[tuple[float, ...], str, str, float]]]:
    """Per page, the horizontal text spans: (bbox, text, font name, size)."""
    import pymupdf

    out = []
    with pymupdf.open(stream=pdf, filetype="pdf") as d:
        for page in d:
            spans = []
            for b in page.get_text("dict")["blocks"]:
                for ln in b.get("lines", []):
                    if abs(ln["dir"][1]) < 1e-3 and ln["dir"][0] > 0:
                        for s in ln["spans"]:
                            if s["text"].strip():
                                spans.append((tuple(s["bbox"]), s["text"], s["font"], s["size"]))
            out.append(spans)
    return out


def page_sizes(pdf: bytes) -> list[tuple[float, float]]:
    import pymupdf

    with pymupdf.open(stream=pdf, filetype="pdf") as d:
        return [(round(p.rect.width), round(p.rect.height)) for p in d]


def family_of(font: str) -> str:
    """The family of a PDF font name ("ABCDEF+NotoSans-Bold" -> "NotoSans")."""
    return font.split("+")[-1].split("-")[0]


def body_families(rmap: RenderMap, spans) -> Counter:
    """Characters of paragraph text by font family (spans inside the paragraphs' boxes)."""
    counts: Counter = Counter()
    for bb in rmap.blocks:
        if bb.block_type not in PARAGRAPH_TYPES:
            continue
        for bbox, text, font, _ in spans[bb.page_no - 1]:
            if _inside(bbox, bb.bbox) and family_of(font) not in OVERLAY_FAMILIES:
                counts[family_of(font)] += len(text)
    return counts


def prose_share(rmap: RenderMap) -> float:
    """Area of paragraphs / area of content, over the rendered pages."""
    para = content = 0.0
    for bb in rmap.blocks:
        if bb.block_type not in CONTENT_TYPES:
            continue
        area = max(0.0, bb.bbox[2] - bb.bbox[0]) * max(0.0, bb.bbox[3] - bb.bbox[1])
        content += area
        if bb.block_type in PARAGRAPH_TYPES:
            para += area
    return para / content if content else 0.0


def heading_pages(doc: DocumentIR, spans, rmap: RenderMap | None = None) -> dict[str, int]:
    """The PDF page on which each numbered heading is drawn (first occurrence after the contents page): a
    line of the page's body (below its header; without a recorded body, a heading-sized line) whose text,
    joined with the next lines where a long heading wraps, is the heading."""
    wanted = {heading_text(h) for _, h in numbered_headings(doc.pages[2:])}
    found: dict[str, int] = {}
    for n, page in enumerate(spans, start=1):
        if n <= 2:
            continue
        body = rmap.pages[n - 1].body if rmap is not None and n <= len(rmap.pages) else None
        lines: dict[tuple[float, float], list] = {}
        for bbox, text, _font, size in page:  # spans of one line share its baseline
            inside = bbox[1] >= body[1] - 2 and bbox[3] <= body[3] + 2 if body is not None else \
                size >= HEADING_MIN_SIZE
            if inside:
                key = (round(bbox[3]), size)
                lines.setdefault(key, []).append((bbox[0], text))
        rows = sorted((min(x for x, _ in parts), y, size, " ".join(t.strip() for _, t in sorted(parts)))
                      for (y, size), parts in lines.items())
        for x, y, size, text in rows:  # a long heading wraps (in a narrow column, a word a line): its lines follow
            below = sorted((yy, t) for xx, yy, ss, t in rows if abs(xx - x) < 3 and ss == size and y < yy <= y + 6 * size)
            for joined in (" ".join([text, *[t for _, t in below[:k]]]) for k in range(6)):
                if joined in wanted and joined not in found:
                    found[joined] = n
    return found


def empty_sections(doc: DocumentIR) -> list[tuple[int, str]]:
    """(IR page, heading) of each heading whose next block, overlays aside, is another heading or the end of
    the document (the document's title on page 1 aside: it heads the first section)."""
    seq = [(p.page_no, b) for p in doc.pages for b in p.blocks]
    out = []
    for i, (page_no, b) in enumerate(seq):
        if b.type != "heading" or i == 0:
            continue
        following = [nxt for _, nxt in seq[i + 1:]]
        nxt = next((x for x in following if x.type != "annotation"), None)
        has_content = nxt is not None and nxt.type != "heading"
        if not has_content:
            out.append((page_no, heading_text(b)))
    return out


def unreferenced_exhibits(doc: DocumentIR) -> list[str]:
    """"Table N" / "Figure N" of each numbered exhibit that no paragraph refers to."""
    prose = " ".join(s.text for _, b in doc.blocks() if b.type in PARAGRAPH_TYPES + ("footnote",)
                     for s in (b.spans if b.type != "list" else [x for item in b.items for x in item]))
    out = []
    for _, b in doc.blocks():
        if b.type not in ("table", "figure"):
            continue
        m = _EXHIBIT.match(b.caption if b.type == "table" else b.title)
        if m and not re.search(re.escape(m.group(1)) + r"(?!\d)", prose):
            out.append(m.group(1))
    return out


def document_problems(doc_id: str, doc: DocumentIR, rmap: RenderMap, pdf: bytes) -> list:
    """Every document-level problem of one document."""
    out = []
    sizes = Counter(page_sizes(pdf))
    if len(sizes) > 1:
        out.append(_problem(doc_id, "page_size", f"pages on {len(sizes)} paper sizes: {dict(sizes)}"))
    spans = read_spans(pdf)
    fams = body_families(rmap, spans)
    if len(fams) > MAX_BODY_FAMILIES:
        out.append(_problem(doc_id, "font_families", f"{len(fams)} font families carry paragraphs: "
                                                     f"{', '.join(sorted(fams))}"))
    if contents_table(doc) is not None:
        printed = printed_pages(doc)
        drawn = heading_pages(doc, spans, rmap)
        facts = {f.id: f for f in doc.facts}
        for fid, page in printed.items():
            title = facts[fid].label.removeprefix("Start page of section ")
            at = drawn.get(title)
            if at != page:
                out.append(_problem(doc_id, "contents_page", f"contents give page {page} for {title!r}, "
                                                             f"drawn on page {at}", 2))
    for r in repeated_tables(doc):
        out.append(_problem(doc_id, "repeated_rows", f"{r.second} repeats {r.shared} of {r.of} rows of "
                                                     f"{r.first} ({r.by})"))
    for c in repeated_captions(doc):
        out.append(_problem(doc_id, "repeated_caption", f"{c.text!r} captions {len(c.block_ids)} blocks"))
    for plan_page, text in empty_sections(doc):
        out.append(_problem(doc_id, "empty_section", f"heading {text!r} (IR page {plan_page}) has no content"))
    for ref in unreferenced_exhibits(doc):
        out.append(_problem(doc_id, "unreferenced_exhibit", f"no paragraph refers to {ref}"))
    lo, hi = RECIPE_BY_SLUG[doc.recipe].prose_share
    share = prose_share(rmap)
    if not lo <= share <= hi:
        out.append(_problem(doc_id, "prose_share", f"paragraphs cover {share:.0%} of the content area; the "
                                                   f"{doc.recipe} range is {lo:.0%}-{hi:.0%}"))
    return out


__all__ = ["MAX_BODY_FAMILIES", "body_families", "document_problems", "empty_sections", "heading_pages",
           "page_sizes", "prose_share", "unreferenced_exhibits"]
