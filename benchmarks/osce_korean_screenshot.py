"""Screenshot of an OSCE analysis report in Korean: docs/img/osce_report_ko.png.

A small simulated study (3 cases of 6/6/5 scripted questions, 5 raters, seed 7) whose responders are
"인간 전문가" (the reference), "스몰LM-가" and "스몰LM-나", whose cases carry the shipped cases' Korean titles
and whose history-taking categories have Korean labels, analysed for the three sentence-level metrics with
the history-category stratifier; the HTML report is loaded in headless Chromium (width 1200) and the top
of the page is kept (``--height``), as RGB, or with a 256-colour palette if that would pass 400 KB. Hangul in the
figures comes from NanumGothic, in the page from the report's embedded font subset (no CJK system font
needed). Needs Debian chromium.

    .venv/bin/python benchmarks/osce_korean_screenshot.py [--out docs/img/osce_report_ko.png] [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from synthdocqa.ir.rng import Rng  # noqa: E402
from synthdocqa.judges.osce.analysis import AnalysisOptions, analyze  # noqa: E402
from synthdocqa.judges.osce.report import render_report  # noqa: E402
from synthdocqa.judges.osce.schema import DEFAULT_HISTORY_CATEGORIES, Taxonomy  # noqa: E402
from synthdocqa.judges.osce.simulate import SimulationConfig, simulate_study  # noqa: E402

RESPONDERS = ("인간 전문가", "스몰LM-가", "스몰LM-나")
CASES = {"case1": "혈뇨", "case2": "임신 중 발열", "case3": "만성 기침"}
CATEGORIES = {
    "chief_complaint": "주호소",
    "history_of_present_illness": "현병력",
    "past_medical_history": "과거력",
    "medications": "복용 약물",
    "allergies": "알레르기",
    "family_history": "가족력",
    "social_history": "사회력",
    "sexual_history": "성생활력",
    "review_of_systems": "계통별 문진",
    "ideas_concerns_expectations": "환자의 생각·걱정·기대",
    "other": "기타",
}
assert tuple(CATEGORIES) == DEFAULT_HISTORY_CATEGORIES
MAX_BYTES = 400 * 1024


def korean_result():
    tax = Taxonomy(reference_responder=RESPONDERS[0], history_categories=tuple(CATEGORIES.values()))
    config = SimulationConfig(taxonomy=tax, responders=RESPONDERS, utterances_per_case=(6, 6, 5), n_raters=5,
                              metrics=("correctness", "relevance", "naturalness"))
    ratings = simulate_study(config, Rng(7)).ratings
    ratings["case"] = ratings["case"].map(CASES)
    ratings["encounter"] = ratings["case"] + "-" + ratings["responder"]
    return analyze(ratings, taxonomy=tax, options=AnalysisOptions(stratifiers=("history_category",)))


def screenshot(html: Path, png: Path, width: int, height: int) -> None:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--no-first-run", "--disable-background-networking", "--virtual-time-budget=5000",
                        f"--user-data-dir={profile}",
                        f"--screenshot={png}", f"--window-size={width},{height}", html.resolve().as_uri()],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "img" / "osce_report_ko.png"))
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--height", type=int, default=2000, help="pixels kept from the top of the page")
    ap.add_argument("--keep", help="also keep the rendered report in this folder")
    args = ap.parse_args(argv)
    out = Path(args.out)
    with tempfile.TemporaryDirectory() as tmp:
        report = render_report(korean_result(), Path(args.keep) if args.keep else Path(tmp) / "report")
        raw = Path(tmp) / "shot.png"
        screenshot(report / "report.html", raw, args.width, args.height)
        with Image.open(raw) as im:
            shot = im.convert("RGB")
        out.parent.mkdir(parents=True, exist_ok=True)
        shot.save(out, format="PNG", optimize=True)
        if out.stat().st_size > MAX_BYTES:  # a 256-colour palette bands the colour bar a little, but is small
            shot.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(out, format="PNG", optimize=True)
    print(f"{out}: {out.stat().st_size / 1024:.0f} KB, {shot.width}x{shot.height}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
