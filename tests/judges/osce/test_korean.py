"""Korean in the OSCE report: Hangul glyphs in the figures (NanumGothic fallback, no missing-glyph warning),
an embedded font subset in the HTML, English pages unchanged, CP949 question tables, a Chromium screenshot."""

from __future__ import annotations

import base64
import io
import logging
import re
import shutil
import subprocess
import threading
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from fontTools.ttLib import TTFont
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from synthdocqa.judges.osce import fonts
from synthdocqa.judges.osce.analysis import AnalysisOptions, analyze
from synthdocqa.judges.osce.case_bank import SHIPPED_CASES, load_case_bank, load_questions
from synthdocqa.judges.osce.report import CSS, render_report
from synthdocqa.judges.osce.schema import Taxonomy

LABEL = "인간 전문가 / 스몰LM-가"
KO_RESPONDERS = {"human": "인간 전문가", "llm_a": "스몰LM-가", "llm_b": "스몰LM-나", "llm_c": "스몰LM-다",
                 "llm_d": "스몰LM-라"}
KO_CATEGORIES = {"chief_complaint": "주호소", "history_of_present_illness": "현병력", "past_medical_history": "과거력",
                 "medications": "복용 약물", "allergies": "알레르기", "family_history": "가족력",
                 "social_history": "사회력", "sexual_history": "성생활력", "review_of_systems": "계통별 문진",
                 "ideas_concerns_expectations": "환자의 생각·걱정·기대", "other": "기타"}
FACE = re.compile(r'@font-face\{font-family:"SynthdocqaHangul";src:url\(data:font/woff;base64,([A-Za-z0-9+/=]+)\)')


def _render(family: list[str], text: str = LABEL) -> tuple[np.ndarray, list[str]]:
    """``text`` drawn with ``family`` as RGBA pixels, and the warnings matplotlib gave while drawing."""
    with warnings.catch_warnings(record=True) as caught, matplotlib.rc_context({"font.family": family}):
        warnings.simplefilter("always")
        fig = Figure(figsize=(3.0, 0.8), dpi=100)
        FigureCanvasAgg(fig)
        fig.text(0.05, 0.4, text, fontsize=14)
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
    return np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGBA")), [str(w.message) for w in caught]


def test_plot_with_hangul_label_renders_glyphs_not_boxes(caplog):
    caplog.set_level(logging.DEBUG, logger="matplotlib.font_manager")
    before = dict(matplotlib.rcParams)
    family = fonts.plot_font_family()
    assert family == ["DejaVu Sans", "NanumGothic"]
    assert dict(matplotlib.rcParams) == before  # registering the font changes no global setting
    caplog.clear()
    nanum, nanum_warnings = _render(family)
    assert not [w for w in nanum_warnings if "Glyph" in w and "missing" in w], nanum_warnings
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text  # no findfont fallback
    dejavu, dejavu_warnings = _render(["DejaVu Sans"])
    missing = {int(m.group(1)) for w in dejavu_warnings
               if (m := re.search(r"Glyph (\d+) .* missing from font\(s\) DejaVu Sans", w))}
    assert missing == {ord(c) for c in LABEL if fonts.is_hangul(c)}  # every syllable drawn as a box
    assert nanum.shape == dejavu.shape and not np.array_equal(nanum, dejavu)
    # Latin text is drawn by DejaVu Sans as before: the fallback list leaves it pixel for pixel the same
    assert np.array_equal(_render(family, "correctness / llm_a")[0], _render(["DejaVu Sans"], "correctness / llm_a")[0])


