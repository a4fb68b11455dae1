"""The HTML report: self-contained, deterministic, opens in headless Chromium without errors."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import numpy as np
import pytest
from PIL import Image

from synthdocqa.corpus.store import open_corpus
from synthdocqa.corpus.views.report import ReportOptions, build_report, corpus_tables, sample_gallery
from synthdocqa.corpus.views.report_images import draw_boxes, draw_quads
from synthdocqa.flows.cli import main
from synthdocqa.ir.vocab import DEVICES, TIERS
from tests.flows.crafted import XSS_ID, craft_doc_id

from .chromium import check_page
from .helpers import corpus_truth


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs: list[str] = []
        self.links: list[str] = []
        self.classes: list[str] = []
        self.scripts: list[dict] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if tag in ("a", "link", "script", "iframe") and (a.get("href") or a.get("src")):
            self.links.append(a.get("href") or a.get("src"))
        if tag == "script":
            self.scripts.append(a)
        self.classes += (a.get("class") or "").split()


@pytest.fixture(scope="module")
def report(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert main(["report", str(corpus), "--out", str(out)]) == 0
    return out


def test_report_is_self_contained_with_every_section(corpus, report):
    truth = corpus_truth(corpus)
    tags = _Tags()
    text = report.read_text("utf-8")
    tags.feed(text)
    # the QA browser's data (JSON, not run) and its own inline script; nothing loaded from anywhere
    assert tags.scripts == [{"type": "application/json", "id": "qb-data"}, {}]
    assert all(src.startswith(("data:image/png;base64,", "data:image/jpeg;base64,")) for src in tags.imgs)
    assert all(link.startswith(("#", "data:")) for link in tags.links)  # nothing fetched
    n_gallery = tags.classes.count("qa")
    with_evidence = {a["qa_id"] for a in truth["assertions"].values() if a["evidence"]}
    assert n_gallery == min(6, len(with_evidence))
    assert tags.classes.count("tier") == len(DEVICES) * len(TIERS)  # every device at every tier
    # charts, gallery (page, scan, 2 zooms), contact sheet
    assert len(tags.imgs) == 6 + 4 * n_gallery + len(DEVICES) * len(TIERS)
    for device in DEVICES:
        for tier in ("pristine", "good", "fair", "degraded", "poor"):
            assert f"<strong>{device}, {tier}</strong>" in text
    s = truth["stats"]
    assert f"{s['documents']} documents, {s['pages']} pages, {s['qa_pairs']} QA pairs" in text
    for qa_type, n in s["qa_by_type"].items():
        assert f'<th scope="row">{qa_type}</th><td class="n">{n}</td>' in text


def test_report_is_deterministic(corpus, report, corpus_copy):
    again, _ = build_report(corpus, ReportOptions())
    assert again.encode("utf-8") == report.read_bytes()
    assert 'id="qb-data"' in again  # the QA browser, its thumbnails and data included
    elsewhere, _ = build_report(corpus_copy, ReportOptions())
    assert elsewhere == again  # nor does the corpus's folder enter the page


def test_gallery_questions_are_sampled_over_element_types(corpus):
    truth = corpus_truth(corpus)
    tables = corpus_tables(open_corpus(corpus))
    chosen = sample_gallery(tables, seed=5, n=3)
    assert chosen == sample_gallery(tables, seed=5, n=3)  # seeded
    with_evidence = {a["qa_id"] for a in truth["assertions"].values() if a["evidence"]}
    assert set(chosen) <= with_evidence and len(chosen) == len(set(chosen)) == min(3, len(with_evidence))
    kinds = {truth["qa"][q]["element_type"] for q in with_evidence}
    assert len({truth["qa"][q]["element_type"] for q in chosen}) == min(3, len(kinds))


def test_boxes_and_quads_are_drawn_where_given():
    white = Image.new("RGB", (100, 80), "white")
    boxed = np.asarray(draw_boxes(white, [[10, 20, 40, 50]], (220, 30, 60), width=2, fill_alpha=0))
    assert tuple(boxed[20, 25]) == (220, 30, 60) and tuple(boxed[35, 10]) == (220, 30, 60)
    assert tuple(boxed[35, 25]) == (255, 255, 255) and tuple(boxed[70, 90]) == (255, 255, 255)
    quad = np.asarray(draw_quads(white, [[(50, 10), (90, 10), (90, 30), (50, 30)]], (0, 120, 255), width=1,
                                 fill_alpha=255))
    assert tuple(quad[20, 70]) == (0, 120, 255) and tuple(quad[50, 20]) == (255, 255, 255)


@pytest.mark.needs("chromium")
def test_report_opens_in_headless_chromium_without_errors(corpus, report):
    truth = corpus_truth(corpus)
    pages_of = {q: set(truth["qa"][q]["page_nos"]) for q in truth["qa"]}
    for a in truth["assertions"].values():
        pages_of[a["qa_id"]] |= {e["page_no"] for e in a["evidence"]}
    with_evidence = {a["qa_id"] for a in truth["assertions"].values() if a["evidence"]}
    page = check_page(report, width=1400, height=1000)
    assert page.errors == []
    assert page.requests == []  # no network request leaves the file
    # charts, gallery, contact sheet, and the browser's: a thumbnail per page in the grid and per evidence page
    # of each QA pair (all shown: fewer than 200)
    assert page.broken_images == 0
    assert page.images == (6 + 4 * min(6, len(with_evidence)) + len(DEVICES) * len(TIERS) + truth["stats"]["pages"]
                           + sum(len(p) for p in pages_of.values()))
    assert page.title.startswith("SynthDocQA corpus report")
    assert page.height > 2000


@pytest.mark.needs("chromium")
def test_report_runs_only_its_own_script(report):
    """One script: the QA browser's, inline in the file (the JSON data block is not run)."""
    assert check_page(report).scripts == [report.resolve().as_uri()]


