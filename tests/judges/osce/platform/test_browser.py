"""The practice platform in a real browser: headless Chromium from Debian driven by selenium (Debian's
chromium-driver) against ``synthdocqa osce platform serve`` in its own process, the VSP a fake OpenAI server.
A student consents, takes a five-turn history (one turn an XSS payload), ends it; the admin page shows it;
the export holds it; withdrawal removes it; another browser gets 404 for its encounter id."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from judges.llm.local_server import free_port
from tests.judges.fake_openai_server import FakeOpenAIServer

pytestmark = [pytest.mark.slow, pytest.mark.needs("browser")]
BIN = Path(sys.executable).parent
PAYLOAD = '<img src=x onerror="document.title=\'XSS\'"><script>document.title="XSS"</script>'
QUESTIONS = ["What brings you in today?", "When did it start?", PAYLOAD, "Does it hurt?", "Any weight loss?"]


@pytest.fixture
def served(tmp_path):
    port = free_port()
    db = f"sqlite+aiosqlite:///{tmp_path / 'p.db'}"
    with FakeOpenAIServer(responder=lambda req: f"Answer {len(req['messages']) // 2}.") as vsp:
        (tmp_path / "vsp.yaml").write_text(f"responders:\n  - {{name: vsp, endpoint: {{base_url: '{vsp.url}', "
                                           f"model: fake, max_retries: 0}}}}\n")
        env = {**os.environ, "SYNTHDOCQA_PLATFORM_ADMIN_TOKEN": "admin-token-1"}
        proc = subprocess.Popen([str(BIN / "synthdocqa"), "osce", "platform", "serve", "--vsp",
                                 str(tmp_path / "vsp.yaml"), "--db", db, "--port", str(port)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    httpx.get(base + "/", timeout=2)
                    break
                except httpx.TransportError:
                    assert proc.poll() is None, proc.communicate()[1][-2000:]
                    time.sleep(0.2)
            yield base, db
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)


def _browser(width: int = 1000, height: int = 900):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from tests.exports.chromium import chromium_binary

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(chromium_binary())
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def _submit(b, xpath: str) -> None:
    """Click a form's button and wait until the next page has loaded (the old page's elements are gone)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    b.execute_script("window.__leaving = true")  # a new page has a new window object, without the mark

    def loaded(d) -> bool:  # noqa: ANN001
        try:
            return d.execute_script("return window.__leaving === undefined && document.readyState === 'complete'")
        except WebDriverException:  # asked while the old document goes away
            return False

    b.find_element(By.XPATH, xpath).click()
    WebDriverWait(b, 30).until(loaded)


def _export(db: str, out: Path) -> str:
    subprocess.run([str(BIN / "synthdocqa"), "osce", "platform", "export", "--db", db, "--out", str(out)],
                   check=True, capture_output=True, text=True)
    return (out / "dialogues.csv").read_text(encoding="utf-8")


def test_a_student_in_chromium_consent_five_turns_export_and_withdrawal(served, tmp_path):
    from selenium.webdriver.common.by import By

    base, db = served
    shots = tmp_path / "shots"
    shots.mkdir()
    b = _browser(390, 844)  # a phone-sized window
    try:
        b.get(base + "/")
        b.save_screenshot(str(shots / "signin.png"))
        b.find_element(By.NAME, "code").send_keys("BROWSER-1")
        _submit(b, "//button[@type='submit']")
        assert b.current_url.endswith("/consent")
        b.find_element(By.NAME, "privacy").click()
        b.find_element(By.NAME, "research").click()
        b.save_screenshot(str(shots / "consent.png"))
        _submit(b, "//form[@action='/consent']//button")
        assert b.current_url.endswith("/cases")
        b.save_screenshot(str(shots / "cases.png"))
        _submit(b, "//form[.//input[@value='hematuria'] and .//input[@value='en']]//button")
        eid = b.current_url.rsplit("/", 1)[1]
        for q in QUESTIONS:
            b.find_element(By.NAME, "question").send_keys(q)
            _submit(b, "//form[contains(@action,'/turns')]//button")
        assert b.title != "XSS" and PAYLOAD in b.find_element(By.TAG_NAME, "body").text  # shown as text
        assert b.find_element(By.TAG_NAME, "body").text.count("Patient:") == 5
        b.save_screenshot(str(shots / "encounter.png"))
        b.find_element(By.NAME, "differential").send_keys("bladder cancer")
        _submit(b, "//form[contains(@action,'/end')]//button")
        assert "Encounter ended" in b.find_element(By.TAG_NAME, "h1").text

        admin = _browser()
        try:
            admin.get(base + "/admin")
            admin.find_element(By.NAME, "token").send_keys("wrong")
            _submit(admin, "//button[@type='submit']")
            assert "wrong token" in admin.page_source
            admin.find_element(By.NAME, "token").send_keys("admin-token-1")
            _submit(admin, "//button[@type='submit']")
            assert admin.title != "XSS" and "hematuria" in admin.find_element(By.TAG_NAME, "table").text
            admin.get(f"{base}/encounters/{eid}")  # a session that is not the student's
            assert "no such encounter" in admin.page_source
        finally:
            admin.quit()

        dialogues = _export(db, tmp_path / "export1")
        assert "When did it start?" in dialogues and dialogues.count("\n") == 6  # header + 5 turns

        b.get(base + "/consent")
        _submit(b, "//form[@action='/consent/withdraw']//button")
        assert "1 stored encounter(s) deleted" in b.find_element(By.TAG_NAME, "body").text
        b.get(f"{base}/encounters/{eid}")
        assert "no such encounter" in b.page_source
    finally:
        b.quit()
    assert "When did it start?" not in _export(db, tmp_path / "export2")
    for name in ("signin", "consent", "cases", "encounter"):
        assert (shots / f"{name}.png").stat().st_size > 5000
    if os.environ.get("SYNTHDOCQA_DOCS_SHOTS"):  # benchmarks: refresh the screenshots in docs/img
        import shutil

        for p in shots.iterdir():
            shutil.copy(p, Path(os.environ["SYNTHDOCQA_DOCS_SHOTS"]) / f"platform_{p.name}")
    assert re.fullmatch(r"[A-Za-z0-9_-]{20,}", eid)  # an unguessable id
