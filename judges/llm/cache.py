"""Persistent SQLite cache of chat replies, so a rerun of a judged set costs nothing.

Key = sha256 over (model, prompt hash, item key, sampling params). Only completed exchanges are
stored (a reply with content, parseable or not: at temperature 0 with a seed, re-asking would not
change an unparseable verdict into a good one); transport failures and quota refusals are not
stored, so a rerun retries them. The API key is never part of a row.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from pydantic import BaseModel


class CachedReply(BaseModel):
    content: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


def cache_key(model: str, prompt_hash: str, item_key: str, params: dict[str, object]) -> str:
    """Stable hex key; params are canonicalised (sorted keys) so dict order does not matter."""
    blob = json.dumps([model, prompt_hash, item_key, params], sort_keys=True, separators=(",", ":"),
                      default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """Thread-safe SQLite cache (one connection guarded by a lock; WAL journal)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
            "prompt_hash TEXT NOT NULL, item_key TEXT NOT NULL, content TEXT NOT NULL, "
            "prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL)")

    def get(self, key: str) -> CachedReply | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT content, prompt_tokens, completion_tokens FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return CachedReply(content=row[0], prompt_tokens=row[1], completion_tokens=row[2])

    def put(self, key: str, *, model: str, prompt_hash: str, item_key: str, reply: CachedReply) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, model, prompt_hash, item_key, reply.content, reply.prompt_tokens, reply.completion_tokens))

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
