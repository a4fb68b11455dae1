"""Ratings/dialogue loaders: round trips in every format and errors that name the bad rows."""

from __future__ import annotations

import pandas as pd
import pytest

from synthdocqa.judges.osce.columns import parse_mapping
from synthdocqa.judges.osce.loaders import (
    OsceInputError,
    load_dialogues,
    load_ratings,
    read_ratings,
    read_table,
    validate_ratings,
    write_table,
)
from synthdocqa.judges.osce.schema import RATING_COLUMNS, MetricSpec, Taxonomy

EXCEL_HEADERS = {"case": "Case", "encounter": "Encounter", "responder": "Responder", "utterance_id": "Utterance ID",
                 "turn": "Turn", "history_category": "History Category", "linguistic_form": "Linguistic form",
                 "rater": "Rater ID", "level": "Level", "metric": "Metric", "score": "Score"}


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
    (tmp_path / "old.xls").write_bytes(b"\xd0\xcf")
    with pytest.raises(OsceInputError, match=r"save it as \.xlsx"):
        read_table(tmp_path / "old.xls")


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    cols = list(RATING_COLUMNS)
    key = ["case", "encounter", "responder", "utterance_id", "rater", "metric"]
    x = a[cols].astype("string").sort_values(key).reset_index(drop=True)
    y = b[cols].astype("string").sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(x, y)


def test_excel_csv_utf8_with_bom_and_spaced_headers_loads(small_study, tmp_path):
    path = tmp_path / "export.csv"
    path.write_bytes(b"\xef\xbb\xbf" + small_study.ratings.rename(columns=EXCEL_HEADERS).to_csv(index=False).encode())
    got = read_ratings(path)
    assert got.read.encoding == "utf-8" and got.read.delimiter == ","
    assert "Rater ID -> rater" in got.notes[0] and "Utterance ID -> utterance_id" in got.notes[0]
    _same(got.table, validate_ratings(small_study.ratings))


def test_korean_windows_excel_cp949_is_detected(small_study, tmp_path):
    df = small_study.ratings.rename(columns=EXCEL_HEADERS).copy()
    df["Rater ID"] = "평가자-" + df["Rater ID"]
    df["Case"] = df["Case"].map({"case1": "흉통", "case2": "복통", "case3": "두통"})
    path = tmp_path / "korean.csv"
    path.write_bytes(df.to_csv(index=False, sep=";").encode("cp949"))
    got = read_ratings(path)
    assert (got.read.encoding, got.read.encoding_detected, got.read.delimiter) == ("cp949", True, ";")
    assert set(got.table["case"]) == {"흉통", "복통", "두통"} and got.table["rater"].str.startswith("평가자-").all()
    assert load_ratings(path, encoding="euc-kr").equals(got.table)
    with pytest.raises(OsceInputError, match="not valid utf-8 at byte"):
        load_ratings(path, encoding="utf-8")


def test_an_unknown_code_page_asks_for_encoding(small_study, tmp_path):
    df = small_study.ratings.copy()
    df["rater"] = "Évaluatrice " + df["rater"]
    path = tmp_path / "latin1.csv"
    path.write_bytes(df.to_csv(index=False).encode("latin-1"))
    with pytest.raises(OsceInputError, match=r"not UTF-8 \(byte 0xc9 at line 2\).*pass --encoding"):
        load_ratings(path)
    assert load_ratings(path, encoding="latin-1")["rater"].str.startswith("Évaluatrice").all()


def test_xlsx_export_loads(small_study, tmp_path):
    pytest.importorskip("openpyxl", reason="reading .xlsx needs openpyxl")
    path = tmp_path / "ratings.xlsx"
    with pd.ExcelWriter(path, engine="openpyxl") as xl:
        pd.DataFrame({"note": ["cover sheet"]}).to_excel(xl, sheet_name="About", index=False)
        small_study.ratings.rename(columns=EXCEL_HEADERS).to_excel(xl, sheet_name="Ratings", index=False)
    got = read_ratings(path, sheet="Ratings")
    assert got.read.format == "xlsx" and got.read.sheet == "Ratings"
    _same(got.table, validate_ratings(small_study.ratings))
    first = read_ratings(path)  # the first sheet is the cover sheet: the first sheet with rating columns is read
    assert first.read.sheet == "Ratings" and any("'About' has no rating columns" in n for n in first.notes)
    _same(first.table, got.table)
    with pytest.raises(OsceInputError, match=r"no sheet 'Scores' \(sheets: About, Ratings\)"):
        load_ratings(path, sheet="Scores")


