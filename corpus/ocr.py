"""Tesseract, as the corpus uses it: one process reads a batch of images (a list file; readings come back
separated by form feeds), with no adaptive learning, so one image's reading does not depend on the others.

Used by the legibility view (``corpus.views.legibility``) and by the corpus reader's ``scan_text`` (what a
system under test that OCRs the scan sees); it decides no byte of a corpus.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from synthdocqa.ir.qa_models import Assertion, Evidence, QAPair

from .store import CorpusError

TESSERACT = "tesseract"


class OCRError(CorpusError):
    """Tesseract is missing or failed."""


def tesseract_version() -> str | None:
    """``tesseract 5.3.0`` or None when Tesseract is not installed. Asked once per executable and process:
    generation asks for every document it reads."""
    exe = shutil.which(TESSERACT)
    return None if exe is None else _version_of(exe)


@functools.lru_cache(maxsize=4)
def _version_of(exe: str) -> str | None:
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else None


def ocr_lines(images: list[np.ndarray], psm: int = 7) -> list[str]:
    """Tesseract's reading of each single-line image, in one process (``--psm 7``, one thread)."""
    import cv2

    if not images:
        return []
    exe = shutil.which(TESSERACT)
    if exe is None:
        raise OCRError("tesseract is not installed (Debian/Ubuntu: apt-get install tesseract-ocr)")
    with tempfile.TemporaryDirectory(prefix="synthdocqa-ocr-") as tmp:  # OCR inputs, not corpus output
        paths = []
        for i, img in enumerate(images):
            p = Path(tmp) / f"{i:06d}.png"
            cv2.imwrite(str(p), img)
            paths.append(str(p))
        listing = Path(tmp) / "images.txt"
        listing.write_text("\n".join(paths) + "\n", "utf-8")
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        # no adaptive learning: a span's reading does not depend on the other crops of the batch
        run = subprocess.run([exe, str(listing), "stdout", "--psm", str(psm), "-c", "classify_enable_learning=0"],
                             capture_output=True, text=True, env=env, check=False)
        if run.returncode != 0:
            raise OCRError(f"tesseract failed ({run.returncode}): {run.stderr.strip()[-300:]}")
    readings = run.stdout.split("\f")
    if len(readings) == len(images) + 1 and not readings[-1].strip():
        readings = readings[:-1]
    if len(readings) != len(images):
        raise OCRError(f"tesseract returned {len(readings)} readings for {len(images)} images")
    return [r.strip() for r in readings]


CER_THRESHOLD = 0.10
"""A span is legible when Tesseract's reading of it differs from the drawn text in at most 10 % of its
characters (one slip in a ten-character amount)."""
MARGIN = 0.15
"""Crop margin on every side, as a share of the line height (more takes in the neighbouring lines)."""
TEXT_HEIGHT_PX = 40
"""Line height the crop is scaled to (Tesseract reads best around 30-40 px capital height)."""
PAD_PX = 10
READINGS: tuple[tuple[str, int], ...] = (("crop", 7), ("level", 7), ("crop", 8), ("wide", 7), ("binary", 7),
                                         ("x1.5", 7), ("x0.75", 7), ("x2", 7), ("char", 10), ("up", 7), ("down", 7))
"""How a span is read, in order: the crop as one line (``--psm 7``); levelled (its white pad made the paper's own
grey, then stretched to full contrast and set in a wide white border: on a grey or shaded scan the pad's white
edge round a one-digit table cell reads as a stroke); as one word (``--psm 8``); with a wide white border;
Otsu-binarised; enlarged by half, shrunk by a quarter and doubled (``x1.5``, ``x0.75``, ``x2``: Tesseract loses a
short figure at one size and reads it at another: of 536 short spans on degraded and poor scans of a calibration
corpus that every reading before missed, the three read 102 exactly, the best of them alone 58); a crop no wider
than its line is high (a lone "1" in a table cell) enlarged by half as one character (``--psm 10``, tried only on
such crops: at the line height Tesseract finds no glyph in a clear "1"); and a crop taller than wide (a chart's
value label set vertically) turned upright, reading up then down (``up``/``down``, tried only on such crops). A
span is read the next way only while no reading so far is legible and exact in its digits, and the best reading
counts: Tesseract drops short cells ("1", "35") or a decimal point in one setting and reads them in another, which
says more about Tesseract than about the scan."""


# ----------------------------------------------------------------- reading evidence spans

