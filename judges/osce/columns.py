"""Map exported column headers onto the ratings schema, and turn wide tables (one column per metric) long.

Headers are normalised (byte-order mark and surrounding spaces removed, lower case, runs of other
characters -> ``_``: ``"Rater ID"`` -> ``rater_id``) and a few unambiguous spellings are accepted
(``rater_id`` -> ``rater``, ``category`` -> ``history_category``, ...). Anything else is mapped
explicitly: ``--columns "Score (1-5)=score,Bewerter=rater"`` (source as written or normalised). Two
columns landing on the same name is an error naming both, never a silent choice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .schema import RATING_COLUMNS, Taxonomy

ALIASES: dict[str, str] = {
    "rater_id": "rater", "rater_name": "rater", "case_id": "case", "case_name": "case",
    "encounter_id": "encounter", "responder_id": "responder", "utterance": "utterance_id",
    "question_id": "utterance_id", "category": "history_category", "form": "linguistic_form",
    "turn_no": "turn", "turn_number": "turn",
}


class ColumnError(ValueError):
    """Headers that cannot be mapped onto the schema; the message names them."""


def normalise_name(name: object) -> str:
    text = str(name).replace("\ufeff", "").strip().lower()
    return re.sub(r"[^0-9a-z]+", "_", text).strip("_")


def parse_mapping(text: str | None) -> dict[str, str]:
    """``"Rater ID=rater, Score=score"`` -> ``{"Rater ID": "rater", "Score": "score"}``."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        if "=" not in part:
            raise ColumnError(f"--columns: expected SOURCE=TARGET, got {part.strip()!r}")
        src, dst = (x.strip() for x in part.rsplit("=", 1))
        if not src or not dst:
            raise ColumnError(f"--columns: expected SOURCE=TARGET, got {part.strip()!r}")
        out[src] = dst
    return out


def map_columns(df: pd.DataFrame, taxonomy: Taxonomy, mapping: Mapping[str, str] | None = None
                ) -> tuple[pd.DataFrame, list[str]]:
    """Rename ``df``'s columns onto the schema (plus metric names, for wide tables); notes of renames."""
    targets = set(RATING_COLUMNS) | set(taxonomy.metric_names)
    raw = [str(c) for c in df.columns]
    clean = [c.replace("\ufeff", "").strip() for c in raw]
    norm = [normalise_name(c) for c in raw]
    new: list[str] = list(norm)
    explicit = dict(mapping or {})
    hit: set[int] = set()
    for src, dst in explicit.items():
        if dst not in targets:
            raise ColumnError(f"--columns: unknown target {dst!r} (known: {', '.join(RATING_COLUMNS)} or a metric)")
        hits = [i for i in range(len(raw)) if src in (raw[i], clean[i]) or normalise_name(src) == norm[i]]
        if not hits:
            raise ColumnError(f"--columns: no column {src!r} (columns: {', '.join(clean)})")
        for i in hits:
            new[i] = dst
            hit.add(i)
    for i, n in enumerate(norm):
        if i not in hit and n not in targets and n in ALIASES:
            new[i] = ALIASES[n]
    seen: dict[str, int] = {}
    for i, n in enumerate(new):
        if n in targets and n in seen:
            raise ColumnError(f"columns {clean[seen[n]]!r} and {clean[i]!r} both map to {n!r}; "
                              "rename one or map it with --columns")
        seen.setdefault(n, i)
    notes = [f"{clean[i]} -> {new[i]}" for i in range(len(raw)) if new[i] in targets and clean[i] != new[i]]
    out = df.copy()
    out.columns = new
    return out, notes


def is_wide(df: pd.DataFrame, taxonomy: Taxonomy) -> bool:
    """One column per metric instead of ``metric`` + ``score`` columns."""
    cols = set(map(str, df.columns))
    return not {"metric", "score"} <= cols and bool(cols & set(taxonomy.metric_names))


def wide_to_long(df: pd.DataFrame, taxonomy: Taxonomy) -> tuple[pd.DataFrame, np.ndarray, list[str]]:
    """Long table (empty cells dropped), the 1-based source row of every long row, and notes."""
    metrics = [m for m in taxonomy.metric_names if m in set(map(str, df.columns))]
    ids = [c for c in df.columns if c not in metrics and c not in ("metric", "score", "level")]
    base = df.reset_index(drop=True)
    parts = []
    for m in metrics:
        cell = base[m]
        filled = cell.notna() & (cell.astype("string").str.strip() != "")
        part = base.loc[filled, ids].copy()
        part["metric"] = m
        part["level"] = taxonomy.metric(m).level
        part["score"] = cell[filled].to_numpy()
        part["_row"] = np.flatnonzero(filled.to_numpy()) + 1
        parts.append(part)
    long = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=[*ids, "metric", "level", "score"])
    notes = []
    if len(long):
        enc = (long["level"] == "encounter").to_numpy()
        per_turn = [c for c in ("utterance_id", "turn", "history_category", "linguistic_form") if c in long.columns]
        if enc.any() and per_turn:
            # an encounter-level score repeated on every utterance row of a dialogue is one score
            long.loc[enc, per_turn] = pd.NA
            keys = [c for c in long.columns if c != "_row"]
            before = int(enc.sum())
            long = long[~(long.duplicated(keys) & (long["level"] == "encounter"))]
            if int((long["level"] == "encounter").sum()) < before:
                notes.append("encounter-level scores repeated on utterance rows were counted once per dialogue")
        long = long.sort_values(["_row"], kind="stable").reset_index(drop=True)
    rows = long.pop("_row").to_numpy(dtype=np.int64) if "_row" in long else np.zeros(0, dtype=np.int64)
    return long, rows, [f"wide layout: metric columns {', '.join(metrics)}", *notes]


__all__ = ["ALIASES", "ColumnError", "is_wide", "map_columns", "normalise_name", "parse_mapping", "wide_to_long"]
