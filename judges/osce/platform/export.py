"""Research export of the practice platform: only the consented, ended encounters, pseudonymised again for each
export, in the dialogues table that ``osce rubric`` and ``osce packets`` read, plus a Hugging Face dataset folder
with its card.

Pseudonyms are fresh per export: a random key drawn for the export maps each stored student id to ``S001``,
``S002`` ... in a shuffled order and each encounter to ``E0001`` ...; stable within the export (two encounters of
one student share a pseudonym), unrelated across exports (two exports cannot be joined on a student). The key is
not written anywhere. The folder is written whole or not at all (``ir.files.atomic_dir``).
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from synthdocqa.ir.files import atomic_dir

from ..loaders import dialogues_frame, validate_dialogues
from ..schema import Dialogue, Turn
from .store import EncounterRow, PlatformStore

DIALOGUES_FILE, ENCOUNTERS_FILE, CARD_FILE = "dialogues.csv", "encounters.csv", "README.md"
HF_DIR = "hf"
META_COLUMNS = ["encounter", "student", "case", "language", "model", "prompt_sha256", "started_date", "turns",
                "failed_turns", "differential"]


def _pseudonyms(ids: list[str], prefix: str, width: int, rng: secrets.SystemRandom) -> dict[str, str]:
    order = sorted(set(ids))
    rng.shuffle(order)
    return {x: f"{prefix}{k + 1:0{width}d}" for k, x in enumerate(order)}


@dataclass(frozen=True)
class Pseudonymised:
    """Encounters pseudonymised for one export: the dialogues (answered turns only; an encounter without one has
    none), the encounters table, and the key from the stored encounter ids to their pseudonyms, which lives in
    memory only (the nightly evaluation uses it to know which stored encounters it scored) and is never written."""

    dialogues: list[Dialogue]
    meta: pd.DataFrame
    encounter_key: dict[str, str]

    def table(self) -> pd.DataFrame:
        """The dialogues table (one row per answered turn), checked as the rubric and the packets read it."""
        table = dialogues_frame(self.dialogues)
        validate_dialogues(table, source="export")
        return table


def pseudonymise(rows: list[EncounterRow]) -> Pseudonymised:
    """The rows pseudonymised afresh (a new random key for this call)."""
    rng = secrets.SystemRandom()
    students = _pseudonyms([e.student_id for e in rows], "S", 3, rng)
    encs = _pseudonyms([e.id for e in rows], "E", 4, rng)
    dialogues = [Dialogue(case=e.case, encounter=encs[e.id], responder=e.model, turns=tuple(
        Turn(turn=t.n, utterance_id=f"T{t.n:02d}", question=t.question, response=t.answer or "")
        for t in e.turns if t.status == "ok" and t.answer)) for e in rows]
    meta = pd.DataFrame([{
        "encounter": encs[e.id], "student": students[e.student_id], "case": e.case, "language": e.language,
        "model": e.model, "prompt_sha256": e.prompt_sha256, "started_date": e.started_at.date().isoformat(),
        "turns": len(e.turns), "failed_turns": sum(t.status != "ok" for t in e.turns),
        "differential": e.differential or ""} for e in rows], columns=META_COLUMNS)
    return Pseudonymised(dialogues=[d for d in dialogues if d.turns],
                         meta=meta.sort_values("encounter").reset_index(drop=True), encounter_key=encs)


def export_frames(rows: list[EncounterRow]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The dialogues table (one row per answered turn) and the encounters table, pseudonymised afresh."""
    made = pseudonymise(rows)
    return made.table(), made.meta


def dataset_card(meta: pd.DataFrame, n_turns: int) -> str:
    cases = ", ".join(f"{c} ({n})" for c, n in meta["case"].value_counts().sort_index().items()) or "none"
    return f"""---
license: other
language: [en, ko]
pretty_name: OSCE practice dialogues (synthdocqa platform export)
task_categories: [text-generation]
---

# OSCE practice dialogues

Student-VSP history-taking dialogues from the synthdocqa practice platform, exported
{datetime.now(UTC).date().isoformat()}: {len(meta)} ended encounters of {meta["student"].nunique()} students,
{n_turns} answered turns. Cases: {cases}.

- Only encounters of students whose research consent was granted at export time; a withdrawn consent deletes a
  student's dialogues from the platform and so from later exports.
- Pseudonymised for this export: students `S001` ..., encounters `E0001` ...; the mapping is not kept, so two
  exports cannot be joined on a student. Dates only, no times. Free text is as typed: students were asked not to
  type names, but the text is not checked for them.
- The cases are synthetic teaching cases, not medical advice; the VSP is a language model (`model`,
  `prompt_sha256` name it and its persona prompt).
- Files: `dialogues.csv` (one row per answered turn: the dialogues table of `osce rubric` and `osce packets`),
  `encounters.csv` (one row per encounter: case, language, model, turns, failed turns, the student's
  differential).
"""


async def export_consented(store: PlatformStore, out_dir: str | os.PathLike[str]) -> dict[str, int]:
    """Write the export folder (dialogues, encounters, card, and the same as a Hugging Face dataset folder)."""
    rows = await store.encounters(consented_only=True, ended_only=True)
    table, meta = export_frames(rows)
    with atomic_dir(Path(out_dir)) as tmp:
        card = dataset_card(meta, len(table))
        for folder in (tmp, tmp / HF_DIR):
            folder.mkdir(parents=True, exist_ok=True)
            table.to_csv(folder / DIALOGUES_FILE, index=False, lineterminator="\n")
            meta.to_csv(folder / ENCOUNTERS_FILE, index=False, lineterminator="\n")
            (folder / CARD_FILE).write_text(card, encoding="utf-8")
        (tmp / HF_DIR / "dataset_infos.json").write_text(json.dumps({"default": {
            "splits": {"train": {"num_examples": len(table)}}, "data_files": {"train": [DIALOGUES_FILE]}}},
            indent=1) + "\n", encoding="utf-8")
    return {"encounters": len(meta), "students": int(meta["student"].nunique()), "turns": len(table)}


__all__ = ["Pseudonymised", "dataset_card", "export_consented", "export_frames", "pseudonymise"]
