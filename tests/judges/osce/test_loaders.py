"""Ratings/dialogue loaders: round trips in every format and errors that name the bad rows."""

from __future__ import annotations

import pandas as pd
import pytest

from judges.osce.loaders import (
    OsceInputError,
    load_dialogues,
    load_ratings,
    read_table,
    validate_ratings,
    write_table,
)
from judges.osce.schema import MetricSpec, Taxonomy


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".jsonl"])
def test_round_trip_every_format(small_study, tmp_path, suffix):
    path = write_table(small_study.ratings, tmp_path / f"ratings{suffix}")
    table = load_ratings(path)
    assert len(table) == len(small_study.ratings)
    assert table["score"].tolist() == small_study.ratings["score"].tolist()
    enc = table[table["level"] == "encounter"]
    assert enc["utterance_id"].isna().all() and enc["turn"].isna().all()
    sent = table[table["level"] == "sentence"]
    assert sent["turn"].notna().all()
    assert not list(tmp_path.glob(".*"))  # no temp file left behind


def test_dialogues_load_into_ordered_turns(small_study, tmp_path):
    path = write_table(small_study.dialogues, tmp_path / "dialogues.csv")
    dialogues = load_dialogues(path)
    assert len(dialogues) == 5 * 3  # responders x cases
    first = dialogues[0]
    assert [t.turn for t in first.turns] == sorted(t.turn for t in first.turns)
    assert all(t.question and t.response for t in first.turns)


def _broken(small_study) -> pd.DataFrame:
    return small_study.ratings.copy()


def _error(df: pd.DataFrame, tmp_path, taxonomy: Taxonomy | None = None) -> str:
    path = write_table(df, tmp_path / "bad.csv")
    with pytest.raises(OsceInputError) as info:
        load_ratings(path, taxonomy)
    return str(info.value)


def test_score_outside_scale_names_row_metric_and_scale(small_study, tmp_path):
    df = _broken(small_study)
    df.loc[3, "score"] = 7
    msg = _error(df, tmp_path)
    assert "score outside the scale" in msg and "row 4:" in msg and "not in [1, 5]" in msg


def test_unknown_category_and_form_are_named(small_study, tmp_path):
    df = _broken(small_study)
    df.loc[10, "history_category"] = "astrology"
    df.loc[11, "linguistic_form"] = "rhetorical"
    msg = _error(df, tmp_path)
    assert "unknown history_category 'astrology' in row 11 " in msg
    assert "unknown linguistic_form 'rhetorical' in row 12 " in msg


def test_duplicate_rater_unit_metric(small_study, tmp_path):
    df = pd.concat([_broken(small_study), small_study.ratings.iloc[[5]]], ignore_index=True)
    msg = _error(df, tmp_path)
    assert "duplicate rater x unit x metric" in msg
    assert f"rows 6, {len(df)} (2)" in msg


def test_missing_columns_and_empty_cells(small_study, tmp_path):
    msg = _error(_broken(small_study).drop(columns=["rater", "score"]), tmp_path)
    assert "missing column(s): rater, score" in msg
    df = _broken(small_study)
    df.loc[0, "rater"] = None
    assert "empty 'rater' in row 1 " in _error(df, tmp_path)


def test_non_integer_score_unknown_metric_level_mismatch(small_study, tmp_path):
    df = _broken(small_study)
    df["score"] = df["score"].astype(object)
    df.loc[0, "score"] = "3.5"
    df.loc[1, "metric"] = "charisma"
    enc_row = int(df.index[df["level"] == "encounter"][0])
    df.loc[enc_row, "level"] = "sentence"
    msg = _error(df, tmp_path)
    assert "score is not an integer in row 1 " in msg
    assert "unknown metric 'charisma' in row 2 " in msg
    assert f"level does not match the metric's level in row {enc_row + 1} " in msg


def test_item_with_two_categories_and_missing_reference(small_study, tmp_path):
    df = _broken(small_study)
    sent = df.index[df["level"] == "sentence"]
    other = "allergies" if df.loc[sent[0], "history_category"] != "allergies" else "medications"
    df.loc[sent[0], "history_category"] = other
    msg = _error(df, tmp_path)
    assert "has more than one history_category/linguistic_form" in msg
    df2 = small_study.ratings[small_study.ratings["responder"] != "human"]
    assert "reference responder 'human' not present" in _error(df2, tmp_path)


def test_custom_taxonomy_scale_and_reference(small_study):
    tax = Taxonomy(metrics=(MetricSpec(name="correctness", level="sentence", scale_min=1, scale_max=3),),
                   reference_responder="llm_a")
    df = small_study.ratings[small_study.ratings["metric"] == "correctness"]
    with pytest.raises(OsceInputError, match=r"not in \[1, 3\]"):
        validate_ratings(df, tax)
    ok = df[df["score"] <= 3]
    assert len(validate_ratings(ok, tax)) == len(ok)


def test_unsupported_suffix_and_missing_file(tmp_path):
    with pytest.raises(OsceInputError, match="unsupported suffix"):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / "x.xlsx")
    with pytest.raises(OsceInputError, match="file not found"):
        read_table(tmp_path / "absent.csv")