def normalise(text: str) -> str:
    return " ".join(text.casefold().split())


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions), one row at a time."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i]
        for j, cb in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _trim_edges(reading: str, reference: str) -> str:
    """The reading without the marks a crop's edges add: punctuation at either end that the drawn text
    does not have there (a table rule read as "|", a checkbox as "[", a speck as ".")."""
    start, end = 0, len(reading)
    while start < end and not reading[start].isalnum() and not reference.startswith(reading[start:end][:1]):
        start += 1
    while end > start and not reading[end - 1].isalnum() and not reference.endswith(reading[end - 1]):
        end -= 1
    return reading[start:end].strip()


def cer(reference: str, reading: str) -> float:
    """Character error rate of ``reading`` against ``reference`` (normalised; 1.0 caps an empty reading)."""
    ref = normalise(reference)
    hyp = _trim_edges(normalise(reading), ref)
    if not ref:
        return 0.0 if not hyp else 1.0
    return round(min(levenshtein(ref, hyp) / len(ref), 1.0), 4)


# ----------------------------------------------------------------- crops and OCR

def _text_quad(q: np.ndarray, rotation: float) -> np.ndarray:
    """The quad of a line drawn at ``rotation`` degrees (counter-clockwise) inside the box ``q`` that hulls it.

    A rotated line of width w and height h has a hull of W = w cos + h sin, H = w sin + h cos; solved for
    w and h, the line's own corners follow from the hull's centre and the two directions."""
    t = np.radians(rotation)
    c, s = abs(np.cos(t)), abs(np.sin(t))
    det = c * c - s * s
    if abs(rotation) < 0.5 or det < 0.3:  # upright, or too steep to separate the line from its hull
        return q
    u0, v0 = q[1] - q[0], q[0] - q[3]
    big_w, big_h = float(np.linalg.norm(u0)), float(np.linalg.norm(v0))
    u0, v0 = u0 / max(big_w, 1e-6), v0 / max(big_h, 1e-6)
    w = max((c * big_w - s * big_h) / det, 1.0)
    h = max((c * big_h - s * big_w) / det, 1.0)
    u = np.cos(t) * u0 + np.sin(t) * v0  # along the line
    v = -np.sin(t) * u0 + np.cos(t) * v0  # towards the top of its letters
    centre = q.mean(axis=0)
    return np.array([centre - u * w / 2 + v * h / 2, centre + u * w / 2 + v * h / 2,
                     centre + u * w / 2 - v * h / 2, centre - u * w / 2 - v * h / 2], np.float32)


