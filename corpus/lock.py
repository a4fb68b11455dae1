"""One writer per output folder: an exclusive ``flock`` on ``<out>/.lock``, which holds the writer's PID.

A second run into the same folder fails at once, naming the first one's PID. The lock is advisory and
tied to the open file: it goes away with the process that holds it (even after ``kill -9``), so a stale
``.lock`` never blocks the next run. A run checks it still holds the lock before it writes (the file may
have been removed or replaced under it); worker processes do the same with a :class:`LockToken`, which
names the locked file by device and inode.

The holder also owns the folder's temp files: a killed writer can leave ``.<name>.<random>.tmp`` files
(``ir.files``), and whoever takes the lock next removes them.
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from synthdocqa.ir.files import TEMP_SUFFIX

from .store import LOCK_FILE, CorpusError

"""The lock file inside a locked folder (not part of a corpus: ``verify`` and the manifest ignore it)."""


class LockError(CorpusError):
    """The folder is locked by another run."""


class LockLost(LockError):
    """This run no longer holds the folder's lock (the lock file was removed or replaced)."""


@dataclass(frozen=True)
class LockToken:
    """What a worker process needs to check that the run's lock is still in place (picklable, JSON-able)."""

    path: str
    dev: int
    ino: int
    pid: int
    host: str = ""
    """the run's host: a worker on it also checks the run is alive (a pid means nothing on another host)"""

    def check(self) -> None:
        """Raise :class:`LockLost` unless ``path`` is still the file this run locked and, on the run's host,
        the run is still alive (a worker of a ``kill -9``-ed run stops before its next file, not after its
        document: the lock itself goes with the killed process, its file stays)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            folder = os.path.dirname(self.path)
            if not os.path.isdir(folder) and self.host and self.host != socket.gethostname():
                # a worker of a cluster without the run's folder: say so, not "removed"
                raise LockLost(f"{folder}: the output folder is not visible on worker host {socket.gethostname()} "
                               f"(run {self.pid} on {self.host or 'its host'}); every worker needs it at the same "
                               "path (a shared file system); stopped") from None
            raise LockLost(f"{self.path}: lock file removed while run {self.pid} was writing; stopped") from None
        if (st.st_dev, st.st_ino) != (self.dev, self.ino):
            raise LockLost(f"{self.path}: lock file replaced while run {self.pid} was writing; stopped")
        if self.host == socket.gethostname() and self.pid != os.getpid() and not _alive(self.pid):
            raise LockLost(f"{self.path}: run {self.pid} is gone; stopped")


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (on Linux a zombie, killed but not yet reaped, does not)."""
    if not os.path.isdir("/proc/self"):  # no procfs: signal 0 tells whether the pid exists
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    except IndexError:
        return True
    return state not in ("Z", "X")


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return text if text.isdigit() else "unknown"


class OutputLock:
    """The exclusive lock of one output folder; re-entrant within a process (the CLI and the flow it runs
    both take it)."""

    _held: ClassVar[dict[str, OutputLock]] = {}
    _guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        # absolute: the token goes to workers, which may run in another folder (a Dask worker's own)
        self.folder = Path(os.path.abspath(folder))
        self.path = self.folder / LOCK_FILE
        self._fd: int | None = None
        self._depth = 0
        self._token: LockToken | None = None

    @classmethod
    def of(cls, folder: str | os.PathLike[str]) -> OutputLock:
        """The process's lock object for ``folder`` (the same one for every spelling of the path)."""
        key = os.path.realpath(folder)
        with cls._guard:
            lock = cls._held.get(key)
            if lock is None:
                lock = cls._held[key] = cls(folder)
            return lock

    @classmethod
    def probe(cls, folder: str | os.PathLike[str]) -> None:
        """``LockError`` now when another process holds ``folder``'s lock: a command that would lose the race
        says so before it starts anything costly (a Prefect server). Takes and drops the lock at once; the run
        still acquires it for real later (a run starting in between is caught then)."""
        path = Path(folder) / LOCK_FILE
        if cls._held.get(os.path.realpath(folder)) is not None and cls._held[os.path.realpath(folder)]._depth:
            return  # this process holds it
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            return  # no lock file (or unreadable): nobody holds it, or acquire will say why
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise LockError(f"{folder} is in use by another synthdocqa run (pid {_holder(fd)}); wait for it to "
                                "finish or stop it") from None
        finally:
            os.close(fd)  # closing drops a lock this probe took

    # ------------------------------------------------------------ acquire / release
    def acquire(self) -> OutputLock:
        if self._depth:
            self._depth += 1
            return self
        self.folder.mkdir(parents=True, exist_ok=True)
        for _ in range(20):  # the file can be removed between open and flock by a holder that is releasing
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as err:
                holder = _holder(fd)
                os.close(fd)
                if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise LockError(f"{self.folder} is in use by another synthdocqa run (pid {holder}); wait for "
                                    "it to finish or stop it") from None
                raise
            st, now = os.fstat(fd), None
            try:
                now = os.stat(self.path)
            except FileNotFoundError:
                pass
            if now is None or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            self._fd = fd
            self._depth = 1
            self._token = LockToken(str(self.path), st.st_dev, st.st_ino, os.getpid(), socket.gethostname())
            remove_temp_files(self.folder)
            return self
        raise LockError(f"{self.path}: could not be locked (removed again and again by another process)")

    def release(self) -> None:
        if not self._depth:
            return
        self._depth -= 1
        if self._depth:
            return
        fd, token = self._fd, self._token
        self._fd, self._token = None, None
        try:
            if token is not None:
                try:
                    token.check()
                    remove_temp_files(self.folder)  # of writers killed on the way out (a stopped run)
                    os.unlink(self.path)  # unlinked while still locked: a waiting opener re-checks the inode
                except (LockLost, OSError):
                    pass
        finally:
            if fd is not None:
                os.close(fd)

    def __enter__(self) -> OutputLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    # ------------------------------------------------------------ checks
    @property
    def held(self) -> bool:
        return self._depth > 0

    @property
    def token(self) -> LockToken:
        if self._token is None:
            raise LockLost(f"{self.path}: not locked by this process")
        return self._token

    def check(self) -> None:
        """Raise :class:`LockLost` unless this process still holds the lock (call before writing)."""
        self.token.check()


def remove_temp_files(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove the temp files a killed writer left under ``folder`` (only the lock holder may do this)."""
    removed = []
    for p in Path(folder).rglob(f".*{TEMP_SUFFIX}"):
        if p.is_file() and not p.is_symlink():
            try:
                p.unlink()
                removed.append(p)
            except FileNotFoundError:
                pass
    return removed
