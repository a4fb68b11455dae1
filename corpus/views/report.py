"""The corpus report: one self-contained HTML page to look at a corpus before trusting it.

Stats tables (by domain, recipe, tier, element and QA type) and matplotlib charts, the QA browser (every QA
pair filtered and searched in the page, its evidence pages' thumbnails with boxes, every page: ``report_browser``),
a gallery of sampled QA pairs with their evidence boxes drawn over the clean page (``bbox_page_px``) and over the
scan (``scan_quad``), and the five-tier contact sheet of one page (the page's PDF rasterised again and
passed through every tier with ``degrade_page``). Every image is inlined as base64 (``report_images``
draws them), nothing is fetched; the only script is the browser's own, fed escaped JSON; the sample is seeded
by the corpus seed, so the same corpus gives the same bytes.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from PIL import Image

from synthdocqa.ir.boxes import pdf_to_px
from synthdocqa.ir.files import atomic_write_text
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import DEVICES, DIFFICULTIES, QA_ELEMENTS, TIERS

from ..store import (
    ASSERTIONS_TABLE,
    DOCUMENTS_TABLE,
    MANIFEST,
    PAGES_TABLE,
    QA_TABLE,
    CorpusError,
    CorpusReader,
    open_corpus,
)
from .exports.common import ExportError
from .report_browser import BROWSER_CSS, browser_section
from .report_images import PALETTE, chart, crop_around, draw_boxes, draw_quads, fit_width, jpeg_uri, open_rgb

CLEAN_COLOUR = (220, 30, 60)
SCAN_COLOUR = (0, 120, 255)


class ReportError(ExportError):
    """The report cannot be made (not a corpus, tampered files)."""


@dataclass
class ReportOptions:
    gallery: int = 6
    """QA pairs shown with their evidence boxes."""
    thumb_width: int = 520
    """Width in pixels of page thumbnails in the gallery."""
    contact_dpi: int = 100
    """Resolution at which the contact-sheet page is rasterised and degraded."""
    page_thumb_width: int | None = None
    """Width in pixels of the QA browser's page thumbnails (one clean and one scan JPEG per corpus page); None:
    chosen from the corpus's page count to keep them within a size budget (``report_browser.thumb_width``: 260
    up to 333 pages, then down with the square root of the page count so they stay within about 10 MB, never
    under 80)."""


# ----------------------------------------------------------------- stats

def corpus_tables(view: CorpusReader) -> dict[str, pd.DataFrame]:
    docs = view.table(DOCUMENTS_TABLE)
    qa = view.table(QA_TABLE)
    asr = view.table(ASSERTIONS_TABLE)
    pages = view.table(PAGES_TABLE)
    qa = qa.merge(docs[["doc_id", "domain", "recipe", "tier"]], on="doc_id", how="left")
    n_asr = asr.groupby("qa_id").size()
    qa["n_assertions"] = qa["qa_id"].map(n_asr).fillna(0).astype(int)
    return {"documents": docs, "qa": qa, "assertions": asr, "pages": pages}


def breakdown(t: dict[str, pd.DataFrame], key: str, order: tuple[str, ...] = ()) -> pd.DataFrame:
    """Documents, pages, QA and assertions per value of a document attribute (domain, recipe, tier)."""
    docs, qa = t["documents"], t["qa"]
    g = docs.groupby(key).agg(docs=("doc_id", "count"), pages=("n_pages", "sum"),
                              QA=("n_qa", "sum"), assertions=("n_assertions", "sum"))
    g["QA/page"] = (g["QA"] / g["pages"].clip(lower=1)).round(2)
    answerable = qa[qa["answer_kind"] != "not_answerable"].groupby(key).size()
    g["answerable"] = answerable.reindex(g.index).fillna(0).astype(int)
    return _ordered(g, order)


def qa_breakdown(t: dict[str, pd.DataFrame], key: str, order: tuple[str, ...] = ()) -> pd.DataFrame:
    """QA pairs per element or QA type: count, share, difficulty mix, assertions per QA, pages cited."""
    qa = t["qa"]
    g = qa.groupby(key).agg(QA=("qa_id", "count"), assertions_per_qa=("n_assertions", "mean"))
    g["share %"] = (100 * g["QA"] / max(1, len(qa))).round(1)
    for d in DIFFICULTIES:
        g[d] = qa[qa["difficulty"] == d].groupby(key).size().reindex(g.index).fillna(0).astype(int)
    multi = qa[qa["page_nos"].map(lambda s: len(json.loads(s)) > 1)].groupby(key).size()
    g["multi-page"] = multi.reindex(g.index).fillna(0).astype(int)
    g["assertions/QA"] = g["assertions_per_qa"].round(2)
    return _ordered(g[["QA", "share %", *DIFFICULTIES, "assertions/QA", "multi-page"]], order)


def legibility_by_tier(view: CorpusReader) -> pd.DataFrame | None:
    """Share of assertions and QA pairs whose evidence OCR reads on the scan, per tier (``synthdocqa
    legibility``); None when it was not measured on this corpus."""
    from .legibility import load_legibility, tier_summary

    tables = load_legibility(view)
    if tables is None:
        return None
    rows = tier_summary(tables[0].to_dict("records"), tables[1].to_dict("records"))
    df = pd.DataFrame(rows).set_index("tier")
    # Python's round, as every other view of these shares rounds (numpy's rounds 45.45 down, Python's up)
    df["legible %"] = df["share"].map(lambda s: round(100 * s, 1))
    df["QA legible %"] = df["qa_share"].map(lambda s: round(100 * s, 1))
    df["not answerable from scan"] = df["qa"] - df["qa_answerable"]
    df["QA answerable from scan %"] = df["qa_answerable_share"].map(lambda s: round(100 * s, 1))
    return df[["assertions", "legible", "legible %", "qa", "qa_legible", "QA legible %", "mean_cer",
               "not answerable from scan", "QA answerable from scan %"]].rename(
        columns={"qa": "QA", "qa_legible": "QA legible", "mean_cer": "mean CER"})


def _ordered(g: pd.DataFrame, order: tuple[str, ...]) -> pd.DataFrame:
    if order:
        idx = [k for k in order if k in g.index] + sorted(k for k in g.index if k not in order)
        return g.reindex(idx)
    return g.sort_values(g.columns[0], ascending=False, kind="stable") if len(g.columns) else g


def _table_data(df: pd.DataFrame, index_name: str) -> dict[str, Any]:
    """A frame as plain strings for the template's ``table`` macro (which escapes them)."""
    return {"columns": [str(c) for c in [index_name, *df.columns]],
            "rows": [{"index": str(idx), "cells": [_fmt(v) for v in row.tolist()]} for idx, row in df.iterrows()]}


