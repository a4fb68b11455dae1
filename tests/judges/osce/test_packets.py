"""Blinded rating packets: real .xlsx files written, filled in, broken and collected again."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter

from synthdocqa.judges.osce.loaders import OsceInputError, validate_ratings
from synthdocqa.judges.osce.packets import (
    DATA_ROW,
    ENCOUNTERS,
    PACKET_SHEET,
    UTTERANCES,
    collect_packets,
    default_key_path,
    responder_code,
    write_packets,
)
from synthdocqa.judges.osce.schema import RATING_COLUMNS, Dialogue, MetricSpec, Taxonomy, Turn

RESPONDERS = ("human", "smollm2-a", "smollm2-b")
TAX = Taxonomy()
SENTENCE = [m for m in TAX.metrics if m.level == "sentence"]
ENCOUNTER = [m for m in TAX.metrics if m.level == "encounter"]

_EN = (
    ("q001", "history_of_present_illness", "open", "Can you tell me about the pain?"),
    ("q002", "medications", "closed", "Do you take any medicines?"),
    ("q003", "allergies", "focused", "Which medicines are you allergic to?"),
)
_KO = (
    ("q001", "chief_complaint", "open", "어디가 불편해서 오셨어요?"),
    ("q002", "history_of_present_illness", "focused", "기침은 언제부터 하셨어요?"),
    ("q003", "social_history", "closed", "담배 피우세요?"),
)
_ANSWERS = {
    ("chest_pain", "q001"): "It started two days ago while climbing stairs. ",
    ("chest_pain", "q002"): "= just ramipril, every morning",
    ("chest_pain", "q003"): "Penicillin gives me a rash.\nNothing else.",
    ("cough_ko", "q001"): "기침이 계속 나서 왔어요.",
    ("cough_ko", "q002"): "한 3주 됐어요. 밤에 더 심해요.",
    ("cough_ko", "q003"): "네, 하루에 반 갑 정도요.",
}
TITLES = {"cough_ko": "만성 기침 (Chronic cough)"}


def make_dialogues() -> list[Dialogue]:
    """2 cases x 3 responders x 3 turns; the second case in Korean."""
    out = []
    for case, script in (("chest_pain", _EN), ("cough_ko", _KO)):
        for k, resp in enumerate(RESPONDERS):
            tag = "" if k == 0 else f" ({k})" if case == "chest_pain" else f" {k}번"  # answers differ by responder
            turns = tuple(
                Turn(turn=t, utterance_id=uid, question=q, history_category=cat, linguistic_form=form,
                     response=_ANSWERS[(case, uid)] + tag)
                for t, (uid, cat, form, q) in enumerate(script)
            )
            out.append(Dialogue(case=case, encounter=f"{case}-{resp}", responder=resp, turns=turns))
    return out


DIALOGUES = make_dialogues()
SECRETS = [d.responder for d in DIALOGUES] + [d.encounter for d in DIALOGUES]


def _key(out: Path) -> dict:
    return json.loads(default_key_path(out).read_text("utf-8"))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def planted(responder: str, unit: str, metric: str, rater: str) -> int:
    """A known score per (responder, unit, metric, rater), 1-5, independent of hash seeds."""
    return 1 + int(hashlib.sha256(f"{responder}|{unit}|{metric}|{rater}".encode()).hexdigest(), 16) % 5


def _columns(ws) -> dict[str, str]:
    """Header name (metric name without the scale) -> column letter."""
    return {str(c.value).split(" (")[0]: get_column_letter(c.column) for c in ws[1] if c.value is not None}


def fill(out: Path) -> None:
    """Fill every Likert cell of every packet with its planted score (some as floats, as Excel may store them)."""
    key = _key(out)
    for packet in key["packets"]:
        path = out / packet["file"]
        wb = load_workbook(path)
        for sheet, entries, metrics in ((UTTERANCES, packet["utterances"], SENTENCE),
                                        (ENCOUNTERS, packet["encounters"], ENCOUNTER)):
            ws = wb[sheet]
            cols = _columns(ws)
            for r in range(DATA_ROW, ws.max_row + 1):
                e = entries[ws[f"A{r}"].value]
                unit = f"{e['encounter']}|{e.get('utterance_id')}"
                for m in metrics:
                    score = planted(e["responder"], unit, m.name, packet["rater"])
                    ws[f"{cols[m.name]}{r}"] = float(score) if r % 2 else score
        wb.save(path)


def expected_table(n_raters: int) -> pd.DataFrame:
    rows = []
    for i in range(1, n_raters + 1):
        rater = f"R{i:02d}"
        for d in DIALOGUES:
            for t in d.turns:
                for m in SENTENCE:
                    rows.append({"case": d.case, "encounter": d.encounter, "responder": d.responder,
                                 "utterance_id": t.utterance_id, "turn": t.turn, "history_category": t.history_category,
                                 "linguistic_form": t.linguistic_form, "rater": rater, "level": "sentence",
                                 "metric": m.name, "score": planted(d.responder, f"{d.encounter}|{t.utterance_id}",
                                                                     m.name, rater)})
            for m in ENCOUNTER:
                rows.append({"case": d.case, "encounter": d.encounter, "responder": d.responder,
                             "utterance_id": None, "turn": None, "history_category": None, "linguistic_form": None,
                             "rater": rater, "level": "encounter", "metric": m.name,
                             "score": planted(d.responder, f"{d.encounter}|None", m.name, rater)})
    return validate_ratings(pd.DataFrame(rows, columns=list(RATING_COLUMNS)), TAX)


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    by = ["rater", "level", "encounter", "utterance_id", "metric"]
    return df.sort_values(by, na_position="first").reset_index(drop=True)


@pytest.fixture(scope="module")
def set17(tmp_path_factory):
    out = tmp_path_factory.mktemp("s17") / "packets"
    ps = write_packets(DIALOGUES, 17, 11, out, case_titles=TITLES)
    return out, ps


@pytest.fixture(scope="module")
def filled5(tmp_path_factory):
    """A filled 5-rater set; tests copy it before breaking it."""
    out = tmp_path_factory.mktemp("f5") / "packets"
    write_packets(DIALOGUES, 5, 3, out, case_titles=TITLES)
    fill(out)
    return out


@pytest.fixture
def broken(filled5, tmp_path):
    out = tmp_path / "packets"
    shutil.copytree(filled5, out)
    shutil.copy(default_key_path(filled5), default_key_path(out))
    return out


# ----------------------------------------------------------------------------- 1. blinding and order


def test_seventeen_packets_differ_in_order_and_codes_and_leak_nothing(set17):
    out, ps = set17
    assert sorted(p.name for p in out.iterdir()) == [f"rater-{i:02d}.xlsx" for i in range(1, 18)]
    assert ps.files == [out / f"rater-{i:02d}.xlsx" for i in range(1, 18)]
    assert (ps.n_raters, ps.n_utterances, ps.n_encounters) == (17, 18, 6)
    assert ps.key_path == out.parent / "packets-key.json" and ps.key_path.exists()
    key = _key(out)
    assert len(set(ps.packet_ids)) == 17 and [p["packet_id"] for p in key["packets"]] == ps.packet_ids

    orders, enc_orders, codes = set(), set(), set()
    for packet in key["packets"]:
        utt = packet["utterances"]
        order = tuple((utt[i]["encounter"], utt[i]["utterance_id"]) for i in sorted(utt))
        assert len(set(order)) == 18
        orders.add(order)
        enc_orders.add(tuple(packet["encounters"][i]["encounter"] for i in sorted(packet["encounters"])))
        codes.add(tuple(sorted(packet["codes"].items())))
        assert sorted(packet["codes"]) == [responder_code(k) for k in range(3)]
        assert sorted(packet["codes"].values()) == sorted(RESPONDERS)
        # the sheet shows the items in the key's (shuffled) numbering
        ws = load_workbook(out / packet["file"], read_only=True)[UTTERANCES]
        shown = [r[0] for r in ws.iter_rows(min_row=DATA_ROW, max_col=1, values_only=True)]
        assert shown == sorted(utt) == [f"U{j:03d}" for j in range(1, 19)]
    assert len(orders) == 17
    assert len(enc_orders) > 1 and len(codes) > 1

    for path in ps.files:
        wb = load_workbook(path)
        assert wb.sheetnames == ["Instructions", "Rubric", UTTERANCES, ENCOUNTERS, PACKET_SHEET]
        n_cells = 0
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    if cell.value is None:
                        continue
                    n_cells += 1
                    text = str(cell.value).lower()
                    leaked = [s for s in SECRETS if s.lower() in text]
                    assert not leaked, f"{path.name} {ws.title}!{cell.coordinate} shows {leaked}"
        assert n_cells > 100


def test_rater_packet_does_not_depend_on_the_number_of_raters(set17, tmp_path):
    out, _ = set17
    few = write_packets(DIALOGUES, 3, 11, tmp_path / "few", case_titles=TITLES)
    assert [_sha(p) for p in few.files] == [_sha(out / p.name) for p in few.files]


# ----------------------------------------------------------------------------- 2. round trip


def test_round_trip_returns_the_planted_scores(filled5):
    got = collect_packets(filled5, default_key_path(filled5))
    assert list(got.columns) == list(RATING_COLUMNS)
    assert len(got) == 5 * (18 * 3 + 6 * 6)
    pd.testing.assert_frame_equal(_sorted(got), _sorted(expected_table(5)))
    assert got.loc[got["level"] == "encounter", ["utterance_id", "turn", "history_category"]].isna().all().all()
    again = collect_packets(filled5, default_key_path(filled5))
    pd.testing.assert_frame_equal(got, again)
    assert list(got["rater"].unique()) == [f"R{i:02d}" for i in range(1, 6)]  # sorted by rater first


def test_lock_files_are_ignored_and_other_formats_named(broken):
    (broken / "~$rater-01.xlsx").write_bytes(b"lock")
    (broken / "._rater-01.xlsx").write_bytes(b"resource fork")
    (broken / "notes.txt").write_text("not a packet")
    assert len(collect_packets(broken, default_key_path(broken))) == 5 * (18 * 3 + 6 * 6)
    (broken / "rater-02.xlsx").rename(broken / "RATER-02.XLSX")
    assert len(collect_packets(broken, default_key_path(broken))) == 5 * (18 * 3 + 6 * 6)
    (broken / "RATER-02.XLSX").rename(broken / "rater-02.ods")
    assert _problems(broken)[0] == "rater-02.ods: not an .xlsx file (save the packet in .xlsx format)"


# ----------------------------------------------------------------------------- 3. faults


def _edit(out: Path, file: str, sheet: str, edit) -> str:
    """Apply ``edit(ws, cols)`` to one sheet of one packet; returns whatever the edit returns (a cell ref)."""
    path = out / file
    wb = load_workbook(path)
    ws = wb[sheet]
    ref = edit(ws, _columns(ws))
    wb.save(path)
    return ref


def _problems(out: Path) -> list[str]:
    with pytest.raises(OsceInputError) as err:
        collect_packets(out, default_key_path(out))
    return err.value.problems


def _set(metric: str, row: int, value):
    def edit(ws, cols):
        ref = f"{cols[metric]}{row}"
        ws[ref] = value
        return ref
    return edit


@pytest.mark.parametrize(("sheet", "metric", "row", "value", "why"), [
    (UTTERANCES, "correctness", 7, 9, "9 is outside 1-5"),
    (UTTERANCES, "relevance", 12, None, "empty"),
    (UTTERANCES, "naturalness", 7, "good", "'good' is not a whole number"),
    (UTTERANCES, "correctness", 4, 3.5, "3.5 is not a whole number"),
    (ENCOUNTERS, "overall", 5, 0, "0 is outside 1-5"),
    (ENCOUNTERS, "consistency", 8, "  ", "empty"),
])
def test_a_bad_score_cell_is_named(broken, sheet, metric, row, value, why):
    ref = _edit(broken, "rater-03.xlsx", sheet, _set(metric, row, value))
    assert _problems(broken) == [f"rater-03.xlsx, sheet {sheet}, cell {ref}: {why}"]


def test_text_scores_are_accepted_when_whole(broken):
    _edit(broken, "rater-02.xlsx", UTTERANCES, _set("correctness", 3, " 4 "))
    got = collect_packets(broken, default_key_path(broken))
    assert 4 in set(got["score"])


@pytest.mark.parametrize("column", ["question", "answer", "transcript"])
def test_edited_text_is_named(broken, column):
    sheet = ENCOUNTERS if column == "transcript" else UTTERANCES

    def edit(ws, cols):
        ref = f"{cols[column]}5"
        ws[ref] = ws[ref].value + " (edited)"
        return ref

    ref = _edit(broken, "rater-04.xlsx", sheet, edit)
    what = "transcript" if column == "transcript" else "question/answer"
    assert _problems(broken) == [f"rater-04.xlsx, sheet {sheet}, cell {ref}: {what} text was edited"]


def test_edited_code_and_case_are_named(broken):
    def edit(ws, cols):
        ws["B6"] = "another case"
        ws["C6"] = "VSP-Z"
    _edit(broken, "rater-01.xlsx", UTTERANCES, edit)
    assert _problems(broken) == [
        f"rater-01.xlsx, sheet {UTTERANCES}, cell B6: case title was edited",
        f"rater-01.xlsx, sheet {UTTERANCES}, cell C6: VSP code was edited",
    ]


def test_a_packet_from_another_seed_is_foreign(broken, tmp_path):
    other = tmp_path / "other"
    write_packets(DIALOGUES, 5, 4, other, case_titles=TITLES)
    shutil.copy(other / "rater-05.xlsx", broken / "rater-05.xlsx")
    foreign = _key(other)["packets"][4]["packet_id"]
    mine = _key(broken)["packets"][4]["packet_id"]
    assert _problems(broken) == [
        f"rater-05.xlsx: packet id {foreign} is not in the key (a packet from another set or seed)",
        f"packet R05 (rater-05.xlsx, packet id {mine}) is missing from the folder",
    ]


def test_a_missing_and_a_doubled_packet(broken):
    (broken / "rater-02.xlsx").unlink()
    shutil.copy(broken / "rater-01.xlsx", broken / "rater-01 (copy).xlsx")
    first, second = (p["packet_id"] for p in _key(broken)["packets"][:2])
    assert _problems(broken) == [
        f"rater-01.xlsx: the same packet as rater-01 (copy).xlsx (packet id {first}, rater R01); keep one",
        f"packet R02 (rater-02.xlsx, packet id {second}) is missing from the folder",
    ]


def test_missing_added_and_repeated_rows(broken):
    def edit(ws, cols):
        deleted = ws["A9"].value
        ws.delete_rows(9)
        last = ws.max_row
        ws[f"A{last + 1}"] = "U999"
        ws[f"A{last + 2}"] = ws["A3"].value
        return deleted, last

    deleted, last = _edit(broken, "rater-03.xlsx", UTTERANCES, edit)
    where = f"rater-03.xlsx, sheet {UTTERANCES}"
    assert _problems(broken) == [
        f"{where}, cell A{last + 1}: item 'U999' is not in this packet (an added row?)",
        f"{where}, cell A{last + 2}: item U001 appears twice (also row 3)",
        f"{where}: item {deleted} missing (a deleted row?)",
    ]


def test_structural_faults(broken):
    wb = load_workbook(broken / "rater-01.xlsx")
    del wb[PACKET_SHEET]
    wb.save(broken / "rater-01.xlsx")
    wb = load_workbook(broken / "rater-02.xlsx")
    del wb[ENCOUNTERS]
    wb.save(broken / "rater-02.xlsx")
    _edit(broken, "rater-03.xlsx", UTTERANCES, lambda ws, cols: ws.insert_cols(2))
    (broken / "rater-04.xlsx").write_bytes(b"not a zip")
    problems = _problems(broken)
    assert problems[0] == f"rater-01.xlsx: sheet {PACKET_SHEET} missing (not a packet of this study, or rebuilt)"
    assert problems[1] == f"rater-02.xlsx: sheet {ENCOUNTERS} missing"
    assert problems[2].startswith(f"rater-03.xlsx, sheet {UTTERANCES}, cell B1: header is '', expected 'case'")
    assert any(p.startswith("rater-04.xlsx: cannot be read as an .xlsx workbook") for p in problems)
    assert problems[-2:] == [
        f"packet R01 (rater-01.xlsx, packet id {_key(broken)['packets'][0]['packet_id']}) is missing from the folder",
        f"packet R04 (rater-04.xlsx, packet id {_key(broken)['packets'][3]['packet_id']}) is missing from the folder",
    ]


def test_all_problems_come_at_once(broken):
    a = _edit(broken, "rater-01.xlsx", UTTERANCES, _set("correctness", 3, 7))
    b = _edit(broken, "rater-05.xlsx", ENCOUNTERS, _set("accuracy", 4, None))
    with pytest.raises(OsceInputError) as err:
        collect_packets(broken, default_key_path(broken))
    assert err.value.problems == [f"rater-01.xlsx, sheet {UTTERANCES}, cell {a}: 7 is outside 1-5",
                                  f"rater-05.xlsx, sheet {ENCOUNTERS}, cell {b}: empty"]
    assert f"cell {a}" in str(err.value) and f"cell {b}" in str(err.value)


# ----------------------------------------------------------------------------- 4. validation, hidden sheet


def test_data_validation_follows_the_metric_scale_and_packet_sheet_is_very_hidden(tmp_path):
    wide = MetricSpec(name="correctness", level="sentence", scale_min=0, scale_max=10, description="Right? 0-10.")
    tax = Taxonomy(metrics=(wide,) + TAX.metrics[1:])
    ps = write_packets(DIALOGUES, 2, 5, tmp_path / "p", taxonomy=tax)
    wb = load_workbook(ps.files[0])
    assert wb[PACKET_SHEET].sheet_state == "veryHidden"
    meta = {r[0]: r[1] for r in wb[PACKET_SHEET].iter_rows(values_only=True)}
    # nothing that unblinds: no seed (the codes and orders are a function of it), no rater number
    assert meta == {"format": "synthdocqa-osce-packets/1", "packet_id": ps.packet_ids[0]}
    assert all(wb[s].sheet_state == "visible" for s in wb.sheetnames if s != PACKET_SHEET)
    assert ps.packet_ids[0] in "\n".join(str(c.value) for c in wb["Instructions"]["A"] if c.value)
    for sheet, metrics, n in ((UTTERANCES, tax.metrics[:3], 18), (ENCOUNTERS, tax.metrics[3:], 6)):
        ws = wb[sheet]
        assert ws.freeze_panes == "B3"
        dvs = {str(dv.sqref): dv for dv in ws.data_validations.dataValidation}
        cols = _columns(ws)
        assert len(dvs) == len(metrics)
        for m in metrics:
            letter = cols[m.name]
            assert ws[f"{letter}1"].value == f"{m.name} ({m.scale_min}-{m.scale_max})"
            assert ws[f"{letter}2"].value == m.description and ws[f"{letter}2"].alignment.wrap_text
            dv = dvs[f"{letter}{DATA_ROW}:{letter}{DATA_ROW + n - 1}"]
            assert (dv.type, dv.operator, dv.formula1, dv.formula2) == ("whole", "between", str(m.scale_min),
                                                                         str(m.scale_max))
            assert dv.showErrorMessage and dv.error
    # the wider scale is what collection enforces too
    with pytest.raises(OsceInputError) as err:
        collect_packets(tmp_path / "p", ps.key_path, taxonomy=tax)  # nothing filled in: every cell empty
    assert len(err.value.problems) == 2 * (18 * 3 + 6 * 6)
    assert all(p.endswith(": empty") for p in err.value.problems)
    with pytest.raises(OsceInputError, match="the key has sentence 0-10, the taxonomy sentence 1-5"):
        collect_packets(tmp_path / "p", ps.key_path, taxonomy=TAX)


# ----------------------------------------------------------------------------- 5. Korean


def test_korean_text_round_trips(set17):
    out, _ = set17
    wb = load_workbook(out / "rater-01.xlsx")
    ws = wb[UTTERANCES]
    cols = _columns(ws)
    shown = {(ws[f"B{r}"].value, ws[f"{cols['question']}{r}"].value, ws[f"{cols['answer']}{r}"].value)
             for r in range(DATA_ROW, ws.max_row + 1)}
    expected = {(TITLES.get(d.case, d.case), t.question, t.response) for d in DIALOGUES for t in d.turns}
    assert shown == expected
    assert ("만성 기침 (Chronic cough)", "담배 피우세요?", "네, 하루에 반 갑 정도요. 2번") in shown
    assert ws[f"{cols['question']}{DATA_ROW}"].data_type == "s"
    transcripts = [wb[ENCOUNTERS][f"D{r}"].value for r in range(DATA_ROW, DATA_ROW + 6)]
    assert any(t.startswith("Student: 어디가 불편해서 오셨어요?\nPatient: 기침이 계속 나서 왔어요.") for t in transcripts)


# ----------------------------------------------------------------------------- 6. determinism


def test_same_inputs_same_bytes_other_seed_other_order(tmp_path):
    a = write_packets(DIALOGUES, 3, 21, tmp_path / "a", case_titles=TITLES)
    b = write_packets(DIALOGUES, 3, 21, tmp_path / "b", case_titles=TITLES)
    c = write_packets(DIALOGUES, 3, 22, tmp_path / "c", case_titles=TITLES)
    assert [_sha(p) for p in a.files] == [_sha(p) for p in b.files]
    # bytes do not depend on the clock either (zip entry times, document created/modified)
    with zipfile.ZipFile(a.files[0]) as z:
        assert {i.date_time for i in z.infolist()} == {(2000, 1, 1, 0, 0, 0)}
        core = z.read("docProps/core.xml").decode()
    assert "2000-01-01T00:00:00Z" in core and core.count("2000-01-01") == 2
    assert a.key_path.read_bytes() == b.key_path.read_bytes()
    assert [p["sha256"] for p in _key(a.out_dir)["packets"]] == [_sha(p) for p in a.files]
    assert a.packet_ids == b.packet_ids and not set(a.packet_ids) & set(c.packet_ids)

    def order(ps):
        return [tuple(u[i]["encounter"] + u[i]["utterance_id"] for i in sorted(u))
                for u in (p["utterances"] for p in _key(ps.out_dir)["packets"])]

    assert order(a) == order(b) and order(a) != order(c)
    assert all(_sha(p) != _sha(q) for p, q in zip(a.files, c.files, strict=True))


# ----------------------------------------------------------------------------- 7. refusals


def _nothing_written(tmp_path: Path, before: set[Path]) -> None:
    assert set(tmp_path.rglob("*")) == before


def test_refusals_write_nothing(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("handed out")
    before = set(tmp_path.rglob("*"))
    with pytest.raises(OsceInputError, match="n_raters must be a whole number >= 1, got 0"):
        write_packets(DIALOGUES, 0, 1, tmp_path / "zero")
    with pytest.raises(OsceInputError, match="no dialogues"):
        write_packets([], 3, 1, tmp_path / "none")
    with pytest.raises(OsceInputError, match=r"full already exists and is not an empty folder"):
        write_packets(DIALOGUES, 2, 1, tmp_path / "full")
    with pytest.raises(OsceInputError, match="inside the packets folder"):
        write_packets(DIALOGUES, 2, 1, tmp_path / "inside", key_path=tmp_path / "inside" / "key.json")
    _nothing_written(tmp_path, before)
    assert (tmp_path / "full" / "notes.txt").read_text() == "handed out"


def test_refuses_an_existing_key_and_unblinding_titles(tmp_path):
    write_packets(DIALOGUES, 1, 1, tmp_path / "p")
    shutil.rmtree(tmp_path / "p")
    before = set(tmp_path.rglob("*"))
    with pytest.raises(OsceInputError, match="already exists"):
        write_packets(DIALOGUES, 1, 1, tmp_path / "p")
    with pytest.raises(OsceInputError, match="contains 'human'"):
        write_packets(DIALOGUES, 1, 1, tmp_path / "q", case_titles={"chest_pain": "Chest pain (human SP)"})
    no_ref = [d for d in DIALOGUES if d.responder != "human"]
    with pytest.raises(OsceInputError, match="reference responder 'human' is not among the responders"):
        write_packets(no_ref, 1, 1, tmp_path / "r")
    _nothing_written(tmp_path, before)


def test_an_empty_out_dir_is_used(tmp_path):
    (tmp_path / "p").mkdir()
    ps = write_packets(DIALOGUES, 2, 1, tmp_path / "p")
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["rater-01.xlsx", "rater-02.xlsx"]
    assert ps.key_path == tmp_path / "p-key.json"


def test_unbalanced_dialogues_are_refused_naming_what_is_missing(tmp_path):
    # one responder lost a turn (a failed request): its shorter dialogue would show which responder it is
    short = [d.model_copy(update={"turns": d.turns[:-1]}) if d.responder == "smollm2-b" and i == 0 else d
             for i, d in enumerate(sorted(DIALOGUES, key=lambda d: (d.responder != "smollm2-b", d.case)))]
    lost = next(d for d in sorted(DIALOGUES, key=lambda d: d.case) if d.responder == "smollm2-b").turns[-1]
    with pytest.raises(OsceInputError) as e:
        write_packets(short, 2, 1, tmp_path / "p")
    assert f"responder smollm2-b has no answer to {lost.utterance_id}" in str(e.value)
    assert not (tmp_path / "p").exists()
    made = write_packets(short, 2, 1, tmp_path / "p", allow_unbalanced=True)
    assert made.n_utterances == sum(len(d.turns) for d in short)
