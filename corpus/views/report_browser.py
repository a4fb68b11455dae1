"""The report's QA browser: every QA pair in a table that filters by QA type, difficulty, element, the scan
tier of its evidence pages and answerable-from-scan, and searches question and answer text; each row shows
its evidence pages as thumbnails with the evidence boxes drawn over them, and a grid shows every page of the
corpus.

Each page is thumbnailed once (clean page and scan, small baseline JPEGs) into a list that the rows refer to
by index, so a page shared by ten QA pairs is in the file once. The boxes are not drawn into the thumbnails:
they are SVG rectangles (``bbox_page_px`` on the clean page) and polygons (``scan_quad`` on the scan) in the
full-size image's pixel coordinates (the SVG's ``viewBox``), laid over the thumbnail and scaled with it.

Thumbnails are made as small as they can be: the clean page is rendered again from the document's
``document.pdf`` (the PDF its page image was rasterised from, opened once per document) with pymupdf straight
at the thumbnail's width, so the page image is never decoded; a JPEG scan is decoded by libjpeg at 1/2, 1/4 or
1/8 scale (PIL's ``draft``: the largest reduction still at least as wide as the thumbnail) and then resized;
only a PNG scan (pristine tier, fax) has to be decoded whole. Scans are decoded in a thread pool (PIL lets go
of the GIL while it decodes, resizes and encodes) while the main thread renders the PDFs; results are put in
page order, so the bytes do not depend on the threads.

Size budget (``thumb_width``): a page's two thumbnails take about ``PAGE_BYTES_AT_MAX`` (30 KB of base64) at
260 px, and their size goes with the width squared, so the default width is 260 px up to ``FULL_WIDTH_PAGES``
(333) pages and ``260 * sqrt(333 / pages)`` above, never under ``MIN_THUMB_WIDTH`` (80 px): the thumbnails of
a corpus stay within about ``THUMB_BUDGET`` (10 MB) until the floor is reached (about 3,500 pages), and grow
by about 3.7 KB a page beyond it. ``--thumb-width`` overrides the rule.

Safety: the data goes into the page as JSON in a ``<script type="application/json">`` with ``<``, ``>``,
``&``, U+2028 and U+2029 written as ``\\uXXXX`` escapes (so no corpus text can close the element or open a
comment), and ``BROWSER_JS`` reads it with ``textContent`` and ``JSON.parse`` and puts every corpus string on
the page with ``textContent`` or as an attribute through the DOM (never ``innerHTML``). The filter menus are
written by the report's template, which escapes them.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pandas as pd
import pymupdf
from markupsafe import Markup
from PIL import Image

from synthdocqa.ir.vocab import DIFFICULTIES, QA_ELEMENTS, QA_TYPES, TIERS

from ..store import PDF_FILE, CorpusError, CorpusReader

THUMB_QUALITY = 65
"""JPEG quality of the page thumbnails (baseline; Huffman tables optimised, which is deterministic too: the same
page gives the same bytes, about 1 KB less a page at small widths)."""

MAX_THUMB_WIDTH = 260
"""The default width of a small corpus's thumbnails (shown at 130 px, at their own width when clicked)."""
MIN_THUMB_WIDTH = 80
"""The default width is never narrower than this (nor ``--thumb-width``)."""
THUMB_BUDGET = 10_000_000
"""Bytes the embedded thumbnails of a corpus should stay within (base64), until the width reaches its floor."""
PAGE_BYTES_AT_MAX = 30_000
"""What one page's two thumbnails take at ``MAX_THUMB_WIDTH`` (base64), measured on reference-profile pages
(150 dpi; 31 KB with the old unoptimised tables, 29 KB optimised) and demo pages (about 30 KB)."""
FULL_WIDTH_PAGES = THUMB_BUDGET // PAGE_BYTES_AT_MAX
"""Up to this many pages (333) the thumbnails are ``MAX_THUMB_WIDTH`` wide."""

SCAN_FLAGS = {True: "yes", False: "no", None: "unknown"}
"""``answerable_from_scan`` as the browser's filter values (None: the scans were not read)."""


def page_key(doc_id: str, page_no: int) -> str:
    return f"{doc_id}/{page_no}"