def _fmt(v: Any) -> str:
    if isinstance(v, float | np.floating):
        return f"{float(v):g}"
    return str(v)


# ----------------------------------------------------------------- gallery

def sample_gallery(t: dict[str, pd.DataFrame], seed: int, n: int) -> list[str]:
    """QA ids with evidence, seeded, spread over element types (round robin in ``QA_ELEMENTS`` order)."""
    qa = t["qa"]
    has_ev = set(t["assertions"].loc[t["assertions"]["evidence_json"] != "[]", "qa_id"])
    rng = Rng(seed).fork("report", "gallery")
    pools: dict[str, list[str]] = {}
    for el in QA_ELEMENTS:
        ids = sorted(qa.loc[(qa["element_type"] == el) & qa["qa_id"].isin(has_ev), "qa_id"])
        if ids:
            pools[el] = rng.fork(el).shuffled(ids)
    chosen: list[str] = []
    while len(chosen) < n and any(pools.values()):
        for el in QA_ELEMENTS:
            if pools.get(el) and len(chosen) < n:
                chosen.append(pools[el].pop(0))
    return chosen


def _evidence_of(t: dict[str, pd.DataFrame], qa_id: str) -> list[dict[str, Any]]:
    rows = t["assertions"][t["assertions"]["qa_id"] == qa_id]
    ev: list[dict[str, Any]] = []
    for _, r in rows.iterrows():
        ev += json.loads(r["evidence_json"])
        if r["derivation_json"]:
            for op in json.loads(r["derivation_json"])["operands"]:
                ev += [e for e in op["evidence"] if e not in ev]
    return ev


