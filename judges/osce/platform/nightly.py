"""The nightly evaluation's OSCE job over the practice platform: the consented, ended encounters that no earlier
batch has scored ("new") are exported, scored by the LLM rubric judge and written into the batch's folder.

What is new is decided by a cursor kept beside the batches (``<evaluations>/osce-platform-state.json``), per
platform database (``PlatformStore.database_id``): the set of the encounters scored so far, each as a hash of its
stored id. Not the exported ids, which are pseudonyms drawn afresh for every export, and not a timestamp: a set
retries an encounter whose scoring failed and cannot be overtaken by an encounter that was ended before the last
batch but committed after it. The cursor holds no student code, pseudonym, text or time; a key of an encounter that
is no longer stored (withdrawn, purged) is dropped at the next commit.

A batch is two steps: :func:`score_new_encounters` reads the store, scores the new encounters and writes the folder
(whole or not at all), and returns a :class:`PlatformBatch`; the caller writes its report and only then calls
:meth:`PlatformBatch.commit`, which adds the batch's encounters to the cursor (atomically). A run that fails
anywhere before the commit leaves the cursor as it was, so the next run scores the same encounters again.

An encounter counts as *scored* when every rubric request about it came back with a valid score, as *failed* when
one did not (its partial scores are not kept; it stays new and is scored again next time), and as *empty* when it
has no answered turn (nothing to score; it is marked done). The folder holds the scored and empty encounters only,
so each encounter's dialogue and scores are in exactly one batch folder.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import os
from collections.abc import Callable, Coroutine, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from synthdocqa.ir.files import atomic_dir, atomic_write_json
from synthdocqa.judges.llm import ChatClient

from ..case_bank import Case
from ..rubric import score_dialogues
from ..schema import RATING_COLUMNS, Taxonomy
from ..vsp import case_script
from .export import CARD_FILE, DIALOGUES_FILE, ENCOUNTERS_FILE, dataset_card, pseudonymise
from .store import EncounterRow, PlatformStore, PlatformStoreError, async_url

JUDGE = "osce-platform"
"""The judge's name in the evaluation batch and its folder's name in the batch folder."""
STATE_FILE = "osce-platform-state.json"
STATE_FORMAT = 1
CACHE_FILE = "osce-platform-rubric-cache.sqlite"
"""The rubric judge's reply cache, in the batch folder beside ``osce-platform/``: a retried run of the same batch
asks nothing twice."""
SCORES_FILE, INVALID_FILE = "scores.csv", "invalid.csv"
INVALID_COLUMNS = ["key", "metric", "invalid_reason", "error"]

T = TypeVar("T")


class PlatformNightlyError(RuntimeError):
    """The platform job cannot run or produced nothing usable (one line)."""


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end from synchronous code, in a thread of its own when a loop runs here already."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def platform_url(db: str) -> str:
    """The database URL of ``db`` (a URL, or the path of an SQLite file). PlatformStoreError when it is no
    database URL or names an SQLite file that does not exist: the nightly job never creates an empty database."""
    if not db or not db.strip():
        raise PlatformStoreError("platform_db is empty")
    url = db if "://" in db else f"sqlite+aiosqlite:///{Path(db).expanduser().absolute()}"
    u = async_url(url)
    if u.get_backend_name() == "sqlite":
        if u.database in (None, "", ":memory:"):
            raise PlatformStoreError("platform_db names an in-memory SQLite database, which holds no encounters")
        if str(u.query.get("uri", "")).lower() not in {"1", "true", "yes"} and not Path(u.database).is_file():
            raise PlatformStoreError(f"no platform database at {u.database} (platform_db)")
    return url


def encounter_key(encounter_id: str) -> str:
    """What the cursor keeps of a stored encounter id (ids are random, so the hash tells nothing of it)."""
    return hashlib.sha256(f"osce-platform-encounter\0{encounter_id}".encode()).hexdigest()[:32]


# -- the cursor --------------------------------------------------------------------------------------------------


def state_path(evaluations_root: str | os.PathLike[str]) -> Path:
    return Path(evaluations_root) / STATE_FILE


def state_token(path: str | os.PathLike[str]) -> str:
    """A short hash of the state file as it is now ("none" without one): part of the batch key, so a batch after a
    committed one writes into a folder of its own, and a retry of a failed one into the same folder."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    except FileNotFoundError:
        return "none"


