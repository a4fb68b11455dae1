"""Hangul in the OSCE report: NanumGothic for the matplotlib figures and an embedded subset for the HTML.

The machine may have no CJK system font, so the font comes from the ``koreanize-matplotlib`` package
(MIT code; NanumGothic under the SIL Open Font License). That package is never imported: importing it
rewrites matplotlib's global rcParams. Its font file is found with ``importlib.util.find_spec`` and
registered with matplotlib's ``fontManager`` once; figures then use a fallback family list (DejaVu Sans
first, so Latin text renders exactly as before, NanumGothic for the glyphs DejaVu lacks) inside a
``matplotlib.rc_context``, never a global setting.

The HTML report stays self-contained: ``html_font_face`` embeds, as a base64 data URI, a subset of
NanumGothic holding only the Hangul/CJK characters its texts use (a few KB for a report's names instead of
4.7 MB). OFL fonts with reserved names must be renamed when modified, so the subset is called
"SynthdocqaHangul" inside the font as in the CSS. Pages without Hangul get no ``@font-face``.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import io
import threading
from collections.abc import Iterable
from pathlib import Path

FONT_PACKAGE = "koreanize-matplotlib"
"""The PyPI distribution that ships the font (its import name is ``koreanize_matplotlib``)."""
FONT_FILE = "NanumGothic.ttf"
FONT_FAMILY = "NanumGothic"
"""The family name matplotlib registers the font under."""
PLOT_FAMILY: tuple[str, ...] = ("DejaVu Sans", FONT_FAMILY)
HTML_FAMILY = "SynthdocqaHangul"
"""The CSS (and internal) family name of the embedded subset."""

_HANGUL = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7AF), (0xD7B0, 0xD7FF))
_CJK = (*_HANGUL, (0x2E80, 0x2FDF), (0x3000, 0x303F), (0x3040, 0x30FF), (0x3200, 0x33FF), (0x3400, 0x4DBF),
        (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF))

_lock = threading.Lock()
_registered: list[str] = []


class FontMissingError(RuntimeError):
    """The Hangul font is not installed; the message names the package to install."""


def _in(ch: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in ranges)


def is_hangul(ch: str) -> bool:
    """A Hangul syllable or jamo (any of the Unicode Hangul blocks)."""
    return _in(ch, _HANGUL)


def has_hangul(texts: Iterable[str]) -> bool:
    return any(is_hangul(ch) for t in texts for ch in t)


def cjk_chars(texts: Iterable[str]) -> str:
    """The distinct Hangul/CJK characters (Hangul, kana, ideographs, CJK punctuation, full-width forms) of
    ``texts``, sorted."""
    return "".join(sorted({ch for t in texts for ch in t if _in(ch, _CJK)}))


def hangul_font_path() -> Path:
    """The NanumGothic file that ``koreanize-matplotlib`` ships (the package is located, not imported)."""
    hint = f"the Hangul font comes from the {FONT_PACKAGE} package: pip install {FONT_PACKAGE}==0.1.1"
    try:
        spec = importlib.util.find_spec("koreanize_matplotlib")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise FontMissingError(f"{FONT_PACKAGE} is not installed; {hint}")
    path = Path(list(spec.submodule_search_locations)[0]) / "fonts" / FONT_FILE
    if not path.is_file():
        raise FontMissingError(f"{path} is missing (a broken {FONT_PACKAGE} install?); {hint}")
    return path


def plot_font_family() -> list[str]:
    """Register NanumGothic with matplotlib (once, thread-safe) and return the family list for figures:
    ``["DejaVu Sans", "NanumGothic"]`` (matplotlib >= 3.6 falls back glyph by glyph along the list). Use it
    as ``matplotlib.rc_context({"font.family": plot_font_family()})``; rcParams are not changed."""
    with _lock:
        if not _registered:
            from matplotlib import font_manager

            path = hangul_font_path()
            known = {Path(f.fname).resolve() for f in font_manager.fontManager.ttflist}
            if path.resolve() not in known:  # e.g. koreanize_matplotlib was imported elsewhere
                font_manager.fontManager.addfont(str(path))
            _registered.append(str(path))
    return list(PLOT_FAMILY)


@functools.lru_cache(maxsize=32)
def subset_font(chars: str) -> bytes:
    """A WOFF (zlib; no brotli needed) of NanumGothic reduced to ``chars`` (those the font has), without
    hinting, renamed "SynthdocqaHangul"; the same characters give the same bytes (no timestamp)."""
    from fontTools import subset

    opts = subset.Options()
    opts.flavor = "woff"
    opts.hinting = False
    opts.recalc_timestamp = False
    opts.name_IDs = [0, 1, 2, 3, 4, 5, 6]
    opts.drop_tables = [*opts.drop_tables, "TSI0", "TSI1", "TSI2", "TSI3", "TSI5"]
    font = subset.load_font(str(hangul_font_path()), opts)
    try:
        cmap = font.getBestCmap()
        sub = subset.Subsetter(opts)
        sub.populate(unicodes=[ord(c) for c in chars if ord(c) in cmap])
        sub.subset(font)
        name = font["name"]
        for nid, value in ((1, HTML_FAMILY), (3, f"{HTML_FAMILY} (NanumGothic subset)"), (4, HTML_FAMILY),
                           (6, f"{HTML_FAMILY}-Regular")):
            name.removeNames(nameID=nid)
            name.setName(value, nid, 3, 1, 0x409)
        name.setName("Licensed under the SIL Open Font License, Version 1.1", 13, 3, 1, 0x409)
        name.setName("https://openfontlicense.org", 14, 3, 1, 0x409)
        buf = io.BytesIO()
        subset.save_font(font, buf, opts)
    finally:
        font.close()
    return buf.getvalue()


def html_font_face(texts: Iterable[str]) -> str:
    """A CSS ``@font-face`` rule for "SynthdocqaHangul": a NanumGothic subset with the Hangul/CJK characters
    of ``texts``, inlined as a base64 data URI; "" when the texts hold no Hangul."""
    texts = list(texts)
    if not has_hangul(texts):
        return ""
    data = base64.b64encode(subset_font(cjk_chars(texts))).decode("ascii")
    return (f'@font-face{{font-family:"{HTML_FAMILY}";src:url(data:font/woff;base64,{data}) format("woff");'
            "font-weight:normal;font-style:normal}")


__all__ = ["FONT_FAMILY", "FONT_PACKAGE", "HTML_FAMILY", "PLOT_FAMILY", "FontMissingError", "cjk_chars",
           "hangul_font_path", "has_hangul", "html_font_face", "is_hangul", "plot_font_family", "subset_font"]
