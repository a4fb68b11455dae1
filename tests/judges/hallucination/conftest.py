"""Shared fixtures: a small document with QA pairs derived from its facts, written as a corpus dir."""

from __future__ import annotations

import pytest

from synthdocqa.generation.qa import derive_qa, drawn_render_map
from tests.generation.qa_fixture import fixture_doc


@pytest.fixture(scope="session")
def doc_and_qas():
    doc = fixture_doc()
    qas, _ = derive_qa(doc, drawn_render_map(doc), qa_per_page=15)
    return doc, qas


@pytest.fixture()
def corpus_dir(tmp_path, doc_and_qas):
    doc, qas = doc_and_qas
    root = tmp_path / "corpus"
    (root / "docs" / doc.doc_id).mkdir(parents=True)
    (root / "docs" / doc.doc_id / "ir.json").write_text(doc.to_json(), encoding="utf-8")
    (root / "qa.jsonl").write_text("".join(q.model_dump_json() + "\n" for q in qas), encoding="utf-8")
    return root
