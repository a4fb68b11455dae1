"""A fax's own lines: the sender's header (date, time, sender, number, page n/m) drawn straight across the top
of the received page, and scan lines lost in transmission; both are recorded where they draw over the scan
(``DegradedPage.overdrawn``), so the evidence they cover says so."""

from __future__ import annotations

import numpy as np

from synthdocqa.degradations import degrade_page, sample_profile
from synthdocqa.degradations.stages.output import header_text, line_errors
from synthdocqa.ir.perturbation import StageParams
from synthdocqa.ir.rng import Rng

from .pages import text_page

PAGE = text_page(3, width=850, height=1100, color=False)


def _fax_page(tier: str = "good", **force) -> object:
    page = sample_profile(tier, 4, Rng(11, ("doc", 2)), "fax").pages[2]
    stages = []
    for s in page.stages:
        if s.name in force:
            s = StageParams(name=s.name, enabled=True, params={**s.params, **force[s.name]})
        stages.append(s)
    return page.model_copy(update={"stages": stages})


def test_the_header_names_date_sender_number_and_page_of_pages():
    page = sample_profile("fair", 7, Rng(5, ("doc", 0)), "fax").pages[1]
    header = next(s for s in page.stages if s.name == "fax_header")
    assert header.enabled and header.params["page"] == 2 and header.params["pages"] == 7
    text = header_text(header.params)
    assert "FROM: " in text and text.endswith("P.002/007") and text[:3].isalpha() and text[3] == "-"


def test_the_header_is_drawn_straight_across_the_top_and_recorded_there():
    page = _fax_page()
    header = next(s for s in page.stages if s.name == "fax_header")
    assert header.enabled
    out = degrade_page(PAGE, page, 11, 100)
    band = int(round(header.params["height_px"] * 100 / 200))
    top = out.image[:band]
    assert set(np.unique(top)) <= {0, 255} and (top == 0).any()  # 1 bit, and something is written
    rows = np.flatnonzero((top == 0).any(axis=(1, 2)) if top.ndim == 3 else (top == 0).any(axis=1))
    assert rows.max() - rows.min() < band  # one straight line, whatever the sheet's skew
    covered = out.overdrawn_lookup()
    assert covered([40, 0, 300, band]) == ["fax_header"]
    assert "fax_header" not in covered([40, 500, 300, 520])


def test_lost_lines_are_recorded_where_they_fall_on_ink():
    img = PAGE.copy()
    out = line_errors(img, {"n_errors": 40, "height_px": 6.0, "density": 0.2}, Rng(3, ("lines",)))
    changed = np.flatnonzero(np.any(out != img, axis=(1, 2)))
    assert len(changed) > 0 and np.array_equal(img, PAGE)  # it drew, and left its input alone
    page = _fax_page("poor", line_errors={"n_errors": 40, "height_px": 6.0, "density": 0.2})
    deg = degrade_page(PAGE, page, 11, 100)
    mask = deg.overdrawn["line_errors"]
    ys = np.flatnonzero(mask.any(axis=1))
    assert len(ys) > 0
    scale = deg.image.shape[0] / mask.shape[0]
    y = float(ys[len(ys) // 2]) * scale
    assert "line_errors" in deg.overdrawn_lookup()([0, y - 1, deg.image.shape[1], y + 1])


def test_a_faxed_document_is_sent_once_by_its_issuer_on_or_after_its_date():
    import datetime as dt

    from synthdocqa.degradations import FaxOrigin

    dated = dt.date(2026, 11, 7)
    origin = FaxOrigin(dated, "Northwind Logistics plc", "+44 20 7946 0123")
    texts = []
    for seed in range(12):
        profile = sample_profile("fair", 5, Rng(seed, ("doc", 0)), "fax", fax=origin)
        headers = [next(s for s in p.stages if s.name == "fax_header") for p in profile.pages]
        on = [h.params for h in headers if h.enabled]
        assert on, "a fax header on none of five pages"
        assert len({(h["year"], h["day"]) for h in on}) == 1  # one transmission, one date on every page
        sent = dt.date(on[0]["year"], 1, 1) + dt.timedelta(days=on[0]["day"])
        assert dated <= sent <= dated + dt.timedelta(days=7)
        text = header_text(on[0])
        assert "FROM: NORTHWIND LOGISTICS PLC   +44 20 7946 0123" in text
        texts.append(text)
    assert any("NOV-07-2026" in t for t in texts)  # mostly sent the day it is dated
    # without an origin (a page degraded on its own) the header keeps the table's draw
    alone = next(s for s in sample_profile("fair", 2, Rng(1, ("doc", 0)), "fax").pages[0].stages
                 if s.name == "fax_header")
    assert "number_text" not in alone.params


def test_a_leap_day_prints_as_a_calendar_date():
    p = {"year": 2028, "day": 59, "minute": 545, "sender": "A", "number_text": "+1 555 0100", "page": 1, "pages": 2}
    assert header_text(p).startswith("FEB-29-2028 09:05   FROM: A   +1 555 0100   P.001/002")