def test_report_refuses_a_crafted_doc_id_corpus(corpus_copy, tmp_path, capsys):
    craft_doc_id(corpus_copy)
    rc = main(["report", str(corpus_copy), "--out", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "unsafe id" in err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.needs("chromium")
def test_crafted_doc_id_report_opens_in_chromium_with_no_script_run(corpus_copy, tmp_path):
    """Built past ``verify`` (as ``--no-verify`` would): escaping alone must keep the injected id inert."""
    craft_doc_id(corpus_copy)
    html, _ = build_report(corpus_copy, ReportOptions())
    path = tmp_path / "crafted.html"
    path.write_text(html, "utf-8")
    page = check_page(path)
    assert page.scripts == [path.resolve().as_uri()]  # the browser's own script; the id opened none
    assert page.errors == [] and page.broken_images == 0
    assert page.title.startswith("SynthDocQA corpus report")


@pytest.mark.needs("chromium")
def test_chromium_check_catches_errors(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><head><link rel='icon' href='data:,'></head><body>"
                   "<img src='missing.png'><script>console.error('boom'); nope();</script></body></html>")
    page = check_page(bad)
    joined = json.dumps(page.errors)
    assert "boom" in joined and "nope" in joined and "ERR_FILE_NOT_FOUND" in joined
    assert page.broken_images == 1
    assert len(page.scripts) == 1  # the inline script


@pytest.mark.needs("chromium")
def test_chromium_check_sees_an_injected_event_handler_run(tmp_path):
    bad = tmp_path / "xss.html"
    bad.write_text("<!DOCTYPE html><html><head><title>clean</title><link rel='icon' href='data:,'></head><body><p>"
                   f"{XSS_ID}</p></body></html>")
    page = check_page(bad)
    assert page.title == "1337" and len(page.scripts) == 1


def test_corpus_artifacts_include_the_report(corpus_copy, monkeypatch):
    """``publish_corpus_artifacts`` (end of generate-corpus) writes report.html and a markdown artifact.

    Prefect's artifact calls are captured here (an API server costs over a minute on this machine); the
    deployment test runs the same function against a real server.
    """
    import logging

    import prefect
    import prefect.artifacts

    from synthdocqa.corpus.store import load_manifest
    from synthdocqa.flows.artifacts import publish_corpus_artifacts

    made: dict[str, str] = {}
    monkeypatch.setattr(prefect.artifacts, "create_markdown_artifact",
                        lambda key, markdown, description=None: made.setdefault(key, markdown))
    monkeypatch.setattr(prefect.artifacts, "create_table_artifact", lambda key, table, description=None: None)
    monkeypatch.setattr(prefect, "get_run_logger", lambda: logging.getLogger("test"))
    import synthdocqa.flows.artifacts as fa

    monkeypatch.setattr(fa, "create_markdown_artifact", prefect.artifacts.create_markdown_artifact)
    monkeypatch.setattr(fa, "create_table_artifact", prefect.artifacts.create_table_artifact)
    publish_corpus_artifacts(str(corpus_copy), load_manifest(corpus_copy))
    assert (corpus_copy / "report.html").is_file()
    md = made["corpus-report"]
    assert str((corpus_copy / "report.html").resolve()) in md
    s = load_manifest(corpus_copy).stats
    assert f"| QA pairs | {s['qa_pairs']} |" in md and f"| documents | {s['documents']} |" in md


def test_long_bar_charts_keep_the_largest_and_sum_the_rest():
    from synthdocqa.corpus.views.report_images import top_bars

    labels = [f"domain_{i:02d}" for i in range(50)]
    values = [float(i % 7) for i in range(50)]
    kept, vals = top_bars(labels, values)
    assert len(kept) == 20 and kept[-1] == "31 others"
    assert sum(vals) == sum(values) and vals[:19] == sorted(values, reverse=True)[:19]
    assert top_bars(labels[:5], values[:5]) == (labels[:5], values[:5])