def thumb_width(n_pages: int, override: int | None = None) -> int:
    """The thumbnails' width for a corpus of ``n_pages`` pages: ``override`` where given, else
    ``MAX_THUMB_WIDTH`` (260) up to ``FULL_WIDTH_PAGES`` (333) pages and ``260 * sqrt(333 / n_pages)`` (rounded
    down) above, so that the thumbnails stay within about ``THUMB_BUDGET`` (10 MB), but never less than
    ``MIN_THUMB_WIDTH`` (80: from about 3,500 pages on the thumbnails grow past the budget, by about 3.7 KB a
    page). 55 pages: 260 px; 872 pages: 160 px; 2,000 pages: 106 px; 4,400 pages: 80 px."""
    if override is not None:
        return int(override)
    if n_pages <= FULL_WIDTH_PAGES:
        return MAX_THUMB_WIDTH
    return max(MIN_THUMB_WIDTH, int(MAX_THUMB_WIDTH * math.sqrt(FULL_WIDTH_PAGES / n_pages)))


def _jpeg_uri(img: Image.Image) -> str:
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=THUMB_QUALITY, optimize=True, progressive=False)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _fit(img: Image.Image, width: int) -> Image.Image:
    """``img`` (RGB) scaled to ``width`` pixels (never up): a box reduction by the whole factor (PIL's
    ``reducing_gap=1``: 1241 to 160 px is a 7x7 box to 177 px), then a Hamming filter the rest of the way
    (antialiased like any PIL downscale; a third of Lanczos's cost, and no visible difference at this size)."""
    if img.width <= width:
        return img
    return img.resize((width, max(1, round(img.height * width / img.width))), Image.Resampling.HAMMING,
                      reducing_gap=1.0)


