"""Blinded rating packets for the VSP/OSCE study: one Excel workbook per rater out, long-format ratings back.

Why it looks the way it does:

* **Blinding.** A rater must not learn which responder (the human expert or a model) wrote an answer. Every
  packet calls the responders by codes ``VSP-A``, ``VSP-B``, ... assigned in a random order drawn *per
  rater*, so a code means nothing across packets and raters cannot pool guesses. No cell of a packet (the
  hidden one included) holds a responder name, an encounter id or the code table; cases are shown by
  their display title. Case titles and rubric texts are checked for responder names and encounter ids
  before anything is written. The dialogue text itself is shown as it is: a model that names itself
  in an answer is a matter for the study's data, not something this module rewrites.
* **Order.** Rows are shuffled per rater over *all* utterances (across cases and responders), and the
  encounters likewise, so position and order effects average out over raters instead of piling onto one
  responder. Item codes (``U017``, ``E03``) are numbered in the shuffled order and are opaque.
  Every stream is a pure function of ``(seed, rater)``: ``Rng(seed).fork("packets").fork("rater", i)``
  with the children ``codes``, ``utterances`` and ``encounters``. The same dialogues, seed and rater give
  the same packet, byte for byte (fixed document and zip timestamps), and adding raters later leaves the
  earlier packets as they were.
* **The key is kept apart.** The unblinding key (code table, what every item is, a hash of the text shown)
  goes to ``<out_dir>-key.json`` beside the folder, never into it, since the folder is what is handed
  to raters. A packet carries only its packet id (a short hash of seed, rater and content), so a packet
  from another set or seed is recognised as foreign on the way back. The seed is the study's secret, like
  the key: the codes and orders are a pure function of it, so a rater who knew it (or could try every small
  one against the order of their own packet) could rebuild the code table. ``osce packets`` draws a large
  random seed unless one is given, and records it in the key.
* **Balance.** Every responder must answer the same questions of a case: a model whose failed turns are
  missing would be recognisable by its shorter dialogues. Unbalanced dialogues are refused, naming what
  is missing (``allow_unbalanced`` packs them anyway, for a deliberate design).
* **All or nothing.** The packets are built in memory, written into a temporary folder and renamed into
  place (``ir.files.atomic_dir``); the key is written inside that step, so a failure leaves neither a
  half set nor a key without its packets. An existing non-empty folder or an existing key is refused:
  overwriting a set that was already handed out would make it impossible to unblind.
* **Validation on the way back.** ``collect_packets`` reads every workbook and reports *every* problem
  at once (file, sheet and cell: empty, not a whole number, outside the scale, edited text, added,
  missing or repeated rows, foreign, missing or duplicate packets) in one ``OsceInputError``, so raters
  can be sent all their corrections in one round. Only a clean set is unblinded; the result is the
  long-format ratings table of ``schema.RATING_COLUMNS`` and passes ``loaders.validate_ratings``.
  Whatever would make that table unanalysable (a turn without a history category, a missing reference
  responder) is refused by ``write_packets`` already, before raters spend time on it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import unicodedata
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd
from openpyxl import Workbook, load_workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet
from openpyxl.writer.excel import ExcelWriter
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from synthdocqa.ir.files import atomic_dir, atomic_write_bytes, atomic_write_json, sha256_bytes
from synthdocqa.ir.rng import Rng

from .loaders import OsceInputError, validate_ratings
from .schema import RATING_COLUMNS, Dialogue, Level, MetricSpec, Taxonomy

FORMAT = "synthdocqa-osce-packets/1"
"""Written into every packet's hidden sheet and the key; a reader refuses any other."""

INSTRUCTIONS, RUBRIC, UTTERANCES, ENCOUNTERS = "Instructions", "Rubric", "Utterances", "Encounters"
PACKET_SHEET = "_packet"
"""The very hidden sheet: the format and the packet id, nothing else (the seed would let a rater who has this
code rebuild the code table; it stays in the key)."""
DATA_ROW = 3
"""Row 1 holds the column names, row 2 the rubric text over each metric column; data start below."""

FIXED_TIME = datetime(2000, 1, 1)
"""Document created/modified stamp and zip entry time: a packet's bytes depend on its content only."""
_ZIP_TIME = (2000, 1, 1, 0, 0, 0)
EXCEL_CELL_LIMIT = 32767
CODE_PREFIX = "VSP-"

_UTT_FIXED = ("item", "case", "vsp", "question", "answer")
_ENC_FIXED = ("item", "case", "vsp", "transcript")
_FIXED_NOTES = {
    "item": "Item code (do not edit)",
    "case": "Case",
    "vsp": "Virtual patient (code)",
    "question": "Student's question",
    "answer": "The virtual patient's answer: rate this",
    "transcript": "The whole encounter: rate this",
}
_WIDTHS = {"item": 8, "case": 22, "vsp": 10, "question": 45, "answer": 60, "transcript": 100}
_METRIC_WIDTH = 18
_HEADER_FILL = PatternFill("solid", fgColor="DDDDDD")
_SCORE_FILL = PatternFill("solid", fgColor="FFF2CC")
_WRAP_TOP = Alignment(wrap_text=True, vertical="top")
_LINE_POINTS = 15.0
_MAX_ROW_POINTS = 409.0


# ----------------------------------------------------------------------------- the key


