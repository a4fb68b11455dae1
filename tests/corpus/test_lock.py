"""``LockToken.check`` on a worker: the lock file must be the run's, and on the run's host the run alive."""

from __future__ import annotations

import dataclasses
import socket
import subprocess

import pytest

from synthdocqa.corpus.lock import LockLost, OutputLock


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


def test_a_worker_on_another_host_without_the_folder_is_told_so(tmp_path):
    """A cluster worker that does not see the output folder (no shared file system) stops with a line that
    says so and names its host; on the run's own host a vanished folder is still "removed"."""
    with OutputLock.of(tmp_path / "c") as lock:
        token = lock.token
    elsewhere = dataclasses.replace(token, path=str(tmp_path / "not-mounted" / ".lock"), host="the-run-host")
    with pytest.raises(LockLost, match=r"not-mounted: the output folder is not visible on worker host .+ "
                                       r"\(run \d+ on the-run-host\); every worker needs it at the same path"):
        elsewhere.check()
    here = dataclasses.replace(elsewhere, host=socket.gethostname())
    with pytest.raises(LockLost, match="lock file removed"):
        here.check()
