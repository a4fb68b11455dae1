"""The ``synthdocqa`` command line.

Each command group lives in ``flows/commands/<name>.py`` with a ``register(subparsers)`` function
that adds its parser and sets ``func``; a command returns an exit code.

The error boundary (``flows.errors``): bad input raises ``CliError``; expected failures met on the way
(a foreign or locked output folder, a full disk, a read-only path, an unreachable service, a corrupt
input) are printed the same way, one line on stderr naming the file or field, exit 2. An unexpected
error is one line too, exit 1, and shows its traceback with ``--debug``. SIGINT/SIGTERM end a command
with one line and exit 130/143; output piped into ``head`` ends quietly.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from synthdocqa.flows.errors import (
    OneLineError,
    Stopped,
    clear_stop,
    expected_failure,
    record_stop,
    stop_requested,
)

COMMAND_MODULES: tuple[str, ...] = (
    "synthdocqa.flows.commands.plan",
    "synthdocqa.flows.commands.corpus",
    "synthdocqa.flows.commands.serve",
    "synthdocqa.flows.commands.layouts",
    "synthdocqa.flows.commands.render",
    "synthdocqa.flows.commands.judge",
    "synthdocqa.flows.commands.degrade",
    "synthdocqa.flows.commands.osce",
    "synthdocqa.flows.commands.export",
    "synthdocqa.flows.commands.report",
    "synthdocqa.flows.commands.lint",
    "synthdocqa.flows.commands.legibility",
    "synthdocqa.flows.commands.llm",
    "synthdocqa.flows.commands.completion",
)

COMMAND_OWNERS: dict[str, str] = {
    "plan": "synthdocqa.flows.commands.plan",
    "domains": "synthdocqa.flows.commands.plan",
    "generate": "synthdocqa.flows.commands.corpus",
    "verify": "synthdocqa.flows.commands.corpus",
    "reproduce": "synthdocqa.flows.commands.corpus",
    "serve": "synthdocqa.flows.commands.serve",
    "layouts": "synthdocqa.flows.commands.layouts",
    "render": "synthdocqa.flows.commands.render",
    "judge": "synthdocqa.flows.commands.judge",
    "degrade": "synthdocqa.flows.commands.degrade",
    "osce": "synthdocqa.flows.commands.osce",
    "export": "synthdocqa.flows.commands.export",
    "report": "synthdocqa.flows.commands.report",
    "lint": "synthdocqa.flows.commands.lint",
    "legibility": "synthdocqa.flows.commands.legibility",
    "llm": "synthdocqa.flows.commands.llm",
    "completion": "synthdocqa.flows.commands.completion",
}
"""The module of ``COMMAND_MODULES`` that registers each command: a run of a listed command imports only
that module (registering them all imports corpus, renderers and pydantic, a large share of a quick command's
CPU time). A command not listed here, or one its module turns out not to register, gets the full parser."""

MAX_SEED = 2**63 - 1
"""Seeds are non-negative 63-bit integers (``ir.spec.CorpusSpec.seed``)."""


class CliError(OneLineError):
    """A user error: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """Argument errors in one line too (argparse would print the usage first)."""

    def error(self, message: str):  # noqa: ANN201 - argparse's signature
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _VersionAction(argparse._VersionAction):
    """``--version``: the code version a corpus records (``corpus.assemble.code_version``: the package version,
    the generator revision and the digest of the sources), computed only when asked for."""

    def __call__(self, parser, namespace, values, option_string=None):  # noqa: ANN001, ANN204 - argparse's
        self.version = f"%(prog)s {_version()}"
        super().__call__(parser, namespace, values, option_string)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``synthdocqa`` parser; given the ``command`` about to run, with only that command's module
    registered (``COMMAND_OWNERS``): the same parse, without importing every other command's module."""
    owner = COMMAND_OWNERS.get(command) if command is not None else None
    modules = (owner,) if owner in COMMAND_MODULES else COMMAND_MODULES
    parser = _Parser(
        prog="synthdocqa",
        description="Seeded synthetic enterprise-document QA corpora, scan degradation and judge flows.",
    )
    parser.add_argument("--version", action=_VersionAction)
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an unexpected error (also accepted after the command)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in modules:
        importlib.import_module(name).register(sub)
    if modules != COMMAND_MODULES and command not in sub.choices:  # COMMAND_OWNERS is out of date
        return build_parser()
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The command named by ``argv`` (``--debug`` already taken out): its first argument, unless that is an
    option (``--help``, ``--version``, ``--``), which the full parser handles."""
    return argv[0] if argv and not argv[0].startswith("-") else None


def _version() -> str:
    from synthdocqa.corpus.assemble import code_version

    return code_version()


def print_json(obj: object) -> None:
    """A command's ``--json`` result: one JSON document on stdout (paths as given, numbers as numbers)."""
    import json

    print(json.dumps(obj, indent=1, default=str))


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print the result as one JSON document on stdout (no progress on stderr)")


