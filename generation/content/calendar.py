"""Reporting periods and the document's "as at" date.

A document stands at one date (``as_at``, the issue date): every period it reports on has ended by then.
Periods are written the way reports write them (``2025``, ``H1 2025``, ``Q3 2025``, ``Mar 2025``); a
period is a run of whole months, counted as ``year * 12 + month - 1`` so arithmetic on them is plain.
"""

from __future__ import annotations

import datetime as dt
import re

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_PERIOD = re.compile(r"^(?:(?P<year>(?:19|20)\d{2})|H(?P<h>[12]) (?P<hy>\d{4})|Q(?P<q>[1-4]) (?P<qy>\d{4})|"
                     r"(?P<mon>[A-Z][a-z]{2}) (?P<my>\d{4}))$")


def month_index(d: dt.date) -> int:
    return d.year * 12 + d.month - 1


def period_months(period: str) -> tuple[int, int] | None:
    """``(first month index, number of months)`` of a period label, or None when it is not a period."""
    m = _PERIOD.match(period.strip())
    if m is None:
        return None
    if m["year"]:
        return int(m["year"]) * 12, 12
    if m["h"]:
        return int(m["hy"]) * 12 + (int(m["h"]) - 1) * 6, 6
    if m["q"]:
        return int(m["qy"]) * 12 + (int(m["q"]) - 1) * 3, 3
    if m["mon"] in MONTHS:
        return int(m["my"]) * 12 + MONTHS.index(m["mon"]), 1
    return None


def period_end(period: str) -> dt.date | None:
    """The last day of a period (None when the label is not a period)."""
    pm = period_months(period)
    if pm is None:
        return None
    after = pm[0] + pm[1]
    return dt.date(after // 12, after % 12 + 1, 1) - dt.timedelta(days=1)


def month_label(index: int) -> str:
    return f"{MONTHS[index % 12]} {index // 12}"


def quarter_label(index: int) -> str:
    """Label of the quarter that starts at month ``index`` (a multiple of 3)."""
    return f"Q{index % 12 // 3 + 1} {index // 12}"


def half_label(index: int) -> str:
    return f"H{index % 12 // 6 + 1} {index // 12}"


class Calendar:
    """The complete periods as at one date: the last full year, half, quarter and month before it."""

    def __init__(self, as_at: dt.date) -> None:
        self.as_at = as_at
        now = month_index(as_at)
        self.last_month = now - 1
        self.last_quarter = now - now % 3 - 3
        self.last_half = now - now % 6 - 6
        self.fy = as_at.year - 1
        """The last complete (calendar = fiscal) year."""

    def months(self, n: int, back: int = 0) -> list[str]:
        """The ``n`` complete months ending ``back`` months before the last one."""
        end = self.last_month - back
        return [month_label(i) for i in range(end - n + 1, end + 1)]

    def quarters(self, n: int, back: int = 0) -> list[str]:
        end = self.last_quarter - 3 * back
        return [quarter_label(end - 3 * k) for k in range(n - 1, -1, -1)]

    def quarter(self) -> tuple[int, int]:
        """``(quarter number, year)`` of the last complete quarter."""
        return self.last_quarter % 12 // 3 + 1, self.last_quarter // 12

    def half(self) -> str:
        return half_label(self.last_half)

    def year_ago(self, period: str) -> str:
        """The same period one year earlier (``Q3 2025`` -> ``Q3 2024``)."""
        head, _, year = period.rpartition(" ")
        if not head:
            return str(int(period) - 1)
        return f"{head} {int(year) - 1}"

    def previous(self, period: str) -> str:
        """The period just before (``Q1 2026`` -> ``Q4 2025``; ``2025`` -> ``2024``)."""
        start, n = period_months(period)  # type: ignore[misc]
        if n == 12:
            return str(start // 12 - 1)
        prev = start - n
        return {6: half_label, 3: quarter_label, 1: month_label}[n](prev)


__all__ = ["Calendar", "MONTHS", "half_label", "month_index", "month_label", "period_end", "period_months",
           "quarter_label"]