class KeyMetric(BaseModel):
    """A metric as the raters saw it (the scale the packet's data validation enforced)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    level: Level
    scale_min: int
    scale_max: int


class KeyUtterance(BaseModel):
    """What one utterance item of one packet is, and a hash of the text it showed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case: str
    encounter: str
    responder: str
    utterance_id: str
    turn: int
    history_category: str | None = None
    linguistic_form: str | None = None
    text_sha256: str = Field(description="sha256 of the question and answer shown (JSON pair, UTF-8)")
    question_sha256: str = Field(description="sha256 of the question alone: tells which cell was edited")


class KeyEncounter(BaseModel):
    """What one encounter item of one packet is, and a hash of the transcript it showed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case: str
    encounter: str
    responder: str
    text_sha256: str


class KeyPacket(BaseModel):
    """One rater's packet: its file, id and hash as written, its code table and its items."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rater: str
    file: str
    packet_id: str
    sha256: str = Field(description="sha256 of the file as written (before the rater filled it in)")
    codes: dict[str, str] = Field(description="code -> responder")
    utterances: dict[str, KeyUtterance]
    encounters: dict[str, KeyEncounter]


class PacketKey(BaseModel):
    """The unblinding key of one packet set (``<out_dir>-key.json``); never handed to raters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: str
    seed: int
    n_raters: int
    metrics: list[KeyMetric]
    case_titles: dict[str, str]
    packets: list[KeyPacket]


class PacketSet(BaseModel):
    """What ``write_packets`` wrote."""

    model_config = ConfigDict(frozen=True)

    out_dir: Path
    key_path: Path
    files: list[Path]
    n_raters: int
    n_utterances: int = Field(description="utterance rows in every packet (turns over all dialogues)")
    n_encounters: int = Field(description="encounter rows in every packet (dialogues)")
    packet_ids: list[str]


# ----------------------------------------------------------------------------- units and plans


@dataclass(frozen=True)
class _Utterance:
    case: str
    encounter: str
    responder: str
    utterance_id: str
    turn: int
    history_category: str | None
    linguistic_form: str | None
    question: str
    answer: str


@dataclass(frozen=True)
class _Encounter:
    case: str
    encounter: str
    responder: str
    transcript: str


def _norm(value: object) -> str:
    """Text as compared on the way back: an empty cell is '', line ends are \\n (spreadsheets differ)."""
    if value is None:
        return ""
    return str(value).replace("\r\n", "\n").replace("\r", "\n")


def _sha(text: str) -> str:
    return hashlib.sha256(_norm(text).encode("utf-8")).hexdigest()


def _pair_sha(question: str, answer: str) -> str:
    """A JSON pair, so that moving text from the question into the answer still changes the hash."""
    return _sha(json.dumps([_norm(question), _norm(answer)], ensure_ascii=False))


def transcript(dialogue: Dialogue) -> str:
    """The encounter as raters read it: every turn in order, ``Student: ...`` then ``Patient: ...``."""
    turns = sorted(dialogue.turns, key=lambda t: t.turn)
    return "\n".join(f"Student: {t.question}\nPatient: {t.response}" for t in turns)


def responder_code(k: int) -> str:
    """``VSP-A`` ... ``VSP-Z``, then ``VSP-AA`` (spreadsheet-column style), for the k-th code (0-based)."""
    letters = ""
    k += 1
    while k:
        k, rem = divmod(k - 1, 26)
        letters = chr(ord("A") + rem) + letters
    return CODE_PREFIX + letters


def _item_codes(prefix: str, n: int, width: int) -> list[str]:
    w = max(width, len(str(n)))
    return [f"{prefix}{j + 1:0{w}d}" for j in range(n)]


def _rater_label(i: int, n_raters: int) -> str:
    return f"R{i:0{max(2, len(str(n_raters)))}d}"


def _file_name(i: int, n_raters: int) -> str:
    return f"rater-{i:0{max(2, len(str(n_raters)))}d}.xlsx"


@dataclass(frozen=True)
class _Plan:
    """One rater's packet before it is written: codes and the shuffled rows with their item codes."""

    rater: int
    label: str
    file: str
    codes: dict[str, str]  # responder -> code
    utterances: list[tuple[str, _Utterance]]
    encounters: list[tuple[str, _Encounter]]
    packet_id: str

    def key_entries(self) -> tuple[dict[str, KeyUtterance], dict[str, KeyEncounter]]:
        utts = {
            item: KeyUtterance(
                case=u.case, encounter=u.encounter, responder=u.responder, utterance_id=u.utterance_id, turn=u.turn,
                history_category=u.history_category, linguistic_form=u.linguistic_form,
                text_sha256=_pair_sha(u.question, u.answer), question_sha256=_sha(u.question),
            )
            for item, u in self.utterances
        }
        encs = {
            item: KeyEncounter(case=e.case, encounter=e.encounter, responder=e.responder,
                               text_sha256=_sha(e.transcript))
            for item, e in self.encounters
        }
        return utts, encs


def _packet_id(seed: int, rater: int, codes: dict[str, str], utts: dict[str, KeyUtterance],
               encs: dict[str, KeyEncounter]) -> str:
    """Short hash of (format, seed, rater, content): another seed or another set gives another id."""
    content = {
        "format": FORMAT, "seed": seed, "rater": rater, "codes": codes,
        "utterances": {k: v.model_dump() for k, v in utts.items()},
        "encounters": {k: v.model_dump() for k, v in encs.items()},
    }
    return sha256_bytes(json.dumps(content, sort_keys=True, ensure_ascii=False).encode("utf-8"))[:12]


