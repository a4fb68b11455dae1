"""Corpus file names are spelled once, in corpus/store.py: everyone else uses its constants and DocFiles.

The check reads string literals (f-string pieces included, docstrings left out) of every module of the
packages below; it is also run on a small tree with the error planted in it, to show that it fails.
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("corpus", "flows", "judges", "renderers", "degradations")
STORE = "corpus/store.py"
FILE_NAMES = ("corpus.json", "spec.json", "doc.json", "ir.json", "document.pdf", "render_map.json", "scan.pdf",
              "qa.jsonl", "assertions.jsonl", "documents.parquet", "pages.parquet", "qa.parquet",
              "assertions.parquet")
PATTERN = re.compile(r"(?<![\w.-])(?:" + "|".join(re.escape(n) for n in FILE_NAMES) + r")(?![\w-])"
                     r"|(?:pages|scan)/page-")


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of string constants that stand alone as statements (module, class, function, attribute docs)."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def spelled_names(root: Path) -> list[str]:
    found = []
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")) if (root / pkg).is_dir() else []:
            rel = path.relative_to(root).as_posix()
            if rel == STORE:
                continue
            tree = ast.parse(path.read_text("utf-8"), filename=rel)
            docs = _docstrings(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                    for m in PATTERN.finditer(node.value):
                        found.append(f"{rel}:{node.lineno}: spells {m.group(0)!r} (use corpus.store)")
    return found


def test_only_the_store_spells_corpus_file_names():
    assert spelled_names(REPO) == []


def test_the_store_defines_every_name():
    import synthdocqa.corpus.store as store

    text = (REPO / STORE).read_text("utf-8")
    assert all(f'"{name}"' in text for name in FILE_NAMES)
    assert store.DocFiles("d").page_image(3) == "docs/d/pages/page-0003.png"
    assert store.DocFiles("d").scan_image(3, ".jpg") == "docs/d/scan/page-0003.jpg"


def test_check_catches_a_planted_name(tmp_path):
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "bad.py").write_text(textwrap.dedent('''
        """Writes ir.json (a docstring may name files)."""
        from pathlib import Path

        def write(root: Path, doc_id: str, n: int):
            (root / "docs" / doc_id / "ir.json").write_text("{}")
            return f"{doc_id}/pages/page-{n:04d}.png", f"docs/{doc_id}/document.pdf"

        OK = ("pages/doc", "documents", "report.html", "my-qa.jsonl.bak")
    '''))
    found = spelled_names(tmp_path)
    assert len(found) == 3 and all(f.startswith("flows/bad.py:") for f in found), found
    assert {f.split("spells ")[1].split(" ")[0] for f in found} == {"'ir.json'", "'pages/page-'", "'document.pdf'"}
