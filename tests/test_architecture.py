"""The house as docs/architecture.md draws it: import floors, one writer, one definition per vocabulary.

Each check is a function over a source tree, so each is also run on a small tree with the error
planted in it, to show that it fails when it should.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from synthdocqa.ir import vocab

REPO = Path(__file__).resolve().parents[1]
TOP = "synthdocqa"
"""The one import package: every folder below is ``synthdocqa.<folder>`` (setup.py's package_dir)."""
PACKAGES = ("ir", "generation", "renderers", "degradations", "judges", "corpus", "flows")
ALLOWED: dict[str, set[str]] = {
    "ir": set(),
    "generation": {"ir"},
    "renderers": {"ir"},
    "degradations": {"ir"},
    "judges": {"ir"},
    "corpus": {"ir", "generation", "renderers", "degradations", "judges"},
    "flows": {"ir", "generation", "renderers", "degradations", "judges", "corpus"},
}
WRITER_MODULE = "ir/files.py"
SCRATCH_MODULE = "flows/run_tmp.py"
"""The command's scratch folder (``tempfile.mkdtemp`` that is never renamed into place): not a write of output."""
VOCAB_MODULE = "ir/vocab.py"


def _sources(root: Path, extra: tuple[str, ...] = ()):
    for pkg in PACKAGES + extra:
        if not (root / pkg).is_dir():
            continue
        for path in sorted((root / pkg).rglob("*.py")):
            yield pkg, path, ast.parse(path.read_text("utf-8"), filename=str(path))


def _own(dotted: str) -> str:
    """``synthdocqa.corpus.views`` -> ``corpus.views`` (the folder's dotted path); other names unchanged."""
    return dotted[len(TOP) + 1:] if dotted.startswith(TOP + ".") else dotted


def _imported_top_levels(path: Path, root: Path, tree: ast.AST) -> set[str]:
    """Top-level package of every import in the file (function-level and relative imports included); for the
    project's own imports the folder below ``synthdocqa`` (``from synthdocqa import corpus`` -> ``corpus``)."""
    parts = path.relative_to(root).with_suffix("").parts
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {_own(a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                target = parts[: len(parts) - node.level] + tuple((node.module or "").split(".") if node.module else ())
                if target:
                    out.add(target[0])
            elif node.module == TOP:
                out |= {a.name for a in node.names}
            elif node.module:
                out.add(_own(node.module).split(".")[0])
    return out


def _bare_imports(tree: ast.AST) -> set[str]:
    """Imports of a project folder as a top-level name (``import ir``, ``from corpus.store import x``): in the
    installed wheel there is no such name, only ``synthdocqa.ir``."""
    out: set[str] = set()
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and not node.level and node.module else []
        out |= {n for n in names if n.split(".")[0] in PACKAGES}
    return out


def import_violations(root: Path, extra: tuple[str, ...] = ()) -> list[str]:
    problems = []
    for pkg, path, tree in _sources(root, extra):
        imported = _imported_top_levels(path, root, tree)
        rel = path.relative_to(root)
        for bare in sorted(_bare_imports(tree)):
            problems.append(f"{rel}: imports {bare} as a top-level name (the package is {TOP}.{bare})")
        if pkg not in ALLOWED:
            continue
        for other in sorted((imported & set(PACKAGES)) - ALLOWED[pkg] - {pkg}):
            problems.append(f"{rel}: {pkg} imports {other} (an arrow back up or sideways)")
        if "prefect" in imported and pkg != "flows":
            problems.append(f"{rel}: imports prefect outside flows/")
    return problems


VIEWS = "corpus.views"
"""Views of a corpus (report, lint, legibility, exports, the gallery): made from a finished corpus, they
decide none of its bytes, so no building code may import them (and the code version leaves them out)."""


def _imported_modules(path: Path, root: Path, tree: ast.AST) -> set[str]:
    """Dotted name of every module the file imports (relative imports resolved; ``from a import b`` counts
    ``a`` and ``a.b``, since ``b`` may be a submodule)."""
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1] + ("_",)
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = (list(parts[: len(parts) - node.level]) if node.level else []) + \
                (node.module.split(".") if node.module else [])
            mod = ".".join(base)
            out |= {mod} | {f"{mod}.{a.name}" for a in node.names}
    return {_own(m) for m in out}


def view_violations(root: Path) -> list[str]:
    problems = []
    for pkg, path, tree in _sources(root):
        mod = ".".join(path.relative_to(root).with_suffix("").parts)
        if pkg == "flows" or mod == VIEWS or mod.startswith(VIEWS + "."):
            continue
        for m in sorted(_imported_modules(path, root, tree)):
            if m == VIEWS or m.startswith(VIEWS + "."):
                problems.append(f"{path.relative_to(root)}: building code imports the view {m}")
                break
    return problems


def writer_violations(root: Path) -> list[str]:
    """Temp-file-and-rename writes anywhere but the one atomic writer."""
    problems = []
    for _, path, tree in _sources(root):
        rel = path.relative_to(root).as_posix()
        if rel == WRITER_MODULE:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Name) and \
                    (node.func.value.id, node.func.attr) in {("tempfile", "mkstemp"), ("tempfile", "mkdtemp"),
                                                              ("os", "replace"), ("os", "rename")} and \
                    not (rel == SCRATCH_MODULE and node.func.attr == "mkdtemp"):
                problems.append(f"{rel}:{node.lineno}: {node.func.value.id}.{node.func.attr} outside {WRITER_MODULE}")
            if isinstance(node, ast.FunctionDef) and node.name in {"sha256_file", "atomic_write_bytes",
                                                                   "atomic_write_text", "atomic_dir"}:
                problems.append(f"{rel}:{node.lineno}: defines {node.name} outside {WRITER_MODULE}")
    return problems


VOCABULARIES = {
    "tiers": set(vocab.TIERS), "devices": set(vocab.DEVICES), "element types": set(vocab.ELEMENT_TYPES),
    "QA types": set(vocab.QA_TYPES), "difficulties": set(vocab.DIFFICULTIES), "stages": set(vocab.STAGE_NAMES),
    "style families": set(vocab.STYLE_FAMILIES), "chart kinds": set(vocab.CHART_KINDS),
    "table kinds": set(vocab.TABLE_KINDS), "annotation kinds": set(vocab.ANNOTATION_KINDS),
    "runners": set(vocab.RUNNERS), "profiles": set(vocab.PROFILE_NAMES), "scan plans": set(vocab.SCAN_PLANS),
    "page sizes": set(vocab.PAGE_SIZE_NAMES),
}


def _literal_strings(node: ast.AST) -> set[str] | None:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        elts = node.elts
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
        s = node.slice
        elts = s.elts if isinstance(s, ast.Tuple) else [s]
    else:
        return None
    return {e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}


def vocabulary_violations(root: Path) -> list[str]:
    """A literal (tuple, list, set, Literal[...]) that spells out a whole vocabulary again.

    Tables keyed by a vocabulary (a dict of per-tier settings) are data indexed by it, not a second
    definition; their own tests check that they cover the vocabulary."""
    problems = []
    for _, path, tree in _sources(root):
        rel = path.relative_to(root).as_posix()
        if rel == VOCAB_MODULE:
            continue
        for node in ast.walk(tree):
            strings = _literal_strings(node)
            if not strings:
                continue
            for name, words in VOCABULARIES.items():
                if len(words) > 1 and words <= strings:
                    problems.append(f"{rel}:{node.lineno}: spells out the {name} again (use ir.vocab)")
    return problems


def _is_root_rng(node: ast.AST) -> bool:
    """``Rng(seed)``: a stream at the root, whose first fork names a root stream."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Rng" and \
        len(node.args) == 1


def _stream_names(root: Path) -> tuple[dict[str, str], dict[str, str]]:
    """(root names, child names), each with where it is first used: the first element of every literal
    ``Rng(seed).fork("x", ...)`` and ``Rng(seed, ("x", ...))`` is a root name; every literal string part of
    any other ``.fork(...)`` a child name."""
    roots: dict[str, str] = {}
    children: dict[str, str] = {}
    for _, path, tree in _sources(root, extra=("benchmarks",)):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f, where = node.func, f"{rel}:{node.lineno}"
            if isinstance(f, ast.Attribute) and f.attr == "fork":
                strings = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                if _is_root_rng(f.value):
                    if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                        roots.setdefault(node.args[0].value, where)
                        strings = strings[1:]
                for name in strings:
                    children.setdefault(name, where)
            elif isinstance(f, ast.Name) and f.id == "Rng" and len(node.args) == 2 and \
                    isinstance(node.args[1], ast.Tuple) and node.args[1].elts and \
                    isinstance(node.args[1].elts[0], ast.Constant) and isinstance(node.args[1].elts[0].value, str):
                roots.setdefault(node.args[1].elts[0].value, where)
    return roots, children


def stream_names(root: Path) -> dict[str, str]:
    return _stream_names(root)[0]


def child_stream_names(root: Path) -> dict[str, str]:
    return _stream_names(root)[1]


# ---------------------------------------------------------------- the repository

def test_imports_follow_the_floors():
    assert import_violations(REPO, extra=("tests", "benchmarks", TOP)) == []


def test_one_top_level_import_package():
    """The wheel installs one import name: ``synthdocqa`` (its folders mapped in by setup.py)."""
    from synthdocqa import SUBPACKAGES

    assert SUBPACKAGES == PACKAGES
    assert sorted(p.name for p in REPO.iterdir() if (p / "__init__.py").is_file()) == \
        sorted((*PACKAGES, TOP, "tests"))


def test_building_code_imports_no_view():
    assert view_violations(REPO) == []


def test_one_atomic_writer():
    assert writer_violations(REPO) == []


def test_one_definition_of_each_vocabulary():
    assert vocabulary_violations(REPO) == []


def test_root_random_streams_are_registered():
    used = stream_names(REPO)
    assert {n: where for n, where in used.items() if n not in vocab.STREAM_NAMES} == {}
    assert sorted(set(vocab.STREAM_NAMES) - set(used)) == []  # no stale entries either


def test_child_random_streams_are_registered():
    used = child_stream_names(REPO)
    assert {n: where for n, where in used.items() if n not in vocab.CHILD_STREAM_NAMES} == {}
    assert sorted(set(vocab.CHILD_STREAM_NAMES) - set(used)) == []


def test_datasets_holds_data_not_code():
    assert not list((REPO / "datasets").rglob("*.py"))
    assert not (REPO / "datasets" / "__init__.py").exists()


def test_readme_names_no_file_outside_the_repository():
    text = (REPO / "README.md").read_text("utf-8")
    assert "../" not in text
    assert (REPO / "docs" / "architecture.md").is_file()
    assert "docs/architecture.md" in text


# ---------------------------------------------------------------- planted errors

def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for pkg in PACKAGES:
        (tmp_path / pkg).mkdir(parents=True, exist_ok=True)
        (tmp_path / pkg / "__init__.py").write_text("")
    for rel, src in files.items():
        (tmp_path / rel).write_text(textwrap.dedent(src))
    return tmp_path


@pytest.mark.parametrize(("rel", "src", "needle"), [
    ("ir/bad.py", "from synthdocqa.corpus.store import CorpusReader\n", "ir imports corpus"),
    ("renderers/bad.py", "def f():\n    from synthdocqa.degradations import degrade_page\n",
     "renderers imports degradations"),
    ("judges/bad.py", "from ..corpus import store\n", "judges imports corpus"),
    ("corpus/bad.py", "import synthdocqa.flows.cli\n", "corpus imports flows"),
    ("corpus/bad3.py", "from synthdocqa import flows\n", "corpus imports flows"),
    ("corpus/pf.py", "from prefect import flow\n", "prefect outside flows"),
    ("generation/bad.py", "from synthdocqa.renderers.layout.layouts import describe\n", "generation imports renderers"),
    ("generation/bad2.py", "def f():\n    from ..degradations import x\n", "generation imports degradations"),
    ("corpus/bare.py", "from ir.files import sha256_file\n", "imports ir.files as a top-level name"),
    ("flows/bare.py", "def f():\n    import corpus\n", "imports corpus as a top-level name"),
])
def test_import_check_catches_a_planted_arrow(tmp_path, rel, src, needle):
    root = _tree(tmp_path, {rel: src})
    assert any(needle in p for p in import_violations(root))


@pytest.mark.parametrize(("rel", "src"), [
    ("corpus/generate.py", "def f():\n    from .views.report import report_is_current\n"),
    ("corpus/store.py", "from synthdocqa.corpus.views import legibility\n"),
    ("corpus/tables.py", "import synthdocqa.corpus.views.lint\n"),
    ("corpus/__init__.py", "from .views import exports\n"),
])
def test_view_check_catches_building_code_importing_a_view(tmp_path, rel, src):
    (tmp_path / "corpus" / "views").mkdir(parents=True)
    root = _tree(tmp_path, {rel: src, "corpus/views/report.py": "from ..store import x\n",
                            "flows/cmd.py": "from synthdocqa.corpus.views.report import write_report\n"})
    found = view_violations(root)
    assert len(found) == 1 and found[0].startswith(rel), found


def test_writer_check_catches_a_planted_writer(tmp_path):
    root = _tree(tmp_path, {"judges/w.py": """
        import os, tempfile
        def save(p, data):
            fd, tmp = tempfile.mkstemp(dir=".")
            os.replace(tmp, p)
        """, "renderers/h.py": "def sha256_file(p):\n    return ''\n",
        "flows/run_tmp.py": "import os, tempfile\nd = tempfile.mkdtemp()\nos.replace(d, 'x')\n"})
    found = writer_violations(root)
    assert [p for p in found if p.startswith("flows/run_tmp.py")] == ["flows/run_tmp.py:3: os.replace outside ir/files.py"]
    assert any("tempfile.mkstemp" in p for p in found)
    assert any("os.replace" in p for p in found)
    assert any("defines sha256_file" in p for p in found)


@pytest.mark.parametrize("src", [
    'TIER_ORDER = ("pristine", "good", "fair", "degraded", "poor")\n',
    'from typing import Literal\nE = Literal["text", "table", "figure", "form", "annotation"]\n',
    'ORDER = ["annotation", "text", "form", "figure", "table", "none"]\n',
    'FAM = {"corporate", "modern", "classic", "technical", "government"}\n',
    'CHARTS = ("bar", "line", "pie")\n',
    'from typing import Literal\nR = Literal["process", "dask", "ray", "inline"]\n',
    'PLANS = ("document", "cycle")\n',
])
def test_vocabulary_check_catches_a_planted_copy(tmp_path, src):
    root = _tree(tmp_path, {"corpus/v.py": src})
    assert vocabulary_violations(root)


def test_stream_check_sees_unregistered_names(tmp_path):
    root = _tree(tmp_path, {"ir/s.py": """
        from synthdocqa.ir.rng import Rng
        a = Rng(1).fork("not-a-registered-stream", 2)
        b = Rng(1, ("another-one", 3))
        """})
    names = stream_names(root)
    assert {"not-a-registered-stream", "another-one"} <= set(names)
    assert not {"not-a-registered-stream", "another-one"} & set(vocab.STREAM_NAMES)


def test_child_stream_check_sees_unregistered_names(tmp_path):
    root = _tree(tmp_path, {"generation/s.py": """
        from synthdocqa.ir.rng import Rng
        a = Rng(1).fork("doc", 2).fork("style_family")
        b = Rng(1).fork("doc").fork("page", 3).fork("an-unregistered-child")
        """})
    names = child_stream_names(root)
    assert {"style_family", "an-unregistered-child"} <= set(names) and "doc" not in names
    assert not {"style_family", "an-unregistered-child"} & set(vocab.CHILD_STREAM_NAMES)
