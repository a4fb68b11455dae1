"""Accepted answers are true: every surface form of a number denotes its value exactly (K thousand,
M million, B / bn billion, T trillion), no form is rounded, and the reader of forms is independent of
their writer, so one checks the other."""

from decimal import Decimal

import pytest

from synthdocqa.ir.answers import (
    ANSWER_POLICY,
    compact_forms,
    date_forms,
    form_denotes,
    number_forms,
    parse_number_form,
    surface_forms,
)
from synthdocqa.ir.qa_models import DateAnswer, NumberAnswer
from synthdocqa.ir.rng import Rng


def test_thousands_read_K_never_T():
    forms = surface_forms(NumberAnswer(value="17750", currency="EUR"))
    assert "17.75K EUR" in forms and "EUR 17.75 thousand" in forms
    assert not [f for f in forms if "T" in f.replace("EUR", "")], forms
    assert parse_number_form("17.8T EUR", "", "EUR") == Decimal("17.8E12")  # T is trillion
    assert parse_number_form("$2.8T", "", "USD") == Decimal("2.8E12")
    assert compact_forms(Decimal("3E12"))[:2] == ["3 trillion", "3T"]
    assert compact_forms(Decimal("2500000000")) == ["2.5 billion", "2.5B", "2.5bn"]


def test_no_rounded_form_is_accepted():
    # $2,816.18 is not "2.8 thousand" ($2,800); 127,981.62 is not "128 thousand"
    for value in ("2816.18", "127981.62", "143712", "6613100", "1234567"):
        assert compact_forms(Decimal(value)) == [], value
        forms = surface_forms(NumberAnswer(value=value, currency="USD"))
        assert not [f for f in forms if "thousand" in f or "million" in f or f[-1] in "KMB"], forms
    assert compact_forms(Decimal("4200000")) == ["4.2 million", "4.2M"]
    assert compact_forms(Decimal("999")) == []
    assert "exact" in ANSWER_POLICY and "T = trillion" in ANSWER_POLICY


@pytest.mark.parametrize("unit,currency", [("", "EUR"), ("", "USD"), ("", "JPY"), ("%", ""),
                                           ("percentage points", ""), ("incidents", ""), ("kWh", ""), ("", "")])
def test_every_form_of_many_numbers_reads_back_to_its_value(unit, currency):
    rng = Rng(20261202).fork("answer-forms", unit or currency or "bare")
    checked = compact = 0
    for _ in range(400):
        if rng.bernoulli(0.5):  # any number, up to 12 digits and 2 places
            d = Decimal(rng.integers(0, 10 ** rng.integers(0, 13) + 1)).scaleb(-rng.integers(0, 3))
        else:  # a round one (4,200,000; 17,750), which has compact forms
            d = Decimal(rng.integers(1, 1000)).scaleb(rng.integers(1, 13))
        d *= -1 if rng.bernoulli(0.1) else 1
        for form in number_forms(d, unit, currency):
            assert parse_number_form(form, unit, currency) == d, (form, d)
            checked += 1
        compact += bool(compact_forms(d))
    assert checked > 1200 and compact > 150


def test_the_reader_rejects_what_is_not_a_form_of_the_answer():
    assert parse_number_form("17.75K GBP", "", "EUR") is None      # another currency
    assert parse_number_form("12.5 days", "%") is None               # another unit
    assert parse_number_form("12.5 lightyears", "days") is None
    assert parse_number_form("4.2Q", "", "") is None                 # no such scale
    assert not form_denotes(NumberAnswer(value="17750", currency="EUR"), "17.8 thousand EUR")
    assert not form_denotes(NumberAnswer(value="17750", currency="EUR"), "17.8T EUR")


def test_date_forms_read_back_to_their_day():
    import datetime as dt
    for d in (dt.date(2026, 3, 14), dt.date(2025, 12, 1), dt.date(2024, 2, 29)):
        ans = DateAnswer(value=d.isoformat())
        assert all(form_denotes(ans, f) for f in date_forms(d))
        assert not form_denotes(ans, (d + dt.timedelta(days=1)).isoformat())