def _plan(seed: int, i: int, n_raters: int, responders: Sequence[str], utts: Sequence[_Utterance],
          encs: Sequence[_Encounter]) -> _Plan:
    """Rater ``i``'s codes and row orders, each from its own named stream of ``(seed, rater)``."""
    stream = Rng(seed).fork("packets").fork("rater", i)
    order = stream.fork("codes").shuffled(list(responders))
    codes = {resp: responder_code(k) for k, resp in enumerate(order)}
    utt_rows = stream.fork("utterances").shuffled(list(utts))
    enc_rows = stream.fork("encounters").shuffled(list(encs))
    plan = _Plan(
        rater=i, label=_rater_label(i, n_raters), file=_file_name(i, n_raters), codes=codes,
        utterances=list(zip(_item_codes("U", len(utt_rows), 3), utt_rows, strict=True)),
        encounters=list(zip(_item_codes("E", len(enc_rows), 2), enc_rows, strict=True)),
        packet_id="",
    )
    u, e = plan.key_entries()
    by_code = {code: resp for resp, code in codes.items()}
    return replace(plan, packet_id=_packet_id(seed, i, by_code, u, e))


# ----------------------------------------------------------------------------- checks before writing


def _text_problems(where: str, text: str) -> list[str]:
    out = []
    if ILLEGAL_CHARACTERS_RE.search(text):
        out.append(f"{where}: contains control characters a spreadsheet cannot hold")
    if len(text) > EXCEL_CELL_LIMIT:
        out.append(f"{where}: {len(text)} characters, more than an Excel cell holds ({EXCEL_CELL_LIMIT})")
    return out


def _unbalanced(dialogues: Sequence[Dialogue]) -> list[str]:
    """Per case, the questions some responders answered and others did not (by responder)."""
    problems = []
    for case in sorted({d.case for d in dialogues}):
        answered = {d.responder: {t.utterance_id for t in d.turns} for d in dialogues if d.case == case}
        every = set().union(*answered.values())
        for resp, ids in sorted(answered.items()):
            if ids != every:
                missing = sorted(every - ids)
                problems.append(f"case {case}: responder {resp} has no answer to {', '.join(missing[:8])}"
                                + (f" (+{len(missing) - 8} more)" if len(missing) > 8 else "")
                                + " (a failed turn? rerun 'osce vsp run': failed turns are asked again)")
        cases_of = {d.responder for d in dialogues if d.case == case}
        for resp in sorted({d.responder for d in dialogues} - cases_of):
            problems.append(f"case {case}: responder {resp} has no dialogue")
    return problems


