"""The practice platform in a real browser: headless Chromium from Debian driven by selenium (Debian's
chromium-driver) against ``synthdocqa osce platform serve`` in its own process, the VSP a fake OpenAI server, the
window a phone's (390 x 844 CSS pixels, ``browser_kit``).

1. A student consents, takes a five-turn history (one turn an XSS payload), ends it; the admin page shows it;
   the export holds it; withdrawal removes it; another browser gets 404 for its encounter id.
2. A student asks three questions through the page, the server is killed with SIGKILL: a second connection to
   the SQLite file finds the three answered turns, in order; a practice-only student (no research consent)
   beside them left no row and no byte of their questions or code in the database files. On a server restarted
   on the same file the student's session is gone (sessions live in server memory: the old page's form and the
   encounter's address show the sign-in page, "You are not signed in"); signed in again (the consents are
   remembered) the student finds the encounter in the case list with its three turns, asks a fourth and ends it,
   and the file has all four."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from tests.judges.fake_openai_server import FakeOpenAIServer
from tests.judges.osce.platform.browser_kit import (
    ADMIN_TOKEN,
    ask,
    body_text,
    browser,
    export,
    sign_in,
    start_case,
    start_server,
    stop_server,
    submit,
    write_vsp_yaml,
)

pytestmark = [pytest.mark.slow, pytest.mark.needs("browser")]
PAYLOAD = '<img src=x onerror="document.title=\'XSS\'"><script>document.title="XSS"</script>'
QUESTIONS = [PAYLOAD, "What brings you in today?", "When did it start?", "Does it hurt?", "Any weight loss?"]
"""The payload first: the admin page shows each encounter's first question."""
END = "//form[contains(@action,'/end')]//button"


def _answer(req: dict) -> str:
    return f"Answer {len(req['messages']) // 2}."


@pytest.fixture
def vsp_yaml(tmp_path):
    with FakeOpenAIServer(responder=_answer) as vsp:
        yield write_vsp_yaml(tmp_path / "vsp.yaml", vsp.url)


@pytest.fixture
def served(tmp_path, vsp_yaml):
    s = start_server(tmp_path, vsp_yaml, f"sqlite+aiosqlite:///{tmp_path / 'p.db'}")
    try:
        yield s.base, s.db
    finally:
        stop_server(s)


def test_a_student_in_chromium_consent_five_turns_export_and_withdrawal(served, tmp_path):
    from selenium.webdriver.common.by import By

    base, db = served
    shots = tmp_path / "shots"
    shots.mkdir()
    b = browser(phone=True)
    try:
        sign_in(b, base, "BROWSER-1", research=True, shot=lambda name: b.save_screenshot(str(shots / f"{name}.png")))
        assert b.execute_script("return window.innerWidth") == 390  # a phone's width, not the 500 of a window
        b.save_screenshot(str(shots / "cases.png"))
        eid = start_case(b, "hematuria", "en")
        for q in QUESTIONS:
            ask(b, q)
        assert b.title != "XSS" and PAYLOAD in body_text(b)  # shown as text
        assert not b.find_elements(By.CSS_SELECTOR, ".turn img, .turn script")  # no element made of it
        assert body_text(b).count("Patient:") == 5
        b.save_screenshot(str(shots / "encounter.png"))
        b.find_element(By.NAME, "differential").send_keys("bladder cancer")
        submit(b, END)
        assert "Encounter ended" in b.find_element(By.TAG_NAME, "h1").text

        admin = browser()
        try:
            admin.get(base + "/admin")
            admin.find_element(By.NAME, "token").send_keys("wrong")
            submit(admin, "//button[@type='submit']")
            assert "wrong token" in admin.page_source
            admin.find_element(By.NAME, "token").send_keys(ADMIN_TOKEN)
            submit(admin, "//button[@type='submit']")
            rows = admin.find_elements(By.TAG_NAME, "table")[1].text
            assert admin.title != "XSS" and "hematuria" in rows and PAYLOAD in rows  # the first question, as text
            assert not admin.find_elements(By.CSS_SELECTOR, "td img, td script")
            admin.get(f"{base}/encounters/{eid}")  # a session that is not the student's: the sign-in page
            assert "You are not signed in" in body_text(admin) and "When did it start?" not in admin.page_source
        finally:
            admin.quit()

        dialogues = export(db, tmp_path / "export1")
        assert "When did it start?" in dialogues and dialogues.count("\n") == 6  # header + 5 turns

        b.get(base + "/consent")
        submit(b, "//form[@action='/consent/withdraw']//button")
        assert "1 stored encounter(s) deleted" in body_text(b)
        b.get(f"{base}/encounters/{eid}")
        assert "no such encounter" in b.page_source
    finally:
        b.quit()
    assert "When did it start?" not in export(db, tmp_path / "export2")
    for name in ("signin", "consent", "cases", "encounter"):
        assert (shots / f"{name}.png").stat().st_size > 5000
    assert re.fullmatch(r"[A-Za-z0-9_-]{20,}", eid)  # an unguessable id