def load_state(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The state file (an empty one when there is none); PlatformNightlyError for one that cannot be read: a
    damaged cursor is never silently reset, which would score every encounter again."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {"format": STATE_FORMAT, "databases": {}}
    except OSError as err:
        raise PlatformNightlyError(f"{p}: {err.strerror or err}") from None
    try:
        data = json.loads(text)
        ok = (isinstance(data, dict) and data.get("format") == STATE_FORMAT and isinstance(data.get("databases"), dict)
              and all(isinstance(v, dict) and isinstance(v.get("scored"), list)
                      and all(isinstance(k, str) for k in v["scored"]) for v in data["databases"].values()))
    except ValueError:
        ok = False
    if not ok:
        raise PlatformNightlyError(f"{p}: not an osce-platform state file (format {STATE_FORMAT}); move it away to "
                                   "score every stored encounter again")
    return data


@dataclass(frozen=True)
class Cursor:
    scored: frozenset[str] = frozenset()
    latest_ended_date: str | None = None

    @classmethod
    def of(cls, state: Mapping[str, Any], database_id: str) -> Cursor:
        entry = state["databases"].get(database_id) or {}
        return cls(frozenset(entry.get("scored", [])), entry.get("latest_ended_date"))


# -- one batch ---------------------------------------------------------------------------------------------------


@dataclass
class PlatformBatch:
    """What one batch scored, and the cursor step it commits once the batch's report is written."""

    summary: dict[str, Any]
    state_file: Path
    database_id: str
    added: frozenset[str]
    present: frozenset[str]
    latest_ended_date: str | None
    committed: bool = field(default=False)

    def markdown(self) -> list[str]:
        """The batch README's section."""
        s = self.summary
        c = s["counts"]
        lines = [f"## {JUDGE}", "",
                 f"database `{s['database']}`: {c['found']} consented ended encounters, {c['new']} new, "
                 f"{c['scored']} scored, {c['failed']} failed (scored again next batch), {c['empty']} without an "
                 "answered turn", ""]
        if s["judge"]:
            j = s["judge"]
            lines += [f"rubric judge `{j['rater']}` (prompt {j['prompt_sha256'][:12]}): {j['requests']} requests, "
                      f"{j['invalid']} without a valid score", ""]
        if s["mean_scores"]:
            lines += ["| metric | mean score | scores |", "|---|---|---|"]
            lines += [f"| {m} | {v['mean']:.2f} | {v['n']} |" for m, v in s["mean_scores"].items()]
            lines.append("")
        cur = s["cursor"]
        lines += [f"cursor: {cur['scored_after']} encounters scored so far ({cur['scored_before']} before this batch), "
                  f"latest ended date {cur['latest_ended_date'] or '-'}; state `{cur['state_file']}`", "",
                  f"dialogues and scores: `{s['folder']}`"]
        return lines

    def commit(self) -> dict[str, Any]:
        """Add this batch's encounters to the cursor (re-read, merged, written atomically); the entry written."""
        state = load_state(self.state_file)
        old = Cursor.of(state, self.database_id)
        scored = (old.scored & self.present) | self.added
        dates = [d for d in (old.latest_ended_date, self.latest_ended_date) if d]
        entry = {"scored": sorted(scored), "latest_ended_date": max(dates) if dates else None,
                 "updated_at": datetime.now(UTC).isoformat(timespec="seconds"), "last_folder": self.summary["folder"]}
        state["databases"][self.database_id] = entry
        atomic_write_json(self.state_file, state)
        self.committed = True
        return entry


async def _read(db: str) -> tuple[str, str, list[EncounterRow], frozenset[str]]:
    store = await PlatformStore.open(platform_url(db))
    try:
        rows = await store.encounters(consented_only=True, ended_only=True)
        present = frozenset(encounter_key(i) for i in await store.encounter_ids())
        return store.database_id, store.url, rows, present
    finally:
        await store.close()


def _invalid_encounter(key: str) -> str:
    """The (pseudonymised) encounter of a rubric request key ``metric|case|encounter|responder[|utterance]``."""
    return key.split("|")[2]


def score_new_encounters(db: str, out_dir: str | os.PathLike[str], state_file: str | os.PathLike[str],
                         judge: Callable[[], AbstractContextManager[ChatClient]], cases: Mapping[str, Case], *,
                         taxonomy: Taxonomy | None = None, metrics: Sequence[str] | None = None) -> PlatformBatch:
    """Score the platform's new encounters with the rubric judge (``judge()`` opens its client, only when there is
    something to score) against the case scripts of ``cases`` (the platform's case bank), write ``out_dir``
    (dialogues.csv, encounters.csv, scores.csv, invalid.csv, README.md) and return the batch, not yet committed.

    PlatformStoreError when the database cannot be read; PlatformNightlyError when the state file is damaged, an
    encounter's case is not in ``cases``, or the judge gave no valid score at all (nothing is written then)."""
    tax = taxonomy or Taxonomy()
    database_id, safe_url, rows, present = run_sync(_read(db))
    state_file = Path(state_file)
    cursor = Cursor.of(load_state(state_file), database_id)
    new = [r for r in rows if encounter_key(r.id) not in cursor.scored]
    unknown = sorted({r.case for r in new} - set(cases))
    if unknown:
        raise PlatformNightlyError(f"platform encounters of case(s) {', '.join(unknown)} that the case bank does not "
                                   "hold (platform_cases: the case bank the platform serves)")
    made = pseudonymise(new)
    language = {row.encounter: row.language for row in made.meta.itertuples()}
    ratings, invalid, n_requests, prompt_sha, rater = [], [], 0, "", ""
    if made.dialogues:
        with judge() as client:
            rater = f"llm:{client.config.name}"
            for lang in sorted({language[d.encounter] for d in made.dialogues}):
                group = [d for d in made.dialogues if language[d.encounter] == lang]
                scripts = {c: case_script(cases[c], lang) for c in sorted({d.case for d in group})}
                run = score_dialogues(group, client, tax, metrics, case_scripts=scripts)
                ratings.append(run.ratings)
                invalid.append(run.invalid)
                n_requests += run.n_requests
                prompt_sha = run.prompt_sha256
    scores = pd.concat(ratings, ignore_index=True) if ratings else pd.DataFrame(columns=[*RATING_COLUMNS, "reason"])
    bad = pd.concat(invalid, ignore_index=True) if invalid else pd.DataFrame(columns=INVALID_COLUMNS)
    if n_requests and scores.empty:
        first = bad.iloc[0]
        raise PlatformNightlyError(f"the rubric judge gave no valid score for any of {n_requests} requests (first: "
                                   f"{first['invalid_reason']}: {' '.join(str(first['error']).split())[:200]}); "
                                   f"nothing is written, the {len(new)} new encounters stay new")
    failed = {_invalid_encounter(k) for k in bad["key"]}
    with_turns = {d.encounter for d in made.dialogues}
    scored = with_turns - failed
    empty = set(made.meta["encounter"]) - with_turns
    done_ids = [eid for eid, pseud in made.encounter_key.items() if pseud in scored | empty]
    by_id = {r.id: r for r in new}
    ended = [by_id[eid].ended_at for eid in done_ids if by_id[eid].ended_at is not None]
    latest = max(ended).date().isoformat() if ended else None

    kept = scores[scores["encounter"].isin(scored)].reset_index(drop=True)
    kept["turn"] = kept["turn"].astype("Int64")  # empty for the encounter-level metrics, not a float
    means = {m: {"mean": round(float(g["score"].mean()), 4), "n": len(g)}
             for m in tax.metric_names if len(g := kept[kept["metric"] == m])}
    meta = made.meta[made.meta["encounter"].isin(scored | empty)].reset_index(drop=True)
    table = made.table()
    table = table[table["encounter"].isin(scored)].reset_index(drop=True)
    added = frozenset(encounter_key(eid) for eid in done_ids)
    out = Path(out_dir).absolute()
    summary: dict[str, Any] = {
        "database": safe_url, "folder": str(out),
        "counts": {"found": len(rows), "new": len(new), "scored": len(scored), "failed": len(failed),
                   "empty": len(empty)},
        "judge": {"rater": rater, "prompt_sha256": prompt_sha, "requests": n_requests, "invalid": len(bad)}
        if n_requests else None,
        "mean_scores": means,
        "cursor": {"scored_before": len(cursor.scored), "scored_after": len((cursor.scored & present) | added),
                   "latest_ended_date": max(d for d in (cursor.latest_ended_date, latest) if d)
                   if (cursor.latest_ended_date or latest) else None,
                   "state_file": str(state_file.absolute())},
    }
    with atomic_dir(out) as tmp:
        table.to_csv(tmp / DIALOGUES_FILE, index=False, lineterminator="\n")
        meta.to_csv(tmp / ENCOUNTERS_FILE, index=False, lineterminator="\n")
        kept.to_csv(tmp / SCORES_FILE, index=False, lineterminator="\n")
        bad.to_csv(tmp / INVALID_FILE, index=False, lineterminator="\n")
        (tmp / CARD_FILE).write_text(dataset_card(meta, len(table)) + _scores_note(summary), encoding="utf-8")
    return PlatformBatch(summary=summary, state_file=state_file, database_id=database_id, added=added,
                         present=present, latest_ended_date=latest)


def _scores_note(summary: dict[str, Any]) -> str:
    c = summary["counts"]
    return (f"\n## Rubric scores of this batch\n\nThe encounters that the nightly evaluation scored for the first "
            f"time in this batch: {c['scored']} scored by the LLM rubric judge (`{SCORES_FILE}`, the ratings' long "
            f"format with the judge's reason), {c['empty']} without an answered turn. {c['failed']} more could not "
            f"be scored in full (`{INVALID_FILE}` says why, under this export's pseudonyms); they are not in this "
            "folder and are scored again in the next batch.\n")


__all__ = ["CACHE_FILE", "JUDGE", "STATE_FILE", "Cursor", "PlatformBatch", "PlatformNightlyError", "encounter_key",
           "load_state", "platform_url", "run_sync", "score_new_encounters", "state_path", "state_token"]
