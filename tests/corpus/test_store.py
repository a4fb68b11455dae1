"""The corpus reader: what it reads, what a checked reader refuses, and the judges' view of a corpus."""

import pytest

from synthdocqa.corpus.store import (
    QA_TABLE,
    CorpusError,
    CorpusFileError,
    DocFiles,
    open_corpus,
)
from synthdocqa.judges.hallucination.pipeline import DocumentSource
from synthdocqa.judges.hallucination.synthesize import synthesize_from_corpus


def test_checked_reader_reads_the_corpus_and_refuses_a_changed_file(corpus_copy):
    r = open_corpus(corpus_copy)
    assert r.checked and r.doc_ids == ["doc-00000", "doc-00001"]
    rec = r.record("doc-00000")
    assert [p.image for p in rec.pages] == [DocFiles("doc-00000").page_image(n) for n in range(1, rec.n_pages + 1)]
    assert r.ir("doc-00000").doc_id == "doc-00000"
    assert len(r.render_map("doc-00000").spans) == rec.n_spans
    assert len(r.qa("doc-00000")) == rec.n_qa and len(r.assertions("doc-00000")) == rec.n_assertions
    assert r.corpus_qa() == [q for d in r.doc_ids for q in r.qa(d)]
    assert len(r.corpus_assertions()) == r.manifest.stats["assertions"]
    assert len(r.table(QA_TABLE)) == r.manifest.stats["qa_pairs"]
    assert r.pdf("doc-00001").startswith(b"%PDF") and r.scan_pdf("doc-00001").startswith(b"%PDF")
    pdf = corpus_copy / DocFiles("doc-00001").pdf
    pdf.write_bytes(pdf.read_bytes() + b"\0")
    with pytest.raises(CorpusFileError, match="document.pdf: sha256 differs"):
        r.pdf("doc-00001")
    assert open_corpus(corpus_copy, checked=False).pdf("doc-00001").endswith(b"\0")  # verify reads it as is


def test_open_names_what_is_missing(tmp_path, corpus_copy):
    with pytest.raises(CorpusError, match="no such directory"):
        open_corpus(tmp_path / "nowhere")
    (corpus_copy / "corpus.json").unlink()
    with pytest.raises(CorpusError, match="no corpus.json"):
        open_corpus(corpus_copy)
    assert open_corpus(corpus_copy, checked=False).doc_ids == ["doc-00000", "doc-00001"]


def test_reader_is_the_judges_document_source(tiny_corpus):
    r = open_corpus(tiny_corpus)
    source: DocumentSource = r
    docs = source.documents_and_qa()
    assert [d.doc_id for d, _ in docs] == r.doc_ids
    assert sum(len(q) for _, q in docs) == r.manifest.stats["qa_pairs"]
    text = source.document_text("doc-00000")
    assert text.startswith("[page 1]\n") and "[page 2]" in text
    n_pages = r.record("doc-00000").n_pages
    pages = source.page_images("doc-00000", "pages")
    assert [name for name, _ in pages] == [f"page-{n:04d}.png" for n in range(1, n_pages + 1)]
    assert all(data.startswith(b"\x89PNG") for _, data in pages)
    assert len(source.page_images("doc-00000", "scan")) == n_pages
    assert source.label == str(tiny_corpus)
    items = synthesize_from_corpus(source, seed=1)
    assert {i.doc_id for i in items} == set(r.doc_ids)


def test_unchecked_reader_names_bad_input(tmp_path, tiny_corpus):
    empty = open_corpus(tmp_path, checked=False)
    with pytest.raises(ValueError, match="no qa.jsonl"):
        empty.documents_and_qa()
    with pytest.raises(ValueError, match="document.pdf: missing"):
        empty.document_text("doc-00000")
    with pytest.raises(ValueError, match="no page images"):
        empty.page_images("doc-00000", "scan")
    (tmp_path / "qa.jsonl").write_bytes((tiny_corpus / "qa.jsonl").read_bytes() + b'{"id": "x"}\n')
    with pytest.raises(ValueError, match=r"qa.jsonl: line \d+: not a QAPair"):
        empty.documents_and_qa()
    (tmp_path / "qa.jsonl").write_bytes((tiny_corpus / "qa.jsonl").read_bytes())
    with pytest.raises(ValueError, match=r"ir.json: missing \(QA pairs reference document doc-00000\)"):
        empty.documents_and_qa()
