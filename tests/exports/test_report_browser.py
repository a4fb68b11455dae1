"""The report's QA browser, driven in headless Chromium: every filter and the search show as many rows as the
corpus records say they should; multi-page evidence shows a thumbnail per page with its boxes; each page is
thumbnailed once; crafted questions and answers stay text.

Expected numbers are computed from the corpus's own files (``qa.jsonl``, ``assertions.jsonl``, ``doc.json``),
not from the report's code. ``python -m tests.exports.test_report_browser CORPUS OUT.png`` takes the
screenshot in the docs (docs/img/report_qa_browser.png).
"""

from __future__ import annotations

import base64
import io
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from synthdocqa.corpus.views.report import ReportOptions, build_report
from synthdocqa.corpus.views.report_browser import (
    FULL_WIDTH_PAGES,
    MAX_THUMB_WIDTH,
    MIN_THUMB_WIDTH,
    PAGE_BYTES_AT_MAX,
    THUMB_BUDGET,
    script_json,
    thumb_width,
)
from tests.flows.crafted import XSS_ID, craft_doc_id, rehash_manifest

from .chromium import FLAGS, _Cdp, chromium_binary, kill_group
from .helpers import corpus_truth


class Browser:
    """One page in headless Chromium that a test can run expressions in (``js``) and photograph."""

    def __init__(self, html: Path, width: int = 1400, height: int = 1000, timeout: float = 120) -> None:
        self.html, self.width, self.height, self.timeout = Path(html), width, height, timeout

    def __enter__(self) -> Browser:
        binary = chromium_binary()
        if binary is None:
            raise RuntimeError("chromium is not installed (apt-get install chromium)")
        self.profile = Path(tempfile.mkdtemp(prefix="chromium-profile-"))
        self.proc = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={self.profile}",
                                      f"--window-size={self.width},{self.height}", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)  # its helpers die with it (kill_group)
        try:
            port_file = self.profile / "DevToolsActivePort"
            deadline = time.time() + self.timeout
            while not (port_file.is_file() and len(port_file.read_text().splitlines()) >= 2):
                if self.proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"chromium did not open its DevTools port (exit {self.proc.poll()})")
                time.sleep(0.1)
            port, path = port_file.read_text().splitlines()[:2]
            self.cdp = _Cdp(f"ws://127.0.0.1:{port}{path}")
            target = self.cdp.call("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.cdp.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            for domain in ("Page", "Runtime", "Debugger"):
                self.cdp.call(f"{domain}.enable", self.session)
            self.cdp.call("Emulation.setDeviceMetricsOverride", self.session, width=self.width, height=self.height,
                          deviceScaleFactor=1, mobile=False)
            self.cdp.call("Page.navigate", self.session, url=self.html.resolve().as_uri())
            self.cdp.wait_for("Page.loadEventFired", timeout=self.timeout)
            self.cdp.drain(0.3)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        if getattr(self, "cdp", None) is not None:
            self.cdp.ws.close()
        kill_group(self.proc)
        self.proc.wait(timeout=30)
        shutil.rmtree(self.profile, ignore_errors=True)

    def js(self, expression: str):
        """The value of ``expression`` in the page (a thrown exception fails the test)."""
        reply = self.cdp.call("Runtime.evaluate", self.session, expression=expression, returnByValue=True)
        if "exceptionDetails" in reply:
            raise AssertionError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def errors(self) -> list[str]:
        """Uncaught exceptions and console errors so far."""
        self.cdp.drain(0.2)
        out = []
        for ev in self.cdp.events:
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(str(p.get("exceptionDetails", {})))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(str(p.get("args")))
        return out

    def scripts(self) -> list[dict]:
        """Scripts the page compiled (``Debugger.scriptParsed``) other than the probes run by ``js``."""
        self.cdp.drain(0.2)
        return [ev["params"] for ev in self.cdp.events if ev.get("method") == "Debugger.scriptParsed"
                and ev["params"].get("url")]

    def screenshot(self, clip: dict | None = None) -> bytes:
        params: dict = {"format": "png"}
        if clip:
            params.update(captureBeyondViewport=True, clip={**clip, "scale": 1})
        return base64.b64decode(self.cdp.call("Page.captureScreenshot", self.session, **params)["data"])


# ------------------------------------------------------------------ page-side helpers

VISIBLE_ROWS = "[...document.querySelectorAll('#qb-rows tr')].filter(r => !r.hidden && r.offsetParent !== null).length"


def _set(b: Browser, menu: str, value: str) -> None:
    """Choose ``value`` in the select ``menu`` the way a user does: the value, then a change event."""
    b.js(f"(() => {{ const s = document.getElementById({json.dumps(menu)}); s.value = {json.dumps(value)};"
         f" if (s.value !== {json.dumps(value)}) throw new Error('no option ' + {json.dumps(value)});"
         " s.dispatchEvent(new Event('change', {bubbles: true})); })()")


def _search(b: Browser, text: str) -> None:
    b.js(f"(() => {{ const s = document.getElementById('qb-q'); s.value = {json.dumps(text)};"
         " s.dispatchEvent(new Event('input', {bubbles: true})); })()")


def _reset(b: Browser) -> None:
    b.js("document.getElementById('qb-reset').click()")


def _options(b: Browser, menu: str) -> list[str]:
    return b.js(f"[...document.getElementById({json.dumps(menu)}).options].map(o => o.value).filter(Boolean)")


# ------------------------------------------------------------------ truth from the corpus files

def browser_truth(corpus: Path) -> dict:
    """Per QA pair, the values each filter reads, from the corpus's own records: its type, difficulty,
    element, answerable_from_scan, and the scan tiers of its evidence pages (``page_nos`` and every evidence
    span's page, derivation operands included; a page's own tier, or its document's where it has none)."""
    truth = corpus_truth(corpus)
    page_tier: dict[tuple[str, int], str] = {}
    for doc_id in truth["manifest"]["documents"]:
        rec = json.loads((corpus / "docs" / doc_id / "doc.json").read_text("utf-8"))
        for p in rec["pages"]:
            page_tier[(doc_id, p["page_no"])] = p.get("tier") or rec["tier"]
    spans: dict[str, list[dict]] = {}
    for a in truth["assertions"].values():
        ev = spans.setdefault(a["qa_id"], [])
        ev += [e for e in a["evidence"] if e not in ev]
        for op in (a.get("derivation") or {}).get("operands", []):
            ev += [e for e in op["evidence"] if e not in ev]
    out = {}
    for qid, q in truth["qa"].items():
        ev = spans.get(qid, [])
        pages = sorted(set(q["page_nos"]) | {e["page_no"] for e in ev})
        out[qid] = {"type": q["qa_type"], "diff": q["difficulty"], "el": q["element_type"],
                    "scan": {True: "yes", False: "no", None: "unknown"}[q.get("answerable_from_scan")],
                    "tiers": {page_tier[(q["doc_id"], p)] for p in pages}, "pages": pages,
                    "question": q["question"], "answer": q["answer_text"], "doc_id": q["doc_id"],
                    "spans": {p: [e for e in ev if e["page_no"] == p] for p in pages},
                    "boxes": {p: len([e for e in ev if e["page_no"] == p and e.get("bbox_page_px")]) for p in pages},
                    "quads": {p: len([e for e in ev if e["page_no"] == p and e.get("scan_quad")]) for p in pages}}
    return out


def _search_hits(truth: dict, text: str) -> int:
    terms = text.lower().split()
    return sum(all(t in (q["question"] + "\n" + q["answer"]).lower() for t in terms) for q in truth.values())


@pytest.fixture(scope="module")
def report_html(corpus, tmp_path_factory):
    html, _ = build_report(corpus, ReportOptions())
    path = tmp_path_factory.mktemp("browser") / "report.html"
    path.write_text(html, "utf-8")
    return path


def _embedded(html: str) -> dict:
    start = html.index('<script type="application/json" id="qb-data">') + len(
        '<script type="application/json" id="qb-data">')
    return json.loads(html[start:html.index("</script>", start)])


# ------------------------------------------------------------------ without a browser

def test_each_page_is_thumbnailed_once_and_reused(corpus, report_html):
    html = report_html.read_text("utf-8")
    data = _embedded(html)
    truth = corpus_truth(corpus)
    assert [(p["doc"], p["page"]) for p in data["pages"]] == sorted(
        (d, n) for d in truth["manifest"]["documents"] for n in range(1, len(json.loads(
            (corpus / "docs" / d / "doc.json").read_text())["pages"]) + 1))
    assert len(data["qa"]) == truth["stats"]["qa_pairs"]
    for p in data["pages"]:
        for kind in ("clean", "scan"):
            src = p[kind]["src"]
            assert src.startswith("data:image/jpeg;base64,") and html.count(src) == 1
            from PIL import Image

            img = Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))
            assert img.width == MAX_THUMB_WIDTH == thumb_width(len(data["pages"])) < p[kind]["w"]  # a small corpus
            assert abs(img.height / img.width - p[kind]["h"] / p[kind]["w"]) < 0.01
    # rows refer to pages by index: no image data inside the QA list
    assert "data:image" not in json.dumps(data["qa"])


