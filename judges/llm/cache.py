"""Persistent SQLite cache of chat replies, keyed by what was asked, so a rerun costs nothing and an edit
always misses.

Key = sha256 over the whole rendered request: the endpoint (``base_url`` without credentials, query or
fragment), the request body (model, every message, sampling parameters, response format and schema) and
the prompt's version hash. Anything that could change the reply changes the key: an edited candidate,
question or piece of evidence, another server, another schema. Only completed exchanges are stored (a
reply with content, parseable or not: at temperature 0 with a seed, re-asking would not change it; a
repair request is a request of its own with its own key); transport failures and quota refusals are not
stored, so a rerun retries them. The API key is never part of a row.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel

KEY_VERSION = "request-v2"
"""Part of every key: rows written under an older key scheme can never be returned."""


class CachedReply(BaseModel):
    content: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


def endpoint_identity(base_url: str) -> str:
    """``base_url`` as part of a key: scheme, host, port and path only (no user:password, query or fragment)."""
    parts = urlsplit(base_url.strip())
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme.lower(), netloc.lower(), parts.path.rstrip("/"), "", ""))


def cache_key(base_url: str, body: dict[str, Any], prompt_hash: str = "") -> str:
    """Stable hex key of one request: canonical JSON (sorted keys) of the endpoint, body and prompt version."""
    blob = json.dumps([KEY_VERSION, endpoint_identity(base_url), prompt_hash, body], sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """Thread-safe SQLite cache (one connection guarded by a lock; WAL journal)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # owner-only from the start (SQLite gives its -wal and -shm files the database file's mode): replies are
        # redacted of credentials, but what a judge said about the items is still nobody else's to read
        os.close(os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600))
        os.chmod(self.path, 0o600)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
            "prompt_hash TEXT NOT NULL, item_key TEXT NOT NULL, content TEXT NOT NULL, "
            "prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL)")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS rejected_formats (endpoint TEXT NOT NULL, model TEXT NOT NULL, "
            "format TEXT NOT NULL, PRIMARY KEY (endpoint, model, format))")

    def rejected_formats(self, endpoint: str, model: str) -> set[str]:
        """Response formats this endpoint and model refused before (``judges.llm.client`` steps past them)."""
        with self._lock:
            rows = self._conn.execute("SELECT format FROM rejected_formats WHERE endpoint = ? AND model = ?",
                                      (endpoint, model)).fetchall()
        return {r[0] for r in rows}

    def reject_format(self, endpoint: str, model: str, fmt: str) -> None:
        with self._lock:
            self._conn.execute("INSERT OR IGNORE INTO rejected_formats VALUES (?, ?, ?)", (endpoint, model, fmt))

    def get(self, key: str) -> CachedReply | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT content, prompt_tokens, completion_tokens FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return CachedReply(content=row[0], prompt_tokens=row[1], completion_tokens=row[2])

    def put(self, key: str, *, model: str, prompt_hash: str, item_key: str, reply: CachedReply) -> None:
        """Store a reply; ``item_key`` and ``prompt_hash`` are kept for inspection only (not in the key)."""
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