def _check_inputs(dialogues: Sequence[Dialogue], n_raters: int, tax: Taxonomy, titles: dict[str, str],
                  seed: int, allow_unbalanced: bool = False) -> list[str]:
    """Everything that would make the packets unusable, unblind them, or the returned ratings unanalysable."""
    problems: list[str] = [] if allow_unbalanced or not dialogues else _unbalanced(dialogues)
    if isinstance(n_raters, bool) or not isinstance(n_raters, int) or n_raters < 1:
        problems.append(f"n_raters must be a whole number >= 1, got {n_raters!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        problems.append(f"seed must be a non-negative integer, got {seed!r}")
    if not dialogues:
        problems.append("no dialogues to put into packets")
        return problems
    sentence = [m for m in tax.metrics if m.level == "sentence"]
    seen_enc: set[str] = set()
    item_attrs: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    for d in dialogues:
        where = f"encounter {d.encounter!r}"
        if d.encounter in seen_enc:
            problems.append(f"{where}: appears in more than one dialogue")
        seen_enc.add(d.encounter)
        if not d.turns:
            problems.append(f"{where}: has no turns")
        ids = [t.utterance_id for t in d.turns]
        for dup in sorted({u for u in ids if ids.count(u) > 1}):
            problems.append(f"{where}: utterance {dup!r} appears more than once")
        for t in d.turns:
            at = f"{where}, utterance {t.utterance_id!r}"
            problems += _text_problems(f"{at} question", t.question) + _text_problems(f"{at} answer", t.response)
            if sentence:
                if t.history_category not in tax.history_categories:
                    problems.append(f"{at}: history_category {t.history_category!r} is not one of the taxonomy's "
                                    f"({', '.join(tax.history_categories)})")
                if t.linguistic_form not in tax.linguistic_forms:
                    problems.append(f"{at}: linguistic_form {t.linguistic_form!r} is not one of the taxonomy's "
                                    f"({', '.join(tax.linguistic_forms)})")
            attrs = (t.history_category, t.linguistic_form)
            first = item_attrs.setdefault((d.case, t.utterance_id), attrs)
            if first != attrs:
                problems.append(f"{at}: category/form {attrs} differ from another responder's {first} "
                                f"for the same scripted question")
        problems += _text_problems(f"{where} transcript", transcript(d))
    responders = {d.responder for d in dialogues}
    if tax.reference_responder not in responders:
        problems.append(f"reference responder {tax.reference_responder!r} is not among the responders "
                        f"({', '.join(sorted(responders))})")
    # Blinding: texts that are not dialogue text must not name a responder or an encounter.
    secrets = sorted({s for s in responders | seen_enc if s.strip()})
    shown = [(f"case title of {c!r}", t) for c, t in titles.items()]
    shown += [(f"metric {m.name!r}", f"{m.name}\n{m.description}") for m in tax.metrics]
    for what, text in shown:
        problems += _text_problems(what, text)
        low = text.lower()
        for s in secrets:
            if s.lower() in low:
                problems.append(f"{what} contains {s!r}, a responder name or encounter id (it would unblind)")
    return problems


def _dry_run(utts: Sequence[_Utterance], encs: Sequence[_Encounter], tax: Taxonomy) -> None:
    """The ratings table a complete packet would give must pass ``validate_ratings`` (checked now, not after
    the raters did their work)."""
    rows = _rows_for("R01", [(u, {m.name: m.scale_min for m in tax.metrics if m.level == "sentence"}) for u in utts],
                     [(e, {m.name: m.scale_min for m in tax.metrics if m.level == "encounter"}) for e in encs])
    if rows:
        validate_ratings(pd.DataFrame(rows, columns=list(RATING_COLUMNS)), tax,
                         source="dialogues (the ratings table a filled packet would give)")


# ----------------------------------------------------------------------------- writing


class _FixedTimeZip(zipfile.ZipFile):
    """A zip whose entries all carry one timestamp and attributes: openpyxl stamps the current time on the
    parts it writes from memory and a temp file's mtime on the worksheets it writes from disk."""

    def writestr(self, zinfo_or_arcname: Any, data: Any, compress_type: int | None = None,
                 compresslevel: int | None = None) -> None:
        if isinstance(zinfo_or_arcname, str):
            info = zipfile.ZipInfo(zinfo_or_arcname, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            zinfo_or_arcname = info
        super().writestr(zinfo_or_arcname, data, compress_type=compress_type, compresslevel=compresslevel)

    def write(self, filename: Any, arcname: Any = None, compress_type: int | None = None,
              compresslevel: int | None = None) -> None:
        with open(filename, "rb") as fh:
            data = fh.read()
        self.writestr(str(arcname if arcname is not None else os.path.basename(filename)), data,
                      compress_type=compress_type, compresslevel=compresslevel)


def _workbook_bytes(wb: Workbook) -> bytes:
    """Serialise without ``save_workbook`` (which stamps 'modified' with now): identical input, identical bytes."""
    wb.properties.created = FIXED_TIME
    wb.properties.modified = FIXED_TIME
    buf = io.BytesIO()
    ExcelWriter(wb, _FixedTimeZip(buf, "w", zipfile.ZIP_DEFLATED, allowZip64=True)).save()
    return buf.getvalue()


def _set_text(ws: Worksheet, row: int, col: int, text: str, wrap: bool = True) -> None:
    """A text cell that stays text: openpyxl would turn '=...' into a formula."""
    cell = ws.cell(row=row, column=col)
    cell.value = text
    cell.data_type = "s"
    if wrap:
        cell.alignment = _WRAP_TOP


def _lines(text: str, width: float) -> int:
    """Rough wrapped line count (wide East Asian characters count double) for a row height."""
    total = 0
    for line in text.split("\n"):
        n = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)
        total += max(1, -(-n // max(1, int(width))))
    return total


def _header(metric: MetricSpec) -> str:
    return f"{metric.name} ({metric.scale_min}-{metric.scale_max})"


def _headers(fixed: Sequence[str], metrics: Sequence[MetricSpec]) -> list[str]:
    return list(fixed) + [_header(m) for m in metrics]


def _rating_sheet(wb: Workbook, title: str, fixed: Sequence[str], metrics: Sequence[MetricSpec],
                  rows: list[list[str]]) -> None:
    """Header, rubric row, text rows, an empty score cell per metric with whole-number validation."""
    ws = wb.create_sheet(title)
    headers = _headers(fixed, metrics)
    notes = [_FIXED_NOTES[c] for c in fixed] + [m.description for m in metrics]
    widths = [_WIDTHS[c] for c in fixed] + [_METRIC_WIDTH] * len(metrics)
    for col, (head, note, width) in enumerate(zip(headers, notes, widths, strict=True), start=1):
        _set_text(ws, 1, col, head)
        ws.cell(row=1, column=col).font = Font(bold=True)
        ws.cell(row=1, column=col).fill = _HEADER_FILL
        _set_text(ws, 2, col, note)
        ws.cell(row=2, column=col).font = Font(italic=True)
        ws.column_dimensions[get_column_letter(col)].width = width
    ws.row_dimensions[2].height = min(_MAX_ROW_POINTS, _LINE_POINTS * max(
        _lines(n, w) for n, w in zip(notes, widths, strict=True)))
    for r, values in enumerate(rows, start=DATA_ROW):
        for col, value in enumerate(values, start=1):
            _set_text(ws, r, col, value, wrap=col > 1)
        for j in range(len(metrics)):
            ws.cell(row=r, column=len(fixed) + 1 + j).fill = _SCORE_FILL
        ws.row_dimensions[r].height = min(_MAX_ROW_POINTS, _LINE_POINTS * max(
            _lines(v, _WIDTHS[c]) for v, c in zip(values, fixed, strict=True)))
    last = DATA_ROW + len(rows) - 1
    for j, m in enumerate(metrics):
        letter = get_column_letter(len(fixed) + 1 + j)
        dv = DataValidation(
            type="whole", operator="between", formula1=str(m.scale_min), formula2=str(m.scale_max),
            allow_blank=True, showErrorMessage=True, showInputMessage=True,
            errorTitle="Score outside the scale"[:32],
            error=f"{m.name}: enter a whole number from {m.scale_min} to {m.scale_max}."[:255],
            promptTitle=f"{m.name} ({m.scale_min}-{m.scale_max})"[:32], prompt=m.description[:255],
        )
        dv.add(f"{letter}{DATA_ROW}:{letter}{max(last, DATA_ROW)}")
        ws.add_data_validation(dv)
    ws.freeze_panes = ws.cell(row=DATA_ROW, column=2)


def _instructions(ws: Worksheet, plan: _Plan, sentence: Sequence[MetricSpec], encounter: Sequence[MetricSpec],
                  n_utt: int, n_enc: int) -> None:
    lines = [
        ("VSP rating packet", True),
        (f"Packet id: {plan.packet_id}    Rater: {plan.label}", True),
        ("", False),
        ("You rate answers of virtual standardized patients (VSPs) in OSCE history-taking encounters.", False),
        ("The patients are labelled by codes (VSP-A, VSP-B, ...). The codes are specific to this packet: "
         "the same code can stand for a different patient in another rater's packet.", False),
        ("", False),
    ]
    step = 1
    if sentence:
        names = ", ".join(f"{m.name} ({m.scale_min}-{m.scale_max})" for m in sentence)
        lines.append((f"{step}. Sheet '{UTTERANCES}': {n_utt} rows, one answer each. Read the student's question "
                      f"and the patient's answer, then score every metric column: {names}.", False))
        step += 1
    if encounter:
        names = ", ".join(f"{m.name} ({m.scale_min}-{m.scale_max})" for m in encounter)
        lines.append((f"{step}. Sheet '{ENCOUNTERS}': {n_enc} rows, one whole encounter each (long transcripts: "
                      f"select the cell and read it in the formula bar). Score every metric column: {names}.",
                      False))
        step += 1
    lines += [
        (f"{step}. The sheet '{RUBRIC}' (and row 2 of each sheet) says what each metric means.", False),
        ("", False),
        ("Scale: type one whole number per cell, within the range shown in the column header "
         "(for example 1-5: 1 = worst, 5 = best).", False),
        ("Every score cell (the yellow cells) must be filled; a packet with an empty cell is sent back.", False),
        ("Do not edit the item, case, patient code, question, answer or transcript cells, and do not add, "
         "delete or rename rows, columns or sheets. Sorting rows is fine.", False),
        ("Rate each row on its own; the rows are in a random order on purpose.", False),
        ("When done, save the file in .xlsx format under the same file name and return it.", False),
    ]
    ws.column_dimensions["A"].width = 110
    for r, (text, bold) in enumerate(lines, start=1):
        if text:
            _set_text(ws, r, 1, text)
            if bold:
                ws.cell(row=r, column=1).font = Font(bold=True, size=12)


def _rubric(ws: Worksheet, metrics: Sequence[MetricSpec]) -> None:
    for col, (head, width) in enumerate((("metric", 24), ("level", 12), ("scale", 10), ("description", 90)), 1):
        _set_text(ws, 1, col, head)
        ws.cell(row=1, column=col).font = Font(bold=True)
        ws.cell(row=1, column=col).fill = _HEADER_FILL
        ws.column_dimensions[get_column_letter(col)].width = width
    for r, m in enumerate(metrics, start=2):
        for col, value in enumerate((m.name, m.level, f"{m.scale_min}-{m.scale_max}", m.description), 1):
            _set_text(ws, r, col, value)
    ws.freeze_panes = "A2"


def _packet_workbook(plan: _Plan, seed: int, tax: Taxonomy, titles: dict[str, str]) -> bytes:
    sentence = [m for m in tax.metrics if m.level == "sentence"]
    encounter = [m for m in tax.metrics if m.level == "encounter"]
    wb = Workbook()
    wb.properties.creator = "synthdocqa"
    wb.properties.title = f"VSP rating packet {plan.packet_id}"
    ws = wb.active
    ws.title = INSTRUCTIONS
    _instructions(ws, plan, sentence, encounter, len(plan.utterances), len(plan.encounters))
    _rubric(wb.create_sheet(RUBRIC), tax.metrics)
    if sentence:
        rows = [[item, titles[u.case], plan.codes[u.responder], u.question, u.answer] for item, u in plan.utterances]
        _rating_sheet(wb, UTTERANCES, _UTT_FIXED, sentence, rows)
    if encounter:
        rows = [[item, titles[e.case], plan.codes[e.responder], e.transcript] for item, e in plan.encounters]
        _rating_sheet(wb, ENCOUNTERS, _ENC_FIXED, encounter, rows)
    meta = wb.create_sheet(PACKET_SHEET)
    for r, (k, v) in enumerate((("format", FORMAT), ("packet_id", plan.packet_id)), start=1):
        meta.cell(row=r, column=1, value=k)
        meta.cell(row=r, column=2, value=v)
    meta.sheet_state = "veryHidden"
    wb.active = 0
    return _workbook_bytes(wb)


def default_key_path(out_dir: str | os.PathLike[str]) -> Path:
    """``<parent>/<out_dir name>-key.json``: beside the packets folder, never inside it."""
    out = Path(out_dir)
    return out.parent / f"{out.name}-key.json"


def write_packets(dialogues: list[Dialogue], n_raters: int, seed: int, out_dir: str | os.PathLike[str], *,
                  taxonomy: Taxonomy | None = None, case_titles: dict[str, str] | None = None,
                  key_path: str | os.PathLike[str] | None = None, allow_unbalanced: bool = False) -> PacketSet:
    """Write ``out_dir/rater-01.xlsx`` ... one blinded packet per rater, and the unblinding key beside it.

    Refuses (``OsceInputError``, every problem at once, nothing written) a rater count below 1, no dialogues,
    dialogues whose ratings could not be analysed, texts that would unblind, responders that did not answer the
    same questions of a case (unless ``allow_unbalanced``), an existing non-empty
    ``out_dir``, an existing key or a key inside ``out_dir``."""
    tax = taxonomy or Taxonomy()
    out = Path(out_dir)
    key = Path(key_path) if key_path is not None else default_key_path(out)
    cases = sorted({d.case for d in dialogues})
    titles = {c: (case_titles or {}).get(c, c) for c in cases}
    problems = _check_inputs(dialogues, n_raters, tax, titles, seed, allow_unbalanced)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        problems.append(f"{out} already exists and is not an empty folder (refusing to overwrite a packet set "
                        f"that may have been handed out)")
    if key.exists():
        problems.append(f"key {key} already exists (the key of an earlier set: refusing to overwrite it)")
    if key.resolve().is_relative_to(out.resolve()):
        problems.append(f"key {key} is inside the packets folder {out} (the folder is handed to raters)")
    if problems:
        raise OsceInputError(str(out), problems)

    utts = [
        _Utterance(d.case, d.encounter, d.responder, t.utterance_id, t.turn, t.history_category, t.linguistic_form,
                   t.question, t.response)
        for d in sorted(dialogues, key=lambda d: (d.case, d.encounter))
        for t in sorted(d.turns, key=lambda t: (t.turn, t.utterance_id))
    ]
    encs = [_Encounter(d.case, d.encounter, d.responder, transcript(d))
            for d in sorted(dialogues, key=lambda d: (d.case, d.encounter))]
    _dry_run(utts, encs, tax)
    responders = sorted({d.responder for d in dialogues})

    files: dict[str, bytes] = {}
    packets: list[KeyPacket] = []
    for i in range(1, n_raters + 1):
        plan = _plan(seed, i, n_raters, responders, utts, encs)
        data = _packet_workbook(plan, seed, tax, titles)
        files[plan.file] = data
        u, e = plan.key_entries()
        packets.append(KeyPacket(
            rater=plan.label, file=plan.file, packet_id=plan.packet_id, sha256=sha256_bytes(data),
            codes={code: resp for resp, code in sorted(plan.codes.items(), key=lambda kv: kv[1])},
            utterances=u, encounters=e,
        ))
    key_doc = PacketKey(
        format=FORMAT, seed=seed, n_raters=n_raters,
        metrics=[KeyMetric(name=m.name, level=m.level, scale_min=m.scale_min, scale_max=m.scale_max)
                 for m in tax.metrics],
        case_titles=titles, packets=packets,
    )
    key_written = False
    try:
        with atomic_dir(out) as tmp:
            for name, data in files.items():
                atomic_write_bytes(tmp / name, data)
            atomic_write_json(key, key_doc.model_dump(mode="json"))
            key_written = True
    except BaseException:
        if key_written:
            key.unlink(missing_ok=True)
        raise
    return PacketSet(
        out_dir=out, key_path=key, files=[out / name for name in files], n_raters=n_raters,
        n_utterances=len(utts), n_encounters=len(encs), packet_ids=[p.packet_id for p in packets],
    )


# ----------------------------------------------------------------------------- collecting


def load_key(key_path: str | os.PathLike[str]) -> PacketKey:
    """The unblinding key, checked whole (``OsceInputError`` naming the key's fields otherwise)."""
    p = Path(key_path)
    try:
        raw = json.loads(p.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise OsceInputError(str(p), [f"cannot read the key: {err}"]) from None
    try:
        key = PacketKey.model_validate(raw)
    except ValidationError as err:
        raise OsceInputError(str(p), [
            f"{'.'.join(map(str, e['loc'])) or 'key'}: {e['msg']}" for e in err.errors()
        ]) from None
    if key.format != FORMAT:
        raise OsceInputError(str(p), [f"format {key.format!r} is not {FORMAT!r}"])
    return key


_OTHER_SPREADSHEETS = (".xls", ".xlsm", ".xlsb", ".ods", ".numbers", ".csv")
"""A packet saved in another format: named, since it would otherwise only show up as a missing packet."""

_INT_TEXT = re.compile(r"[+-]?\d+(\.0*)?")


def _score(value: object, lo: int, hi: int) -> tuple[int | None, str | None]:
    """A Likert cell as a whole number (4.0 and the text '4' are 4), or why it is not one."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, "empty"
    if isinstance(value, bool):
        return None, f"{value!r} is not a whole number"
    if isinstance(value, int):
        n = value
    elif isinstance(value, float):
        if not value.is_integer():
            return None, f"{value!r} is not a whole number"
        n = int(value)
    elif isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
        n = int(float(value.strip()))
    else:
        shown = value if isinstance(value, str) else str(value)
        return None, f"{shown!r} is not a whole number"
    if not lo <= n <= hi:
        return None, f"{n} is outside {lo}-{hi}"
    return n, None


def _rows_for(rater: str, utts: Sequence[tuple[_Utterance | KeyUtterance, dict[str, int]]],
              encs: Sequence[tuple[_Encounter | KeyEncounter, dict[str, int]]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for u, scores in utts:
        for metric, score in scores.items():
            rows.append({
                "case": u.case, "encounter": u.encounter, "responder": u.responder, "utterance_id": u.utterance_id,
                "turn": u.turn, "history_category": u.history_category, "linguistic_form": u.linguistic_form,
                "rater": rater, "level": "sentence", "metric": metric, "score": score,
            })
    for e, scores in encs:
        for metric, score in scores.items():
            rows.append({
                "case": e.case, "encounter": e.encounter, "responder": e.responder, "utterance_id": None,
                "turn": None, "history_category": None, "linguistic_form": None,
                "rater": rater, "level": "encounter", "metric": metric, "score": score,
            })
    return rows


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _read_sheet(wb: Any, name: str, sheet: str, fixed: Sequence[str], metrics: Sequence[KeyMetric],
                entries: dict[str, Any], packet: KeyPacket, titles: dict[str, str],
                problems: list[str]) -> list[tuple[Any, dict[str, int]]]:
    """One rating sheet: every cell checked against the key; the scored entries when the sheet is clean."""
    if sheet not in wb.sheetnames:
        problems.append(f"{name}: sheet {sheet} missing")
        return []
    ws = wb[sheet]
    where = f"{name}, sheet {sheet}"
    expected = list(fixed) + [f"{m.name} ({m.scale_min}-{m.scale_max})" for m in metrics]
    header = [c.value for c in ws[1]] if ws.max_row >= 1 else []
    header += [None] * max(0, len(expected) - len(header))
    bad_header = False
    for col, got in enumerate(header, start=1):
        want = expected[col - 1] if col <= len(expected) else None
        if _norm(got).strip() != (want or ""):
            ref = f"{get_column_letter(col)}1"
            what = f"header is {_norm(got)!r}, expected {want!r}" if want else f"added column {_norm(got)!r}"
            problems.append(f"{where}, cell {ref}: {what} (columns must not be moved, added or removed)")
            bad_header = True
    if bad_header:
        return []
    code_of = {resp: code for code, resp in packet.codes.items()}
    n_fixed = len(fixed)
    text_cols = [j for j, c in enumerate(fixed) if c in ("question", "answer", "transcript")]
    seen: dict[str, int] = {}
    out: list[tuple[Any, dict[str, int]]] = []
    before = len(problems)
    for r, cells in enumerate(ws.iter_rows(min_row=DATA_ROW, max_col=len(expected), values_only=True),
                              start=DATA_ROW):
        cells = tuple(cells) + (None,) * (len(expected) - len(cells))
        if all(_blank(v) for v in cells):
            continue
        item = _norm(cells[0]).strip()
        if not item:
            problems.append(f"{where}, cell A{r}: item code missing (an added row, or its code was deleted)")
            continue
        if item not in entries:
            problems.append(f"{where}, cell A{r}: item {item!r} is not in this packet (an added row?)")
            continue
        if item in seen:
            problems.append(f"{where}, cell A{r}: item {item} appears twice (also row {seen[item]})")
            continue
        seen[item] = r
        entry = entries[item]
        if _norm(cells[1]) != titles.get(entry.case, entry.case):
            problems.append(f"{where}, cell B{r}: case title was edited")
        if _norm(cells[2]).strip() != code_of.get(entry.responder):
            problems.append(f"{where}, cell C{r}: VSP code was edited")
        texts = [_norm(cells[j]) for j in text_cols]
        if len(texts) == 2:
            if _pair_sha(*texts) != entry.text_sha256:
                col = text_cols[0] if _sha(texts[0]) != entry.question_sha256 else text_cols[1]
                problems.append(f"{where}, cell {get_column_letter(col + 1)}{r}: question/answer text was edited")
        elif _sha(texts[0]) != entry.text_sha256:
            problems.append(f"{where}, cell {get_column_letter(text_cols[0] + 1)}{r}: transcript text was edited")
        scores: dict[str, int] = {}
        for j, m in enumerate(metrics):
            score, why = _score(cells[n_fixed + j], m.scale_min, m.scale_max)
            if score is None:
                problems.append(f"{where}, cell {get_column_letter(n_fixed + j + 1)}{r}: {why}")
            else:
                scores[m.name] = score
        out.append((entry, scores))
    for item in sorted(set(entries) - set(seen)):
        problems.append(f"{where}: item {item} missing (a deleted row?)")
    return out if len(problems) == before else []


def _read_meta(wb: Any) -> dict[str, object]:
    ws = wb[PACKET_SHEET]
    return {str(k): v for k, v, *_ in ws.iter_rows(min_row=1, max_col=2, values_only=True) if k is not None}


def collect_packets(packets_dir: str | os.PathLike[str], key_path: str | os.PathLike[str], *,
                    taxonomy: Taxonomy | None = None) -> pd.DataFrame:
    """Read every returned ``*.xlsx`` packet, check every cell, and unblind through the key.

    Raises one ``OsceInputError`` listing every problem (file, sheet and cell) when anything is wrong; only
    a clean set is unblinded. Returns the long-format ratings (``RATING_COLUMNS``, rater ``R01`` ...)
    sorted by rater, level, case, encounter, turn and metric, normalised by ``validate_ratings``."""
    tax = taxonomy or Taxonomy()
    key = load_key(key_path)
    key_problems = []
    for m in key.metrics:
        try:
            spec = tax.metric(m.name)
        except KeyError:
            key_problems.append(f"metric {m.name!r} of the key is not in the taxonomy")
            continue
        if (spec.level, spec.scale_min, spec.scale_max) != (m.level, m.scale_min, m.scale_max):
            key_problems.append(f"metric {m.name!r}: the key has {m.level} {m.scale_min}-{m.scale_max}, the taxonomy "
                                f"{spec.level} {spec.scale_min}-{spec.scale_max}")
    if key_problems:
        raise OsceInputError(str(key_path), key_problems)
    folder = Path(packets_dir)
    if not folder.is_dir():
        raise OsceInputError(str(folder), ["not a folder"])
    sentence = [m for m in key.metrics if m.level == "sentence"]
    encounter = [m for m in key.metrics if m.level == "encounter"]
    by_id = {p.packet_id: p for p in key.packets}
    problems: list[str] = []
    found: dict[str, str] = {}  # packet id -> file
    rows: list[dict[str, Any]] = []
    paths = []
    for f in sorted(folder.iterdir()):
        if f.name.startswith(("~$", ".")) or not f.is_file():
            continue  # Excel's lock files, macOS resource forks
        if f.suffix.lower() == ".xlsx":
            paths.append(f)
        elif f.suffix.lower() in _OTHER_SPREADSHEETS:
            problems.append(f"{f.name}: not an .xlsx file (save the packet in .xlsx format)")
    for path in paths:
        name = path.name
        try:
            wb = load_workbook(path, data_only=True)
        except Exception as err:  # a damaged or foreign file: say so and go on with the others
            problems.append(f"{name}: cannot be read as an .xlsx workbook ({type(err).__name__}: {err})")
            continue
        try:
            if PACKET_SHEET not in wb.sheetnames:
                problems.append(f"{name}: sheet {PACKET_SHEET} missing (not a packet of this study, or rebuilt)")
                continue
            meta = _read_meta(wb)
            pid = _norm(meta.get("packet_id")).strip()
            if meta.get("format") != FORMAT:
                problems.append(f"{name}: packet format {meta.get('format')!r} is not {FORMAT!r}")
                continue
            packet = by_id.get(pid)
            if packet is None:
                problems.append(f"{name}: packet id {pid} is not in the key (a packet from another set or seed)")
                continue
            if pid in found:
                problems.append(f"{name}: the same packet as {found[pid]} (packet id {pid}, rater {packet.rater}); "
                                f"keep one")
                continue
            found[pid] = name
            before = len(problems)
            utt = _read_sheet(wb, name, UTTERANCES, _UTT_FIXED, sentence, packet.utterances, packet,
                              key.case_titles, problems) if sentence else []
            enc = _read_sheet(wb, name, ENCOUNTERS, _ENC_FIXED, encounter, packet.encounters, packet,
                              key.case_titles, problems) if encounter else []
            if len(problems) == before:
                rows += _rows_for(packet.rater, utt, enc)
        finally:
            wb.close()
    for p in key.packets:
        if p.packet_id not in found:
            problems.append(f"packet {p.rater} ({p.file}, packet id {p.packet_id}) is missing from the folder")
    if problems:
        raise OsceInputError(str(folder), problems)
    order = {m.name: k for k, m in enumerate(key.metrics)}
    rows.sort(key=lambda r: (r["rater"], r["level"] != "sentence", r["case"], r["encounter"], r["responder"],
                             -1 if r["turn"] is None else r["turn"], r["utterance_id"] or "", order[r["metric"]]))
    return validate_ratings(pd.DataFrame(rows, columns=list(RATING_COLUMNS)), tax, source=str(folder))


# ----------------------------------------------------------------------------- rehearsal

Scorer = Callable[[str, KeyMetric, "KeyUtterance | KeyEncounter"], int]
"""(rater, metric, item) -> the score that rater gives that item on that metric."""


def fill_packets(packets_dir: str | os.PathLike[str], key_path: str | os.PathLike[str], scorer: Scorer) -> int:
    """Fill every Likert cell of every packet with ``scorer``'s score, as a rater would in Excel; the cell count.

    For rehearsing a study end to end (and for tests) before real raters have the packets: the filled files go
    through ``collect_packets`` exactly like returned ones. The scorer sees the unblinded item through the key."""
    key = load_key(key_path)
    metrics = {m.name: m for m in key.metrics}
    folder = Path(packets_dir)
    n = 0
    for packet in key.packets:
        path = folder / packet.file
        wb = load_workbook(path)
        for sheet, items in ((UTTERANCES, packet.utterances), (ENCOUNTERS, packet.encounters)):
            ws = wb[sheet]
            cols = {str(c.value).split(" (")[0]: c.column for c in ws[1] if c.value is not None}
            names = [m for m in cols if m in metrics]
            for r in range(DATA_ROW, ws.max_row + 1):
                item = items[str(ws.cell(row=r, column=1).value)]
                for name in names:
                    ws.cell(row=r, column=cols[name], value=int(scorer(packet.rater, metrics[name], item)))
                    n += 1
        buf = io.BytesIO()
        wb.save(buf)
        atomic_write_bytes(path, buf.getvalue())
    return n
