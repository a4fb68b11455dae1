"""The OCR calibration's CERs and its verdict (benchmarks/ocr_calibration.py): the reading orders it
compares, and a criterion that fails when a tier does not separate."""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "ocr_calibration.py"
_spec = importlib.util.spec_from_file_location("ocr_calibration", _PATH)
oc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oc)

TIERS = oc.TIERS

# A two-column page: "Revenue 1,200" on the left and "Costs 900" on the right of the first line.
WORDS = [
    (10.0, 10.0, 60.0, 20.0, "Revenue"), (70.0, 11.0, 100.0, 21.0, "1,200"),
    (200.0, 9.5, 240.0, 19.5, "Costs"), (250.0, 10.0, 270.0, 20.0, "900"),
    (10.0, 30.0, 50.0, 40.0, "Total"), (200.0, 31.0, 260.0, 41.0, "2,100"),
]


def test_raster_lines_reads_across_columns_whatever_the_input_order():
    expected = "Revenue 1,200 Costs 900\nTotal 2,100"
    assert oc.raster_lines(WORDS) == expected
    assert oc.raster_lines(list(reversed(WORDS))) == expected
    assert oc.raster_lines([]) == ""


def test_parse_tsv_keeps_the_readers_order_and_the_boxes():
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [header, "1\t1\t0\t0\t0\t0\t0\t0\t300\t50\t-1\t",
            # the reader took the left column first (block 1), then the right one (block 2)
            "5\t1\t1\t1\t1\t1\t10\t10\t50\t10\t96\tRevenue", "5\t1\t1\t1\t1\t2\t70\t11\t30\t10\t95\t1,200",
            "5\t1\t1\t1\t2\t1\t10\t30\t40\t10\t96\tTotal", "5\t1\t1\t1\t2\t2\t60\t30\t5\t10\t10\t ",
            "5\t1\t2\t1\t1\t1\t200\t9\t40\t10\t96\tCosts", "5\t1\t2\t1\t1\t2\t250\t10\t20\t10\t96\t900",
            "5\t1\t2\t1\t2\t1\t200\t31\t60\t10\t96\t2,100"]
    text, words = oc.parse_tsv("\n".join(rows))
    assert text == "Revenue 1,200\nTotal\nCosts 900\n2,100"
    assert [w[4] for w in words] == ["Revenue", "1,200", "Total", "Costs", "900", "2,100"]
    assert words[0] == (10.0, 10.0, 60.0, 20.0, "Revenue")
    reference = oc.raster_lines(WORDS)
    # the reader's block order costs the ordered CER; placed by boxes and sorted, the page reads exactly
    assert oc.cer(reference, text, ordered=True) > 0.3
    assert oc.cer(reference, oc.raster_lines(words), ordered=True) == 0.0
    assert oc.cer(reference, text) == 0.0
    # a misread character counts in every reading
    misread = [(*w[:4], "1,2O0" if w[4] == "1,200" else w[4]) for w in words]
    assert oc.cer(reference, oc.raster_lines(misread), ordered=True) == pytest.approx(1 / len(reference))


def test_levenshtein_matches_the_definition():
    assert oc.levenshtein("kitten", "sitting") == 3
    assert oc.levenshtein("", "abc") == 3
    assert oc.levenshtein("flaw", "lawn") == 2


def _rows(n: int = 10) -> list[dict]:
    """Pages whose CER rises by 0.1 a tier, in both page modes."""
    return [{"device": oc.DEVICES[k % 4],
             "tiers": {t: {psm: {"cer": 0.02 * k + 0.1 * i} for psm in oc.PSMS} for i, t in enumerate(TIERS)}}
            for k in range(n)]


def test_the_criterion_passes_separated_tiers_and_fails_a_planted_overlap():
    rows = _rows()
    assert oc.passes(oc.summarise(rows))
    # planted: on 3 of 10 pages (70% < 80%) fair reads better than good in psm 6 only
    planted = copy.deepcopy(rows)
    for r in planted[:3]:
        r["tiers"]["fair"]["6"]["cer"] = r["tiers"]["good"]["6"]["cer"] - 0.01
    s = oc.summarise(planted)
    assert s["6"]["share_worse"]["fair>good"] == 0.7
    assert s["6"]["mean_strictly_rising"] and not s["6"]["every_share_ok"]
    assert not oc.passes(s)
    # 2 of 10 pages (80%) is still within the criterion
    planted2 = copy.deepcopy(rows)
    for r in planted2[:2]:
        r["tiers"]["fair"]["3"]["cer"] = r["tiers"]["good"]["3"]["cer"]
    assert oc.passes(oc.summarise(planted2))
    # planted: the mean of degraded at or below fair's while most pages still rise
    flat = copy.deepcopy(rows)
    flat[0]["tiers"]["fair"]["3"]["cer"] = 5.0
    assert not oc.summarise(flat)["3"]["mean_strictly_rising"]
    assert not oc.passes(oc.summarise(flat))
