"""Headless Debian Chromium driven over the DevTools protocol (CDP), for checking HTML reports.

A page is loaded in a fresh profile; every console error, uncaught exception, failed resource load and
network request leaving ``file:``/``data:`` is collected. The browser is started on a free port with
the project's flags and killed by its own pid when done.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--remote-debugging-port=0", "--remote-allow-origins=*"]


def kill_group(proc: subprocess.Popen) -> None:
    """Kill Chromium and its helper processes (started with ``start_new_session``): killing the browser alone
    left a helper writing into the profile after it was removed (a ``chromium-profile-*`` folder per run)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class PageCheck:
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    images: int = 0
    broken_images: int = 0
    height: int = 0
    title: str = ""
    screenshot: bytes = b""
    scripts: list[str] = field(default_factory=list)
    """Scripts the page compiled while loading (inline ``<script>``, event-handler attributes, ``javascript:``
    URLs), from DevTools' ``Debugger.scriptParsed``; the probes this module runs afterwards are not counted."""


class _Cdp:
    def __init__(self, ws_url: str) -> None:
        from websockets.sync.client import connect

        self.ws = connect(ws_url, max_size=None, open_timeout=30)
        self.next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, session: str | None = None, timeout: float = 60, **params) -> dict:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        deadline = time.time() + timeout
        while True:
            reply = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.time())))
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 60) -> dict:
        for i, ev in enumerate(self.events):
            if ev.get("method") == method:
                return self.events.pop(i)
        deadline = time.time() + timeout
        while True:
            ev = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.time())))
            if ev.get("method") == method:
                return ev
            self.events.append(ev)

    def drain(self, seconds: float) -> None:
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                self.events.append(json.loads(self.ws.recv(timeout=max(0.05, deadline - time.time()))))
            except TimeoutError:
                break


def check_page(html_path: str | Path, width: int = 1400, height: int = 1000, screenshot: str = "",
               timeout: float = 120) -> PageCheck:
    """Load ``html_path`` in headless Chromium; ``screenshot``: "" none, "viewport" or "full" (whole page)."""
    binary = chromium_binary()
    if binary is None:
        raise RuntimeError("chromium is not installed (apt-get install chromium)")
    profile = Path(tempfile.mkdtemp(prefix="chromium-profile-"))
    proc = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)  # its helpers die with it (kill_group)
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.time() + timeout
        while not (port_file.is_file() and len(port_file.read_text().splitlines()) >= 2):
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"chromium did not open its DevTools port (exit {proc.poll()})")
            time.sleep(0.1)
        port, path = port_file.read_text().splitlines()[:2]
        cdp = _Cdp(f"ws://127.0.0.1:{port}{path}")
        target = cdp.call("Target.createTarget", url="about:blank")["targetId"]
        session = cdp.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network", "Debugger"):
            cdp.call(f"{domain}.enable", session)
        cdp.call("Emulation.setDeviceMetricsOverride", session, width=width, height=height, deviceScaleFactor=1,
                 mobile=False)
        cdp.call("Page.navigate", session, url=Path(html_path).resolve().as_uri())
        cdp.wait_for("Page.loadEventFired", timeout=timeout)
        cdp.drain(0.5)
        result = PageCheck()
        # about:blank compiles nothing; whatever was parsed by now came from the page itself
        result.scripts = [ev["params"].get("url") or ev["params"].get("scriptId", "")
                          for ev in cdp.events if ev.get("method") == "Debugger.scriptParsed"]
        probe = ("JSON.stringify({n: document.images.length, broken: [...document.images].filter("
                 "i => !(i.complete && i.naturalWidth > 0)).length, h: document.documentElement.scrollHeight, "
                 "t: document.title})")
        info = json.loads(cdp.call("Runtime.evaluate", session, expression=probe, returnByValue=True)
                          ["result"]["value"])
        result.images, result.broken_images, result.height, result.title = info["n"], info["broken"], info["h"], \
            info["t"]
        if screenshot:
            params: dict = {"format": "png"}
            if screenshot == "full":
                params.update(captureBeyondViewport=True,
                              clip={"x": 0, "y": 0, "width": width, "height": info["h"], "scale": 1})
            result.screenshot = base64.b64decode(cdp.call("Page.captureScreenshot", session, **params)["data"])
        cdp.drain(0.2)
        for ev in cdp.events:
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                result.errors.append("console: " + " ".join(str(a.get("value", a.get("description", "")))
                                                            for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                result.errors.append("exception: " + str(d.get("exception", {}).get("description") or d.get("text")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                result.errors.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}".strip())
            elif m == "Network.loadingFailed":
                result.errors.append(f"network: {p.get('errorText')}")
            elif m == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if not url.startswith(("file:", "data:", "about:")):
                    result.requests.append(url)
        cdp.ws.close()
        return result
    finally:
        kill_group(proc)
        proc.wait(timeout=30)
        shutil.rmtree(profile, ignore_errors=True)
