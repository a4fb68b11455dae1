"""A throwaway PostgreSQL server for tests: Debian's server binaries, a cluster in a temporary folder, trust
authentication on 127.0.0.1 and a free port, stopped and removed afterwards. As root the cluster runs as the
``postgres`` system user (initdb refuses root)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from synthdocqa.judges.llm.local_server import free_port


def initdb_path() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]) if found else None


@contextmanager
def postgres_server() -> Iterator[str]:
    """``postgresql://tester@127.0.0.1:PORT/postgres`` of a fresh cluster, for the length of the block."""
    initdb = initdb_path()
    if initdb is None:
        raise RuntimeError("PostgreSQL server binaries not installed (Debian postgresql)")
    bindir = initdb.parent
    root = Path(tempfile.mkdtemp(prefix="pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
        os.chmod(root, 0o700)
        as_user = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    log = root / "server.log"
    try:
        subprocess.run([*as_user, str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "tester",
                        "--encoding=UTF8", "--locale=C.UTF-8"], check=True, capture_output=True)
        subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60", "-o",
                        f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                       check=True, capture_output=True)
        yield f"postgresql://tester@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(root, ignore_errors=True)
