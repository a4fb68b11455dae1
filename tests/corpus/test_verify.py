"""A generated corpus verifies; a tampered file, answer or evidence box is caught and named."""

import json

from synthdocqa.corpus.store import TABLES, DocFiles, load_manifest
from synthdocqa.corpus.verify import verify_corpus


def test_fresh_corpus_verifies_and_has_the_layout(tiny_corpus):
    assert verify_corpus(tiny_corpus) == []
    m = load_manifest(tiny_corpus)
    assert m.stats["documents"] == 2 and m.stats["pages"] >= 4 and m.stats["qa_pairs"] > 0
    for name in ("documents.parquet", "pages.parquet", "qa.parquet", "assertions.parquet", "qa.jsonl"):
        assert name in m.files and name in TABLES
    d = tiny_corpus / "docs" / "doc-00000"
    for name in ("ir.json", "document.pdf", "scan.pdf", "render_map.json", "doc.json"):
        assert (d / name).is_file()
    assert sorted(p.name for p in (d / "pages").iterdir())[0] == "page-0001.png"
    assert DocFiles("doc-00000").page_image(1) == "docs/doc-00000/pages/page-0001.png"
    assert not list(tiny_corpus.rglob("*.tmp"))


def test_tampered_pdf_is_named(corpus_copy):
    pdf = corpus_copy / "docs" / "doc-00001" / "document.pdf"
    data = bytearray(pdf.read_bytes())
    data[len(data) // 2] ^= 0xFF
    pdf.write_bytes(bytes(data))
    problems = verify_corpus(corpus_copy)
    assert any("docs/doc-00001/document.pdf" in p for p in problems), problems


def _rewrite_jsonl(path, fn):
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    fn(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_tampered_answer_is_named(corpus_copy):
    path = corpus_copy / "docs" / "doc-00000" / "qa.jsonl"
    target = {}

    def change(rows):
        for r in rows:
            if r["answer"]["kind"] == "number" or r["qa_type"] == "lookup" and r["answer"]["kind"] == "string":
                r["answer"]["value"] = r["answer"]["value"] + "1"
                target["id"] = r["id"]
                return

    _rewrite_jsonl(path, change)
    problems = verify_corpus(corpus_copy)
    assert target and any(p.startswith(target["id"] + ":") for p in problems), problems


def test_tampered_assertion_box_is_named(corpus_copy):
    path = corpus_copy / "docs" / "doc-00000" / "assertions.jsonl"
    target = {}

    def move(rows):
        for r in rows:
            if r["evidence"]:
                x0, y0, x1, y1 = r["evidence"][0]["bbox_pdf"]
                r["evidence"][0]["bbox_pdf"] = [x0 + 200, y0 + 300, x1 + 200, y1 + 300]
                target["id"] = r["id"]
                return

    _rewrite_jsonl(path, move)
    problems = verify_corpus(corpus_copy)
    assert target and any(p.startswith(target["id"]) and "text layer" in p for p in problems), problems


def test_missing_document_file_is_named_not_raised(corpus_copy):
    (corpus_copy / "docs" / "doc-00001" / "ir.json").unlink()
    problems = verify_corpus(corpus_copy)
    assert "docs/doc-00001/ir.json: missing" in problems
    assert any(p.startswith("doc-00001: cannot read document files") for p in problems), problems


def test_every_accepted_form_of_a_corpus_reads_back_to_its_answer(tiny_corpus):
    from synthdocqa.ir.answers import form_denotes
    from synthdocqa.ir.qa_models import QAPair

    qa = [QAPair.model_validate_json(line) for p in sorted((tiny_corpus / "docs").glob("*/qa.jsonl"))
          for line in p.read_text().splitlines()]
    numeric = [q for q in qa if q.answer.kind in ("number", "date")]
    assert len(numeric) >= 5 and sum(len(q.accepted_answers) for q in numeric) >= 15  # enough forms to read
    false = [(q.id, f) for q in numeric for f in q.accepted_answers if not form_denotes(q.answer, f)]
    assert false == []


def test_a_false_accepted_form_is_named(corpus_copy):
    """The old defect planted: "T" for thousands ("17.8T EUR" for EUR 17,750) and a rounded form."""
    path = corpus_copy / "docs" / "doc-00000" / "qa.jsonl"
    target = {}

    def plant(rows):
        for r in rows:
            if r["answer"]["kind"] == "number" and abs(float(r["answer"]["value"])) >= 1000:
                value = float(r["answer"]["value"])
                r["accepted_answers"].append(f"{value / 1000:.1f}T")
                target["id"] = r["id"]
                return

    _rewrite_jsonl(path, plant)
    problems = verify_corpus(corpus_copy)
    assert target and any(p.startswith(target["id"] + ": accepted answers that do not denote") for p in problems), \
        problems


def test_a_derived_fact_that_does_not_follow_from_its_operands_is_named(corpus_copy):
    """The referee over the IR's derived facts: a genre block's product (quantity x unit price, likelihood x
    impact) or a statement total changed in ir.json is named by its fact, whichever block printed it."""
    import json

    path = corpus_copy / "docs" / "doc-00000" / "ir.json"
    doc = json.loads(path.read_text())
    derived = [f for f in doc["facts"] if f.get("derivation") and f["derivation"]["op"] in ("product", "sum")
               and f["value"]["kind"] in ("money", "number")]
    assert derived, "the document has no derived number"
    f = derived[0]
    key = "amount" if f["value"]["kind"] == "money" else "value"
    f["value"][key] = str(float(f["value"][key]) + 1)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    problems = verify_corpus(corpus_copy)
    assert any(f["id"] in p and f"{f['derivation']['op']} gives" in p for p in problems), problems