def crop_span(scan: np.ndarray, ev: Evidence, rotation: float = 0.0) -> np.ndarray:
    """The span cut out of the scan (grayscale), upright, at ``TEXT_HEIGHT_PX`` line height, padded white.

    ``rotation``: the angle the span was drawn at (a stamp's), its box being the hull of the rotated line."""
    import cv2

    if ev.scan_quad is not None:
        q = np.array(ev.scan_quad, np.float32)
    elif ev.scan_bbox is not None:
        x0, y0, x1, y1 = ev.scan_bbox
        q = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    else:
        raise ValueError(f"evidence of {ev.fact_id} has no box on the scan")
    q = _text_quad(q, rotation).astype(np.float32)
    h = max((np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2, 1.0)
    w = max((np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2, 1.0)
    k, m = TEXT_HEIGHT_PX / h, MARGIN * h
    dst = np.array([[m, m], [w + m, m], [w + m, h + m], [m, h + m]], np.float32) * k
    size = (max(1, round((w + 2 * m) * k)), max(1, round((h + 2 * m) * k)))
    warp = cv2.getPerspectiveTransform(q, dst)
    out = cv2.warpPerspective(scan, warp, size, flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=255)
    return cv2.copyMakeBorder(out, PAD_PX, PAD_PX, PAD_PX, PAD_PX, cv2.BORDER_CONSTANT, value=255)


def _upright(crop: np.ndarray) -> bool:
    """The crop is taller than wide by half again: its text runs vertically (a rotated chart label)."""
    core = crop[PAD_PX:-PAD_PX, PAD_PX:-PAD_PX]
    return core.size > 0 and core.shape[0] > 1.5 * core.shape[1]


def _narrow(crop: np.ndarray) -> bool:
    """The crop's text is no wider than its line is high: one character or two (a table's lone digit)."""
    core = crop[PAD_PX:-PAD_PX, PAD_PX:-PAD_PX]
    return core.size > 0 and core.shape[1] <= core.shape[0]


_ONLY_ON = {"up": _upright, "down": _upright, "char": _narrow}
"""Readings tried only on crops of a shape: the rest are tried on every crop still unread."""


def _variant(crop: np.ndarray, variant: str) -> np.ndarray:
    import cv2

    if variant in ("up", "down"):  # a vertical line turned to run left to right, at the line height
        core = crop[PAD_PX:-PAD_PX, PAD_PX:-PAD_PX]
        turned = cv2.rotate(core, cv2.ROTATE_90_CLOCKWISE if variant == "up" else cv2.ROTATE_90_COUNTERCLOCKWISE)
        k = TEXT_HEIGHT_PX * (1 + 2 * MARGIN) / max(turned.shape[0], 1)
        turned = cv2.resize(turned, (max(1, round(turned.shape[1] * k)), max(1, round(turned.shape[0] * k))),
                            interpolation=cv2.INTER_CUBIC)
        return cv2.copyMakeBorder(turned, PAD_PX, PAD_PX, PAD_PX, PAD_PX, cv2.BORDER_CONSTANT, value=255)

    if variant == "char":  # half as large again: at the line height Tesseract finds no glyph in a clear lone "1"
        big = cv2.resize(crop, None, fx=1.5, fy=1.5, interpolation=cv2.INTER_CUBIC)
        return cv2.copyMakeBorder(big, 2 * PAD_PX, 2 * PAD_PX, 4 * PAD_PX, 4 * PAD_PX, cv2.BORDER_CONSTANT, value=255)
    if variant.startswith("x"):  # the crop at another size, in a white border
        k = float(variant[1:])
        sized = cv2.resize(crop, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC if k > 1 else cv2.INTER_AREA)
        return cv2.copyMakeBorder(sized, PAD_PX, PAD_PX, 3 * PAD_PX, 3 * PAD_PX, cv2.BORDER_CONSTANT, value=255)
    if variant == "wide":
        return cv2.copyMakeBorder(crop, PAD_PX, PAD_PX, 6 * PAD_PX, 6 * PAD_PX, cv2.BORDER_CONSTANT, value=255)
    if variant == "binary":
        return cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]
    if variant == "level":
        core = crop[PAD_PX:-PAD_PX, PAD_PX:-PAD_PX]
        out = crop.copy()
        if core.size:
            paper = int(np.median(core))
            out[:PAD_PX], out[-PAD_PX:], out[:, :PAD_PX], out[:, -PAD_PX:] = paper, paper, paper, paper
        out = cv2.normalize(out, None, 0, 255, cv2.NORM_MINMAX)
        return cv2.copyMakeBorder(out, PAD_PX, PAD_PX, 3 * PAD_PX, 3 * PAD_PX, cv2.BORDER_CONSTANT, value=255)
    return crop


_NUMBER = re.compile(r"\d(?:[\d.,]*\d)?")
_GROUP = re.compile(r"[.,](?=\d{3}(?:[.,]|$))")


def digits_of(text: str) -> str:
    """The figures of a text as a reader must get them right to give the same answer: each number's digits in
    order, with its decimal point where it has one ("95.7" is not "957"); a separator before a group of three
    digits groups thousands and does not count ("3,360", "3.360" and "3360" are one figure)."""
    return " ".join(_GROUP.sub("", n).replace(",", ".") for n in _NUMBER.findall(text))


def digits_exact(reference: str, reading: str) -> bool:
    """The reading's digits are the drawn text's, in order (a text without digits always passes)."""
    want = digits_of(reference)
    return not want or want == digits_of(_trim_edges(normalise(reading), normalise(reference)))


def _done(text: str, reading: str | None, exact: bool) -> bool:
    return reading is not None and cer(text, reading) <= CER_THRESHOLD and exact


def read_crops(crops: list[np.ndarray], texts: list[str]) -> list[tuple[str, bool]]:
    """Tesseract's best reading of each crop against the text drawn there, and whether any reading gave its
    digits exactly, the ways of ``READINGS`` in turn (a crop is read the next way only while no reading so far
    is both legible and exact in its digits)."""
    best: list[str | None] = [None] * len(crops)
    exact = [not digits_of(t) for t in texts]
    for variant, psm in READINGS:
        todo = [i for i, b in enumerate(best) if not _done(texts[i], b, exact[i])
                and (variant not in _ONLY_ON or _ONLY_ON[variant](crops[i]))]
        if not todo:
            break
        for i, text in zip(todo, ocr_lines([_variant(crops[i], variant) for i in todo], psm=psm), strict=True):
            exact[i] = exact[i] or digits_exact(texts[i], text)
            if best[i] is None or cer(texts[i], text) < cer(texts[i], best[i]):
                best[i] = text
    return [(b or "", e) for b, e in zip(best, exact, strict=True)]


# ----------------------------------------------------------------- the evidence of a document

UNREADABLE_CER = 0.5
"""A span whose best reading differs from the drawn text in more than half its characters is gone from the
scan for a reader: a QA pair resting on it is not answerable from the scan (``QAPair.answerable_from_scan``)."""

ANSWERABLE_RULE = "cer<=0.5+digits-exact"
"""The name of the rule behind ``answerable_from_scan``, as reports and exports state it: every evidence span
of the pair reads with a CER of at most ``UNREADABLE_CER``, and every span that carries digits has them read
exactly, in order, by one of the ways of ``READINGS`` (the crop as a line or a word, with a wide border,
binarised). A figure read "GBP 3,160" for "GBP 3,360" is near in CER and a wrong answer."""

ANSWERABLE_RULE_TEXT = ("every evidence span reads on the scan file with a Tesseract CER of at most 0.5, and every "
                        "digit of a span reads exactly")


def spans_of(a: Assertion) -> list[Evidence]:
    """Every evidence span an assertion rests on (its own and its derivation's operands'), once each."""
    spans = list(a.evidence)
    if a.derivation is not None:
        for op in a.derivation.operands:
            spans += [e for e in op.evidence if e not in spans]
    return spans


def span_key(e: Evidence) -> tuple:
    return e.page_no, tuple(e.bbox_pdf), e.text


def read_evidence(scans: Mapping[int, bytes], assertions: Sequence[Assertion], rotation: Mapping[str, float]
                  ) -> dict[tuple, tuple[str, float, bool]]:
    """Tesseract's best reading of every evidence span of ``assertions`` on its page's scan file (the encoded
    bytes, decoded as a reader of the corpus decodes them), its CER and whether its digits read exactly
    (``read_crops``), by ``span_key``. ``rotation``: the
    angle a block's spans were drawn at (stamps), by block id. One ``tesseract`` process per reading pass."""
    import cv2

    spans: dict[tuple, Evidence] = {}
    for a in assertions:
        for e in spans_of(a):
            spans.setdefault(span_key(e), e)
    if not spans:
        return {}
    images: dict[int, np.ndarray] = {}
    crops = []
    for (page_no, _, _), e in spans.items():
        if page_no not in images:
            if page_no not in scans:
                raise OCRError(f"no scan of page {page_no} to read")
            images[page_no] = cv2.imdecode(np.frombuffer(scans[page_no], np.uint8), cv2.IMREAD_GRAYSCALE)
        crops.append(crop_span(images[page_no], e, rotation.get(e.block_id, 0.0)))
    keys = list(spans)
    readings = read_crops(crops, [k[2] for k in keys])
    return {k: (r, cer(k[2], r), exact) for k, (r, exact) in zip(keys, readings, strict=True)}


def span_answerable(span_cer: float | None, digits_read: bool | None) -> bool:
    """``ANSWERABLE_RULE`` for one span: read within ``UNREADABLE_CER`` and its digits exact (None: not read
    that way, which does not count against it)."""
    return (span_cer is None or span_cer <= UNREADABLE_CER) and digits_read is not False


def mark_answerable(qa: Sequence[QAPair], assertions: Sequence[Assertion],
                    read: Mapping[tuple, tuple[str, float, bool]]) -> None:
    """Record the readings on the records, in place: each evidence span's ``scan_cer`` and ``scan_digits``, and
    each QA pair's ``answerable_from_scan`` (``ANSWERABLE_RULE`` on every span of every assertion of the pair)."""
    ok: dict[str, bool] = {}
    for a in assertions:
        for e in spans_of(a):
            _, e.scan_cer, e.scan_digits = read[span_key(e)]
            ok[a.qa_id] = ok.get(a.qa_id, True) and span_answerable(e.scan_cer, e.scan_digits)
    for q in qa:
        q.answerable_from_scan = ok.get(q.id, True)
