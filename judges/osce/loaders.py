"""Read, validate and write ratings and dialogue tables (CSV in any common encoding, .xlsx, Parquet, JSONL).

Reading goes through ``readers`` (encoding, delimiter, Excel) and ``columns`` (header normalisation,
``--columns`` mapping, wide layouts). Validation reports *every* problem it finds, each with the
1-based data row number of the file (header not counted; for a wide table, the row the score came
from) so a user can fix a file in one pass; nothing downstream runs on a table that failed.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from synthdocqa.ir.files import atomic_write_bytes

from .columns import ColumnError, is_wide, map_columns, wide_to_long
from .readers import ReadError, ReadInfo, read_any
from .schema import (
    DIALOGUE_COLUMNS,
    RATING_COLUMNS,
    REQUIRED_RATING_COLUMNS,
    Dialogue,
    Taxonomy,
    Turn,
)

MAX_LISTED = 20
WRITE_SUFFIXES = (".csv", ".parquet", ".pq", ".jsonl", ".ndjson", ".json")


class OsceInputError(ValueError):
    """A ratings/dialogues table that cannot be analysed; the message names the rows and fields."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        shown = problems[:MAX_LISTED]
        more = f"; ... and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        super().__init__(f"{source}: {'; '.join(shown)}{more}")