def _image_thumb(data: bytes, width: int) -> dict[str, Any]:
    """The thumbnail of an image file (a scan), with the full image's size (the coordinate space of its boxes).
    A JPEG is decoded reduced (libjpeg's DCT scaling to the smallest size at least ``width`` wide)."""
    img = Image.open(io.BytesIO(data))
    full_w, full_h = img.size
    if img.format == "JPEG" and full_w > width:
        img.draft("RGB", (width, max(1, full_h * width // full_w)))
    if img.mode != "RGB":
        img = img.convert("RGB")
    return {"src": _jpeg_uri(_fit(img, width)), "w": full_w, "h": full_h}


def _image_size(data: bytes) -> tuple[int, int]:
    """An image file's size from its header (nothing decoded)."""
    with Image.open(io.BytesIO(data)) as img:
        return img.size


def _page_files(view: CorpusReader, image: str, scan: str, width: int) -> tuple[tuple[int, int], dict[str, Any]]:
    """In a worker thread: the clean page image's size (its file read and checked like any corpus file, not
    decoded) and the scan's thumbnail."""
    return _image_size(view.read_bytes(image)), _image_thumb(view.read_bytes(scan), width)


def _render_thumb(page: pymupdf.Page, width: int, size: tuple[int, int]) -> dict[str, Any]:
    """The clean page's thumbnail rendered from the PDF at ``width`` pixels (the page image is the same PDF
    page rasterised at the corpus dpi; ``size`` is that image's, the coordinate space of ``bbox_page_px``)."""
    if size[0] <= width:  # a page image narrower than the thumbnail: render it at its own size
        width = size[0]
    zoom = width / page.rect.width
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False, colorspace=pymupdf.csRGB)
    img = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    if img.width != width:  # rounding of the page box: never seen, but keep the width exact
        img = img.resize((width, max(1, round(img.height * width / img.width))), Image.Resampling.LANCZOS)
    return {"src": _jpeg_uri(img), "w": size[0], "h": size[1]}


def _workers() -> int:
    """Threads for the scans: the CPUs this process may use, at most 8."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        n = os.cpu_count() or 1
    return max(1, min(8, n))


def page_thumbnails(view: CorpusReader, prows: pd.DataFrame, width: int) -> list[tuple[dict[str, Any],
                                                                                        dict[str, Any]]]:
    """(clean, scan) thumbnails of every row of ``prows`` (pages sorted by document), in its order: scans
    decoded in a thread pool while this thread renders each document's PDF (opened once) page by page."""
    rows = list(zip(prows["doc_id"].astype(str), prows["page_no"].astype(int), prows["image"].astype(str),
                    prows["scan"].astype(str), strict=True))
    pool = ThreadPoolExecutor(max_workers=_workers(), thread_name_prefix="report-thumbs")
    try:
        files: list[Future] = [pool.submit(_page_files, view, image, scan, width) for _, _, image, scan in rows]
        out = []
        pdf, pdf_doc = None, None
        try:
            for (doc_id, page_no, _, _), job in zip(rows, files, strict=True):
                if doc_id != pdf_doc:
                    if pdf is not None:
                        pdf.close()
                    pdf, pdf_doc = pymupdf.open(stream=view.pdf(doc_id), filetype="pdf"), doc_id
                if not 1 <= page_no <= pdf.page_count:
                    raise CorpusError(f"{doc_id}: page {page_no} is not in its {PDF_FILE} ({pdf.page_count} pages)")
                size, scan_thumb = job.result()
                out.append((_render_thumb(pdf[page_no - 1], width, size), scan_thumb))
        finally:
            if pdf is not None:
                pdf.close()
        return out
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _box(b: list[float]) -> list[float]:
    """A box ``[x0, y0, x1, y1]`` to 0.1 px."""
    return [round(float(x), 1) for x in b]


def _quad(q: list[list[float]]) -> list[list[float]]:
    """A quad's four ``[x, y]`` corners to 0.1 px."""
    return [[round(float(x), 1), round(float(y), 1)] for x, y in q]


def _evidence_by_qa(assertions: pd.DataFrame) -> dict[str, list[dict[str, Any]]]:
    """Every evidence span of each QA pair: its assertions' own and those of their derivations' operands."""
    out: dict[str, list[dict[str, Any]]] = {}
    for qa_id, ev_json, der_json in zip(assertions["qa_id"], assertions["evidence_json"],
                                        assertions["derivation_json"], strict=True):
        ev = out.setdefault(str(qa_id), [])
        ev += [e for e in json.loads(ev_json) if e not in ev]
        if der_json:
            for op in json.loads(der_json)["operands"]:
                ev += [e for e in op["evidence"] if e not in ev]
    return out


def _scan_flag(v: Any) -> str:
    if v is None or (isinstance(v, float) and v != v):  # a parquet null: None or NaN
        return SCAN_FLAGS[None]
    return SCAN_FLAGS[bool(v)]


def browser_data(view: CorpusReader, t: dict[str, pd.DataFrame], thumb_width: int) -> dict[str, Any]:
    """What the browser shows: ``pages`` (every page of the corpus in document and page order, with its own
    tier and device and its two thumbnails) and ``qa`` (every QA pair in id order, with its filter values and
    its evidence pages as indices into ``pages`` with the boxes and quads on each)."""
    records = {d: view.record(d) for d in view.doc_ids}
    pages: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    prows = t["pages"].sort_values(["doc_id", "page_no"], kind="stable")
    thumbs = page_thumbnails(view, prows, thumb_width)
    for doc_id, page_no, (clean, scan) in zip(prows["doc_id"], prows["page_no"], thumbs, strict=True):
        rec = records[str(doc_id)]
        own = next((p for p in rec.pages if p.page_no == int(page_no)), None)
        index[page_key(str(doc_id), int(page_no))] = len(pages)
        pages.append({"doc": str(doc_id), "page": int(page_no),
                      "tier": str((own.tier if own is not None and own.tier else None) or rec.tier),
                      "device": str((own.device if own is not None and own.device else None) or rec.device),
                      "clean": clean, "scan": scan, "n_qa": 0})
    evidence = _evidence_by_qa(t["assertions"])
    tier_rank = {tier: i for i, tier in enumerate(TIERS)}
    items = []
    for q in t["qa"].sort_values("qa_id", kind="stable").to_dict("records"):
        ev = evidence.get(str(q["qa_id"]), [])
        page_nos = sorted(set(json.loads(q["page_nos"])) | {int(e["page_no"]) for e in ev})
        on_pages = []
        for page_no in page_nos:
            i = index.get(page_key(str(q["doc_id"]), page_no))
            if i is None:
                raise CorpusError(f"QA pair {q['qa_id']}: evidence on page {page_no} of {q['doc_id']}, which the "
                                  "pages table does not list")
            here = [e for e in ev if int(e["page_no"]) == page_no]
            boxes = [_box(e["bbox_page_px"]) for e in here if e.get("bbox_page_px")]
            quads = [_quad(e["scan_quad"]) for e in here if e.get("scan_quad")]
            on_pages.append([i, boxes, quads])
            pages[i]["n_qa"] += 1
        accepted = [a for a in json.loads(q["accepted_answers"]) if a != q["answer_text"]]
        items.append({
            "id": str(q["qa_id"]), "doc": str(q["doc_id"]), "q": str(q["question"]), "a": str(q["answer_text"]),
            "acc": accepted[:5], "more": max(0, len(accepted) - 5),
            "type": str(q["qa_type"]), "el": str(q["element_type"]), "diff": str(q["difficulty"]),
            "tiers": sorted({pages[i]["tier"] for i, _, _ in on_pages}, key=lambda x: (tier_rank.get(x, 99), x)),
            "scan": _scan_flag(q["answerable_from_scan"]), "ev": on_pages})
    return {"pages": pages, "qa": items}


def _options(values: list[str], order: tuple[str, ...]) -> list[dict[str, Any]]:
    """The values of one filter menu with their counts: the vocabulary's order, then any others sorted."""
    n = Counter(values)
    keys = [k for k in order if n[k]] + sorted(k for k in n if k not in order)
    return [{"value": k, "label": k, "count": n[k]} for k in keys]


def browser_filters(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The filter menus (id, label, options with counts) the template writes over the QA table."""
    qa = data["qa"]
    scan = _options([q["scan"] for q in qa], ("yes", "no", "unknown"))
    for o in scan:
        o["label"] = {"yes": "answerable", "no": "not answerable", "unknown": "not measured"}.get(o["value"],
                                                                                                 o["value"])
    return [
        {"id": "qb-type", "label": "QA type", "options": _options([q["type"] for q in qa], QA_TYPES)},
        {"id": "qb-diff", "label": "difficulty",
         "options": _options([q["diff"] for q in qa], DIFFICULTIES)},
        {"id": "qb-el", "label": "element", "options": _options([q["el"] for q in qa], QA_ELEMENTS)},
        {"id": "qb-tier", "label": "scan tier (evidence page)",
         "options": _options([t for q in qa for t in q["tiers"]], TIERS)},
        {"id": "qb-scan", "label": "answerable from scan", "options": scan},
    ]


def browser_section(view: CorpusReader, t: dict[str, pd.DataFrame], width: int | None = None) -> dict[str, Any]:
    """What the report's template needs for the browser: counts, the filter menus, the data as escaped JSON and
    the script; and the thumbnails' width and the bytes they take (for the report's summary). ``width`` None:
    ``thumb_width`` of the corpus's page count."""
    width = thumb_width(len(t["pages"]), width)
    data = browser_data(view, t, width)
    return {"n_qa": len(data["qa"]), "n_pages": len(data["pages"]), "filters": browser_filters(data),
            "json": script_json(data), "js": Markup(BROWSER_JS),  # noqa: S704 - a constant of this module
            "thumb_width": width,
            "thumbnail_bytes": sum(len(p[k]["src"]) for p in data["pages"] for k in ("clean", "scan"))}


def script_json(data: Any) -> Markup:
    """``data`` as JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` (so no
    ``</script>`` or ``<!--``), and no U+2028/U+2029; all five only ever occur inside JSON strings, where the
    ``\\uXXXX`` escape reads back as the same character."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for ch in "&<>\u2028\u2029":
        text = text.replace(ch, f"\\u{ord(ch):04x}")
    return Markup(text)  # noqa: S704 - escaped above: nothing in it can end the element


BROWSER_CSS = """
.qb-filters{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:end;background:#fff;border:1px solid var(--line);
border-radius:6px;padding:10px 12px;position:sticky;top:0;z-index:2}
.qb-filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted)}
.qb-filters input,.qb-filters select{font:inherit;font-size:13px;padding:3px 5px;min-width:130px}
.qb-filters input[type=search]{min-width:240px}
#qb-count{font-weight:600;margin-left:auto}.qb-chip{background:#e8eef6;border-radius:12px;padding:2px 10px;font-size:12px}
#qb-table{margin-top:8px;background:#fff}#qb-table td{vertical-align:top}#qb-table tbody tr:nth-child(even){background:#fafbfc}
#qb-table td.qb-q{min-width:260px}.qb-id{display:block;color:var(--muted);font-size:11px}
.qb-acc{display:block;color:var(--muted);font-size:11px}.qb-no{color:#8a1c12;font-weight:600}
td.qb-ev{width:310px}.qb-thumb{display:inline-block;width:132px;margin:0 6px 2px 0;vertical-align:top}
.qb-frame{position:relative;display:inline-block;line-height:0;border:1px solid var(--line);cursor:zoom-in}
.qb-frame img{width:130px;max-width:none;height:auto}.qb-thumb.big{width:auto}.qb-thumb.big .qb-frame img{width:auto}.qb-thumb.big .qb-frame{cursor:zoom-out}
.qb-frame svg{position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none}
.qb-thumb figcaption{font-size:11px;margin-top:1px}
#qb-grid{display:flex;flex-wrap:wrap;gap:4px 28px}.qb-more{margin:8px 0}.qb-doc{margin:10px 0}.qb-doc h4{margin:0 0 4px;font-size:13px}
.qb-doc .qb-pages{display:flex;flex-wrap:wrap;gap:8px}.qb-page{cursor:pointer}
.qb-page.on .qb-frame{outline:3px solid var(--accent)}
"""

BROWSER_JS = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("qb-data").textContent);
  var SVG = "http://www.w3.org/2000/svg", LIMIT = 200;
  var byId = function (id) { return document.getElementById(id); };
  var menus = {type: byId("qb-type"), diff: byId("qb-diff"), el: byId("qb-el"), tier: byId("qb-tier"),
               scan: byId("qb-scan")};
  var search = byId("qb-q"), viewMenu = byId("qb-view"), count = byId("qb-count"), body = byId("qb-rows");
  var more = byId("qb-more"), chip = byId("qb-page"), grid = byId("qb-grid"), none = byId("qb-none");
  var state = {page: -1, limit: LIMIT};

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function thumb(pi, boxes, quads) {
    var p = data.pages[pi], view = viewMenu.value, im = p[view];
    var fig = el("figure", "qb-thumb"), frame = el("div", "qb-frame"), img = el("img");
    img.src = im.src;
    img.alt = p.doc + " page " + p.page + " (" + view + ")";
    frame.appendChild(img);
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 " + im.w + " " + im.h);
    svg.setAttribute("preserveAspectRatio", "none");
    var shapes = view === "clean" ? (boxes || []) : (quads || []);
    shapes.forEach(function (s) {
      var shape;
      if (view === "clean") {
        shape = document.createElementNS(SVG, "rect");
        shape.setAttribute("x", s[0]); shape.setAttribute("y", s[1]);
        shape.setAttribute("width", Math.max(0, s[2] - s[0])); shape.setAttribute("height", Math.max(0, s[3] - s[1]));
      } else {
        shape = document.createElementNS(SVG, "polygon");
        shape.setAttribute("points", s.map(function (pt) { return pt[0] + "," + pt[1]; }).join(" "));
      }
      var colour = view === "clean" ? "rgb(220,30,60)" : "rgb(0,120,255)";
      shape.setAttribute("fill", colour); shape.setAttribute("fill-opacity", "0.25");
      shape.setAttribute("stroke", colour); shape.setAttribute("stroke-width", "1.5");
      shape.setAttribute("vector-effect", "non-scaling-stroke");
      svg.appendChild(shape);
    });
    frame.appendChild(svg);
    fig.appendChild(frame);
    fig.appendChild(el("figcaption", null, "p" + p.page + " \u00b7 " + p.tier + " \u00b7 " + p.device));
    fig.title = p.doc + ", page " + p.page + ": " + p.tier + " tier, " + p.device;
    return fig;
  }

  var rows = data.qa.map(function (q) {
    var tr = el("tr"), qcell = el("td", "qb-q"), acell = el("td", "qb-a");
    tr.setAttribute("data-qa", q.id);
    qcell.appendChild(el("span", "qb-text", q.q));
    qcell.appendChild(el("span", "qb-id", q.id));
    acell.appendChild(el("strong", "qb-text", q.a));
    if (q.acc.length) {
      acell.appendChild(el("span", "qb-acc", "also: " + q.acc.join(" | ") + (q.more ? " | \u2026 " + q.more + " more" : "")));
    }
    tr.appendChild(qcell); tr.appendChild(acell);
    [q.type, q.el, q.diff, q.tiers.join(", ") || "\u2014"].forEach(function (v) { tr.appendChild(el("td", null, v)); });
    tr.appendChild(el("td", q.scan === "no" ? "qb-no" : null, q.scan));
    var ev = el("td", "qb-ev");
    if (!q.ev.length) { ev.appendChild(el("span", "muted", "no evidence")); }
    tr.appendChild(ev);
    return {q: q, tr: tr, ev: ev, drawn: false, hay: (q.q + "\n" + q.a).toLowerCase(),
            pages: q.ev.map(function (e) { return e[0]; })};
  });
  rows.forEach(function (r) { body.appendChild(r.tr); });

  function draw(r) {
    if (r.drawn) { return; }
    while (r.ev.firstChild && r.q.ev.length) { r.ev.removeChild(r.ev.firstChild); }
    r.q.ev.forEach(function (e) { r.ev.appendChild(thumb(e[0], e[1], e[2])); });
    r.drawn = true;
  }
  function matches(r) {
    var q = r.q;
    if (menus.type.value && q.type !== menus.type.value) { return false; }
    if (menus.diff.value && q.diff !== menus.diff.value) { return false; }
    if (menus.el.value && q.el !== menus.el.value) { return false; }
    if (menus.tier.value && q.tiers.indexOf(menus.tier.value) < 0) { return false; }
    if (menus.scan.value && q.scan !== menus.scan.value) { return false; }
    if (state.page >= 0 && r.pages.indexOf(state.page) < 0) { return false; }
    var terms = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    return terms.every(function (t) { return r.hay.indexOf(t) >= 0; });
  }
  function apply() {
    var n = 0, shown = 0;
    rows.forEach(function (r) {
      var ok = matches(r);
      n += ok ? 1 : 0;
      var show = ok && shown < state.limit;
      shown += show ? 1 : 0;
      if (show) { draw(r); }
      r.tr.hidden = !show;
    });
    count.textContent = n + " of " + rows.length + " QA pairs";
    more.hidden = shown >= n;
    none.hidden = n > 0;
    more.textContent = "Show " + Math.min(LIMIT, n - shown) + " more (" + (n - shown) + " not shown)";
    chip.hidden = state.page < 0;
    if (state.page >= 0) {
      var p = data.pages[state.page];
      chip.firstChild.textContent = "page " + p.page + " of " + p.doc + " ";
    }
    [].forEach.call(grid.querySelectorAll(".qb-page"), function (f) {
      f.classList.toggle("on", Number(f.getAttribute("data-page")) === state.page);
    });
  }
  function refilter() { state.limit = LIMIT; apply(); }

  function drawGrid() {
    while (grid.firstChild) { grid.removeChild(grid.firstChild); }
    var doc = null, strip = null;
    data.pages.forEach(function (p, i) {
      if (p.doc !== doc) {
        doc = p.doc;
        var box = el("div", "qb-doc");
        box.appendChild(el("h4", null, p.doc));
        strip = el("div", "qb-pages");
        box.appendChild(strip);
        grid.appendChild(box);
      }
      var fig = thumb(i, [], []);
      fig.className = "qb-thumb qb-page";
      fig.setAttribute("data-page", String(i));
      fig.lastChild.textContent += " \u00b7 " + p.n_qa + " QA";
      fig.addEventListener("click", function () {
        state.page = state.page === i ? -1 : i;
        refilter();
        if (state.page >= 0) { byId("qb-filters").scrollIntoView(); }
      });
      strip.appendChild(fig);
    });
  }

  Object.keys(menus).forEach(function (k) { menus[k].addEventListener("change", refilter); });
  search.addEventListener("input", refilter);
  viewMenu.addEventListener("change", function () {
    rows.forEach(function (r) { r.drawn = false; });
    drawGrid(); apply();
  });
  more.addEventListener("click", function () { state.limit += LIMIT; apply(); });
  chip.lastChild.addEventListener("click", function () { state.page = -1; refilter(); });
  byId("qb-reset").addEventListener("click", function () {
    Object.keys(menus).forEach(function (k) { menus[k].value = ""; });
    search.value = ""; state.page = -1; refilter();
  });
  body.addEventListener("click", function (ev) {
    var fig = ev.target.closest ? ev.target.closest(".qb-thumb") : null;
    if (fig) { fig.classList.toggle("big"); }
  });
  drawGrid();
  apply();
}());
"""
