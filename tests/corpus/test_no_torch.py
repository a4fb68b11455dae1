"""Generation needs no torch: a demo document generated and verified where ``import torch`` fails.

torch, torchvision, open_clip, sentence-transformers and transformers are replaced by packages whose import
raises ImportError and leaves a mark (so an import that something catches is caught too); the command runs
as a user runs it, in a process of its own (with its Prefect server and its workers). The same document built
in this process, where torch is installed, has the same bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BLOCKED = ("torch", "torchvision", "open_clip", "sentence_transformers", "transformers")
_BLOCKER = """import os, pathlib
pathlib.Path(os.environ["SYNTHDOCQA_TEST_BLOCK_MARKS"], __name__).write_text("imported")
raise ImportError("{name} is blocked in this test: generation must not import it")
"""


def blocked_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    shadow, marks = tmp_path / "blocked", tmp_path / "marks"
    marks.mkdir()
    for name in BLOCKED:
        (shadow / name).mkdir(parents=True)
        (shadow / name / "__init__.py").write_text(_BLOCKER.format(name=name))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(shadow), os.environ.get("PYTHONPATH")])),
           "SYNTHDOCQA_TEST_BLOCK_MARKS": str(marks)}
    return env, marks


def test_the_blocker_blocks(tmp_path):
    """Planted: a process that imports torch fails and leaves its mark."""
    env, marks = blocked_env(tmp_path)
    proc = subprocess.run([sys.executable, "-c", "import torch"], env=env, capture_output=True, text=True)
    assert proc.returncode == 1 and "blocked in this test" in proc.stderr
    assert [p.name for p in marks.iterdir()] == ["torch"]


@pytest.mark.slow  # a Prefect server and a document
def test_generate_and_verify_without_torch(tmp_path):
    env, marks = blocked_env(tmp_path)
    out = tmp_path / "corpus"
    for args in (["generate", "--profile", "demo", "--seed", "5", "--docs", "1", "--out", str(out), "--quiet"],
                 ["verify", str(out), "--quiet"]):
        proc = subprocess.run([sys.executable, "-m", "synthdocqa", *args], env=env, capture_output=True, text=True,
                              timeout=900, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(p.name for p in marks.iterdir()) == []  # nothing even tried to import them
    from synthdocqa.corpus.assemble import build_document
    from synthdocqa.ir.spec import spec_for_profile

    built = build_document(spec_for_profile("demo", 5, n_docs=1), 0)
    differing = [name for name, data in built.files.items()
                 if not name.endswith("doc.json") and (out / name).read_bytes() != data]
    assert differing == [] and len(built.files) > 5
    record = json.loads((out / "docs" / built.record.doc_id / "doc.json").read_text())
    assert record["code_version"] == built.record.code_version


def test_training_without_torch_names_the_clip_extra(tmp_path):
    env, _ = blocked_env(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "synthdocqa", "layouts", "train-clip", "--library", str(tmp_path),
                           "--out", str(tmp_path / "model")], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "pip install 'synthdocqa[clip]'" in proc.stderr, proc.stderr