def gallery_item(view: CorpusReader, t: dict[str, pd.DataFrame], qa_id: str, opts: ReportOptions) -> dict[str, Any]:
    """One gallery entry: the QA pair's text fields and its evidence drawn on the clean page and the scan."""
    q = t["qa"].set_index("qa_id").loc[qa_id]
    ev = _evidence_of(t, qa_id)
    page_no = ev[0]["page_no"]
    on_page = [e for e in ev if e["page_no"] == page_no]
    pages = t["pages"]
    prow = pages[(pages["doc_id"] == q["doc_id"]) & (pages["page_no"] == page_no)].iloc[0]
    record = view.record(str(q["doc_id"]))
    own = next((p for p in record.pages if p.page_no == page_no), None)
    # the scan shown is this page's: its own tier and device where the page has them (a cycle plan)
    page_tier = (own.tier if own is not None and own.tier else None) or record.tier
    page_device = (own.device if own is not None and own.device else None) or record.device
    clean = open_rgb(view.read_bytes(prow["image"]))
    scan = open_rgb(view.read_bytes(prow["scan"]))
    boxes = [e["bbox_page_px"] for e in on_page if e.get("bbox_page_px")]
    quads = [e["scan_quad"] for e in on_page if e.get("scan_quad")]
    scan_boxes = [e["scan_bbox"] for e in on_page if e.get("scan_bbox")]
    lw = max(2, round(clean.width / 400))
    clean_d = draw_boxes(clean, boxes, CLEAN_COLOUR, width=lw)
    scan_d = draw_quads(scan, quads, SCAN_COLOUR, width=lw)
    pad = round(clean.width * 0.06)
    accepted = json.loads(q["accepted_answers"])
    if len(accepted) > 6:
        accepted = [*accepted[:6], f"... {len(accepted) - 6} more"]
    return {
        "qa_id": qa_id, "question": q["question"], "answer": q["answer_text"], "accepted": accepted,
        "doc_id": q["doc_id"], "page_no": page_no, "other_pages": sorted({e["page_no"] for e in ev} - {page_no}),
        "qa_type": q["qa_type"], "element_type": q["element_type"], "difficulty": q["difficulty"],
        "tier": str(page_tier), "device": str(page_device),
        "answerable_from_scan": _flag(q.get("answerable_from_scan")),
        "clean": jpeg_uri(fit_width(clean_d, opts.thumb_width)), "scan": jpeg_uri(fit_width(scan_d, opts.thumb_width)),
        "zoom_clean": jpeg_uri(fit_width(crop_around(clean_d, boxes, pad), opts.thumb_width), 88),
        "zoom_scan": jpeg_uri(fit_width(crop_around(scan_d, scan_boxes or boxes, pad), opts.thumb_width), 88),
        "claims": t["assertions"].loc[t["assertions"]["qa_id"] == qa_id, "claim"].tolist(),
        "evidence": ev[:8], "n_evidence": len(ev),
    }


def _flag(v: Any) -> bool | None:
    """A nullable boolean column's cell as True, False or None (a parquet null comes back as None or NaN)."""
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return None
    return bool(v)


# ----------------------------------------------------------------- contact sheet

def contact_sheet(view: CorpusReader, doc_id: str, page_no: int, seed: int, dpi: int) -> list[dict[str, Any]]:
    """The page through every capture device at all five tiers, a row per device (image and enabled stages
    per cell); span boxes carried through each cell's geometry."""
    from synthdocqa.degradations import degrade_page, map_boxes, sample_profile
    from synthdocqa.renderers import rasterize

    pdf = view.pdf(doc_id)
    (_, image), = rasterize(pdf, dpi, pages=[page_no])
    rmap = view.render_map(doc_id)
    px = [list(pdf_to_px(s.bbox, dpi)) for s in rmap.spans if s.page_no == page_no]
    cells = []
    for device, tier in ((d, t) for d in DEVICES for t in TIERS):
        profile = sample_profile(tier, 1, Rng(seed).fork("report", "contact", tier), device)
        page = profile.pages[0]
        out = degrade_page(image, page, seed, dpi)
        img = Image.fromarray(out.image if out.image.ndim == 3 else np.stack([out.image] * 3, axis=-1))
        if px:
            quads, _ = map_boxes(np.asarray(px, dtype=float), out.transforms)
            img = draw_quads(img, [[tuple(p) for p in q] for q in np.asarray(quads).tolist()], SCAN_COLOUR,
                             width=1, fill_alpha=35)
        cells.append({"tier": tier, "device": device, "image": jpeg_uri(fit_width(img, 360), 85),
                      "stages": [s.name for s in page.stages if s.enabled]})
    return cells


# ----------------------------------------------------------------- page