KEPT = ["What brings you in today?", "When did it start?", "Is there any pain when you pass urine?"]
PRACTICE = ["Practice-only question about the cough?", "Practice-only question about smoking?"]


def _rows(path: Path) -> tuple[list[tuple], list[tuple]]:
    """(encounters, turns) read from the SQLite file by a connection of its own (not the server's store)."""
    con = sqlite3.connect(path)
    try:
        enc = con.execute("SELECT id, case_id, language, n_turns, ended_at, differential FROM encounters").fetchall()
        turns = con.execute("SELECT encounter_id, n, question, answer, status FROM turns "
                            "ORDER BY encounter_id, n").fetchall()
        return enc, turns
    finally:
        con.close()


def _db_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))  # p.db, p.db-wal, p.db-shm


def test_a_server_killed_mid_encounter_in_chromium_keeps_the_answered_turns(tmp_path, vsp_yaml):
    from selenium.webdriver.common.by import By

    path = tmp_path / "p.db"
    s = start_server(tmp_path, vsp_yaml, f"sqlite+aiosqlite:///{path}")
    b = browser(phone=True)
    practice = browser(phone=True)
    try:
        sign_in(practice, s.base, "PRACTICE-7", research=False)
        assert "Practice only" in body_text(practice)
        start_case(practice, "chronic_cough", "en")
        for q in PRACTICE:
            ask(practice, q)
        assert body_text(practice).count("Patient:") == 2 and "Practice only" in body_text(practice)
        practice.find_element(By.NAME, "differential").send_keys("asthma")
        submit(practice, END)

        sign_in(b, s.base, "KILL-1", research=True)
        eid = start_case(b, "hematuria", "en")
        for q in KEPT:
            ask(b, q)
        assert body_text(b).count("Patient:") == 3
        s.kill()  # SIGKILL mid-encounter: no shutdown, nothing flushed on the way out

        enc, turns = _rows(path)
        assert [(e[0], e[1], e[3], e[4]) for e in enc] == [(eid, "hematuria", 3, None)]  # open, 3 turns
        assert turns == [(eid, n + 1, q, f"Answer {n + 1}.", "ok") for n, q in enumerate(KEPT)]
        raw = _db_bytes(path)  # the practice-only student: no row above, and nothing in the files
        assert KEPT[0].encode() in raw  # (the files hold the stored questions as plain text)
        assert not any(q.encode() in raw for q in PRACTICE) and b"PRACTICE-7" not in raw and b"asthma" not in raw

        s = start_server(tmp_path, vsp_yaml, s.db, port=s.port)  # the same file, the same address
        b.find_element(By.NAME, "question").send_keys("Any blood clots?")  # the page from before the kill
        submit(b, "//form[contains(@action,'/turns')]//button")
        assert "You are not signed in" in body_text(b)  # the session died with the server: sign in again
        b.get(f"{s.base}/encounters/{eid}")
        assert "You are not signed in" in body_text(b) and KEPT[0] not in body_text(b)  # until signed in again
        b.get(s.base + "/")
        b.find_element(By.NAME, "code").send_keys("KILL-1")
        submit(b, "//form[@action='/signin']//button")
        assert all(b.find_element(By.NAME, n).is_selected() for n in ("privacy", "research"))  # remembered
        submit(b, "//form[@action='/consent']//button")
        assert "Kept for research" in body_text(b)
        b.find_element(By.XPATH, f"//a[@href='/encounters/{eid}']").click()  # the case list's open encounter
        text = body_text(b)
        assert text.count("Patient:") == 3 and [text.index(q) for q in KEPT] == sorted(text.index(q) for q in KEPT)
        ask(b, "Any blood clots?")
        b.find_element(By.NAME, "differential").send_keys("bladder cancer")
        submit(b, END)
        assert "Encounter ended" in body_text(b)
        s.kill()
        enc, turns = _rows(path)
        assert [(e[0], e[3], e[4] is not None, e[5]) for e in enc] == [(eid, 4, True, "bladder cancer")]
        assert [t[2] for t in turns] == [*KEPT, "Any blood clots?"] and turns[3][3] == "Answer 4."
    finally:
        b.quit()
        practice.quit()
        stop_server(s)
