"""The command's own temporary folder: everything the run and its processes put under the temporary folder
(OCR inputs, the fork server's socket, Dask's scratch space, torch's caches) lands in one folder of its own,
removed when the command ends, and by a janitor process when the command is killed (``kill -9``).

The janitor holds the read end of a pipe whose write end only this process holds (and children forked
without exec, which die with it): it reads to end of file, which comes when the last of them is gone, removes
the folder and exits. It starts in a session of its own, so a Ctrl-C at the terminal does not reach it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

PREFIX = "synthdocqa-"
SOCKET_ROOM = 40
"""Bytes a socket path under the folder needs (multiprocessing's ``pymp-XXXXXXXX/listener-XXXXXXXX``): a
folder that leaves less than that below the 107-byte limit of a socket path is not used."""
JANITOR = "import shutil, sys\nsys.stdin.buffer.read()\nshutil.rmtree(sys.argv[1], ignore_errors=True)\n"

_held: list[tuple[int, subprocess.Popen]] = []  # the pipe's write end (open for the life of the process), the janitor


def use_own_temp_dir() -> str | None:
    """Make a new folder under the temporary folder the temporary folder of this process and of every process
    it starts (``TMPDIR``), with a janitor for it; the folder, or None (nothing changed) where none can be made."""
    try:
        folder = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
    except OSError:
        return None
    if len(os.fsencode(folder)) + SOCKET_ROOM > 107:  # a deep TMPDIR: the fork server could not bind there
        os.rmdir(folder)
        return None
    try:
        read_end, write_end = os.pipe()  # not inherited by exec'd children
        try:
            janitor = subprocess.Popen([sys.executable, "-I", "-S", "-c", JANITOR, folder], stdin=read_end,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        finally:
            os.close(read_end)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        return None
    _held.append((write_end, janitor))
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = folder
    return folder


def remove_own_temp_dir(folder: str | None) -> None:
    """Remove the folder now (a normal end), so nothing is left when the command has returned."""
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
