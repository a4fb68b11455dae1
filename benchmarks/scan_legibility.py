"""Can the evidence still be read on the scan? Every device x tier on the same pages, span by span.

The tiers are defined by what a reader can still do (``docs/scans.md``); Tesseract is the stand-in
reader, harsher than a person. This benchmark takes ``--pages`` pages of a generated corpus (pages that
carry evidence, drawn evenly over its documents by ``--seed``), and captures each page's clean image
(``pages/``) with every device at every tier: the page's stages drawn from their own stream
``Rng(seed, ("scan-legibility", doc, page, device, tier))``, degraded, written in the device's scan
format and decoded, as the corpus does. Every evidence span of the page (the boxes of the assertions that
rest on it) is carried through the scan's transforms, cut out upright and read by Tesseract exactly as
the legibility view reads a corpus (``corpus.views.legibility``: best of its readings).

Per device x tier: the share of spans read exactly (CER 0 after case and whitespace are normalised),
the share legible (CER <= 0.10), the share unreadable (CER > 0.5), the mean CER, and page by page the exact
share of a page's spans: its 10th percentile over the pages (``p10_page_exact``) and the worst page. The verdict:

* within each device, the mean CER rises from each tier to the next by at least ``RISE`` (the tiers separate);
* every device keeps ``DEGRADED_FLOOR`` of its spans exact at degraded and ``POOR_FLOOR`` at poor, on the page
  at the 10th percentile (nine pages in ten do at least that well), not only on average;
* at each tier the devices' mean CERs lie within ``BAND`` of each other (a tier means the same whatever
  the device).

    .venv/bin/python benchmarks/scan_legibility.py --corpus out/cal --pages 15 --seed 2 [--jobs 2] [--json f]
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from synthdocqa.corpus.ocr import CER_THRESHOLD, cer, crop_span, read_crops
from synthdocqa.corpus.store import open_corpus
from synthdocqa.degradations import degrade_page, encode_scan, sample_profile
from synthdocqa.ir.files import atomic_write_text
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import DEVICES, TIERS

DEGRADED_FLOOR = 0.60
"""Share of evidence spans Tesseract must read exactly on a degraded scan of any device."""
POOR_FLOOR = 0.25
"""The same at poor: the hardest scans an office keeps on file."""
BAND = 0.10
"""Most the devices' mean CERs may differ at one tier."""
UNREADABLE = 0.5
RISE = {"good": 0.002, "fair": 0.005, "degraded": 0.015, "poor": 0.04}
"""The least the mean CER of a device must rise from the tier before to this one, beside the interval below: a
tier reads measurably worse than the one before it on every device. (The second scan pass first asked +0.01 /
+0.03 at fair / degraded: on 24 pages the paired interval of a rise is +-0.01-0.02 wide, so a margin that size
passes or fails on which pages were drawn; a span lost whole to a staple or a pen circle moves a tier's mean by
0.004.)"""
RISE_CONFIDENCE = 0.90
"""The rise's paired bootstrap interval over pages (``RISE_DRAWS`` resamples of the pages, the same pages on both
tiers) at this level must lie above 0: the tier is harder on these pages, not only on average by chance."""
RISE_DRAWS = 2000
PAGE_QUANTILE = 0.10
"""The page whose exact share the floors hold at: nine pages in ten read at least as well."""


def page_spans(reader, doc_id: str) -> dict[int, list[dict]]:
    """Every evidence span of a document's assertions, once each, by page: text, box and rotation."""
    rotation = {b.id: b.rotation for _, b in reader.ir(doc_id).blocks() if b.type == "annotation"}
    seen: dict[int, dict[tuple, dict]] = {}
    for a in reader.assertions(doc_id):
        evs = list(a.evidence) + ([e for op in a.derivation.operands for e in op.evidence] if a.derivation else [])
        for e in evs:
            if e.bbox_page_px is None or not e.text.strip():
                continue
            key = (tuple(e.bbox_pdf), e.text)
            seen.setdefault(e.page_no, {}).setdefault(key, {
                "text": e.text, "box": list(e.bbox_page_px), "pdf": list(e.bbox_pdf),
                "rotation": rotation.get(e.block_id, 0.0),
                "dpi": 72.0 * (e.bbox_page_px[2] - e.bbox_page_px[0]) / max(e.bbox_pdf[2] - e.bbox_pdf[0], 1e-6)})
    return {p: list(d.values()) for p, d in seen.items()}


def choose_pages(corpus: Path, n: int, seed: int, min_spans: int = 4) -> list[tuple[str, int, Path, list[dict]]]:
    """``n`` pages with at least ``min_spans`` evidence spans, spread over the documents (round robin over
    the documents, each document's pages in an order drawn from ``seed``)."""
    reader = open_corpus(corpus)
    per_doc = []
    for doc_id in reader.doc_ids:
        spans = page_spans(reader, doc_id)
        paths = reader.image_paths(doc_id, "pages")
        pages = [p for p in sorted(spans) if len(spans[p]) >= min_spans and p <= len(paths)]
        order = Rng(seed, ("scan-legibility", "order", doc_id)).gen.permutation(len(pages)).tolist()
        per_doc.append([(doc_id, pages[i], paths[pages[i] - 1], spans[pages[i]]) for i in order])
    out: list = []
    while len(out) < n and any(per_doc):
        for d in per_doc:
            if d and len(out) < n:
                out.append(d.pop(0))
    return out