def _thumb_pixels(src: str):
    import numpy as np
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("L"), dtype=float)


def _file_pixels(path: Path, size: tuple[int, int]):
    import numpy as np
    from PIL import Image

    return np.asarray(Image.open(path).convert("L").resize(size, Image.Resampling.LANCZOS), dtype=float)


def test_thumbnails_show_their_own_page_and_scan(corpus, report_html):
    """The clean thumbnail (rendered from document.pdf at its width) looks like the page image file scaled
    down, and the scan thumbnail (decoded reduced) like the scan file scaled down: close to their own page's
    file, and further from any other page's (so no page is shown for another)."""
    data = _embedded(report_html.read_text("utf-8"))
    files = {}
    for doc_id in corpus_truth(corpus)["manifest"]["documents"]:
        for p in json.loads((corpus / "docs" / doc_id / "doc.json").read_text("utf-8"))["pages"]:
            files[(doc_id, p["page_no"])] = p
    for kind, key in (("clean", "image"), ("scan", "scan")):
        thumbs = [_thumb_pixels(p[kind]["src"]) for p in data["pages"]]
        refs = [_file_pixels(corpus / files[(p["doc"], p["page"])][key], thumbs[i].shape[::-1])
                for i, p in enumerate(data["pages"])]
        for i, thumb in enumerate(thumbs):
            own = abs(thumb - refs[i]).mean()
            assert own < 6, (kind, i, own)  # grey levels of 255: JPEG and resampling differences only
            others = [abs(thumb - r).mean() for j, r in enumerate(refs) if j != i and r.shape == thumb.shape]
            assert all(own < o for o in others), (kind, i, own, others)


