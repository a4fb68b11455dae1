"""Read, validate and write ratings and dialogue tables (CSV, Parquet, JSON Lines).

Validation reports *every* problem it finds, each with the 1-based data row number (header not
counted) so a user can fix a file in one pass; nothing downstream runs on a table that failed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from .schema import (
    DIALOGUE_COLUMNS,
    RATING_COLUMNS,
    REQUIRED_RATING_COLUMNS,
    Dialogue,
    Taxonomy,
    Turn,
)

MAX_LISTED = 20
SUFFIXES = (".csv", ".parquet", ".pq", ".jsonl", ".ndjson", ".json")


class OsceInputError(ValueError):
    """A ratings/dialogues table that cannot be analysed; the message names the rows and fields."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        shown = problems[:MAX_LISTED]
        more = f"; ... and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        super().__init__(f"{source}: {'; '.join(shown)}{more}")


def read_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A DataFrame from CSV / Parquet / JSON Lines, chosen by suffix; every column read as given."""
    p = Path(path)
    if not p.is_file():
        raise OsceInputError(str(p), ["file not found"])
    suffix = p.suffix.lower()
    try:
        if suffix == ".csv":
            return pd.read_csv(p, dtype=str, keep_default_na=False, na_values=[""])
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(p)
        if suffix in (".jsonl", ".ndjson", ".json"):
            return pd.read_json(p, lines=suffix != ".json", dtype=False)
    except (ValueError, OSError) as err:
        raise OsceInputError(str(p), [f"unreadable {suffix} file: {err}"]) from None
    raise OsceInputError(str(p), [f"unsupported suffix {suffix!r} (expected one of {', '.join(SUFFIXES)})"])


def write_table(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Atomic write (temp file in the same folder + rename), format chosen by suffix."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES:
        raise OsceInputError(str(p), [f"unsupported suffix {suffix!r} (expected one of {', '.join(SUFFIXES)})"])
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
    os.close(fd)
    try:
        if suffix == ".csv":
            df.to_csv(tmp, index=False, lineterminator="\n")
        elif suffix in (".parquet", ".pq"):
            df.to_parquet(tmp, index=False)
        else:
            df.to_json(tmp, orient="records", lines=suffix != ".json", force_ascii=False)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


def _rows(mask: Iterable[bool] | pd.Series) -> list[int]:
    if isinstance(mask, pd.Series):
        mask = mask.astype("boolean").fillna(False)
    idx = np.flatnonzero(np.asarray(mask, dtype=bool))
    return [int(i) + 1 for i in idx]


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


def validate_ratings(df: pd.DataFrame, taxonomy: Taxonomy | None = None, source: str = "ratings") -> pd.DataFrame:
    """Check a long-format ratings table and return it normalised (strings, int scores, int turns).

    Raises ``OsceInputError`` listing every problem: missing columns, empty required cells, unknown
    metric / level / category / form, score not an integer or outside the metric's scale, sentence
    rows without an utterance, duplicate rater x unit x metric, one item with two categories.
    """
    tax = taxonomy or Taxonomy()
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
            problems.append(f"empty {col!r} in {_fmt(_rows(bad))}")

    specs = {m.name: m for m in tax.metrics}
    unknown_metric = out["metric"].notna() & ~out["metric"].isin(list(specs))
    for name in sorted(out.loc[unknown_metric, "metric"].unique()):
        problems.append(f"unknown metric {name!r} in {_fmt(_rows(out['metric'] == name))} (known: {', '.join(specs)})")
    bad_level = out["level"].notna() & ~out["level"].isin(["sentence", "encounter"])
    if bad_level.any():
        problems.append(f"level must be 'sentence' or 'encounter' in {_fmt(_rows(bad_level))}")
    expected_level = out["metric"].map({k: v.level for k, v in specs.items()})
    mismatch = out["level"].notna() & expected_level.notna() & (out["level"] != expected_level) & ~bad_level
    if mismatch.any():
        problems.append(f"level does not match the metric's level in {_fmt(_rows(mismatch))}")

    num = pd.to_numeric(out["score"], errors="coerce")
    not_int = out["score"].notna() & (num.isna() | (num != np.round(num)))
    if not_int.any():
        problems.append(f"score is not an integer in {_fmt(_rows(not_int))}")
    lo = out["metric"].map({k: v.scale_min for k, v in specs.items()})
    hi = out["metric"].map({k: v.scale_max for k, v in specs.items()})
    outside = num.notna() & lo.notna() & ((num < lo) | (num > hi)) & ~not_int
    if outside.any():
        rows = _rows(outside)
        examples = ", ".join(
            f"row {r}: {out.at[r - 1, 'metric']}={out.at[r - 1, 'score']} not in "
            f"[{int(lo.iloc[r - 1])}, {int(hi.iloc[r - 1])}]"
            for r in rows[:5]
        )
        problems.append(f"score outside the scale in {_fmt(rows)}: {examples}")

    sentence = out["level"] == "sentence"
    for col in ("utterance_id", "history_category", "linguistic_form"):
        empty = sentence & out[col].isna()
        if empty.any():
            problems.append(f"sentence-level rows need {col!r}: empty in {_fmt(_rows(empty))}")
    for col, allowed in (("history_category", tax.history_categories), ("linguistic_form", tax.linguistic_forms)):
        bad = out[col].notna() & ~out[col].isin(list(allowed))
        for value in sorted(out.loc[bad, col].unique()):
            problems.append(
                f"unknown {col} {value!r} in {_fmt(_rows(out[col] == value))} (allowed: {', '.join(allowed)})"
            )
    turn_num = pd.to_numeric(out["turn"], errors="coerce")
    bad_turn = out["turn"].notna() & (turn_num.isna() | (turn_num < 0) | (turn_num != np.round(turn_num)))
    if bad_turn.any():
        problems.append(f"turn must be a non-negative integer in {_fmt(_rows(bad_turn))}")

    key = ["case", "encounter", "responder", "utterance_id", "rater", "metric"]
    keyed = out[key].fillna("\x00")
    dup = keyed.duplicated(keep=False) & out[list(REQUIRED_RATING_COLUMNS)].notna().all(axis=1)
    if dup.any():
        first = _rows(dup)[0] - 1
        what = ", ".join(f"{k}={out.at[first, k]}" for k in key if pd.notna(out.at[first, k]))
        problems.append(f"duplicate rater x unit x metric in {_fmt(_rows(dup))} (e.g. {what})")

    items = out.loc[sentence & out["utterance_id"].notna(), ["case", "utterance_id", "history_category", "linguistic_form"]]
    if len(items):
        n_attr = items.groupby(["case", "utterance_id"], dropna=False)[["history_category", "linguistic_form"]].nunique()
        clash = n_attr[(n_attr > 1).any(axis=1)]
        for case, utt in clash.index[:MAX_LISTED]:
            rows = _rows(sentence & (out["case"] == case) & (out["utterance_id"] == utt))
            problems.append(
                f"item case={case} utterance_id={utt} has more than one history_category/linguistic_form ({_fmt(rows)})"
            )

    if out["responder"].notna().any() and tax.reference_responder not in set(out["responder"].dropna()):
        problems.append(
            f"reference responder {tax.reference_responder!r} not present (responders: "
            f"{', '.join(sorted(out['responder'].dropna().unique()))})"
        )
    if problems:
        raise OsceInputError(source, problems)

    out["score"] = num.astype(int)
    out["turn"] = turn_num.astype("Int64")
    return out


def load_ratings(path: str | os.PathLike[str], taxonomy: Taxonomy | None = None) -> pd.DataFrame:
    """Read and validate a ratings file (see ``validate_ratings``)."""
    return validate_ratings(read_table(path), taxonomy, source=str(path))


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


def load_dialogues(path: str | os.PathLike[str]) -> list[Dialogue]:
    return validate_dialogues(read_table(path), source=str(path))


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
