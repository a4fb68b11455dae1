"""The error boundary of the CLI and the flows: an expected failure is one line naming the file or field.

Expected failures are the user's or the machine's, not the code's: a bad argument or spec, a folder that
holds another corpus or is locked by another run, a full disk, a read-only or forbidden path, a service
that does not answer, a corrupt input file. The CLI prints them as one line and exits 2; inside a Prefect
flow run they fail the run with that line as the message (:class:`RunFailed`). Anything else is a bug:
the CLI prints one line and exits 1, and shows the traceback with ``--debug``.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

EXIT_OK = 0
EXIT_BUG = 1
"""An unexpected error: a bug of ours (one line; ``--debug`` shows the traceback)."""
EXIT_FAILURE = 2
"""An expected failure: a bad argument, spec or input file, a refused folder, the machine (one line)."""
EXIT_FINDINGS = 3
"""The command ran and what it checks did not pass: ``verify`` found problems, ``reproduce`` differences,
``lint`` failing checks, ``legibility --check`` QA pairs marked answerable that do not read. Its findings are
on stdout (or in ``--json``)."""


class OneLineError(Exception):
    """An expected failure whose message is already the one line to show."""


class RunFailed(OneLineError):
    """Fails a flow run with a one-line message (what the CLI prints, exit 2)."""


class Stopped(BaseException):
    """The run was stopped by a signal (SIGINT: exit 130, SIGTERM: exit 143)."""

    def __init__(self, signum: int) -> None:
        import signal

        self.signum = signum
        super().__init__(signal.Signals(signum).name)


_stop_signal: int | None = None


def record_stop(signum: int) -> None:
    """Remember that the run was asked to stop: a signal's exception can be lost (raised inside a weakref
    callback or a finalizer, it is only printed), the record is not."""
    global _stop_signal
    if _stop_signal is None:
        _stop_signal = signum


def stop_requested() -> int | None:
    """The signal that asked this process to stop, if any."""
    return _stop_signal


def clear_stop() -> None:
    global _stop_signal
    _stop_signal = None


def check_stop() -> None:
    """Raise :class:`Stopped` if a stop was asked for (called between the phases of a run)."""
    if _stop_signal is not None:
        raise Stopped(_stop_signal)


@contextmanager
def recording_sigterm() -> Iterator[None]:
    """Inside a flow: record a SIGTERM, then hand it to the handler in place (Prefect's, which fails the
    run), so that a stop is not lost if its exception is."""
    import signal

    try:
        prev = signal.getsignal(signal.SIGTERM)
    except ValueError:
        prev = None

    def handler(signum: int, frame: object) -> None:
        record_stop(signum)
        if callable(prev):
            prev(signum, frame)
        raise Stopped(signum)

    try:
        signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, prev if prev is not None else signal.SIG_DFL)


_NETWORK = {errno.ECONNREFUSED, errno.ECONNRESET, errno.ECONNABORTED, errno.EHOSTUNREACH, errno.ENETUNREACH,
            errno.ETIMEDOUT, errno.EHOSTDOWN, errno.ENETDOWN}


def _first_line(text: object) -> str:
    lines = [x.strip() for x in str(text).strip().splitlines() if x.strip()]
    return lines[0] if lines else ""


def _target_of(path: str) -> str:
    """The file a temp file of ``ir.files`` stands for (``dir/.name.XXXXXXXX.tmp`` -> ``dir/name``)."""
    head, _, base = path.rpartition("/")
    if base.startswith(".") and base.endswith(".tmp") and base.count(".") >= 3:
        base = base[1:-len(".tmp")].rsplit(".", 1)[0]
        return f"{head}/{base}" if head else base
    return path


def _os_error(err: OSError) -> str:
    reason = err.strerror or _first_line(err) or err.__class__.__name__
    if err.errno in _NETWORK and not err.filename:
        return f"cannot connect: {reason}"
    if err.filename is not None:
        where = _target_of(os.fsdecode(err.filename))
        if err.filename2 is not None:
            where += f" -> {os.fsdecode(err.filename2)}"
        return f"{where}: {reason}"
    return _first_line(err) or reason


def _instance_of(err: BaseException, module: str, name: str) -> bool:
    """``isinstance`` against a class only if its module is already loaded (never import for a check)."""
    mod = sys.modules.get(module)
    cls = getattr(mod, name, None) if mod is not None else None
    return isinstance(cls, type) and isinstance(err, cls)


def expected_failure(err: BaseException) -> str | None:
    """The one line for an expected failure, or None for a bug (which keeps its traceback)."""
    if isinstance(err, OneLineError):
        return _first_line(err)
    if _instance_of(err, "synthdocqa.corpus.store", "CorpusError"):
        return _first_line(err)
    for module, name in (("synthdocqa.judges.hallucination.items", "ItemsError"), ("synthdocqa.judges.osce.loaders", "OsceInputError"),
                         ("synthdocqa.judges.osce.columns", "ColumnError"), ("synthdocqa.renderers.layout.clip_model", "ClipLoadError")):
        if _instance_of(err, module, name):
            return " ".join(str(err).split())
    if _instance_of(err, "pydantic", "ValidationError"):
        from synthdocqa.ir.base import describe_validation_error

        return describe_validation_error(err)  # type: ignore[arg-type]
    if isinstance(err, UnicodeDecodeError):
        return f"not UTF-8 text ({err.reason} at byte {err.start}); a corrupt input file"
    if isinstance(err, OSError):
        return _os_error(err)
    if _instance_of(err, "httpx", "TransportError"):
        request = getattr(err, "_request", None)
        url = f" {request.url}" if request is not None else ""
        return f"cannot reach{url}: {_first_line(err) or err.__class__.__name__}"
    return None


@contextmanager
def naming(path: str | os.PathLike[str]) -> Iterator[None]:
    """An OSError that names no file (a full disk met by ``write()``) is re-raised naming ``path``."""
    try:
        yield
    except OSError as err:
        if err.filename is None and err.errno is not None and err.errno not in _NETWORK:
            raise OSError(err.errno, err.strerror or os.strerror(err.errno), os.fspath(path)) from err
        raise


@contextmanager
def failing_in_one_line() -> Iterator[None]:
    """Inside a flow: an expected failure becomes :class:`RunFailed` (the run fails with that one line)."""
    try:
        yield
    except OneLineError:
        raise
    except Exception as err:
        line = expected_failure(err)
        if line is None:
            raise
        raise RunFailed(line) from err