def parse_int_list(text: str) -> list[int]:
    """``"2,5,7"`` -> ``[2, 5, 7]`` (for ``--only``)."""
    try:
        values = [int(x) for x in text.split(",") if x.strip() != ""]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected non-negative integers, got {text!r}")
    return values


def check_range(option: str, value: float | None, lo: float | None = None, hi: float | None = None) -> None:
    """``CliError`` (one line, exit 2) unless ``lo <= value <= hi``; ``None`` (option not given) passes."""
    if value is None:
        return
    if lo is not None and value < lo:
        raise CliError(f"{option} must be >= {lo}, got {value}")
    if hi is not None and value > hi:
        raise CliError(f"{option} must be <= {hi}, got {value}")


def not_a_file(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be read as an input file ("no such file", "is a folder", "is not a regular file"), or
    None when it is one."""
    from pathlib import Path

    p = Path(path)
    if p.is_file():
        return None
    if not p.exists():
        return "no such file"
    return "is a folder, not a file" if p.is_dir() else "is not a regular file (a pipe or a device)"


def check_not_in_corpus(path: str | os.PathLike[str], option: str = "--out") -> None:
    """``CliError`` when ``path`` is a generated corpus or lies inside one: a corpus is written by ``generate``
    alone (another command's files there would replace its report or sit untracked beside its manifest)."""
    from pathlib import Path

    from synthdocqa.corpus.store import MANIFEST

    p = Path(path).absolute()
    for folder in (p, *p.parents):
        if (folder / MANIFEST).is_file():
            where = "is" if folder == p else f"lies inside {folder}, which is"
            raise CliError(f"{option} {path}: {where} a generated corpus; write this output to another folder")


def check_writable(path: str | os.PathLike[str], option: str = "--out") -> None:
    """``CliError`` before any work when ``path`` (a file or folder to be made) cannot be written: its nearest
    existing folder is on a read-only file system or not writable by this user."""
    from pathlib import Path

    p = Path(path).absolute()
    folder = p if p.is_dir() else p.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise CliError(f"{option} {path}: {folder} is not a folder")
    if os.access(folder, os.W_OK | os.X_OK):
        return
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    raise CliError(f"{option} {path}: {folder}: {'Read-only file system' if read_only else 'Permission denied'}")


def require_verified(corpus_dir: str | os.PathLike[str], no_verify: bool) -> None:
    """Refuse a corpus that does not verify (hashes, records, tables, ids) unless ``--no-verify`` was given."""
    if no_verify:
        return
    from synthdocqa.corpus.verify import check_corpus

    problems = check_corpus(corpus_dir)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise CliError(f"{corpus_dir} does not verify: {problems[0]}{more}; run `synthdocqa verify {corpus_dir}`, "
                       "or pass --no-verify to use it anyway")


def _pop_debug(argv: list[str]) -> tuple[list[str], bool]:
    end = argv.index("--") if "--" in argv else len(argv)
    head = [a for a in argv[:end] if a != "--debug"]
    return head + argv[end:], len(head) != end


def _stdout_is_broken() -> bool:
    """Whether stdout is a pipe whose reader has gone (poll reports an error on its write end)."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return True


def _silence_stdout() -> None:
    """The reader went away (``| head``): drop what is left instead of failing at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _on_sigint(signum: int, _frame: object) -> None:
    record_stop(signum)
    raise KeyboardInterrupt


def _on_sigterm(signum: int, _frame: object) -> None:
    record_stop(signum)
    raise Stopped(signum)


def _install_stop_handlers() -> dict[int, object]:
    """SIGINT and SIGTERM record the stop and raise (flows check the record between phases); a SIGINT
    ignored by whoever started us (``nohup``, ``&``) stays ignored."""
    old: dict[int, object] = {}
    try:
        for signum, handler in ((signal.SIGINT, _on_sigint), (signal.SIGTERM, _on_sigterm)):
            if signal.getsignal(signum) is signal.SIG_IGN:
                continue
            old[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread: leave signals alone
        pass
    return old


def _stopped(command: str, signum: int, hint: str) -> int:
    name = signal.Signals(signum).name
    print(f"synthdocqa {command}: stopped by {name}" + (f"; {hint}" if hint else ""), file=sys.stderr)
    return 128 + signum


PATH_OPTIONS = ("out", "spec", "params_out", "items", "corpus", "judges", "answers", "taxonomy", "cache")
PATH_ARGUMENTS = ("dir", "image", "ratings", "dialogues")


def _refuse_empty_paths(args: argparse.Namespace) -> None:
    """An empty path is a mistake (a shell variable that was not set), not the current folder: ``--out ''``
    would otherwise write into ``.``."""
    for name in PATH_OPTIONS + PATH_ARGUMENTS:
        value = getattr(args, name, None)
        if isinstance(value, str) and not value.strip():
            label = f"--{name.replace('_', '-')}" if name in PATH_OPTIONS else name.upper()
            raise CliError(f"{label}: an empty path (a folder or file name is needed)")


def main(argv: Sequence[str] | None = None) -> int:
    argv, debug = _pop_debug(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser(_command_of(argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit:  # --help, --version or a usage error: make sure a closed pipe stays quiet
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
        raise
    args.debug = debug or args.debug
    hint = getattr(args, "stop_hint", "")
    clear_stop()
    old_handlers = _install_stop_handlers()
    try:
        _refuse_empty_paths(args)
        rc = int(args.func(args) or 0)
        sys.stdout.flush()
        if stop_requested() is not None:  # the signal's exception was lost on the way; the record was not
            return _stopped(args.command, stop_requested(), hint)
        return rc
    except BrokenPipeError:
        if not _stdout_is_broken():
            print(f"synthdocqa {args.command}: error: {expected_failure(sys.exc_info()[1])}", file=sys.stderr)
            return 2
        _silence_stdout()
        return 128 + signal.SIGPIPE
    except KeyboardInterrupt:
        return _stopped(args.command, stop_requested() or signal.SIGINT, hint)
    except Stopped as err:
        return _stopped(args.command, stop_requested() or err.signum, hint)
    except Exception as err:
        if stop_requested() is not None:  # e.g. a future of a worker the stop killed
            return _stopped(args.command, stop_requested(), hint)
        line = expected_failure(err)
        if line is None and args.debug:
            raise
        if args.debug:
            traceback.print_exc()
        if line is not None:
            print(f"synthdocqa {args.command}: error: {line}", file=sys.stderr)
            return 2
        what = " ".join(str(err).split())[:300]
        print(f"synthdocqa {args.command}: unexpected error: {err.__class__.__name__}: {what} (run again with "
              "--debug for the traceback)", file=sys.stderr)
        return 1
    except BaseException as err:
        signum = getattr(err, "signal", None) if err.__class__.__name__ == "TerminationSignal" else None
        if isinstance(signum, int):  # Prefect's SIGTERM bridge inside a flow run
            return _stopped(args.command, signum, hint)
        raise
    finally:
        for signum, handler in old_handlers.items():
            signal.signal(signum, handler)


def _drop_lost_stops(hook):  # noqa: ANN001, ANN202 - sys.unraisablehook
    """A stop's exception raised inside a callback Python cannot raise from (a weakref callback of the import
    machinery, a ``__del__``) is lost there and would be printed as "Exception ignored in ..."; the stop itself
    is recorded (``flows.errors.record_stop``) and honoured by the run. Anything else goes to ``hook``."""
    def unraisable(args) -> None:  # noqa: ANN001 - sys.UnraisableHookArgs
        if isinstance(args.exc_value, (Stopped, KeyboardInterrupt)) and stop_requested() is not None:
            return
        hook(args)

    return unraisable


_own_tmp: str | None = None
"""The command's temporary folder (``flows.run_tmp``), removed by ``exit_process``."""


def exit_process(code: int) -> NoReturn:
    """End the process with ``code`` as a normal exit would, but without the interpreter's finalization.

    A daemon thread may still be inside native code when a command ends early (torch's import in the
    warm-up thread after a failed or stopped start, a C++ pool of a model): finalization ends such a thread
    where it next takes the GIL, unwinding its C++ frames, and now and then that aborts the process
    (SIGABRT, "terminate called without an active exception", exit 134 instead of the command's code).
    What a normal exit does for us is done here in the same order (other threads joined, ``atexit``
    handlers such as the temporary Prefect server's stop, the standard streams flushed), then ``os._exit``."""
    import atexit
    import threading

    try:
        threading._shutdown()  # the join of non-daemon threads that Py_Finalize starts with
        atexit._run_exitfuncs()
    finally:
        from synthdocqa.flows.run_tmp import remove_own_temp_dir

        remove_own_temp_dir(_own_tmp)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def run(argv: Sequence[str] | None = None) -> NoReturn:
    """The ``synthdocqa`` command: ``main`` in this process with a temporary folder of its own
    (``flows.run_tmp``), then ``exit_process`` with its exit code."""
    from synthdocqa.flows.run_tmp import use_own_temp_dir

    sys.unraisablehook = _drop_lost_stops(sys.unraisablehook)
    global _own_tmp
    _own_tmp = use_own_temp_dir()
    try:
        code = main(argv)
    except SystemExit as done:  # --help, --version, a usage error
        if done.code is None or isinstance(done.code, int):
            code = done.code or 0
        else:
            print(done.code, file=sys.stderr)
            code = 1
    exit_process(code)


if __name__ == "__main__":
    run()
