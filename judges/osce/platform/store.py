"""Storage of the OSCE practice platform: pseudonymous students, consent events, encounters turn by turn, and
the deletions (withdrawal, retention purge) with their audit log.

One SQL database by URL: an SQLite file by default (``sqlite+aiosqlite:///path.db``; a plain ``sqlite:///path``
is mapped to it), PostgreSQL by ``postgresql://`` (mapped to ``postgresql+asyncpg``), any other SQLAlchemy URL
with an async driver as given. SQLAlchemy Core on the async engine; the schema is made and upgraded by the
alembic migrations next to this module (``migrations/``), run by ``PlatformStore.open`` on every open, so a new
file is created at the head revision and an existing one is upgraded (or left as it is).

What is kept, and what never is:

- a student is the HMAC-SHA256 of their sign-in code under a random salt of this database (table ``meta``): the
  same code gives the same id in one database and another id in another, and the code itself is never stored;
- consent is an append-only list of events (``research`` and ``privacy``, each with its version); the state is
  the latest event of each kind;
- an encounter is stored only for a student whose latest research consent is granted (``start_encounter``
  refuses otherwise), and each turn is committed before ``add_turn`` returns, so a crash or a closed tab loses
  nothing that was said;
- ``withdraw`` records the withdrawal and deletes the student's encounters and turns; ``purge`` deletes the
  encounters started before a retention cutoff; both write a row of the audit log (what, when, how many).

Times are timezone-aware UTC (SQLite keeps them as naive UTC text, PostgreSQL as ``timestamptz``). Every failure
of the database comes out as ``PlatformStoreError`` with one line that never holds the URL's password; wrong
arguments (an unknown consent kind, a naive datetime) raise ``ValueError``.

SQLite runs in WAL mode with a busy timeout, write transactions start with ``BEGIN IMMEDIATE`` (they queue for the
write lock instead of failing on a stale snapshot) and foreign keys are enforced.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Dialect, make_url
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.types import TypeDecorator

MIGRATIONS = Path(__file__).parent / "migrations"
CONSENT_KINDS = ("research", "privacy")
SALT_KEY = "pseudonym_salt"
SQLITE_BUSY_TIMEOUT_S = 30.0
PG_CONNECT_TIMEOUT_S = 10.0
_WRITE = "platform_store_write"
"""Execution option of the write engine: on SQLite its transactions begin IMMEDIATE."""


class PlatformStoreError(RuntimeError):
    """The platform database failed or refused (bad URL, unreachable, not this student's encounter, ...)."""


@dataclass(frozen=True)
class ConsentState:
    kind: str
    version: str
    granted: bool
    at: datetime


@dataclass(frozen=True)
class TurnRow:
    n: int
    question: str
    answer: str | None
    status: str
    failure: str | None
    latency_s: float
    asked_at: datetime


@dataclass(frozen=True)
class EncounterRow:
    id: str
    student_id: str
    case: str
    language: str
    model: str
    prompt_sha256: str
    started_at: datetime
    ended_at: datetime | None
    differential: str | None
    turns: tuple[TurnRow, ...]


class UtcDateTime(TypeDecorator):
    """A timezone-aware UTC datetime on every database (SQLite: naive UTC text, which sorts as time does)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: the platform stores timezone-aware times")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# The tables as the migrations make them (tests/judges/osce/platform compares the two).
METADATA = sa.MetaData()
meta = sa.Table(
    "meta", METADATA,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text(), nullable=False),
)
students = sa.Table(
    "students", METADATA,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("first_seen_at", UtcDateTime(), nullable=False),
)
consent_events = sa.Table(
    "consent_events", METADATA,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("student_id", sa.String(64), sa.ForeignKey("students.id"), nullable=False),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("version", sa.String(64), nullable=False),
    sa.Column("granted", sa.Boolean(), nullable=False),
    sa.Column("at", UtcDateTime(), nullable=False),
    sa.Index("ix_consent_events_student_id_kind", "student_id", "kind"),
)
encounters = sa.Table(
    "encounters", METADATA,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("student_id", sa.String(64), sa.ForeignKey("students.id"), nullable=False),
    sa.Column("case_id", sa.String(200), nullable=False),
    sa.Column("language", sa.String(16), nullable=False),
    sa.Column("model", sa.String(255), nullable=False),
    sa.Column("prompt_sha256", sa.String(64), nullable=False),
    sa.Column("started_at", UtcDateTime(), nullable=False),
    sa.Column("ended_at", UtcDateTime(), nullable=True),
    sa.Column("differential", sa.Text(), nullable=True),
    sa.Column("n_turns", sa.Integer(), nullable=False, server_default=sa.text("0")),
    sa.Index("ix_encounters_student_id", "student_id"),
    sa.Index("ix_encounters_started_at", "started_at"),
    sa.Index("ix_encounters_case_id", "case_id"),
)
turns = sa.Table(
    "turns", METADATA,
    sa.Column("encounter_id", sa.String(64), sa.ForeignKey("encounters.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("n", sa.Integer(), primary_key=True, autoincrement=False),
    sa.Column("question", sa.Text(), nullable=False),
    sa.Column("answer", sa.Text(), nullable=True),
    sa.Column("status", sa.String(32), nullable=False),
    sa.Column("failure", sa.Text(), nullable=True),
    sa.Column("latency_s", sa.Float(), nullable=False),
    sa.Column("asked_at", UtcDateTime(), nullable=False),
)
audit_log = sa.Table(
    "audit_log", METADATA,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("at", UtcDateTime(), nullable=False),
    sa.Column("action", sa.String(32), nullable=False),
    sa.Column("student_id", sa.String(64), nullable=True),
    sa.Column("encounters_deleted", sa.Integer(), nullable=False),
    sa.Column("turns_deleted", sa.Integer(), nullable=False),
    sa.Column("detail", sa.Text(), nullable=False),
)


def _now() -> datetime:
    return datetime.now(UTC)


_URL_PASSWORD = re.compile(r"(://[^/@\s]*?:)[^@\s]*@")


def _scrub(text: str, password: str | None) -> str:
    """``text`` on one line, with the password (as given, and URL-quoted) and any ``user:pw@`` part masked."""
    text = " ".join(str(text).split())
    if password:
        for form in {password, quote(password, safe=""), quote_plus(password)}:
            text = text.replace(form, "***")
    return _URL_PASSWORD.sub(r"\1***@", text)


def _reason(exc: BaseException, password: str | None) -> str:
    """The driver's own message (not SQLAlchemy's wrapper with the statement), on one line, without the password."""
    orig = getattr(exc, "orig", None)
    inner = orig if orig is not None else exc
    text = str(inner) or type(inner).__name__
    return _scrub(text, password)


_DRIVERS = {
    "sqlite": "sqlite+aiosqlite", "sqlite+pysqlite": "sqlite+aiosqlite",
    "postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg", "postgresql+psycopg2": "postgresql+asyncpg",
}


def async_url(url: str) -> URL:
    """The URL with an async driver (``sqlite://`` -> aiosqlite, ``postgresql://`` -> asyncpg); PlatformStoreError
    for what is no database URL, or an SQLite file whose folder does not exist."""
    try:
        u = make_url(url)
    except Exception:  # ArgumentError, ValueError: its message repeats the whole string, password included
        scheme = url.split("://", 1)[0] if "://" in url else ""
        said = f"{scheme!r}://..." if scheme and re.fullmatch(r"[\w+.-]+", scheme) else "a string"
        raise PlatformStoreError(f"not a database URL ({said}; expected e.g. sqlite+aiosqlite:///path.db or "
                                 "postgresql://user:password@host/db)") from None
    u = u.set(drivername=_DRIVERS.get(u.drivername, u.drivername))
    if u.get_backend_name() == "sqlite" and not _sqlite_memory(u) and not _truthy(u.query.get("uri")):
        folder = Path(u.database).parent
        if not folder.is_dir():
            raise PlatformStoreError(f"the folder of the SQLite database does not exist: {folder}")
    return u


def _truthy(v: Any) -> bool:
    return str(v).lower() in {"1", "true", "yes"} if v is not None else False


def _sqlite_memory(u: URL) -> bool:
    return u.database in (None, "", ":memory:")


class PlatformStore:
    """The platform's database. Open with ``await PlatformStore.open(url)``; ``await store.close()`` at the end
    (or ``async with await PlatformStore.open(url) as store``)."""

    def __init__(self, engine: AsyncEngine, safe_url: str, password: str | None):
        self._engine = engine
        self._writer = engine.execution_options(**{_WRITE: True})
        self._safe_url = safe_url
        self._password = password
        self._salt = b""

    @property
    def url(self) -> str:
        """The database URL with the password masked."""
        return self._safe_url

    @property
    def database_id(self) -> str:
        """A stable id of this database for what is kept outside it (the nightly evaluation's cursor): a hash of
        its pseudonym salt, which it does not reveal; the same for a copy of the file, another for another
        database."""
        return hashlib.sha256(b"synthdocqa-platform-database\0" + self._salt).hexdigest()[:16]

    # -- opening -------------------------------------------------------------------------------------------

    @classmethod
    async def open(cls, url: str) -> PlatformStore:
        """Connect, create or upgrade the schema to the head revision, load (or make) the pseudonym salt."""
        u = async_url(url)
        safe = u.render_as_string(hide_password=True)
        kwargs: dict[str, Any] = {}
        if u.get_backend_name() == "sqlite":
            kwargs["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT_S}
        elif u.get_backend_name() == "postgresql":
            kwargs["pool_pre_ping"] = True
            if u.get_driver_name() == "asyncpg":
                kwargs["connect_args"] = {"timeout": PG_CONNECT_TIMEOUT_S}
        try:
            engine = create_async_engine(u, **kwargs)
        except Exception as e:  # unknown dialect, missing or non-async driver
            raise PlatformStoreError(f"cannot use the database URL {safe}: {_reason(e, u.password)}") from None
        if u.get_backend_name() == "sqlite":
            _sqlite_pragmas(engine, memory=_sqlite_memory(u))
        store = cls(engine, safe, u.password)
        try:
            async with store._writer.begin() as conn:
                await conn.run_sync(_upgrade_to_head)
            store._salt = await store._load_salt()
        except Exception as e:
            await engine.dispose()
            raise PlatformStoreError(f"cannot open the platform database {safe}: {_reason(e, u.password)}") from None
        return store

    async def _load_salt(self) -> bytes:
        q = sa.select(meta.c.value).where(meta.c.key == SALT_KEY)
        async with self._engine.connect() as conn:
            value = (await conn.execute(q)).scalar_one_or_none()
        if value is None:
            try:
                async with self._writer.begin() as conn:
                    await conn.execute(sa.insert(meta).values(key=SALT_KEY, value=secrets.token_hex(32)))
            except IntegrityError:  # another process made it first
                pass
            async with self._engine.connect() as conn:
                value = (await conn.execute(q)).scalar_one()
        return bytes.fromhex(value)

    async def close(self) -> None:
        await self._engine.dispose()

    async def __aenter__(self) -> PlatformStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def _tx(self, write: bool) -> AsyncIterator[AsyncConnection]:
        """One transaction (committed at the end when ``write``), database failures as PlatformStoreError."""
        try:
            if write:
                async with self._writer.begin() as conn:
                    yield conn
            else:
                async with self._engine.connect() as conn:
                    yield conn
        except (PlatformStoreError, ValueError):
            raise
        except IntegrityError as e:
            raise PlatformStoreError(f"the platform database refused the change: {_reason(e, self._password)}") from e
        except (SQLAlchemyError, OSError) as e:
            raise PlatformStoreError(f"platform database error ({self._safe_url}): {_reason(e, self._password)}") \
                from e

    # -- students and consent ------------------------------------------------------------------------------

    async def student_id(self, code: str) -> str:
        """The pseudonymous id of a sign-in code (HMAC-SHA256 under this database's salt); registers it."""
        if not code:
            raise ValueError("empty sign-in code")
        sid = hmac.new(self._salt, code.encode("utf-8"), hashlib.sha256).hexdigest()
        async with self._tx(write=False) as conn:
            known = (await conn.execute(sa.select(students.c.id).where(students.c.id == sid))).first() is not None
        if not known:
            try:
                async with self._tx(write=True) as conn:
                    await conn.execute(sa.insert(students).values(id=sid, first_seen_at=_now()))
            except PlatformStoreError:  # made by a simultaneous sign-in; anything else shows up just below
                async with self._tx(write=False) as conn:
                    if (await conn.execute(sa.select(students.c.id).where(students.c.id == sid))).first() is None:
                        raise
        return sid

    async def _lock_student(self, conn: AsyncConnection, student_id: str) -> None:
        """Lock the student's row for this transaction (PostgreSQL; SQLite's write lock is the whole file)."""
        q = sa.select(students.c.id).where(students.c.id == student_id).with_for_update()
        if (await conn.execute(q)).first() is None:
            raise PlatformStoreError("unknown student id (sign in first)")

    async def set_consent(self, student_id: str, kind: str, version: str, granted: bool) -> None:
        """Append a consent event (the latest one of each kind is the state)."""
        _check_kind(kind)
        if not version:
            raise ValueError("a consent event needs the version of the text consented to")
        async with self._tx(write=True) as conn:
            await self._lock_student(conn, student_id)
            await conn.execute(sa.insert(consent_events).values(
                student_id=student_id, kind=kind, version=version, granted=bool(granted), at=_now()))

    async def consents(self, student_id: str) -> dict[str, ConsentState]:
        """The latest consent event of each kind the student has answered (a kind never answered is absent)."""
        q = sa.select(consent_events).where(consent_events.c.student_id == student_id).order_by(consent_events.c.id)
        async with self._tx(write=False) as conn:
            rows = (await conn.execute(q)).mappings().all()
        return {r["kind"]: ConsentState(r["kind"], r["version"], bool(r["granted"]), r["at"]) for r in rows}

    # -- encounters ----------------------------------------------------------------------------------------

    async def start_encounter(self, student_id: str, case: str, language: str, model: str, prompt_sha256: str) -> str:
        """A new encounter (an unguessable id); PlatformStoreError unless the latest research consent is granted."""
        eid = secrets.token_urlsafe(16)
        async with self._tx(write=True) as conn:
            await self._lock_student(conn, student_id)
            if not await _research_granted(conn, student_id):
                raise PlatformStoreError("no research consent: the encounter is not stored")
            await conn.execute(sa.insert(encounters).values(
                id=eid, student_id=student_id, case_id=case, language=language, model=model,
                prompt_sha256=prompt_sha256, started_at=_now(), n_turns=0))
        return eid

    async def add_turn(self, encounter_id: str, student_id: str, question: str, answer: str | None, status: str,
                       failure: str | None, latency_s: float) -> int:
        """Store one turn, committed before it returns; its number (1, 2, ...). PlatformStoreError when the
        encounter is not an open encounter of this student."""
        async with self._tx(write=True) as conn:
            bump = (sa.update(encounters)
                    .where(encounters.c.id == encounter_id, encounters.c.student_id == student_id,
                           encounters.c.ended_at.is_(None))
                    .values(n_turns=encounters.c.n_turns + 1))
            if (await conn.execute(bump)).rowcount != 1:
                await self._refuse(conn, encounter_id, student_id)
            n = (await conn.execute(sa.select(encounters.c.n_turns).where(encounters.c.id == encounter_id))).scalar_one()
            await conn.execute(sa.insert(turns).values(
                encounter_id=encounter_id, n=n, question=question, answer=answer, status=status, failure=failure,
                latency_s=float(latency_s), asked_at=_now()))
        return n

    async def end_encounter(self, encounter_id: str, student_id: str, differential: str) -> None:
        """Close the encounter with the student's differential; PlatformStoreError when it is not an open
        encounter of this student (ended already, another student's, or none)."""
        async with self._tx(write=True) as conn:
            q = (sa.update(encounters)
                 .where(encounters.c.id == encounter_id, encounters.c.student_id == student_id,
                        encounters.c.ended_at.is_(None))
                 .values(ended_at=_now(), differential=differential))
            if (await conn.execute(q)).rowcount != 1:
                await self._refuse(conn, encounter_id, student_id)

    async def _refuse(self, conn: AsyncConnection, encounter_id: str, student_id: str) -> None:
        q = sa.select(encounters.c.ended_at).where(encounters.c.id == encounter_id,
                                                   encounters.c.student_id == student_id)
        row = (await conn.execute(q)).first()
        if row is None:  # none, or another student's: the same answer, so an id tells nothing
            raise PlatformStoreError(f"no encounter {encounter_id!r} of this student")
        raise PlatformStoreError(f"encounter {encounter_id!r} has ended")

    async def encounter(self, encounter_id: str, student_id: str | None) -> EncounterRow | None:
        """The encounter with its turns; None when there is none or it is another student's (student_id None:
        the admin, any encounter)."""
        where = [encounters.c.id == encounter_id]
        if student_id is not None:
            where.append(encounters.c.student_id == student_id)
        rows = await self._encounter_rows(sa.and_(*where))
        return rows[0] if rows else None

    async def encounters(self, *, consented_only: bool = True, ended_only: bool = False) -> list[EncounterRow]:
        """Stored encounters with their turns, oldest first. consented_only: of students whose latest research
        consent is granted; ended_only: ended ones."""
        where: list[sa.ColumnElement[bool]] = []
        if consented_only:
            where.append(encounters.c.student_id.in_(_research_granted_students()))
        if ended_only:
            where.append(encounters.c.ended_at.is_not(None))
        return await self._encounter_rows(sa.and_(sa.true(), *where))

    async def student_encounters(self, student_id: str, *, open_only: bool = True) -> list[EncounterRow]:
        """One student's stored encounters, oldest first (open_only: not yet ended): what a student signing in
        again, after a restart, goes back to."""
        where = [encounters.c.student_id == student_id]
        if open_only:
            where.append(encounters.c.ended_at.is_(None))
        return await self._encounter_rows(sa.and_(*where))

    async def _encounter_rows(self, where: sa.ColumnElement[bool]) -> list[EncounterRow]:
        eq = sa.select(encounters).where(where).order_by(encounters.c.started_at, encounters.c.id)
        tq = (sa.select(turns).join(encounters, turns.c.encounter_id == encounters.c.id).where(where)
              .order_by(turns.c.encounter_id, turns.c.n))
        async with self._tx(write=False) as conn:  # one transaction: the turns match the encounters
            erows = (await conn.execute(eq)).mappings().all()
            trows = (await conn.execute(tq)).mappings().all() if erows else []
        by_encounter: dict[str, list[TurnRow]] = {}
        for t in trows:
            by_encounter.setdefault(t["encounter_id"], []).append(TurnRow(
                n=t["n"], question=t["question"], answer=t["answer"], status=t["status"], failure=t["failure"],
                latency_s=t["latency_s"], asked_at=t["asked_at"]))
        return [EncounterRow(
            id=e["id"], student_id=e["student_id"], case=e["case_id"], language=e["language"], model=e["model"],
            prompt_sha256=e["prompt_sha256"], started_at=e["started_at"], ended_at=e["ended_at"],
            differential=e["differential"], turns=tuple(by_encounter.get(e["id"], ()))) for e in erows]

    async def encounter_ids(self) -> set[str]:
        """The ids of every stored encounter, whatever its consent or state (no turns read)."""
        async with self._tx(write=False) as conn:
            return {r[0] for r in (await conn.execute(sa.select(encounters.c.id))).all()}

    async def counts_per_case(self) -> dict[str, int]:
        """Stored encounters per case (sorted by case)."""
        q = (sa.select(encounters.c.case_id, sa.func.count()).group_by(encounters.c.case_id)
             .order_by(encounters.c.case_id))
        async with self._tx(write=False) as conn:
            return {case: int(n) for case, n in (await conn.execute(q)).all()}

    # -- deletions -----------------------------------------------------------------------------------------

    async def withdraw(self, student_id: str) -> int:
        """Record the research consent as withdrawn, delete the student's encounters and turns, log it; the number
        of encounters deleted."""
        async with self._tx(write=True) as conn:
            await self._lock_student(conn, student_id)
            vq = (sa.select(consent_events.c.version)
                  .where(consent_events.c.student_id == student_id, consent_events.c.kind == "research")
                  .order_by(consent_events.c.id.desc()).limit(1))
            version = (await conn.execute(vq)).scalar_one_or_none() or "none"
            await conn.execute(sa.insert(consent_events).values(
                student_id=student_id, kind="research", version=version, granted=False, at=_now()))
            mine = sa.select(encounters.c.id).where(encounters.c.student_id == student_id)
            n_enc, n_turns = await _delete_encounters(conn, mine)
            await _log(conn, "withdraw", student_id, n_enc, n_turns, {"research_consent_version": version})
        return n_enc

    async def purge(self, older_than_days: float, now: datetime | None = None) -> int:
        """Delete the encounters (and their turns) started before ``now - older_than_days``, log it; the number
        of encounters deleted."""
        if older_than_days < 0:
            raise ValueError(f"older_than_days must be >= 0, not {older_than_days}")
        now = _now() if now is None else now
        if now.tzinfo is None:
            raise ValueError("purge: now must be timezone-aware")
        cutoff = now - timedelta(days=older_than_days)
        async with self._tx(write=True) as conn:
            old = sa.select(encounters.c.id).where(encounters.c.started_at < cutoff)
            n_enc, n_turns = await _delete_encounters(conn, old)
            await _log(conn, "purge", None, n_enc, n_turns,
                       {"older_than_days": older_than_days, "cutoff": cutoff.astimezone(UTC).isoformat()})
        return n_enc

    async def audit(self) -> list[dict]:
        """The audit log, oldest first: id, at, action (withdraw, purge), student_id (withdraw), encounters_deleted,
        turns_deleted, detail (a dict)."""
        async with self._tx(write=False) as conn:
            rows = (await conn.execute(sa.select(audit_log).order_by(audit_log.c.id))).mappings().all()
        return [{**r, "detail": json.loads(r["detail"])} for r in rows]


def _check_kind(kind: str) -> None:
    if kind not in CONSENT_KINDS:
        raise ValueError(f"unknown consent kind {kind!r} (one of {', '.join(CONSENT_KINDS)})")


def _research_granted_students() -> sa.Select:
    """Ids of the students whose latest research consent event is a grant."""
    latest = (sa.select(sa.func.max(consent_events.c.id).label("id"))
              .where(consent_events.c.kind == "research").group_by(consent_events.c.student_id).subquery())
    return (sa.select(consent_events.c.student_id).join(latest, consent_events.c.id == latest.c.id)
            .where(consent_events.c.granted))


async def _research_granted(conn: AsyncConnection, student_id: str) -> bool:
    q = (sa.select(consent_events.c.granted)
         .where(consent_events.c.student_id == student_id, consent_events.c.kind == "research")
         .order_by(consent_events.c.id.desc()).limit(1))
    return bool((await conn.execute(q)).scalar_one_or_none())


async def _delete_encounters(conn: AsyncConnection, ids: sa.Select) -> tuple[int, int]:
    """Delete the encounters of ``ids`` (a select of encounter ids) and their turns; (encounters, turns) deleted."""
    doomed = [r[0] for r in (await conn.execute(ids)).all()]
    n_turns = 0
    for i in range(0, len(doomed), 500):  # bounded IN lists
        chunk = doomed[i:i + 500]
        n_turns += (await conn.execute(sa.delete(turns).where(turns.c.encounter_id.in_(chunk)))).rowcount
        await conn.execute(sa.delete(encounters).where(encounters.c.id.in_(chunk)))
    return len(doomed), n_turns


async def _log(conn: AsyncConnection, action: str, student_id: str | None, n_enc: int, n_turns: int,
               detail: dict) -> None:
    await conn.execute(sa.insert(audit_log).values(
        at=_now(), action=action, student_id=student_id, encounters_deleted=n_enc, turns_deleted=n_turns,
        detail=json.dumps(detail, ensure_ascii=False, sort_keys=True)))


def _sqlite_pragmas(engine: AsyncEngine, *, memory: bool) -> None:
    """WAL (a reader never waits for a writer), foreign keys, and SQLAlchemy's own BEGIN: IMMEDIATE for the write
    engine's transactions, so a writer queues for the lock (busy timeout) instead of failing on a stale read."""

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the driver emits no BEGIN of its own
        cursor = dbapi_connection.cursor()
        if not memory:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(_WRITE) else "BEGIN")


def _upgrade_to_head(connection: Connection) -> None:
    """Run the alembic migrations on ``connection`` (inside the caller's transaction) up to the head revision."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    cfg.attributes["connection"] = connection
    cfg.attributes["target_metadata"] = METADATA
    command.upgrade(cfg, "head")
