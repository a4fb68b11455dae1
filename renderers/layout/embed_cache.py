"""On-disk cache of layout-thumbnail embeddings, keyed by library id + model id + weights sha256.

An entry is one ``.npz`` (ids + float32 matrix) plus its key fields; a different library, model or weights
file gives a different key, so stale embeddings are never reused. Writes are atomic; an unreadable or
mismatching entry is treated as a miss and rebuilt.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import numpy as np

from synthdocqa.ir.files import atomic_write_bytes

CACHE_FORMAT = 1


def library_id(lib_dir: str | os.PathLike[str]) -> str:
    """Content id of a built library: sha256 over its manifest, row file and every thumbnail's bytes."""
    root = Path(lib_dir)
    h = hashlib.sha256()
    for name in ("library.json", "layouts.jsonl"):
        p = root / name
        if p.is_file():
            h.update(name.encode() + b"\0" + p.read_bytes())
    thumbs = root / "thumbs"
    for p in sorted(thumbs.glob("*.png")) if thumbs.is_dir() else []:
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def cache_key(lib_id: str, model_id: str, weights_sha256: str) -> str:
    blob = json.dumps({"format": CACHE_FORMAT, "library": lib_id, "model": model_id,
                       "weights": weights_sha256}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


class EmbeddingCache:
    """A directory of cached embedding matrices."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / f"emb-{key[:40]}.npz"

    def load(self, key: str, ids: list[str]) -> np.ndarray | None:
        """The cached matrix for ``key`` if present, readable and for exactly ``ids``; else None."""
        p = self.path(key)
        if not p.is_file():
            return None
        try:
            with np.load(p, allow_pickle=False) as z:
                if str(z["key"]) != key or z["ids"].tolist() != ids:
                    return None
                mat = np.asarray(z["emb"], dtype=np.float32)
        except (OSError, ValueError, KeyError):
            return None
        if mat.ndim != 2 or mat.shape[0] != len(ids) or not np.isfinite(mat).all():
            return None
        return mat

    def save(self, key: str, ids: list[str], emb: np.ndarray) -> Path:
        buf = io.BytesIO()
        np.savez(buf, key=np.array(key), ids=np.array(ids), emb=np.asarray(emb, dtype=np.float32))
        p = self.path(key)
        atomic_write_bytes(p, buf.getvalue(), fsync=False)  # a cache: a lost entry is rebuilt
        return p
