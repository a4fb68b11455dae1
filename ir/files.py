"""The one way the project writes files: atomic (temp file + rename) and with the umask's mode.

Every package writes through here (``ir`` is the bottom floor, so renderers, degradations, judges and
corpus can all import it). Readers see the old or the new file, never half of one; a failed write
leaves no temp file behind. ``atomic_dir`` does the same for a folder of files (exports, reports).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TEMP_SUFFIX = ".tmp"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, fsync: bool = True) -> None:
    """Write via a temp file in the same folder + ``os.replace``.

    ``fsync=False`` skips the flush to disk for bulk, regenerable files (thumbnails, caches)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), 0o666 & ~_umask())  # mkstemp makes 0600; a corpus is meant to be shared
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(err, OSError) and err.filename is None and err.errno is not None:
            # a full disk or a quota names no file; the one line the user sees should name this one
            raise type(err)(err.errno, err.strerror, str(path)) from err
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str, fsync: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), fsync=fsync)


def atomic_write_json(path: str | os.PathLike[str], obj: Any, indent: int | None = 1) -> None:
    atomic_write_text(path, json.dumps(obj, indent=indent, sort_keys=True, ensure_ascii=False) + "\n")


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Build a folder under a temp name beside ``path``; on success it replaces ``path`` as a whole.

    On any error the temp folder is removed and an existing ``path`` is left as it was."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=TEMP_SUFFIX, dir=out.parent))
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~_umask())
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", suffix=TEMP_SUFFIX, dir=out.parent))
            os.replace(out, old / "x")
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def strict_json_loads(text: str) -> Any:
    """JSON as a user's input file must be: a key given twice and the non-standard ``NaN`` / ``Infinity`` /
    ``-Infinity`` (which Python's json accepts) are errors, not silently the last value or a non-finite number.
    Raises ``ValueError`` naming the key or the constant."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                raise ValueError(f"duplicate key {k!r}")
            out[k] = v
        return out

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not a number JSON allows (every number must be finite)")

    return json.loads(text, object_pairs_hook=pairs, parse_constant=constant)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike[str]) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