CSS = """
:root{--fg:#1d232b;--muted:#66707c;--line:#dde2e8;--accent:#3a6ea5;--bg:#f6f7f9}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#1d2a3a;color:#fff;padding:22px 32px}header h1{margin:0 0 4px;font-size:22px}
header p{margin:0;color:#c9d3df}header code{background:#2e4157;color:#e6edf5}main{max-width:1280px;margin:0 auto;padding:8px 32px 40px}
nav{margin-top:10px}nav a{color:#9fc3ea;margin-right:16px;text-decoration:none}
h2{margin:28px 0 10px;font-size:18px;border-bottom:2px solid var(--line);padding-bottom:4px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px;margin:16px 0}
.card{background:#fff;border:1px solid var(--line);border-radius:6px;padding:10px 14px}
.card b{display:block;font-size:22px}.card span{color:var(--muted);font-size:12px}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(540px,1fr));gap:14px;align-items:start}
.panel{background:#fff;border:1px solid var(--line);border-radius:6px;padding:10px 12px;overflow-x:auto}
.panel h3{margin:2px 0 8px;font-size:14px}
table{border-collapse:collapse;font-size:12.5px;width:100%}th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}thead th{background:#eef1f5;position:sticky;top:0}
img{max-width:100%;display:block}.charts{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}
.charts img{background:#fff;border:1px solid var(--line);border-radius:6px;padding:4px}
.qa{background:#fff;border:1px solid var(--line);border-radius:6px;padding:12px 16px;margin:14px 0}
.qa h3{margin:0 0 4px;font-size:15px}.answer{margin:2px 0}.meta,.muted{color:var(--muted);font-size:12px}
.flag{margin:2px 0;padding:2px 6px;background:#fdecea;color:#8a1c12;border-left:3px solid #c0392b;font-size:12px}
.pair{display:grid;grid-template-columns:1fr 1fr 1fr;gap:10px;align-items:start}
figure{margin:0}figcaption{font-size:12px;color:var(--muted);margin-top:3px}
.pair img{border:1px solid var(--line)}.zoom img{margin-bottom:6px}
.sheet{display:grid;grid-template-columns:repeat(5,1fr);gap:10px}.tier img{border:1px solid var(--line)}
code{font-size:12px;background:#eef1f5;padding:0 3px;border-radius:3px}
details{margin-top:6px}summary{cursor:pointer;color:var(--accent)}ul.ev{font-size:12px}
footer{color:var(--muted);font-size:12px;margin-top:30px}
"""


def build_report(corpus_dir: str | os.PathLike[str], opts: ReportOptions | None = None) -> tuple[str, dict[str, Any]]:
    """(HTML text, summary numbers) for a complete corpus; corpus problems raise :class:`ReportError`."""
    try:
        return _build_report(open_corpus(corpus_dir), opts or ReportOptions())
    except ReportError:
        raise
    except CorpusError as err:
        raise ReportError(str(err)) from None


_TEMPLATES = Environment(loader=PackageLoader("synthdocqa.corpus.views", "templates"), autoescape=select_autoescape(default=True),
                         undefined=StrictUndefined, keep_trailing_newline=True)


