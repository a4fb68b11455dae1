"""The scan legibility benchmark's verdict (benchmarks/scan_legibility.py): tiers that separate on every device,
and floors held by the page at the 10th percentile, not only on average; each shown failing on planted rows."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "scan_legibility.py"
_spec = importlib.util.spec_from_file_location("scan_legibility", _PATH)
sl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sl)

# Per tier: the CER of each of 10 spans on each of 20 pages (the same on every page, so every page is typical).
GOOD = {"pristine": [0.0] * 10, "good": [0.0] * 9 + [0.05], "fair": [0.0] * 9 + [0.3],
        "degraded": [0.0] * 8 + [0.5, 0.6], "poor": [0.0] * 5 + [0.5] * 5}


def _rows(cers: dict[str, list[float]], device: str = "fax", pages: int = 20, worse: dict | None = None) -> list[dict]:
    rows = []
    for p in range(pages):
        for tier, c in cers.items():
            c = (worse or {}).get((tier, p), c)
            rows.append({"doc_id": "d", "page_no": p + 1, "device": device, "tier": tier, "cers": list(c)})
    return rows


def test_separated_tiers_with_every_page_above_its_floor_pass():
    summary = sl.summarise(_rows(GOOD))
    assert sl.verdict(summary) == []
    assert summary["fax"]["degraded"]["p10_page_exact"] == 0.8 and summary["fax"]["poor"]["p10_page_exact"] == 0.5


def test_a_tier_that_reads_no_worse_than_the_one_before_fails():
    same = {**GOOD, "fair": GOOD["good"]}  # fair reads like good: the tiers do not separate
    assert any("from good to fair" in b for b in sl.verdict(sl.summarise(_rows(same))))


def test_a_rise_carried_by_one_page_fails_though_its_mean_clears_the_margin():
    # fair reads like good on 19 pages and loses every span of one: the mean rises by 0.05, ten times the margin,
    # but a resample of the pages without that one shows no rise (the interval reaches 0)
    one_page = {("fair", 0): [1.0] * 10}
    summary = sl.summarise(_rows({**GOOD, "fair": GOOD["good"]}, worse=one_page))
    rise, low, _ = sl.rise_interval(summary["fax"]["good"], summary["fax"]["fair"])
    assert rise >= sl.RISE["fair"] and low <= 0.0
    assert any("from good to fair" in b for b in sl.verdict(summary))
    spread = {("fair", p): [0.0] * 9 + [0.3 + 0.01 * p] for p in range(20)}  # every page a little worse: passes
    assert not any("from good to fair" in b for b in sl.verdict(sl.summarise(_rows(GOOD, worse=spread))))


def test_a_floor_met_on_average_but_not_by_the_tenth_percentile_page_fails():
    # 3 of 20 pages read nothing exactly at degraded; the other 17 read all: 85% exact on average, above the
    # 60% floor, but the page at the 10th percentile reads 0%
    lost = {("degraded", p): [1.0] * 10 for p in range(3)}
    fine = {**GOOD, "degraded": [0.0] * 10}
    summary = sl.summarise(_rows(fine, worse=lost))
    assert summary["fax"]["degraded"]["exact"] >= sl.DEGRADED_FLOOR
    bad = sl.verdict(summary)
    assert any("fax degraded" in b and "10th percentile" in b for b in bad)
