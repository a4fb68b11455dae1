"""The serial in-process run: resumes after kill -9 to the same bytes; refuses another spec's folder.

Parallel runs (process and Dask task runners) go through the generate-corpus flow: tests/flows.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from synthdocqa.corpus.generate import doc_indices, generate_corpus
from synthdocqa.corpus.store import CorpusError, load_manifest
from synthdocqa.corpus.verify import verify_corpus
from synthdocqa.ir.spec import PageCountDist

from .conftest import tiny_spec

REPO = Path(__file__).resolve().parents[2]


def test_other_spec_in_same_dir_is_refused(tiny_corpus):
    with pytest.raises(CorpusError, match="another spec"):
        generate_corpus(tiny_spec(seed=6), tiny_corpus)


def test_only_writes_the_selected_documents_and_no_manifest(tmp_path):
    with pytest.raises(ValueError, match="must lie in"):
        doc_indices(tiny_spec(), [2])
    records = generate_corpus(tiny_spec(), tmp_path / "only", only=[1])
    assert [r.doc_id for r in records] == ["doc-00001"]
    assert not (tmp_path / "only" / "corpus.json").exists()
    assert not (tmp_path / "only" / "docs" / "doc-00000").exists()


KILL_SCRIPT = """
from synthdocqa.corpus.generate import generate_corpus
from tests.corpus.conftest import tiny_spec
generate_corpus(tiny_spec(n_docs=5), {out!r})
"""


@pytest.mark.slow  # a process generating five documents, killed and resumed twice
def test_kill_9_then_rerun_is_byte_identical(tmp_path):
    out = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT.format(out=str(out))], cwd=REPO)
    deadline = time.time() + 300
    while time.time() < deadline and not (out / "docs" / "doc-00000" / "doc.json").exists():
        time.sleep(0.02)
        assert proc.poll() is None, "generator ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)  # at once: four documents are still to come
    proc.wait()
    assert not (out / "corpus.json").exists()
    assert verify_corpus(out) != []  # a killed run never verifies
    generate_corpus(tiny_spec(n_docs=5), out)  # resume
    clean = tmp_path / "clean"
    generate_corpus(tiny_spec(n_docs=5), clean)
    assert load_manifest(out).files == load_manifest(clean).files
    assert verify_corpus(out) == []


def test_force_over_a_longer_corpus_leaves_no_page_of_it(tmp_path):
    """A corpus made again with --force from a spec of shorter documents: the old build's last pages go (they
    stayed, unlisted, and verify failed: "a file the manifest does not list")."""
    out = tmp_path / "c"
    long = tiny_spec(n_docs=1).model_copy(update={"pages": PageCountDist(mean=8, sigma=0, min=8, max=8)})
    generate_corpus(long, out)
    pages = sorted(p.name for p in (out / "docs" / "doc-00000" / "scan").iterdir())
    assert len(pages) >= 4
    generate_corpus(tiny_spec(n_docs=1), out, force=True)
    assert sorted(p.name for p in (out / "docs" / "doc-00000" / "scan").iterdir()) == pages[:2]
    assert verify_corpus(out) == []
