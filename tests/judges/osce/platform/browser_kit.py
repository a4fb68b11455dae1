"""What the browser test and ``benchmarks/platform_screenshots.py`` share: ``synthdocqa osce platform serve`` in
its own process (its own process group, so SIGKILL reaches uvicorn), headless Debian Chromium driven by selenium
and Debian's chromium-driver, at a real phone width (390 x 844 CSS pixels through DevTools device emulation:
a headless window is never narrower than 500 pixels), and the page steps a student takes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

BIN = Path(sys.executable).parent
ADMIN_TOKEN = "admin-token-1"
PHONE = (390, 844)


@dataclass
class Served:
    proc: subprocess.Popen
    base: str
    db: str
    port: int

    def kill(self) -> None:
        """SIGKILL the server's whole process group (no shutdown, no lifespan exit) and reap it."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)


def write_vsp_yaml(path: Path, url: str) -> Path:
    path.write_text(f"responders:\n  - {{name: vsp, endpoint: {{base_url: '{url}', model: fake, max_retries: 0}}}}\n",
                    encoding="utf-8")
    return path


def start_server(tmp: Path, vsp_yaml: Path, db: str, *, port: int | None = None,
                 judge_yaml: Path | None = None) -> Served:
    """Start ``osce platform serve`` and wait until it answers (60 s at most)."""
    from synthdocqa.judges.llm.local_server import free_port

    port = port or free_port()
    cmd = [str(BIN / "synthdocqa"), "osce", "platform", "serve", "--vsp", str(vsp_yaml), "--db", db,
           "--port", str(port)]
    if judge_yaml is not None:
        cmd += ["--judge", str(judge_yaml)]
    env = {**os.environ, "SYNTHDOCQA_PLATFORM_ADMIN_TOKEN": ADMIN_TOKEN}
    log = tmp / f"serve-{port}-{time.monotonic_ns()}.log"
    with log.open("w") as err:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err, text=True,
                                start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(base + "/", timeout=2)
            return Served(proc, base, db, port)
        except httpx.TransportError:
            if proc.poll() is not None or time.monotonic() > deadline:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                raise RuntimeError(f"the platform did not start: {log.read_text()[-2000:]}") from None
            time.sleep(0.2)


def stop_server(s: Served) -> None:
    if s.proc.poll() is None:
        os.killpg(s.proc.pid, signal.SIGTERM)
        try:
            s.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            s.kill()


@contextmanager
def served(tmp: Path, vsp_yaml: Path, db: str, **kw: Any) -> Iterator[Served]:
    s = start_server(tmp, vsp_yaml, db, **kw)
    try:
        yield s
    finally:
        stop_server(s)


def browser(width: int = 1000, height: int = 900, *, phone: bool = False,
            viewport: tuple[int, int] | None = None):  # noqa: ANN201 (a selenium driver)
    """Headless Chromium; ``phone``: a 390 x 844 CSS-pixel mobile viewport (device emulation, scale 1);
    ``viewport``: a desktop viewport of exactly that size."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from tests.exports.chromium import chromium_binary

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(chromium_binary())
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                f"--window-size={max(width, 500)},{height}"):
        opts.add_argument(arg)
    b = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    if phone or viewport:
        w, h = PHONE if phone else viewport
        b.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": phone})
    return b


def submit(b: Any, xpath: str) -> None:
    """Click a form's button and wait until the next page has loaded (the old page's elements are gone)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    b.execute_script("window.__leaving = true")  # a new page has a new window object, without the mark

    def loaded(d: Any) -> bool:
        try:
            return d.execute_script("return window.__leaving === undefined && document.readyState === 'complete'")
        except WebDriverException:  # asked while the old document goes away
            return False

    b.find_element(By.XPATH, xpath).click()
    WebDriverWait(b, 30).until(loaded)


def body_text(b: Any) -> str:
    from selenium.webdriver.common.by import By

    return b.find_element(By.TAG_NAME, "body").text


def sign_in(b: Any, base: str, code: str, *, research: bool,
            shot: Callable[[str], None] | None = None) -> None:
    """Sign in with ``code`` and consent (privacy always, research if asked): ends on the case list."""
    from selenium.webdriver.common.by import By

    b.get(base + "/")
    if shot:
        shot("signin")
    b.find_element(By.NAME, "code").send_keys(code)
    submit(b, "//form[@action='/signin']//button")
    assert b.current_url.endswith("/consent"), b.current_url
    for name in ("privacy", "research") if research else ("privacy",):
        box = b.find_element(By.NAME, name)
        if not box.is_selected():
            box.click()
    if shot:
        shot("consent")
    submit(b, "//form[@action='/consent']//button")
    assert b.current_url.endswith("/cases"), b.current_url


def start_case(b: Any, case: str, language: str) -> str:
    """Start ``case`` in ``language`` from the case list: the new encounter's id."""
    submit(b, f"//form[.//input[@value='{case}'] and .//input[@value='{language}']]//button")
    return b.current_url.rsplit("/", 1)[1]


def ask(b: Any, question: str) -> None:
    from selenium.webdriver.common.by import By

    b.find_element(By.NAME, "question").send_keys(question)
    submit(b, "//form[contains(@action,'/turns')]//button")


def export(db: str, out: Path) -> str:
    subprocess.run([str(BIN / "synthdocqa"), "osce", "platform", "export", "--db", db, "--out", str(out)],
                   check=True, capture_output=True, text=True)
    return (out / "dialogues.csv").read_text(encoding="utf-8")