def read_page(job: tuple) -> list[dict]:
    """Every device x tier of one page (or those the job names): one row per device x tier with each span's
    reading."""
    from synthdocqa.ir.qa_models import Evidence

    doc_id, page_no, path, spans, seed = job[:5]
    devices, tiers = (job[5], job[6]) if len(job) > 5 else (DEVICES, TIERS)
    at_dpi = job[7] if len(job) > 7 else None
    if at_dpi:  # the page rasterised again at the dpi asked (as the corpus does for a scan_dpi of its own)
        from synthdocqa.renderers import rasterize

        pdf = (Path(path).parent.parent / "document.pdf").read_bytes()
        clean = rasterize(pdf, at_dpi, pages=[page_no], png=False)[0][1]
        spans = [{**s, "box": [v * at_dpi / 72.0 for v in s["pdf"]], "dpi": float(at_dpi)} for s in spans]
    else:
        clean = cv2.cvtColor(cv2.imread(path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    dpi = round(float(np.median([s["dpi"] for s in spans])))
    crops, texts, where = [], [], []
    for device in devices:
        for tier in tiers:
            prof = sample_profile(tier, 1, Rng(seed, ("scan-legibility", doc_id, page_no, device, tier)), device)
            page = prof.pages[0]
            deg = degrade_page(clean, page, seed, dpi)
            data = encode_scan(deg.image, tier, device=device)
            scan = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
            quads, _ = deg.map_boxes(np.array([s["box"] for s in spans], np.float64))
            for s, q in zip(spans, quads, strict=True):
                ev = Evidence(fact_id="f", block_id="b", page_no=page_no, bbox_pdf=[0, 0, 1, 1], text=s["text"],
                              scan_quad=[[float(x), float(y)] for x, y in q])
                crops.append(crop_span(scan, ev, s["rotation"]))
                texts.append(s["text"])
                where.append((device, tier))
    readings = read_crops(crops, texts)
    rows: dict[tuple[str, str], dict] = {}
    for (device, tier), text, (reading, _) in zip(where, texts, readings, strict=True):
        r = rows.setdefault((device, tier), {"doc_id": doc_id, "page_no": page_no, "device": device, "tier": tier,
                                             "cers": []})
        r["cers"].append(cer(text, reading))
    return list(rows.values())


def summarise(rows: list[dict]) -> dict[str, dict[str, dict]]:
    out: dict[str, dict[str, dict]] = {}
    for device in DEVICES:
        for tier in TIERS:
            cers = [c for r in rows if (r["device"], r["tier"]) == (device, tier) for c in r["cers"]]
            if not cers:
                continue
            a = np.array(cers)
            pages = [float(np.mean(np.array(r["cers"]) == 0)) for r in rows if (r["device"], r["tier"]) == (device, tier)]
            out.setdefault(device, {})[tier] = {
                "spans": len(a), "exact": round(float(np.mean(a == 0)), 4),
                "legible": round(float(np.mean(a <= CER_THRESHOLD)), 4),
                "unreadable": round(float(np.mean(a > UNREADABLE)), 4), "mean_cer": round(float(a.mean()), 4),
                "p10_page_exact": round(float(np.quantile(pages, PAGE_QUANTILE, method="lower")), 4),
                "median_page_exact": round(float(np.median(pages)), 4), "worst_page_exact": round(min(pages), 4),
                "page_cer": {f"{r['doc_id']}:{r['page_no']}": [round(float(np.sum(r["cers"])), 6), len(r["cers"])]
                             for r in rows if (r["device"], r["tier"]) == (device, tier)}}
    return out


def rise_interval(lo: dict, hi: dict, seed: int = 0) -> tuple[float, float, float]:
    """The rise of the mean span CER from tier ``lo`` to ``hi`` (their ``summarise`` entries) and its paired
    bootstrap interval at ``RISE_CONFIDENCE``: pages resampled with replacement, each page's spans on both tiers."""
    keys = sorted(set(lo["page_cer"]) & set(hi["page_cer"]))
    diff = np.array([hi["page_cer"][k][0] - lo["page_cer"][k][0] for k in keys])
    n = np.array([hi["page_cer"][k][1] for k in keys], dtype=float)
    rise = float(diff.sum() / n.sum())
    idx = np.random.default_rng(seed).integers(0, len(keys), (RISE_DRAWS, len(keys)))
    draws = diff[idx].sum(axis=1) / n[idx].sum(axis=1)
    tail = (1.0 - RISE_CONFIDENCE) / 2
    return rise, float(np.quantile(draws, tail)), float(np.quantile(draws, 1.0 - tail))


def verdict(summary: dict[str, dict[str, dict]]) -> list[str]:
    """What fails (empty: the tiers hold)."""
    bad = []
    for device, by_tier in summary.items():
        seq = [t for t in TIERS if t in by_tier]
        for lo, hi in zip(seq, seq[1:], strict=False):
            rise, low, high = rise_interval(by_tier[lo], by_tier[hi])
            if rise < RISE[hi] or low <= 0.0:
                bad.append(f"{device}: mean CER rises {rise:+.3f} from {lo} to {hi}, {RISE_CONFIDENCE:.0%} interval "
                           f"[{low:+.3f}, {high:+.3f}] (at least {RISE[hi]:+.3f}, the interval above 0)")
        for tier, floor in (("degraded", DEGRADED_FLOOR), ("poor", POOR_FLOOR)):
            if tier in by_tier:
                s = by_tier[tier]
                if s["exact"] < floor or s["p10_page_exact"] < floor:
                    bad.append(f"{device} {tier}: {s['exact']:.0%} exact, {s['p10_page_exact']:.0%} on the page at "
                               f"the 10th percentile (floor {floor:.0%})")
    for tier in TIERS:
        cers = {d: s[tier]["mean_cer"] for d, s in summary.items() if tier in s}
        if cers and max(cers.values()) - min(cers.values()) > BAND:
            bad.append(f"{tier}: devices' mean CER spread {max(cers.values()) - min(cers.values()):.3f} > {BAND}"
                       f" ({cers})")
    return bad


def table(summary: dict[str, dict[str, dict]]) -> str:
    """Cell: exact share / mean CER / exact share of the page at the 10th percentile."""
    lines = ["| device | " + " | ".join(TIERS) + " |", "|---|" + "---|" * len(TIERS)]
    for device, by_tier in summary.items():
        cells = [f"{s['exact']:.0%} / {s['mean_cer']:.3f} / {s['p10_page_exact']:.0%}" if (s := by_tier.get(t)) else ""
                 for t in TIERS]
        lines.append(f"| {device} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", required=True, type=Path)
    ap.add_argument("--pages", type=int, default=15)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", default=None)
    ap.add_argument("--dpi", type=int, default=None,
                    help="capture the pages at this dpi (rasterised again from document.pdf; default: the corpus's "
                         "scan dpi, as generation captures them)")
    ap.add_argument("--devices", default=",".join(DEVICES), help="comma-separated devices (default: all)")
    ap.add_argument("--tiers", default=",".join(TIERS), help="comma-separated tiers (default: all; the verdict "
                                                              "reads only what was measured)")
    args = ap.parse_args(argv)
    devices = tuple(d for d in DEVICES if d in args.devices.split(","))
    tiers = tuple(t for t in TIERS if t in args.tiers.split(","))
    pages = choose_pages(args.corpus, args.pages, args.seed)
    spec = json.loads((args.corpus / "corpus.json").read_text("utf-8"))["spec"]
    at_dpi = args.dpi or (spec["scan_dpi"] if spec["scan_dpi"] != spec["dpi"] else None)
    if len(pages) < args.pages:
        print(f"only {len(pages)} pages with evidence in {args.corpus}", file=sys.stderr)
    jobs = [(d, p, str(path), spans, args.seed, devices, tiers, at_dpi) for d, p, path, spans in pages]
    rows: list[dict] = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for i, page_rows in enumerate(pool.map(read_page, jobs), start=1):
            rows += page_rows
            print(f"page {i}/{len(jobs)} ({page_rows[0]['doc_id']} p{page_rows[0]['page_no']}, "
                  f"{len(page_rows[0]['cers'])} spans)", file=sys.stderr, flush=True)
    summary = summarise(rows)
    bad = verdict(summary)
    print("exact-read share / mean CER / exact share of the 10th-percentile page, per device x tier "
          f"({len(pages)} pages, {sum(len(p[3]) for p in pages)} spans a capture):")
    print(table(summary))
    print(f"rise of the mean CER from the tier before, [{RISE_CONFIDENCE:.0%} paired bootstrap interval over pages]:")
    for device, by_tier in summary.items():
        seq = [t for t in TIERS if t in by_tier]
        cells = [f"{hi} {r:+.3f} [{lo_:+.3f}, {hi_:+.3f}]"
                 for lo, hi in zip(seq, seq[1:], strict=False) for r, lo_, hi_ in [rise_interval(by_tier[lo], by_tier[hi])]]
        print(f"  {device}: " + "; ".join(cells))
    print("PASS" if not bad else "FAIL:\n  " + "\n  ".join(bad))
    if args.json:
        atomic_write_text(args.json, json.dumps({"pages": [[d, p] for d, p, _, _ in pages], "summary": summary,
                                                 "rows": rows, "fails": bad}, indent=1))
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