def _build_report(view: CorpusReader, opts: ReportOptions) -> tuple[str, dict[str, Any]]:
    m = view.manifest
    s = m.stats
    seed = m.spec.seed
    t = corpus_tables(view)
    qa = t["qa"]

    cards = [("documents", s["documents"]), ("pages", s["pages"]), ("QA pairs", s["qa_pairs"]),
             ("assertions", s["assertions"]), ("domains", s["domains"]), ("recipes", len(s["by_recipe"])),
             ("QA / page", s["qa_per_page"]), ("assertions / QA", s["assertions_per_qa"]),
             ("unanswerable", int((qa["answer_kind"] == "not_answerable").sum()))]

    by_type = qa_breakdown(t, "qa_type")
    by_el = qa_breakdown(t, "element_type", QA_ELEMENTS)
    by_tier = breakdown(t, "tier", TIERS)
    legible = legibility_by_tier(view)
    by_domain = breakdown(t, "domain")
    by_recipe = breakdown(t, "recipe")
    kinds = Counter(qa["answer_kind"])
    kind_df = pd.DataFrame({"QA": kinds}).sort_values("QA", ascending=False, kind="stable")
    cross = pd.crosstab(qa["qa_type"], qa["element_type"])
    cross = cross[[c for c in QA_ELEMENTS if c in cross.columns]]

    charts = [
        chart("barh", list(by_type.index), by_type["QA"].tolist(), "QA pairs by QA type", "QA pairs"),
        chart("bar", list(by_el.index), by_el["QA"].tolist(), "QA pairs by element type"),
        chart("bar", list(by_tier.index), by_tier["pages"].tolist(), "Pages by scan tier"),
        chart("barh", list(by_domain.index), by_domain["QA"].tolist(), "QA pairs by domain", "QA pairs",
               PALETTE[2]),
        chart("barh", list(by_recipe.index), by_recipe["docs"].tolist(), "Documents by recipe",
               "documents", PALETTE[1]),
        chart("hist", [], t["documents"]["n_pages"].tolist(), "Pages per document", "pages", PALETTE[4]),
    ]
    panels = [("By QA type", by_type, "qa type"), ("By element type", by_el, "element"),
              ("By scan tier", by_tier, "tier"),
              ("Evidence legible on the scan (OCR, synthdocqa legibility)", legible, "tier"),
              ("By domain", by_domain, "domain"), ("By recipe", by_recipe, "recipe"),
              ("By answer kind", kind_df, "answer kind"), ("QA type × element type", cross, "qa type")]

    chosen = sample_gallery(t, seed, opts.gallery)
    busiest = t["pages"].sort_values(["n_spans", "doc_id", "page_no"], ascending=[False, True, True],
                                     kind="stable").iloc[0]
    c_doc, c_page = str(busiest["doc_id"]), int(busiest["page_no"])
    browser = browser_section(view, t, opts.page_thumb_width)

    body = _TEMPLATES.get_template("report.html.j2").render(
        title=f"SynthDocQA corpus report: {m.name} (seed {seed})", css=CSS + BROWSER_CSS, stats=s,
        report_key=report_key(view.root, opts),
        code_version=m.code_version, spec_hash=m.spec_hash[:16], dpi=m.spec.dpi, seed=seed, manifest=MANIFEST,
        cards=[(k, _fmt(v)) for k, v in cards],
        panels=[{"title": title, "table": _table_data(df, idx)} for title, df, idx in panels if df is not None],
        charts=charts, gallery=[gallery_item(view, t, qid, opts) for qid in chosen],
        browser=browser,
        sheet={"doc_id": c_doc, "page_no": c_page, "dpi": opts.contact_dpi,
               "tiers": contact_sheet(view, c_doc, c_page, seed, opts.contact_dpi)})
    summary = {"documents": s["documents"], "pages": s["pages"], "qa_pairs": s["qa_pairs"],
               "assertions": s["assertions"], "gallery": chosen, "contact_sheet": [c_doc, c_page],
               "qa_by_element": s["qa_by_element"], "by_tier": s["by_tier"],
               "legibility": None if legible is None else legible["legible %"].to_dict(),
               "browser": {k: browser[k] for k in ("n_qa", "n_pages", "thumb_width", "thumbnail_bytes")}}
    return body, summary


def report_key(corpus_dir: str | os.PathLike[str], opts: ReportOptions | None = None) -> str:
    """What a report is a function of: the manifest's bytes (every corpus file's hash), the options and the
    report's own code and template. Written into the page, so an unchanged corpus need not be drawn again."""
    import hashlib

    h = hashlib.sha256()
    h.update((Path(corpus_dir) / MANIFEST).read_bytes())
    h.update(repr(opts or ReportOptions()).encode())
    here = Path(__file__).parent
    for code in (Path(__file__), here / "report_images.py", here / "report_browser.py",
                 here / "templates" / "report.html.j2"):
        h.update(code.read_bytes())
    return h.hexdigest()


def _key_in(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            head = fh.read(2048).decode("utf-8", "replace")
    except OSError:
        return None
    marker = '<meta name="synthdocqa-report-key" content="'
    i = head.find(marker)
    return head[i + len(marker): i + len(marker) + 64] if i >= 0 else None


def report_is_current(corpus_dir: str | os.PathLike[str], report: str | os.PathLike[str],
                      opts: ReportOptions | None = None) -> bool:
    """Whether ``report`` was drawn from this corpus, with these options, by this code (``report_key``)."""
    return (Path(corpus_dir) / MANIFEST).is_file() and _key_in(Path(report)) == report_key(corpus_dir, opts)


def write_report(corpus_dir: str | os.PathLike[str], out: str | os.PathLike[str],
                 opts: ReportOptions | None = None, *, reuse: bool = False) -> dict[str, Any]:
    """Build the report and write it atomically (nothing is written if building fails). With ``reuse`` an
    existing ``out`` made from the same corpus, options and code (``report_key``) is kept as it is."""
    out = Path(out)
    if not out.parent.resolve().is_dir():
        raise ReportError(f"{out.parent}: no such directory")
    if out.is_dir():
        raise ReportError(f"{out}: is a directory; give a file name such as report.html")
    if reuse and report_is_current(corpus_dir, out, opts):
        return {"path": str(out), "bytes": out.stat().st_size, "reused": True}
    text, summary = build_report(corpus_dir, opts)
    atomic_write_text(out, text)
    return {**summary, "path": str(out), "bytes": len(text.encode("utf-8")), "reused": False}
