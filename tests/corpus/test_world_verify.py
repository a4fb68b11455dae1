"""``verify`` asks every figure's question again of the world its document stores."""

from __future__ import annotations

import json

import pytest

from synthdocqa.corpus.generate import generate_corpus
from synthdocqa.corpus.verify import verify_corpus
from synthdocqa.ir.spec import REFERENCE_ELEMENT_MIX, CorpusSpec, PageCountDist


@pytest.fixture(scope="module")
def world_corpus(tmp_path_factory):
    spec = CorpusSpec(name="world", seed=17, n_docs=1, profile="custom", domains=["automotive"],
                      recipes=["quarterly_report"], pages=PageCountDist(mean=3, sigma=0, min=3, max=3),
                      element_mix=dict(REFERENCE_ELEMENT_MIX), tier_mix={"good": 1.0}, dpi=72, scan_dpi=72)
    out = tmp_path_factory.mktemp("world") / "corpus"
    generate_corpus(spec, out)
    return out


def test_an_edited_driver_fails_verify_naming_the_facts_that_no_longer_follow(world_corpus, tmp_path):
    import shutil

    assert verify_corpus(world_corpus) == []
    copy = tmp_path / "corpus"
    shutil.copytree(world_corpus, copy)
    path = copy / "docs" / "doc-00000" / "ir.json"
    doc = json.loads(path.read_text("utf-8"))
    assert doc["world"] and doc["world"]["entries"], "the quarterly report prints figures of its issuer's world"
    queried = [f for f in doc["facts"] if f.get("query")]
    item = queried[0]["query"]["items"][0]  # every driver of a printed figure's item feeds that figure
    for e in doc["world"]["entries"]:
        if e["driver"] and e["item"] == item:
            e["driver"]["level"] *= 1.5
    path.write_text(json.dumps(doc, indent=1), "utf-8")
    problems = verify_corpus(copy)
    named = [p for p in problems if "the world's" in p]
    assert any(queried[0]["id"] in p for p in named), problems[:5]
    assert named and all(item in p for p in named)  # only the figures the edited item enters


def test_a_number_that_is_not_the_world_s_fails_verify(world_corpus, tmp_path):
    """A fact whose query is removed (a number drawn in the document, as facts were before the world) is named by
    verify; the document's own page numbers (a contents table) are not the world's and are not named."""
    import shutil

    copy = tmp_path / "corpus"
    shutil.copytree(world_corpus, copy)
    path = copy / "docs" / "doc-00000" / "ir.json"
    doc = json.loads(path.read_text("utf-8"))
    victim = next(f for f in doc["facts"] if f.get("query"))
    victim["query"] = None
    path.write_text(json.dumps(doc, indent=1), "utf-8")
    problems = verify_corpus(copy)
    assert [p for p in problems if "not asked of its issuer's world" in p] == [
        p for p in problems if victim["id"] in p and "not asked" in p] != []
