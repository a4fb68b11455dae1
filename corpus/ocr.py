"""Tesseract, as the corpus uses it: one process reads a batch of images (a list file; readings come back
separated by form feeds), with no adaptive learning, so one image's reading does not depend on the others.

Used by the legibility view (``corpus.views.legibility``) and by the corpus reader's ``scan_text`` (what a
system under test that OCRs the scan sees); it decides no byte of a corpus.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from .store import CorpusError

TESSERACT = "tesseract"


class OCRError(CorpusError):
    """Tesseract is missing or failed."""


def tesseract_version() -> str | None:
    """``tesseract 5.3.0`` or None when Tesseract is not installed."""
    exe = shutil.which(TESSERACT)
    if exe is None:
        return None
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