def test_font_registration_is_idempotent_and_thread_safe():
    from matplotlib import font_manager

    results: list[list[str]] = []
    threads = [threading.Thread(target=lambda: results.append(fonts.plot_font_family())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [["DejaVu Sans", "NanumGothic"]] * 8
    path = fonts.hangul_font_path().resolve()
    assert path.name == "NanumGothic.ttf" and path.parent.name == "fonts"
    assert sum(Path(f.fname).resolve() == path for f in font_manager.fontManager.ttflist) >= 1
    n = len(font_manager.fontManager.ttflist)
    fonts.plot_font_family()
    assert len(font_manager.fontManager.ttflist) == n


def test_missing_font_package_is_a_clear_error_and_english_needs_no_font(monkeypatch):
    monkeypatch.setattr(fonts.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(fonts.FontMissingError, match="pip install koreanize-matplotlib"):
        fonts.hangul_font_path()
    assert fonts.html_font_face(["an English report", "correctness", "llm_a"]) == ""
    fonts.subset_font.cache_clear()
    try:
        with pytest.raises(fonts.FontMissingError):
            fonts.html_font_face(["인간"])
    finally:
        fonts.subset_font.cache_clear()


def test_font_subset_holds_exactly_the_hangul_used():
    face = fonts.html_font_face(["responders: 인간 전문가, 스몰LM-가", "기타 (other) 「주호소」"])
    data = base64.b64decode(FACE.search(face).group(1))
    assert len(data) < 20_000  # a dozen glyphs, not the 4.7 MB font
    font = TTFont(io.BytesIO(data))
    assert font.flavor == "woff" and font["name"].getDebugName(1) == "SynthdocqaHangul"
    cmap = set(font.getBestCmap())
    want = {ord(c) for c in "인간전문가스몰기타주호소「」"}
    assert want <= cmap and not {ord(c) for c in "responder LM(other)"} & cmap
    assert fonts.html_font_face(["인간 전문가"]) == fonts.html_font_face(["전문가 인간"])  # same chars, same bytes


@pytest.fixture(scope="module")
def korean_result(small_study):
    r = small_study.ratings.copy()
    r["responder"] = r["responder"].map(KO_RESPONDERS)
    r["history_category"] = r["history_category"].map(KO_CATEGORIES)
    tax = Taxonomy(reference_responder="인간 전문가", history_categories=tuple(KO_CATEGORIES.values()))
    return analyze(r, taxonomy=tax, options=AnalysisOptions(stratifiers=("history_category",)),
                   metrics=["correctness"])


def _visible_hangul(html: str) -> set[str]:
    body = re.sub(r'src="data:[^"]*"', "", html.split("</style>", 1)[1])
    return {c for c in body if fonts.is_hangul(c)}


def test_korean_html_report_embeds_a_subset_with_its_glyphs(korean_result, small_study, tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = render_report(korean_result, tmp_path / "ko")
    assert not [str(w.message) for w in caught if "missing from font" in str(w.message)]
    html = (out / "report.html").read_text(encoding="utf-8")
    style = html.split("<style>", 1)[1].split("</style>", 1)[0]
    assert style.startswith(CSS) and style.count("@font-face") == 1
    assert re.findall(r"body\{font-family:([^;}]*)", style)[-1].endswith('"SynthdocqaHangul"')
    data = base64.b64decode(FACE.search(style).group(1))
    cmap = set(TTFont(io.BytesIO(data)).getBestCmap())
    used = _visible_hangul(html)
    assert {"인", "몰", "주", "걱"} <= used  # responders and strata (history categories) reach the page
    assert {ord(c) for c in used} <= cmap
    assert len(data) < 30_000
    assert "@font-face" not in (out / "report.md").read_text(encoding="utf-8")
    again = render_report(korean_result, tmp_path / "ko2")
    assert (again / "report.html").read_bytes() == (out / "report.html").read_bytes()  # deterministic

    english = analyze(small_study.ratings, options=AnalysisOptions(stratifiers=()), metrics=["correctness"])
    en_html = (render_report(english, tmp_path / "en") / "report.html").read_text(encoding="utf-8")
    assert "@font-face" not in en_html and "SynthdocqaHangul" not in en_html
    assert f"<style>{CSS}</style>" in en_html


def test_rubric_table_with_hangul_gets_the_font(korean_result, tmp_path):
    import pandas as pd

    english = korean_result.model_copy(update={"responders": ["human", "llm_a"], "main": [], "strata": [],
                                               "emms": [], "fits": [], "reliability": []})
    rubric = pd.DataFrame({"metric": ["correctness"], "판정": ["일치"], "kappa": [0.5]})
    html = (render_report(english, tmp_path / "r", rubric=rubric) / "report.html").read_text(encoding="utf-8")
    data = base64.b64decode(FACE.search(html).group(1))
    assert {ord(c) for c in "판정일치"} <= set(TTFont(io.BytesIO(data)).getBestCmap())


@pytest.fixture(scope="module")
def shipped_questions():
    return load_questions(SHIPPED_CASES / "questions.csv", load_case_bank())


def test_cp949_questions_load_like_utf8(shipped_questions, tmp_path):
    text = (SHIPPED_CASES / "questions.csv").read_text(encoding="utf-8")
    assert any(fonts.is_hangul(c) for c in text)
    path = tmp_path / "questions_cp949.csv"
    path.write_bytes(text.encode("cp949"))
    with pytest.raises(UnicodeDecodeError):
        path.read_bytes().decode("utf-8")
    assert load_questions(path) == shipped_questions  # encoding detected
    assert load_questions(path, load_case_bank(), encoding="cp949") == shipped_questions
    assert {q.text.ko for q in load_questions(path)} == {q.text.ko for q in shipped_questions}


def _korean_system_font() -> bool:
    fc = shutil.which("fc-list")
    return bool(fc and subprocess.run([fc, ":lang=ko"], capture_output=True, text=True).stdout.strip())


def _chromium_png(html: Path, png: Path, profile: Path, height: int = 1600) -> np.ndarray:
    from tests.exports.chromium import chromium_binary

    subprocess.run([chromium_binary(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--no-first-run", f"--user-data-dir={profile}", "--virtual-time-budget=5000",
                    f"--screenshot={png}", f"--window-size=1200,{height}", html.resolve().as_uri()],
                   check=True, capture_output=True, timeout=180)
    assert png.is_file() and png.stat().st_size > 0
    return np.asarray(Image.open(png).convert("L"))


@pytest.mark.needs("chromium")
def test_korean_report_screenshot_in_chromium(korean_result, tmp_path):
    out = render_report(korean_result, tmp_path / "ko")
    shot = _chromium_png(out / "report.html", tmp_path / "shot.png", tmp_path / "profile")
    assert shot.shape == (1600, 1200)
    assert shot.min() < 60 and shot.max() > 240 and len(np.unique(shot)) > 16  # text and figures, not blank
    assert (shot < 128).mean() > 0.01
    if not _korean_system_font():  # without the embedded font this machine draws boxes: the pages differ
        html = (out / "report.html").read_text(encoding="utf-8")
        bare = tmp_path / "ko" / "no_face.html"
        bare.write_text(re.sub(r"@font-face\{[^}]*\}", "", html), encoding="utf-8")
        top = slice(0, 200)  # title and intro line (responder names)
        plain = _chromium_png(bare, tmp_path / "bare.png", tmp_path / "profile2")
        assert not np.array_equal(shot[top], plain[top])