def _wide(ratings: pd.DataFrame) -> pd.DataFrame:
    ids = ["case", "encounter", "responder", "utterance_id", "turn", "history_category", "linguistic_form", "rater"]
    sent = ratings[ratings["level"] == "sentence"].pivot(index=ids, columns="metric", values="score").reset_index()
    enc = ratings[ratings["level"] == "encounter"].pivot(index=ids[:3] + ["rater"], columns="metric",
                                                         values="score").reset_index()
    wide = pd.concat([sent, enc], ignore_index=True)
    return wide.rename(columns={"correctness": "Correctness", "overall": "Overall", **EXCEL_HEADERS})


def test_wide_layout_one_column_per_metric(small_study, tmp_path):
    wide = _wide(small_study.ratings)
    path = write_table(wide, tmp_path / "wide.csv")
    got = read_ratings(path)
    assert any(n.startswith("wide layout: metric columns correctness, relevance, naturalness") for n in got.notes)
    _same(got.table, validate_ratings(small_study.ratings))
    # an error in a wide cell names the file row and the metric column
    bad = wide.copy()
    bad.loc[2, "Correctness"] = 7
    with pytest.raises(OsceInputError, match=r"score outside the scale in row 3 \(1\): row 3: correctness=7"):
        load_ratings(write_table(bad, tmp_path / "bad_wide.csv"))


def test_wide_layout_with_encounter_scores_repeated_on_utterance_rows(small_study, tmp_path):
    r = small_study.ratings
    sent = _wide(r[r["level"] == "sentence"])
    enc = r[r["metric"] == "overall"][["encounter", "rater", "score"]].rename(columns={"rater": "Rater ID",
                                                                                      "score": "Overall"})
    merged = sent.merge(enc, left_on=["Encounter", "Rater ID"], right_on=["encounter", "Rater ID"]).drop(
        columns=["encounter"])
    got = read_ratings(write_table(merged, tmp_path / "repeated.csv"))
    assert "counted once per dialogue" in " ".join(got.notes)
    assert (got.table["metric"] == "overall").sum() == (r["metric"] == "overall").sum()


def test_explicit_column_mapping_and_clashes(small_study, tmp_path):
    df = small_study.ratings.rename(columns={"score": "Score (1-5)", "rater": "Bewerter"})
    path = write_table(df, tmp_path / "mapped.csv")
    with pytest.raises(OsceInputError, match="missing column"):
        load_ratings(path)
    table = load_ratings(path, columns=parse_mapping("Score (1-5)=score, bewerter=rater"))
    assert len(table) == len(df)
    with pytest.raises(OsceInputError, match="unknown target 'grade'"):
        load_ratings(path, columns={"Score (1-5)": "grade"})
    with pytest.raises(OsceInputError, match="no column 'Note'"):
        load_ratings(path, columns={"Note": "score"})
    clash = small_study.ratings.assign(rater_id=small_study.ratings["rater"])
    with pytest.raises(OsceInputError, match="columns 'rater' and 'rater_id' both map to 'rater'"):
        load_ratings(write_table(clash, tmp_path / "clash.csv"))


def test_unknown_keys_in_user_inputs_are_errors_naming_the_key(tmp_path):
    """A misspelt taxonomy field or analysis option is refused, not silently replaced by its default."""
    import json

    from pydantic import ValidationError

    from synthdocqa.judges.osce.analysis import AnalysisOptions
    from synthdocqa.judges.osce.crosscheck import Tolerances
    from synthdocqa.judges.osce.pipeline import load_taxonomy
    from synthdocqa.judges.osce.schema import Dialogue, Taxonomy

    good = tmp_path / "taxonomy.json"
    good.write_text(json.dumps({"reference_responder": "expert"}))
    assert load_taxonomy(good).reference_responder == "expert"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"reference_responder": "expert", "linguistic_froms": ["open"]}))
    with pytest.raises(Exception, match="linguistic_froms") as err:
        load_taxonomy(bad)
    assert "bad.json" in str(err.value)
    for model, data, key in ((AnalysisOptions, {"confidance": 0.9}, "confidance"),
                             (Tolerances, {"rell": 1e-3}, "rell"),
                             (Taxonomy, {"metric": []}, "metric"),
                             (Dialogue, {"case": "c", "encounter": "e", "responder": "r", "turns": [],
                                         "notes": "x"}, "notes")):
        with pytest.raises(ValidationError, match=key):
            model.model_validate(data)
