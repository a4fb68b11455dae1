"""The code version a corpus records changes with any source that decides its bytes, so the up-to-date
short-cut and ``reproduce`` never take a corpus made by other code as current."""

from __future__ import annotations

from pathlib import Path

from synthdocqa.corpus.assemble import BYTE_SOURCES, code_version, source_digest


def _tree(root: Path) -> None:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "tables.py").write_text("SCALE = [0.76, 0.82]\n")
    (root / "pkg" / "sub" / "__init__.py").write_text("")
    (root / "pkg" / "report.html.j2").write_text("<h1>{{ title }}</h1>")
    (root / "pkg" / "__pycache__").mkdir()
    (root / "pkg" / "__pycache__" / "tables.cpython-311.pyc").write_bytes(b"compiled")
    (root / "data").mkdir()
    (root / "data" / "weights.bin").write_bytes(b"\x00\x01")


def test_the_digest_follows_every_source_and_data_file(tmp_path):
    _tree(tmp_path)
    sources = ("pkg", "data")
    before = source_digest(tmp_path, sources)
    assert source_digest(tmp_path, sources) == before
    (tmp_path / "pkg" / "__pycache__" / "tables.cpython-311.pyc").write_bytes(b"recompiled")  # a cache
    assert source_digest(tmp_path, sources) == before
    (tmp_path / "pkg" / "report.html.j2").write_text("<h2>{{ title }}</h2>")  # a template edited
    assert source_digest(tmp_path, sources) != before
    (tmp_path / "pkg" / "report.html.j2").write_text("<h1>{{ title }}</h1>")
    assert source_digest(tmp_path, sources) == before
    (tmp_path / "pkg" / "tables.py").write_text("SCALE = [0.76, 0.83]\n")  # a table edited
    edited = source_digest(tmp_path, sources)
    assert edited != before
    (tmp_path / "pkg" / "sub" / "new.py").write_text("X = 1\n")  # a module added
    assert source_digest(tmp_path, sources) != edited
    (tmp_path / "data" / "weights.bin").write_bytes(b"\x00\x02")  # the shipped model changed
    assert source_digest(tmp_path, sources) not in (before, edited)


def test_code_version_carries_the_digest_of_the_real_sources():
    repo = Path(__file__).resolve().parents[2]
    assert all((repo / s).is_dir() for s in BYTE_SOURCES)
    assert code_version().endswith(f".src{source_digest()}")
    assert "degradations" in BYTE_SOURCES and "renderers" in BYTE_SOURCES


def test_a_view_edit_leaves_the_digest_and_a_building_edit_changes_it(tmp_path):
    """On a copy of the real sources: editing the report, an export, lint or the gallery leaves corpora
    current; editing a scan table, a content builder or the shipped layout-CLIP does not."""
    import shutil

    repo = Path(__file__).resolve().parents[2]
    for s in BYTE_SOURCES:
        shutil.copytree(repo / s, tmp_path / s, ignore=shutil.ignore_patterns("__pycache__"))
    before = source_digest(tmp_path)
    assert before == source_digest()  # the copy is the code this process runs

    def edited(rel: str, text: bytes = b"\n# planted edit\n") -> str:
        path = tmp_path / rel
        original = path.read_bytes()
        path.write_bytes(original + text)
        try:
            return source_digest(tmp_path)
        finally:
            path.write_bytes(original)

    for view in ("corpus/views/report.py", "corpus/views/templates/report.html.j2", "corpus/views/lint.py",
                 "corpus/views/exports/hf.py", "corpus/views/gallery.py", "corpus/views/legibility.py"):
        assert edited(view) == before, view
    for building in ("degradations/devices.py", "generation/content/tables.py", "generation/qa/lookup.py",
                     "ir/answers.py", "renderers/pdf/theme.py", "corpus/tables.py",
                     "renderers/layout/layout_clip/layout_clip_tiny.safetensors",
                     "renderers/layout/layout_clip/open_clip_config/layout-clip-tiny.json"):
        assert edited(building) != before, building
    assert source_digest(tmp_path) == before
