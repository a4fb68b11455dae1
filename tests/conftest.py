"""Hypothesis profiles: CI replays a fixed set of examples (a landing never depends on a lucky draw);
local runs keep exploring new random inputs and remember failures in .hypothesis/."""

import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import settings


class _OnlyThroughThePackage:
    """The repository root is on ``sys.path`` in tests (for ``tests.*``), which would let ``import flows`` or a
    string such as ``"flows.commands.osce"`` load a second copy of ``synthdocqa.flows`` (a monkeypatch on one
    copy misses the other, and an installed wheel has no ``flows``): refused, naming the package's name."""

    FOLDERS = ("ir", "generation", "renderers", "degradations", "judges", "corpus", "flows")

    def find_spec(self, name, path=None, target=None):
        if path is None and name in self.FOLDERS:
            raise ImportError(f"import synthdocqa.{name}, not {name}: the project installs one package, synthdocqa")
        return None


sys.meta_path.insert(0, _OnlyThroughThePackage())

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def shared_root(tmp_path_factory) -> Path:
    """A folder every worker of this test run sees (pytest-xdist's workers each have a base temp folder of
    their own below it; a plain run has one worker, itself)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory, name: str, build) -> Path:
    """``build(folder)`` run by the first worker that asks for ``name``, under a file lock; the other workers
    wait for it and read the same folder (read-only: a test that changes it works on a copy)."""
    from filelock import FileLock

    root = shared_root(tmp_path_factory)
    out, done = root / f"shared-{name}", root / f"shared-{name}.done"
    with FileLock(str(root / f"shared-{name}.lock")):
        if not done.exists():
            shutil.rmtree(out, ignore_errors=True)
            build(out)
            done.write_text("built\n")
    return out


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory):
    """A 2-document corpus made once per test run, serially (``corpus.generate.generate_corpus``), by the
    first worker that needs it: shared by every folder of tests and every worker; tests that change it use
    ``corpus_copy``."""
    from synthdocqa.corpus.generate import generate_corpus
    from tests.corpus.conftest import tiny_spec

    return built_once(tmp_path_factory, "tiny-corpus", lambda out: generate_corpus(tiny_spec(), out / "corpus")) \
        / "corpus"


@pytest.fixture
def corpus_copy(tiny_corpus, tmp_path):
    import shutil

    dst = tmp_path / "copy"
    shutil.copytree(tiny_corpus, dst)
    return dst


def _missing(tool: str) -> str | None:
    """What is missing for ``tool`` (None: it is there). One place names each external component."""
    import shutil

    if tool == "tesseract":
        return None if shutil.which("tesseract") else "tesseract not installed (Debian tesseract-ocr)"
    if tool == "chromium":
        from tests.exports.chromium import chromium_binary

        return None if chromium_binary() else "Debian chromium not installed"
    if tool == "browser":
        from tests.exports.chromium import chromium_binary

        if not chromium_binary():
            return "Debian chromium not installed"
        if not shutil.which("chromedriver"):
            return "chromedriver not installed (Debian chromium-driver)"
        try:
            import selenium  # noqa: F401
        except ImportError:
            return "selenium not installed (the [test] extra)"
        return None
    if tool == "postgres":
        from tests.postgres import initdb_path

        return None if initdb_path() else "PostgreSQL server binaries not installed (Debian postgresql)"
    if tool == "R":
        from synthdocqa.judges.osce.r_backend import r_missing

        return r_missing()
    if tool == "model":
        from synthdocqa.judges.llm.local_server import missing

        return missing()
    if tool == "ray":
        try:
            import prefect_ray  # noqa: F401
        except ImportError:
            return "Ray and prefect-ray not installed (the [ray] extra)"
        return None
    raise ValueError(f"unknown external component {tool!r}")


EXTERNAL = ("tesseract", "chromium", "browser", "postgres", "R", "model", "ray")


def pytest_configure(config):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and "PREFECT_HOME" not in os.environ:
        # each worker's Prefect (its temporary servers' SQLite database, its profiles) in a home of its own:
        # two servers writing one database at once fail with "database is locked"
        import tempfile

        home = tempfile.mkdtemp(prefix=f"prefect-home-{worker}-")
        os.environ["PREFECT_HOME"] = home
        config.add_cleanup(lambda: shutil.rmtree(home, ignore_errors=True))
    config.addinivalue_line("markers", "needs(component): needs an external component (one of "
                            f"{', '.join(EXTERNAL)}); skipped naming it when missing, and marked external")
    config.addinivalue_line("markers", "external: needs a component outside Python: "
                            "`pytest -m 'not external'` runs on a bare machine")


def pytest_collection_modifyitems(config, items):
    for item in items:
        tools = [m.args[0] for m in item.iter_markers(name="needs")]
        for tool in tools:
            if tool not in EXTERNAL:
                raise pytest.UsageError(f"{item.nodeid}: unknown external component {tool!r}")
        if tools:
            item.add_marker(pytest.mark.external)


def _unbind_absl_handler_from_capture() -> None:
    """absl (imported by mlcroissant) makes its logging handler at import, bound to the ``sys.stderr`` of that
    moment: pytest's capture file when a test module imports it at collection. Its ``close()`` closes any stream
    that is not the current ``sys.stderr``/``stdout``, and ``logging.config.dictConfig`` (Prefect's logging set-up
    in an in-process CLI run) closes every handler ever made: under ``capsys`` that closed pytest's global capture
    file and ended the session ("lost sys.stderr"). Point the handler at the real stderr, which it never closes."""
    absl_logging = sys.modules.get("absl.logging")
    if absl_logging is not None:
        handler = absl_logging.get_absl_handler().python_handler
        if handler.stream is not sys.__stderr__:
            handler.stream = sys.__stderr__


def pytest_runtest_setup(item):
    _unbind_absl_handler_from_capture()
    for m in item.iter_markers(name="needs"):
        why = _missing(m.args[0])
        if why is not None:
            pytest.skip(f"{m.args[0]}: {why} (.ci/run installs it)")



@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With SYNTHDOCQA_REQUIRE_EXTERNAL=1 (set by .ci/run) a skipped test fails, naming its skip reason:
    CI installs every component the tests use, so nothing may be skipped silently there."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("SYNTHDOCQA_REQUIRE_EXTERNAL") and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped although SYNTHDOCQA_REQUIRE_EXTERNAL=1 (CI installs every component): {reason}"
