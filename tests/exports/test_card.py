"""SynthDocQA card layout: re-read with json and checked against the corpus's own files."""

from __future__ import annotations

import json

from synthdocqa.ir.blocks import ELEMENT_OF_BLOCK
from synthdocqa.ir.document import DocumentIR

from .helpers import corpus_truth, sample_ids, sha256

CARD_QUERY_KEYS = ["Id", "query", "refs", "assertions"]
CARD_REF_KEYS = {"filePath", "element_type", "Artifact_ID", "data_source"}
CARD_MANIFEST_KEYS = ["doc_id", "title", "topic_id", "recipe_name", "seed", "files", "document_brief", "structure"]
CARD_STRUCTURE_KEYS = ["element_type", "Artifact_ID", "caption", "qa_candidates"]


def _load(exports):
    out, counts = exports["synthdocqa-card"]
    queries = json.loads((out / "ALL_queries.json").read_text("utf-8"))
    manifests = {p.stem: json.loads(p.read_text("utf-8")) for p in sorted((out / "manifest_files").glob("*.json"))}
    return out, counts, queries, manifests


def test_counts_match_the_corpus(corpus, exports):
    truth = corpus_truth(corpus)
    out, counts, queries, manifests = _load(exports)
    assert len(queries) == truth["stats"]["qa_pairs"] == counts["queries"]
    assert sorted(manifests) == truth["manifest"]["documents"]
    assert sorted(q["Id"] for q in queries) == sorted(truth["qa"])
    assert sum(len(q["assertions"]) for q in queries) == truth["stats"]["assertions"]


def test_card_fields_come_first_with_their_names(exports):
    _, _, queries, manifests = _load(exports)
    for q in queries:
        assert list(q)[:4] == CARD_QUERY_KEYS
        assert q["refs"] and all(CARD_REF_KEYS <= set(r) for r in q["refs"])
        assert all(isinstance(a, str) and a for a in q["assertions"])
    for m in manifests.values():
        assert list(m)[:8] == CARD_MANIFEST_KEYS
        assert all(list(s)[:4] == CARD_STRUCTURE_KEYS for s in m["structure"])


def test_sampled_answers_refs_and_structure_agree_with_the_corpus(corpus, exports):
    truth = corpus_truth(corpus)
    out, _, queries, manifests = _load(exports)
    by_id = {q["Id"]: q for q in queries}
    irs = {d: DocumentIR.model_validate_json((corpus / "docs" / d / "ir.json").read_text())
           for d in truth["manifest"]["documents"]}
    blocks = {d: {b.id: b for _, b in ir.blocks()} for d, ir in irs.items()}
    for qid in sample_ids(by_id):
        q, want = by_id[qid], truth["qa"][qid]
        assert q["query"] == want["question"]
        assert q["answer"] == want["answer"] and q["answer_text"] == want["answer_text"]
        assert q["assertions"] == [truth["assertions"][a]["claim"] for a in want["assertion_ids"]]
        cited = {e["block_id"] for a in want["assertion_ids"] for e in truth["assertions"][a]["evidence"]}
        for ref in q["refs"]:
            assert (out / ref["filePath"]).is_file()
            assert ref["data_source"] == f"docs/{want['doc_id']}/document.pdf"
            if ref["Artifact_ID"] is None:
                assert want["qa_type"] == "unanswerable"
                continue
            block = blocks[want["doc_id"]][ref["Artifact_ID"]]
            assert ref["element_type"] == ELEMENT_OF_BLOCK[block.type]
            struct = {s["Artifact_ID"]: s for s in manifests[want["doc_id"]]["structure"]}
            assert q["query"] in struct[ref["Artifact_ID"]]["qa_candidates"]
        assert cited <= {r["Artifact_ID"] for r in q["refs"]}
        ev = [e for d in q["assertion_details"] for e in d["evidence"]]
        want_ev = [e for a in want["assertion_ids"] for e in truth["assertions"][a]["evidence"]]
        assert all(e in ev for e in want_ev)  # boxes (pdf, page px, scan quad) carried unchanged


def test_manifest_files_describe_each_document(corpus, exports):
    truth = corpus_truth(corpus)
    out, _, _, manifests = _load(exports)
    for doc_id, m in manifests.items():
        ir = DocumentIR.model_validate_json((corpus / "docs" / doc_id / "ir.json").read_text())
        assert (m["doc_id"], m["title"], m["recipe_name"], m["seed"], m["document_brief"]) == (
            ir.doc_id, ir.title, ir.recipe, ir.seed, ir.topic_brief)
        assert m["topic_id"] == ir.domain
        assert [s["Artifact_ID"] for s in m["structure"]] == [b.id for _, b in ir.blocks()]
        for rel in m["files"]:
            assert (out / rel).is_file()
        assert sha256(out / m["files"][0]) == truth["manifest"]["files"][f"docs/{doc_id}/document.pdf"]
        assert sha256(out / m["files"][1]) == truth["manifest"]["files"][f"docs/{doc_id}/scan.pdf"]
        tables = [s for s in m["structure"] if s["element_type"] == "table"]
        assert all(s["caption"] for s in tables)


def test_every_export_states_the_accepted_answer_policy(exports):
    """Accepted answers are exact; a consumer reads that in every format, not only in our docs."""
    import json

    from synthdocqa.ir.answers import ANSWER_POLICY

    out = exports["synthdocqa-card"][0]
    manifests = sorted((out / "manifest_files").glob("*.json"))
    assert manifests and all(json.loads(p.read_text())["answer_policy"] == ANSWER_POLICY for p in manifests)
    assert f"Accepted answers: {ANSWER_POLICY}." in (exports["hf"][0] / "README.md").read_text()
    fields = [f for rs in json.loads((exports["croissant"][0] / "croissant.json").read_text())["recordSet"]
              for f in rs.get("field", []) if f["name"] == "accepted_answers"]
    assert fields and all(ANSWER_POLICY in f["description"] for f in fields)