def test_thumbnail_width_rule():
    """260 px for a small corpus, then down with the square root of the page count so the thumbnails stay
    within the budget, never below the floor; an explicit width (``--thumb-width``) is used as given."""
    assert MAX_THUMB_WIDTH == 260 and MIN_THUMB_WIDTH == 80 and THUMB_BUDGET == 10_000_000
    assert FULL_WIDTH_PAGES == THUMB_BUDGET // PAGE_BYTES_AT_MAX == 333
    for n in (0, 1, 4, 55, 200, FULL_WIDTH_PAGES):
        assert thumb_width(n) == 260
    assert thumb_width(FULL_WIDTH_PAGES + 1) < 260
    assert thumb_width(872) == 160  # the 20-document reference corpus
    assert thumb_width(2000) == 106
    widths = [thumb_width(n) for n in range(0, 20_000, 7)]
    assert widths == sorted(widths, reverse=True)  # never wider for more pages
    assert min(widths) == MIN_THUMB_WIDTH == thumb_width(4400) == thumb_width(10**7)  # the floor
    for n in range(FULL_WIDTH_PAGES + 1, 20_000, 13):
        w = thumb_width(n)
        assert w >= MIN_THUMB_WIDTH
        if w > MIN_THUMB_WIDTH:  # above the floor: within the budget (the model's per-page bytes at width w)
            assert n * PAGE_BYTES_AT_MAX * (w / 260) ** 2 <= THUMB_BUDGET
            assert n * PAGE_BYTES_AT_MAX * ((w + 2) / 260) ** 2 > THUMB_BUDGET  # and not much narrower
    # an explicit width wins, whatever the page count
    assert thumb_width(4, 120) == 120 and thumb_width(10_000, 300) == 300 and thumb_width(10_000, 80) == 80
    assert ReportOptions().page_thumb_width is None  # the report's default: the rule


