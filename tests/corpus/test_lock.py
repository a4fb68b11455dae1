"""``LockToken.check`` on a worker: the lock file must be the run's, and on the run's host the run alive."""

from __future__ import annotations

import dataclasses
import subprocess

import pytest

from corpus.lock import LockLost, OutputLock


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_a_worker_stops_when_the_run_that_locked_the_folder_is_gone(tmp_path):
    with OutputLock.of(tmp_path / "c") as lock:
        token = lock.token
        token.check()  # the run itself, alive
        dead = dataclasses.replace(token, pid=_dead_pid())
        with pytest.raises(LockLost, match=r"run \d+ is gone"):
            dead.check()
        dataclasses.replace(dead, host="another-host").check()  # a pid of another host is not looked up
        (tmp_path / "c" / ".lock").unlink()
        with pytest.raises(LockLost, match="lock file removed"):
            token.check()
