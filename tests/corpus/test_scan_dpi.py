"""``CorpusSpec.scan_dpi``: the scans are captured at their own resolution and their evidence boxes are in
its pixels, while the page images keep ``dpi``."""

from __future__ import annotations

import io
import json
import math

import numpy as np
from PIL import Image

from synthdocqa.corpus.assemble import build_document
from synthdocqa.corpus.store import DocFiles

from .conftest import tiny_spec


def _size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as im:
        return im.size


def test_scans_take_their_own_dpi_and_their_boxes_follow():
    spec = tiny_spec(n_docs=1).model_copy(update={"dpi": 72, "scan_dpi": 144, "tier_mix": {"pristine": 1.0}})
    built = build_document(spec, 0)
    files, paths = built.files, DocFiles(built.doc.doc_id)
    for page in built.record.pages:
        w_pt, h_pt = page.width_pt, page.height_pt
        assert _size(files[page.image]) == (math.ceil(w_pt), math.ceil(h_pt))  # 72 dpi: one pixel a point
        sw, sh = _size(files[page.scan])
        assert abs(sw - 2 * w_pt) <= 0.02 * sw and abs(sh - 2 * h_pt) <= 0.02 * sh
    assertions = [json.loads(line) for line in files[paths.assertions].decode().splitlines()]
    ev = [e for a in assertions for e in a["evidence"] if e.get("scan_bbox")]
    assert ev
    for e in ev:
        pdf, scan = np.array(e["bbox_pdf"]), np.array(e["scan_bbox"])
        assert np.allclose(e["bbox_page_px"], pdf, atol=0.01)  # the page image is at 72 dpi
        centre_pdf = (pdf[:2] + pdf[2:]) / 2
        centre_scan = (scan[:2] + scan[2:]) / 2
        # pristine flatbed: at most a small skew and shift, so the scan box is the PDF box at 2 px a point
        assert np.all(np.abs(centre_scan - 2 * centre_pdf) < 25), (e, centre_scan, 2 * centre_pdf)