def test_report_summary_names_the_width_it_chose(corpus):
    _, summary = build_report(corpus, ReportOptions(gallery=0))
    assert summary["browser"]["thumb_width"] == 260 and summary["browser"]["n_pages"] == summary["pages"]
    _, summary = build_report(corpus, ReportOptions(gallery=0, page_thumb_width=96))
    assert summary["browser"]["thumb_width"] == 96


def test_script_json_escapes_what_could_end_the_element():
    payload = {"q": "</script><script>alert(1)</script><!--<script>&amp;\u2028\u2029\\<"}
    text = str(script_json(payload))
    assert not any(ch in text for ch in "<>&\u2028\u2029")
    assert json.loads(text) == payload


def test_thumb_width_is_an_option_of_the_command(corpus, tmp_path, capsys):
    from PIL import Image

    from synthdocqa.flows.cli import main

    assert main(["report", str(corpus), "--out", str(tmp_path / "bad.html"), "--thumb-width", "10"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--thumb-width" in err and not (tmp_path / "bad.html").exists()
    assert f">= {MIN_THUMB_WIDTH}" in err  # the narrowest width is the automatic width's floor
    assert main(["report", str(corpus), "--out", str(tmp_path / "r.html"), "--thumb-width", "120"]) == 0
    data = _embedded((tmp_path / "r.html").read_text("utf-8"))
    widths = {Image.open(io.BytesIO(base64.b64decode(p[k]["src"].split(",", 1)[1]))).width
              for p in data["pages"] for k in ("clean", "scan")}
    assert widths == {120}


# ------------------------------------------------------------------ in Chromium

@pytest.mark.needs("chromium")
def test_every_filter_and_the_search_show_the_rows_the_corpus_says(corpus, report_html):
    truth = browser_truth(corpus)
    n = len(truth)
    menus = {"qb-type": "type", "qb-diff": "diff", "qb-el": "el", "qb-scan": "scan"}
    with Browser(report_html) as b:
        assert b.errors() == []
        assert b.js(VISIBLE_ROWS) == n
        assert b.js("document.getElementById('qb-count').textContent") == f"{n} of {n} QA pairs"
        for menu, key in menus.items():
            expected = Counter(q[key] for q in truth.values())
            assert sorted(_options(b, menu)) == sorted(expected)  # a menu offers exactly the values present
            for value, count in expected.items():
                _set(b, menu, value)
                assert b.js(VISIBLE_ROWS) == count, (menu, value)
                assert b.js("document.getElementById('qb-count').textContent") == f"{count} of {n} QA pairs"
            _set(b, menu, "")
            assert b.js(VISIBLE_ROWS) == n
        tiers = Counter(t for q in truth.values() for t in q["tiers"])
        assert sorted(_options(b, "qb-tier")) == sorted(tiers)
        for tier, count in tiers.items():
            _set(b, "qb-tier", tier)
            assert b.js(VISIBLE_ROWS) == count, tier
        _set(b, "qb-tier", "")
        # the search: a word of a question, a word of an answer, two words together, upper case, nothing
        first = sorted(truth)[0]
        q_word = max(truth[first]["question"].split(), key=len).strip("?.,")
        a_word = truth[sorted(truth)[-1]]["answer"].split()[0]
        for text in (q_word, a_word, f"{q_word} {a_word}", q_word.upper(), "What", "zzz-no-such-text"):
            _search(b, text)
            assert b.js(VISIBLE_ROWS) == _search_hits(truth, text), text
        assert _search_hits(truth, q_word) >= 1 and _search_hits(truth, "zzz-no-such-text") == 0
        # filters combine
        _search(b, "")
        some = truth[first]
        _set(b, "qb-type", some["type"])
        _set(b, "qb-diff", some["diff"])
        _set(b, "qb-scan", some["scan"])
        assert b.js(VISIBLE_ROWS) == sum(q["type"] == some["type"] and q["diff"] == some["diff"]
                                         and q["scan"] == some["scan"] for q in truth.values())
        _reset(b)
        assert b.js(VISIBLE_ROWS) == n
        # a page of the grid (clicked) shows the QA pairs with evidence on it; its caption names it
        for i in (0, 1):
            b.js(f"document.querySelectorAll('#qb-grid .qb-page')[{i}].click()")
            doc_id = b.js(f"document.querySelectorAll('#qb-grid .qb-page')[{i}].closest('.qb-doc')"
                          ".querySelector('h4').textContent")
            page_no = int(b.js(f"document.querySelectorAll('#qb-grid .qb-page')[{i}]"
                               ".querySelector('figcaption').textContent").split()[0][1:])
            expected = sum(q["doc_id"] == doc_id and page_no in q["pages"] for q in truth.values())
            assert b.js(VISIBLE_ROWS) == expected
            assert b.js(f"document.querySelectorAll('#qb-grid .qb-page')[{i}]"
                        ".querySelector('figcaption').textContent").endswith(f" {expected} QA")
        assert not b.js("document.getElementById('qb-page').hidden")
        b.js("document.querySelector('#qb-page button').click()")
        assert b.js(VISIBLE_ROWS) == n
        assert b.errors() == []


@pytest.mark.needs("chromium")
def test_evidence_is_shown_on_every_page_it_is_on_with_its_boxes(corpus, report_html):
    truth = browser_truth(corpus)
    multi = sorted(qid for qid, q in truth.items() if len(q["pages"]) > 1)
    assert multi, "the fixture corpus has a QA pair with evidence on two pages"
    probe = ("(id => { const r = document.querySelector(`#qb-rows tr[data-qa=\"${id}\"]`);"
             " return [...r.querySelectorAll('.qb-thumb')].map(f => ({caption: f.querySelector('figcaption')"
             ".textContent, rects: f.querySelectorAll('svg rect').length, polys: f.querySelectorAll('svg polygon')"
             ".length, img: f.querySelector('img').naturalWidth > 0 && f.querySelector('img').complete,"
             " w: f.querySelector('img').getBoundingClientRect().width,"
             " sw: f.querySelector('svg').getBoundingClientRect().width})); })")
    with Browser(report_html) as b:
        for qid in [*multi, sorted(truth)[0]]:
            thumbs = b.js(f"{probe}({json.dumps(qid)})")
            q = truth[qid]
            assert len(thumbs) == len(q["pages"]), qid
            for page_no, th in zip(q["pages"], thumbs, strict=True):
                assert th["caption"].startswith(f"p{page_no} ")
                assert th["rects"] == q["boxes"][page_no] and th["polys"] == 0
                assert th["img"] and th["w"] > 50 and abs(th["sw"] - th["w"]) < 3  # boxes laid over the image
        _set(b, "qb-view", "scan")
        for qid in multi:
            thumbs = b.js(f"{probe}({json.dumps(qid)})")
            assert [th["polys"] for th in thumbs] == [truth[qid]["quads"][p] for p in truth[qid]["pages"]]
            assert all(th["rects"] == 0 and th["img"] for th in thumbs)
        # every page of the corpus in the grid, each with its own image
        grid = b.js("[...document.querySelectorAll('#qb-grid .qb-page img')].map(i => i.complete && i.naturalWidth > 0)")
        assert len(grid) == sum(len(json.loads((corpus / "docs" / d / "doc.json").read_text())["pages"])
                                for d in json.loads((corpus / "corpus.json").read_text())["documents"]) and all(grid)
        assert b.errors() == []


def test_box_coordinates_are_the_records_page_pixels(corpus, report_html):
    """The SVG shapes are exactly the evidence's ``bbox_page_px`` (clean page) and ``scan_quad`` (scan) in the full
    image's pixels, which is the viewBox (the image file's size), so they scale with the thumbnail."""
    from PIL import Image

    data = _embedded(report_html.read_text("utf-8"))
    truth = browser_truth(corpus)
    files = {}
    for doc_id in corpus_truth(corpus)["manifest"]["documents"]:
        for p in json.loads((corpus / "docs" / doc_id / "doc.json").read_text("utf-8"))["pages"]:
            files[(doc_id, p["page_no"])] = p
    for page in data["pages"]:
        rec = files[(page["doc"], page["page"])]
        assert (page["clean"]["w"], page["clean"]["h"]) == Image.open(corpus / rec["image"]).size
        assert (page["scan"]["w"], page["scan"]["h"]) == Image.open(corpus / rec["scan"]).size
    n_shapes = 0
    for item in data["qa"]:
        q = truth[item["id"]]
        assert [data["pages"][i]["page"] for i, _, _ in item["ev"]] == q["pages"]
        for page_index, boxes, quads in item["ev"]:
            page_no = data["pages"][page_index]["page"]
            spans = q["spans"][page_no]
            want_boxes = [e["bbox_page_px"] for e in spans if e.get("bbox_page_px")]
            want_quads = [e["scan_quad"] for e in spans if e.get("scan_quad")]
            assert len(boxes) == len(want_boxes) and len(quads) == len(want_quads)
            for got, want in zip(boxes, want_boxes, strict=True):
                assert all(abs(g - w) <= 0.051 for g, w in zip(got, want, strict=True))
            for got, want in zip(quads, want_quads, strict=True):
                assert all(abs(g - w) <= 0.051 for gp, wp in zip(got, want, strict=True)
                           for g, w in zip(gp, wp, strict=True))
            n_shapes += len(boxes) + len(quads)
    assert n_shapes > 0


@pytest.mark.needs("chromium")
def test_a_long_list_is_shown_a_page_at_a_time(corpus, tmp_path, monkeypatch):
    """The browser builds at most LIMIT rows (and their thumbnails) at a time; "show more" adds the next; the
    count says how many match. LIMIT is 200 in the report, 5 here so the 2-document corpus has more."""
    import synthdocqa.corpus.views.report_browser as rb

    assert "LIMIT = 200;" in rb.BROWSER_JS
    monkeypatch.setattr(rb, "BROWSER_JS", rb.BROWSER_JS.replace("LIMIT = 200;", "LIMIT = 5;"))
    html, _ = build_report(corpus, ReportOptions())
    path = tmp_path / "report.html"
    path.write_text(html, "utf-8")
    truth = browser_truth(corpus)
    n = len(truth)
    assert n > 10
    thumbs = "document.querySelectorAll('#qb-rows .qb-thumb').length"
    with Browser(path) as b:
        assert b.js(VISIBLE_ROWS) == 5
        assert b.js("document.getElementById('qb-count').textContent") == f"{n} of {n} QA pairs"
        assert b.js("document.getElementById('qb-more').textContent") == f"Show 5 more ({n - 5} not shown)"
        shown = sorted(truth)[:5]
        assert b.js(thumbs) == sum(len(truth[q]["pages"]) for q in shown)  # only shown rows get thumbnails
        b.js("document.getElementById('qb-more').click()")
        assert b.js(VISIBLE_ROWS) == 10
        b.js("document.getElementById('qb-more').click(); document.getElementById('qb-more').click()")
        assert b.js(VISIBLE_ROWS) == min(n, 20) and b.js("document.getElementById('qb-more').hidden") == (n <= 20)
        hard = sum(q["diff"] == "hard" for q in truth.values())
        _set(b, "qb-diff", "hard")  # a new filter starts from the first page again
        assert b.js(VISIBLE_ROWS) == min(hard, 5)
        assert b.js("document.getElementById('qb-count').textContent") == f"{hard} of {n} QA pairs"
        _search(b, "zzz-no-such-text")
        assert b.js(VISIBLE_ROWS) == 0 and not b.js("document.getElementById('qb-none').hidden")
        assert b.errors() == []


# ------------------------------------------------------------------ crafted text

PAYLOADS = {
    "question": 'What is </script><script>window.__qb_pwned_q = 1</script><!--<script> {{7*7}} & ok?',
    "answer": '<img src=x onerror="window.__qb_pwned_a = 1"> {{7*7}} \u2028end',
}


def _craft_qa(corpus: Path, qa_id: str) -> None:
    """Put the payloads in one QA pair's question and answer in ``qa.parquet`` and re-hash the manifest (what a
    tamperer who also fixes the hashes would do; ``verify`` is not what keeps the report safe)."""
    path = corpus / "qa.parquet"
    table = pq.read_table(path)
    cols = []
    for name in table.column_names:
        col = table[name]
        if name in ("question", "answer_text"):
            value = PAYLOADS["question" if name == "question" else "answer"]
            ids = table["qa_id"].to_pylist()
            col = pa.array([value if i == qa_id else v for i, v in zip(ids, col.to_pylist(), strict=True)],
                           type=col.type)
        cols.append(col)
    pq.write_table(pa.Table.from_arrays(cols, names=table.column_names), path, compression="zstd")
    rehash_manifest(corpus)


@pytest.mark.needs("chromium")
def test_crafted_question_and_answer_stay_text_in_the_browser(corpus_copy, tmp_path):
    qa_id = sorted(corpus_truth(corpus_copy)["qa"])[0]
    _craft_qa(corpus_copy, qa_id)
    html, _ = build_report(corpus_copy, ReportOptions())
    assert "</script><script>window.__qb" not in html and "<img src=x" not in html
    assert "{{7*7}}" in html  # not evaluated by the template
    path = tmp_path / "crafted.html"
    path.write_text(html, "utf-8")
    with Browser(path) as b:
        assert b.errors() == []
        assert b.js("typeof window.__qb_pwned_q") == "undefined"
        assert b.js("typeof window.__qb_pwned_a") == "undefined"
        assert len(b.scripts()) == 1  # the browser's own script, nothing the payload opened
        assert b.js("document.querySelectorAll('#qb-rows img[src=x], img[src=\"x\"]').length") == 0
        row = f"document.querySelector('#qb-rows tr[data-qa={json.dumps(qa_id)}]')"
        assert b.js(f"{row}.querySelector('td.qb-q .qb-text').textContent") == PAYLOADS["question"]
        assert b.js(f"{row}.querySelector('td.qb-a .qb-text').textContent") == PAYLOADS["answer"]
        assert b.js(f"{row}.querySelector('td.qb-q').innerText").startswith("What is </script><script>")
        _search(b, "{{7*7}}")
        assert b.js(VISIBLE_ROWS) == 1
        _search(b, "49")
        assert b.js(f"{row}.hidden")
        _search(b, "</script>")
        assert b.js(VISIBLE_ROWS) == 1
        assert b.js("typeof window.__qb_pwned_q") == "undefined" and b.errors() == []


@pytest.mark.needs("chromium")
def test_crafted_doc_id_is_text_in_the_browser(corpus_copy, tmp_path):
    """The crafted document id of the existing report tests (it closes an attribute and adds an ``onerror``
    image) is a page-grid heading, a caption and an attribute value in the browser, and runs nothing."""
    craft_doc_id(corpus_copy)
    html, _ = build_report(corpus_copy, ReportOptions())
    path = tmp_path / "crafted.html"
    path.write_text(html, "utf-8")
    with Browser(path) as b:
        assert b.errors() == [] and len(b.scripts()) == 1
        assert b.js("document.title").startswith("SynthDocQA corpus report")
        heads = b.js("[...document.querySelectorAll('#qb-grid .qb-doc h4')].map(h => h.textContent)")
        assert XSS_ID in heads
        assert b.js(f"[...document.querySelectorAll('#qb-rows tr')].filter(r => r.getAttribute('data-qa')"
                    f".startsWith({json.dumps(XSS_ID)})).length") >= 1
        assert b.js(f"[...document.querySelectorAll('#qb-grid img')].filter(i => i.alt.startsWith("
                    f"{json.dumps(XSS_ID)})).length") >= 1
        assert b.js("document.querySelectorAll('img[onerror]').length") == 0


# ------------------------------------------------------------------ the docs' screenshot

def screenshot(corpus: Path, out: Path, width: int = 1280, height: int = 900) -> int:
    """A PNG of the browser section of ``corpus``'s report, filtered to multi-hop questions (evidence on more
    than one page, so a row shows several thumbnails), palette-reduced to stay small; returns its size."""
    from PIL import Image

    html, _ = build_report(corpus, ReportOptions())
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        page.write_text(html, "utf-8")
        with Browser(page, width=width, height=height) as b:
            _set(b, "qb-type", "multi_hop")
            top = b.js("document.getElementById('browser').getBoundingClientRect().top + window.scrollY")
            png = b.screenshot({"x": 0, "y": top, "width": width, "height": height})
    img = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    img.save(out, format="PNG", optimize=True)
    return out.stat().st_size


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m tests.exports.test_report_browser CORPUS OUT.png")
    print(f"{sys.argv[2]}: {screenshot(Path(sys.argv[1]), Path(sys.argv[2]))} bytes")
