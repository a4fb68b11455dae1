"""Ground truth read straight from a corpus's own files (qa.jsonl, assertions, manifest), not the exports."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def corpus_truth(corpus: Path) -> dict:
    manifest = json.loads((corpus / "corpus.json").read_text())
    qa = [json.loads(line) for line in (corpus / "qa.jsonl").read_text().splitlines() if line]
    asr = []
    for doc_id in manifest["documents"]:
        asr += [json.loads(line) for line in (corpus / "docs" / doc_id / "assertions.jsonl").read_text().splitlines()
                if line]
    return {"manifest": manifest, "stats": manifest["stats"], "qa": {q["id"]: q for q in qa},
            "assertions": {a["id"]: a for a in asr}}


def sample_ids(ids, k: int = 8) -> list[str]:
    """Every ``len/k``-th id (deterministic spread over documents), always including the first and last."""
    ids = sorted(ids)
    step = max(1, len(ids) // k)
    picked = ids[::step]
    return sorted(set(picked) | {ids[0], ids[-1]})


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
