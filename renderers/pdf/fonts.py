"""Real TTF font families for the renderer, from installed Python packages (no system fonts).

Sources: ``pymupdf-fonts`` (FiraGO, Noto Sans, Ubuntu, Ubuntu Mono), matplotlib's bundled DejaVu and
STIX (serif faces), ``fontpkg-kalam`` (handwriting) and ``fontpkg-satisfy`` (signature script).
Fira Mono / Cascadia / Space Mono in pymupdf-fonts are CFF-outlined OTFs, which reportlab cannot embed,
so they are not offered. Registration is idempotent and process-wide (reportlab's font registry).
"""

from __future__ import annotations

import importlib
import io
import os
import threading
from dataclasses import dataclass
from typing import Literal

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

Face = Literal["regular", "bold", "italic", "bold_italic"]


@dataclass(frozen=True)
class FontSource:
    """Where one face lives: a pymupdf_fonts module, or a file inside an installed package."""

    kind: Literal["pymupdf_fonts", "package_file"]
    ref: str  # module name (pymupdf_fonts) or "package:relative/path"


def _pmf(name: str) -> FontSource:
    return FontSource("pymupdf_fonts", name)


def _pkg(ref: str) -> FontSource:
    return FontSource("package_file", ref)


_MPL = "matplotlib:mpl-data/fonts/ttf/"

FAMILIES: dict[str, dict[Face, FontSource]] = {
    "FiraGO": {"regular": _pmf("FiraGO_Regular"), "bold": _pmf("FiraGO_Bold"),
               "italic": _pmf("FiraGO_Italic"), "bold_italic": _pmf("FiraGO_BoldItalic")},
    "NotoSans": {"regular": _pmf("NotoSans_Regular"), "bold": _pmf("NotoSans_Bold"),
                 "italic": _pmf("NotoSans_Italic"), "bold_italic": _pmf("NotoSans_BoldItalic")},
    "Ubuntu": {"regular": _pmf("Ubuntu_Regular"), "bold": _pmf("Ubuntu_Bold"),
               "italic": _pmf("Ubuntu_Italic"), "bold_italic": _pmf("Ubuntu_BoldItalic")},
    "UbuntuMono": {"regular": _pmf("UbuntuMono_Regular"), "bold": _pmf("UbuntuMono_Bold"),
                   "italic": _pmf("UbuntuMono_Italic"), "bold_italic": _pmf("UbuntuMono_BoldItalic")},
    "DejaVuSans": {"regular": _pkg(_MPL + "DejaVuSans.ttf"), "bold": _pkg(_MPL + "DejaVuSans-Bold.ttf"),
                   "italic": _pkg(_MPL + "DejaVuSans-Oblique.ttf"),
                   "bold_italic": _pkg(_MPL + "DejaVuSans-BoldOblique.ttf")},
    "DejaVuSerif": {"regular": _pkg(_MPL + "DejaVuSerif.ttf"), "bold": _pkg(_MPL + "DejaVuSerif-Bold.ttf"),
                    "italic": _pkg(_MPL + "DejaVuSerif-Italic.ttf"),
                    "bold_italic": _pkg(_MPL + "DejaVuSerif-BoldItalic.ttf")},
    "STIX": {"regular": _pkg(_MPL + "STIXGeneral.ttf"), "bold": _pkg(_MPL + "STIXGeneralBol.ttf"),
             "italic": _pkg(_MPL + "STIXGeneralItalic.ttf"), "bold_italic": _pkg(_MPL + "STIXGeneralBolIta.ttf")},
    "Kalam": {"regular": _pkg("fontpkg_kalam:files/Kalam-Regular.ttf"),
              "bold": _pkg("fontpkg_kalam:files/Kalam-Bold.ttf")},
    "Satisfy": {"regular": _pkg("fontpkg_satisfy:files/Satisfy-Regular.ttf")},
}

SANS_FAMILIES = ("FiraGO", "NotoSans", "Ubuntu", "DejaVuSans")
SERIF_FAMILIES = ("DejaVuSerif", "STIX")
MONO_FAMILY = "UbuntuMono"
HANDWRITING_FAMILY = "Kalam"
SIGNATURE_FAMILY = "Satisfy"

_lock = threading.Lock()
_registered: set[str] = set()


def face_name(family: str, face: Face = "regular") -> str:
    """reportlab font name of a face, e.g. ``FiraGO-Bold``; falls back to regular if the face is missing."""
    faces = FAMILIES.get(family)
    if faces is None:
        raise ValueError(f"unknown font family {family!r}; known: {sorted(FAMILIES)}")
    if face not in faces:
        face = "bold" if face == "bold_italic" and "bold" in faces else "regular"
    suffix = {"regular": "", "bold": "-Bold", "italic": "-Italic", "bold_italic": "-BoldItalic"}[face]
    return family + suffix


def _load(source: FontSource) -> io.BytesIO | str:
    if source.kind == "pymupdf_fonts":
        mod = importlib.import_module("pymupdf_fonts." + source.ref)
        return io.BytesIO(mod.fontbuffer)
    package, rel = source.ref.split(":", 1)
    mod = importlib.import_module(package)
    return os.path.join(os.path.dirname(mod.__file__), rel)


def ensure_family(family: str) -> None:
    """Register every face of ``family`` with reportlab (once per process), plus the bold/italic mapping."""
    if family in _registered:
        return
    with _lock:
        if family in _registered:
            return
        faces = FAMILIES.get(family)
        if faces is None:
            raise ValueError(f"unknown font family {family!r}; known: {sorted(FAMILIES)}")
        for face, source in faces.items():
            name = face_name(family, face)
            try:
                pdfmetrics.registerFont(TTFont(name, _load(source)))
            except (ImportError, OSError) as err:
                raise RuntimeError(f"font family {family!r} face {face} could not be loaded from "
                                   f"{source.ref}: {err}") from err
        _registered.add(family)


def ensure_all() -> list[str]:
    for fam in FAMILIES:
        ensure_family(fam)
    return sorted(FAMILIES)


def string_width(text: str, font: str, size: float) -> float:
    return pdfmetrics.stringWidth(text, font, size)


def ascent_descent(font: str, size: float) -> tuple[float, float]:
    """(ascent above baseline, descent below baseline), both positive, in points."""
    a, d = pdfmetrics.getAscentDescent(font, size)
    return float(a), float(-d)


FALLBACK_FAMILY = "DejaVuSans"
"""Widest coverage of the shipped families (arrows, check marks, Greek, Cyrillic): used for a block whose
text has characters the layout's fonts lack, so the text layer never loses a character."""

_coverage: dict[str, frozenset[int]] = {}


def covers(font: str, text: str) -> bool:
    """Whether the registered TTF face ``font`` has a glyph for every non-space character of ``text``."""
    cps = {ord(ch) for ch in text if ord(ch) > 126}
    if not cps:
        return True
    cov = _coverage.get(font)
    if cov is None:
        family = font.split("-")[0]
        if family in FAMILIES:
            ensure_family(family)
        cov = _coverage[font] = frozenset(pdfmetrics.getFont(font).face.charToGlyph)
    return all(cp in cov or chr(cp).isspace() for cp in cps)