class LoadedRatings(BaseModel):
    """A validated ratings table and what was done to read it (encoding, renames, wide layout)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    table: pd.DataFrame
    read: ReadInfo
    notes: list[str] = Field(default_factory=list)


def read_table(path: str | os.PathLike[str], *, encoding: str | None = None, sheet: str | None = None) -> pd.DataFrame:
    """A DataFrame from CSV / TSV / .xlsx / Parquet / JSON Lines, chosen by suffix; cells as given."""
    return read_table_info(path, encoding=encoding, sheet=sheet)[0]


def read_table_info(path: str | os.PathLike[str], *, encoding: str | None = None,
                    sheet: str | None = None) -> tuple[pd.DataFrame, ReadInfo]:
    try:
        return read_any(path, encoding=encoding, sheet=sheet)
    except ReadError as err:
        raise OsceInputError(str(path), [str(err)]) from None


def write_table(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Atomic write (``ir.files``), format chosen by suffix."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in WRITE_SUFFIXES:
        raise OsceInputError(str(p), [f"unsupported suffix {suffix!r} (expected one of {', '.join(WRITE_SUFFIXES)})"])
    if suffix == ".csv":
        data = df.to_csv(index=False, lineterminator="\n").encode("utf-8")
    elif suffix in (".parquet", ".pq"):
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        data = buf.getvalue()
    else:
        text = df.to_json(orient="records", lines=suffix != ".json", force_ascii=False)
        data = (text or "").encode("utf-8")
    atomic_write_bytes(p, data)
    return p


def _rows(mask: Iterable[bool] | pd.Series) -> list[int]:
    """1-based positions of the true cells (mapped to source rows by ``_source``)."""
    if isinstance(mask, pd.Series):
        mask = mask.astype("boolean").fillna(False)
    idx = np.flatnonzero(np.asarray(mask, dtype=bool))
    return [int(i) + 1 for i in idx]


def _source(rows: list[int], source_rows: np.ndarray | None) -> list[int]:
    if source_rows is None:
        return rows
    return list(dict.fromkeys(int(source_rows[r - 1]) for r in rows))


def _fmt(rows: list[int]) -> str:
    head = ", ".join(str(r) for r in rows[:8])
    return f"row{'s' if len(rows) > 1 else ''} {head}{' ...' if len(rows) > 8 else ''} ({len(rows)})"


def _text(series: pd.Series) -> pd.Series:
    """Strings with missing kept as NA; floats like 3.0 from Parquet become '3'."""
    def one(v: object) -> object:
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
            return pd.NA
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        s = str(v).strip()
        return s if s else pd.NA

    return series.map(one).astype("string")


def validate_ratings(df: pd.DataFrame, taxonomy: Taxonomy | None = None, source: str = "ratings",
                     source_rows: Sequence[int] | None = None) -> pd.DataFrame:
    """Check a long-format ratings table and return it normalised (strings, int scores, int turns).

    Raises ``OsceInputError`` listing every problem: missing columns, empty required cells, unknown
    metric / level / category / form, score not an integer or outside the metric's scale, sentence
    rows without an utterance, duplicate rater x unit x metric, one item with two categories.
    ``source_rows`` gives the file row of every table row when they differ (a wide table made long).
    """
    tax = taxonomy or Taxonomy()
    src = None if source_rows is None else np.asarray(source_rows, dtype=np.int64)

    def where(mask: Iterable[bool] | pd.Series) -> str:
        return _fmt(_source(_rows(mask), src))

    missing = [c for c in REQUIRED_RATING_COLUMNS if c not in df.columns]
    if missing:
        raise OsceInputError(source, [f"missing column(s): {', '.join(missing)} (have: {', '.join(map(str, df.columns))})"])
    if len(df) == 0:
        raise OsceInputError(source, ["no rows"])
    out = pd.DataFrame(index=range(len(df)))
    for col in RATING_COLUMNS:
        out[col] = _text(df[col].reset_index(drop=True)) if col in df.columns else pd.Series([pd.NA] * len(df), dtype="string")
    problems: list[str] = []

    for col in REQUIRED_RATING_COLUMNS:
        bad = out[col].isna()
        if bad.any():
            problems.append(f"empty {col!r} in {where(bad)}")

    specs = {m.name: m for m in tax.metrics}
    unknown_metric = out["metric"].notna() & ~out["metric"].isin(list(specs))
    for name in sorted(out.loc[unknown_metric, "metric"].unique()):
        problems.append(f"unknown metric {name!r} in {where(out['metric'] == name)} (known: {', '.join(specs)})")
    bad_level = out["level"].notna() & ~out["level"].isin(["sentence", "encounter"])
    if bad_level.any():
        problems.append(f"level must be 'sentence' or 'encounter' in {where(bad_level)}")
    expected_level = out["metric"].map({k: v.level for k, v in specs.items()})
    mismatch = out["level"].notna() & expected_level.notna() & (out["level"] != expected_level) & ~bad_level
    if mismatch.any():
        problems.append(f"level does not match the metric's level in {where(mismatch)}")

    num = pd.to_numeric(out["score"], errors="coerce")
    not_int = out["score"].notna() & (num.isna() | (num != np.round(num)))
    if not_int.any():
        problems.append(f"score is not an integer in {where(not_int)}")
    lo = out["metric"].map({k: v.scale_min for k, v in specs.items()})
    hi = out["metric"].map({k: v.scale_max for k, v in specs.items()})
    outside = num.notna() & lo.notna() & ((num < lo) | (num > hi)) & ~not_int
    if outside.any():
        rows = _rows(outside)
        examples = ", ".join(
            f"row {_source([r], src)[0]}: {out.at[r - 1, 'metric']}={out.at[r - 1, 'score']} not in "
            f"[{int(lo.iloc[r - 1])}, {int(hi.iloc[r - 1])}]"
            for r in rows[:5]
        )
        problems.append(f"score outside the scale in {where(outside)}: {examples}")

    sentence = out["level"] == "sentence"
    for col in ("utterance_id", "history_category", "linguistic_form"):
        empty = sentence & out[col].isna()
        if empty.any():
            problems.append(f"sentence-level rows need {col!r}: empty in {where(empty)}")
    for col, allowed in (("history_category", tax.history_categories), ("linguistic_form", tax.linguistic_forms)):
        bad = out[col].notna() & ~out[col].isin(list(allowed))
        for value in sorted(out.loc[bad, col].unique()):
            problems.append(
                f"unknown {col} {value!r} in {where(out[col] == value)} (allowed: {', '.join(allowed)})"
            )
    turn_num = pd.to_numeric(out["turn"], errors="coerce")
    bad_turn = out["turn"].notna() & (turn_num.isna() | (turn_num < 0) | (turn_num != np.round(turn_num)))
    if bad_turn.any():
        problems.append(f"turn must be a non-negative integer in {where(bad_turn)}")

    key = ["case", "encounter", "responder", "utterance_id", "rater", "metric"]
    keyed = out[key].fillna("\x00")
    dup = keyed.duplicated(keep=False) & out[list(REQUIRED_RATING_COLUMNS)].notna().all(axis=1)
    if dup.any():
        first = _rows(dup)[0] - 1
        what = ", ".join(f"{k}={out.at[first, k]}" for k in key if pd.notna(out.at[first, k]))
        problems.append(f"duplicate rater x unit x metric in {where(dup)} (e.g. {what})")

    items = out.loc[sentence & out["utterance_id"].notna(), ["case", "utterance_id", "history_category", "linguistic_form"]]
    if len(items):
        n_attr = items.groupby(["case", "utterance_id"], dropna=False)[["history_category", "linguistic_form"]].nunique()
        clash = n_attr[(n_attr > 1).any(axis=1)]
        for case, utt in clash.index[:MAX_LISTED]:
            rows = where(sentence & (out["case"] == case) & (out["utterance_id"] == utt))
            problems.append(
                f"item case={case} utterance_id={utt} has more than one history_category/linguistic_form ({rows})"
            )

    if out["responder"].notna().any() and tax.reference_responder not in set(out["responder"].dropna()):
        problems.append(
            f"reference responder {tax.reference_responder!r} not present (responders: "
            f"{', '.join(sorted(out['responder'].dropna().unique()))}; name the reference with --reference NAME "
            "or the taxonomy's reference_responder)"
        )
    if problems:
        raise OsceInputError(source, problems)

    out["score"] = num.astype(int)
    out["turn"] = turn_num.astype("Int64")
    return out


def read_ratings(path: str | os.PathLike[str], taxonomy: Taxonomy | None = None, *, encoding: str | None = None,
                 columns: Mapping[str, str] | None = None, sheet: str | None = None) -> LoadedRatings:
    """Read a ratings export (any layout the module doc lists), map its columns and validate it."""
    tax = taxonomy or Taxonomy()
    raw, info = read_table_info(path, encoding=encoding, sheet=sheet)
    notes: list[str] = []
    try:
        df, renamed = map_columns(raw, tax, columns)
        problem = None if _holds_ratings(df, tax) else _missing_text(df)
    except ColumnError as err:
        if info.format != "xlsx" or sheet is not None:
            raise OsceInputError(str(path), [str(err)]) from None
        problem = str(err)
    if problem is not None and info.format == "xlsx" and sheet is None:
        df, renamed, info, skipped = _sheet_with_ratings(path, tax, columns, info.sheet, problem)
        notes.append(f"sheet {info.sheet!r} holds the ratings ({skipped})")
    notes += [f"columns renamed: {', '.join(renamed)}"] if renamed else []
    rows = None
    if is_wide(df, tax):
        df, rows, wide_notes = wide_to_long(df, tax)
        notes += wide_notes
        if len(df) == 0:
            raise OsceInputError(str(path), ["wide layout: every metric cell is empty"])
    table = validate_ratings(df, tax, source=str(path), source_rows=rows)
    return LoadedRatings(table=table, read=info, notes=notes)


def _holds_ratings(df: pd.DataFrame, tax: Taxonomy) -> bool:
    return is_wide(df, tax) or set(REQUIRED_RATING_COLUMNS) <= set(map(str, df.columns))


def _missing_text(df: pd.DataFrame) -> str:
    return "missing column(s): " + ", ".join(c for c in REQUIRED_RATING_COLUMNS if c not in set(map(str, df.columns)))


def _sheet_with_ratings(path: str | os.PathLike[str], tax: Taxonomy, columns: Mapping[str, str] | None,
                        first: str | None, first_problem: str) -> tuple[pd.DataFrame, list[str], ReadInfo, str]:
    """A workbook whose first sheet is not the ratings (a cover note, a codebook): the first sheet whose columns map,
    or an error that names every sheet and what each lacks."""
    names = [str(n) for n in pd.ExcelFile(path, engine="openpyxl").sheet_names]
    problems = [f"{first!r}: {first_problem}"]
    for name in names:
        if name == first:
            continue
        raw, info = read_table_info(path, sheet=name)
        try:
            df, renamed = map_columns(raw, tax, columns)
        except ColumnError as err:
            problems.append(f"{name!r}: {err}")
            continue
        if not _holds_ratings(df, tax):
            problems.append(f"{name!r}: {_missing_text(df)}")
            continue
        return df, renamed, info, f"{first!r} has no rating columns"
    raise OsceInputError(str(path), [f"no sheet holds the ratings ({len(names)} sheets: {'; '.join(problems)}); "
                                     "name one with --sheet"])


def load_ratings(path: str | os.PathLike[str], taxonomy: Taxonomy | None = None, *, encoding: str | None = None,
                 columns: Mapping[str, str] | None = None, sheet: str | None = None) -> pd.DataFrame:
    """Read and validate a ratings file (see ``read_ratings`` and ``validate_ratings``)."""
    return read_ratings(path, taxonomy, encoding=encoding, columns=columns, sheet=sheet).table


def validate_dialogues(df: pd.DataFrame, source: str = "dialogues") -> list[Dialogue]:
    """Turn a dialogues table (one row per turn) into ``Dialogue`` contracts, naming bad rows."""
    required = ("case", "encounter", "responder", "turn", "utterance_id", "question", "response")
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise OsceInputError(source, [f"missing column(s): {', '.join(missing)}"])
    d = pd.DataFrame({c: _text(df[c].reset_index(drop=True)) for c in DIALOGUE_COLUMNS if c in df.columns})
    problems: list[str] = []
    for col in required:
        bad = d[col].isna()
        if bad.any():
            problems.append(f"empty {col!r} in {_fmt(_rows(bad))}")
    turn = pd.to_numeric(d["turn"], errors="coerce")
    bad_turn = d["turn"].notna() & (turn.isna() | (turn < 0))
    if bad_turn.any():
        problems.append(f"turn must be a non-negative integer in {_fmt(_rows(bad_turn))}")
    dup = d.duplicated(["case", "encounter", "responder", "utterance_id"], keep=False)
    if dup.any():
        problems.append(f"duplicate encounter x utterance in {_fmt(_rows(dup))}")
    if problems:
        raise OsceInputError(source, problems)
    d["turn"] = turn.astype(int)
    dialogues = []
    for (case, enc, resp), g in d.sort_values(["case", "encounter", "responder", "turn"]).groupby(
        ["case", "encounter", "responder"], sort=True
    ):
        turns = tuple(
            Turn(
                turn=int(r.turn),
                utterance_id=str(r.utterance_id),
                question=str(r.question),
                response=str(r.response),
                history_category=None if pd.isna(getattr(r, "history_category", pd.NA)) else str(r.history_category),
                linguistic_form=None if pd.isna(getattr(r, "linguistic_form", pd.NA)) else str(r.linguistic_form),
            )
            for r in g.itertuples(index=False)
        )
        dialogues.append(Dialogue(case=str(case), encounter=str(enc), responder=str(resp), turns=turns))
    return dialogues


def load_dialogues(path: str | os.PathLike[str], *, encoding: str | None = None) -> list[Dialogue]:
    return validate_dialogues(read_table(path, encoding=encoding), source=str(path))


def dialogues_frame(dialogues: Iterable[Dialogue]) -> pd.DataFrame:
    rows = [
        {
            "case": d.case, "encounter": d.encounter, "responder": d.responder, "turn": t.turn,
            "utterance_id": t.utterance_id, "history_category": t.history_category,
            "linguistic_form": t.linguistic_form, "question": t.question, "response": t.response,
        }
        for d in dialogues
        for t in d.turns
    ]
    return pd.DataFrame(rows, columns=list(DIALOGUE_COLUMNS))
