"""The VSP study's case bank and scripted questions: the shipped cases load and hold the study's design
(three cases, English and Korean, 11 history-taking categories, three question forms, 88 questions), and a
bad file is refused whole, naming its file and key or row."""

from __future__ import annotations

import shutil

import pytest
import yaml

from synthdocqa.judges.osce.case_bank import SHIPPED_CASES, load_case, load_case_bank, load_questions
from synthdocqa.judges.osce.loaders import OsceInputError
from synthdocqa.judges.osce.schema import DEFAULT_HISTORY_CATEGORIES, DEFAULT_LINGUISTIC_FORMS


def test_the_shipped_cases_and_questions_hold_the_design():
    cases = load_case_bank()
    assert sorted(cases) == ["chronic_cough", "fever_in_pregnancy", "hematuria"]
    for case in cases.values():
        assert "not medical advice" in case.disclaimer.en and case.disclaimer.ko
        assert len(case.facts_by_category()) >= 8
        assert sum(f.reveal == "on_request" for f in case.facts) >= 5
        assert sum(f.value is not None for f in case.facts) >= 4
        assert all(any("\uac00" <= ch <= "\ud7a3" for ch in f.ko) for f in case.facts)  # Hangul in every fact
    questions = load_questions(SHIPPED_CASES / "questions.csv", cases)
    assert len(questions) == 88
    for name in cases:
        own = [q for q in questions if q.case == name]
        assert [q.turn for q in own] == list(range(1, len(own) + 1))
        assert {q.form for q in own} == set(DEFAULT_LINGUISTIC_FORMS)
        assert len({q.category for q in own}) >= 8
    assert {q.category for q in questions} <= set(DEFAULT_HISTORY_CATEGORIES)


def _copy(tmp_path):
    dst = tmp_path / "cases"
    shutil.copytree(SHIPPED_CASES, dst)
    return dst


def test_a_bad_case_file_names_its_file_and_key(tmp_path):
    dst = _copy(tmp_path)
    path = dst / "hematuria.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["facts"][0]["category"] = "lifestyle"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(OsceInputError) as err:
        load_case_bank(dst)
    assert "hematuria.yaml" in str(err.value) and "facts.0" in str(err.value) and "lifestyle" in str(err.value)
    data["facts"][0]["category"] = "social_history"
    data["facts"][1]["id"] = data["facts"][0]["id"]
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(OsceInputError, match="used twice"):
        load_case(path)
    del data["persona"]["manner"]["ko"]
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(OsceInputError, match=r"persona\.manner\.ko"):
        load_case(path)
    path.write_text("id: [unclosed", encoding="utf-8")
    with pytest.raises(OsceInputError, match="invalid YAML"):
        load_case(path)


def test_bad_question_rows_are_named_and_nothing_is_loaded(tmp_path):
    import csv

    dst = _copy(tmp_path)
    path = dst / "questions.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    rows[4]["form"] = "leading"  # not a form of the study (spreadsheet row 6)
    rows[7] = dict(rows[6])  # an utterance id twice (row 9), and case turns no longer 1..n
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with pytest.raises(OsceInputError) as err:
        load_questions(path, load_case_bank())
    text = str(err.value)
    assert "questions.csv" in text and "row 6, form: 'leading'" in text
    assert "row 9, utterance_id" in text and "used twice" in text and "turns are not" in text


def test_the_korean_questions_load_from_cp949(tmp_path):
    text = (SHIPPED_CASES / "questions.csv").read_text(encoding="utf-8")
    path = tmp_path / "questions_cp949.csv"
    path.write_bytes(text.encode("cp949"))
    ko = load_questions(path, load_case_bank(), encoding="cp949")
    assert [q.text.ko for q in ko] == [q.text.ko for q in load_questions(SHIPPED_CASES / "questions.csv")]
