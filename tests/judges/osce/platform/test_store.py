"""The OSCE platform's storage on real SQLite files: migrations, pseudonyms, consent, per-turn commits, ownership,
withdrawal, retention purge, Korean text, and errors that never show the password."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from synthdocqa.judges.osce.platform.store import (
    CONSENT_KINDS,
    METADATA,
    EncounterRow,
    PlatformStore,
    PlatformStoreError,
    async_url,
)


def run(coro):
    return asyncio.run(coro)


def url(path) -> str:
    return f"sqlite+aiosqlite:///{path}"


async def consented(store: PlatformStore, code: str) -> str:
    sid = await store.student_id(code)
    await store.set_consent(sid, "privacy", "p1", True)
    await store.set_consent(sid, "research", "r1", True)
    return sid


async def start(store: PlatformStore, sid: str, case: str = "chest_pain") -> str:
    return await store.start_encounter(sid, case, "en", "smol-135m", "ab" * 32)


def test_new_file_is_migrated_to_head_and_reopening_is_idempotent(tmp_path):
    db = tmp_path / "p.db"

    async def go():
        store = await PlatformStore.open(url(db))
        sid = await consented(store, "first")
        eid = await start(store, sid)
        await store.close()
        again = await PlatformStore.open(f"sqlite:///{db}")  # plain sqlite:// is mapped to aiosqlite
        try:
            assert await again.student_id("first") == sid  # the salt survived
            assert (await again.encounter(eid, sid)).case == "chest_pain"
        finally:
            await again.close()

    run(go())
    con = sqlite3.connect(db)
    try:
        assert con.execute("SELECT version_num FROM alembic_version").fetchall() == [("0001",)]
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"meta", "students", "consent_events", "encounters", "turns", "audit_log"} <= tables
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        con.close()
    diffs = []
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:  # the module's tables are what the migrations make
        diffs = compare_metadata(MigrationContext.configure(conn), METADATA)
    engine.dispose()
    assert diffs == []


def test_the_code_is_never_stored_and_pseudonyms_are_per_database(tmp_path):
    code = "ZEBRA-code-4711-한"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()

    async def go():
        a = await PlatformStore.open(url(tmp_path / "a" / "p.db"))
        b = await PlatformStore.open(url(tmp_path / "b" / "p.db"))
        try:
            sid = await consented(a, code)
            assert await a.student_id(code) == sid
            assert await a.student_id(code + "x") != sid
            assert await b.student_id(code) != sid
            assert len(sid) == 64 and code not in sid
            eid = await start(a, sid)
            await a.add_turn(eid, sid, "Where does it hurt?", "Here.", "ok", None, 0.5)
        finally:
            await a.close()
            await b.close()

    run(go())
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "p.db" for p in files)
    for p in files:
        data = p.read_bytes()
        assert code.encode("utf-8") not in data and code.encode("utf-16-le") not in data, p


def test_consent_events_append_and_the_latest_is_the_state(tmp_path):
    async def go():
        store = await PlatformStore.open(url(tmp_path / "p.db"))
        try:
            sid = await store.student_id("s1")
            assert await store.consents(sid) == {}
            await store.set_consent(sid, "research", "r1", True)
            await store.set_consent(sid, "privacy", "p1", True)
            await store.set_consent(sid, "research", "r2", False)
            state = await store.consents(sid)
            assert set(state) == set(CONSENT_KINDS)
            assert (state["research"].version, state["research"].granted) == ("r2", False)
            assert (state["privacy"].version, state["privacy"].granted) == ("p1", True)
            assert state["research"].at.tzinfo is not None and state["research"].at.utcoffset() == timedelta(0)
            with pytest.raises(PlatformStoreError, match="no research consent"):
                await start(store, sid)
            await store.set_consent(sid, "research", "r2", True)
            await start(store, sid)
            with pytest.raises(ValueError, match="unknown consent kind"):
                await store.set_consent(sid, "marketing", "m1", True)
            with pytest.raises(PlatformStoreError, match="unknown student"):
                await store.set_consent("0" * 64, "research", "r1", True)
        finally:
            await store.close()
        con = sqlite3.connect(tmp_path / "p.db")
        try:
            assert con.execute("SELECT count(*) FROM consent_events").fetchone() == (4,)  # events, never updates
        finally:
            con.close()

    run(go())


def test_each_turn_is_committed_before_add_turn_returns(tmp_path):
    db = tmp_path / "p.db"

    async def go():
        writer = await PlatformStore.open(url(db))
        reader = await PlatformStore.open(url(db))
        try:
            sid = await consented(writer, "s1")
            eid = await start(writer, sid)
            for k in range(1, 4):
                n = await writer.add_turn(eid, sid, f"question {k}", f"answer {k}", "ok", None, 0.1 * k)
                assert n == k
                seen = await reader.encounter(eid, sid)
                assert [t.n for t in seen.turns] == list(range(1, k + 1))
                assert seen.turns[-1].question == f"question {k}" and seen.ended_at is None
            n = await writer.add_turn(eid, sid, "question 4", None, "failed", "timeout: no reply", 30.0)
            seen = (await reader.encounter(eid, None)).turns[-1]
            assert (seen.n, seen.answer, seen.status, seen.failure, seen.latency_s) == \
                (4, None, "failed", "timeout: no reply", 30.0)
            await writer.end_encounter(eid, sid, "acute coronary syndrome")
            done = await reader.encounter(eid, sid)
            assert done.ended_at is not None and done.differential == "acute coronary syndrome"
            assert done.started_at <= done.turns[0].asked_at <= done.ended_at
            with pytest.raises(PlatformStoreError, match="has ended"):
                await writer.add_turn(eid, sid, "one more", "no", "ok", None, 0.1)
            with pytest.raises(PlatformStoreError, match="has ended"):
                await writer.end_encounter(eid, sid, "again")
        finally:
            await writer.close()
            await reader.close()

    run(go())


def test_simultaneous_turns_get_distinct_numbers(tmp_path):
    async def go():
        stores = [await PlatformStore.open(url(tmp_path / "p.db")) for _ in range(3)]
        try:
            sid = await consented(stores[0], "s1")
            eid = await start(stores[0], sid)
            ns = await asyncio.gather(*(stores[i % 3].add_turn(eid, sid, f"q{i}", "a", "ok", None, 0.0)
                                        for i in range(12)))
            assert sorted(ns) == list(range(1, 13))
            assert len((await stores[1].encounter(eid, sid)).turns) == 12
        finally:
            for s in stores:
                await s.close()

    run(go())


def test_another_students_encounter_is_none_and_refused(tmp_path):
    async def go():
        store = await PlatformStore.open(url(tmp_path / "p.db"))
        try:
            alice = await consented(store, "alice")
            bob = await consented(store, "bob")
            eid = await start(store, alice)
            await store.add_turn(eid, alice, "q", "a", "ok", None, 0.1)
            assert await store.encounter(eid, bob) is None
            assert await store.encounter("no-such-id", alice) is None
            assert isinstance(await store.encounter(eid, None), EncounterRow)  # the admin sees any
            with pytest.raises(PlatformStoreError, match="no encounter") as refused:
                await store.add_turn(eid, bob, "q", "a", "ok", None, 0.1)
            with pytest.raises(PlatformStoreError, match="no encounter") as missing:
                await store.add_turn("no-such-id", bob, "q", "a", "ok", None, 0.1)
            assert str(refused.value).replace(eid, "X") == str(missing.value).replace("no-such-id", "X")
            with pytest.raises(PlatformStoreError, match="no encounter"):
                await store.end_encounter(eid, bob, "mine now")
            mine = await store.encounter(eid, alice)
            assert len(mine.turns) == 1 and mine.ended_at is None
        finally:
            await store.close()

    run(go())


def test_withdraw_deletes_the_students_dialogues_and_logs_it(tmp_path):
    async def go():
        store = await PlatformStore.open(url(tmp_path / "p.db"))
        try:
            alice = await consented(store, "alice")
            bob = await consented(store, "bob")
            for _ in range(2):
                eid = await start(store, alice)
                for k in range(3):
                    await store.add_turn(eid, alice, f"q{k}", "a", "ok", None, 0.1)
            kept = await start(store, bob, "abdominal_pain")
            await store.add_turn(kept, bob, "q", "a", "ok", None, 0.1)
            assert await store.counts_per_case() == {"abdominal_pain": 1, "chest_pain": 2}

            assert await store.withdraw(alice) == 2
            assert [e.id for e in await store.encounters(consented_only=False)] == [kept]
            assert await store.counts_per_case() == {"abdominal_pain": 1}
            state = await store.consents(alice)
            assert (state["research"].granted, state["research"].version) == (False, "r1")
            assert state["privacy"].granted
            with pytest.raises(PlatformStoreError, match="no research consent"):
                await start(store, alice)
            [log] = await store.audit()
            assert (log["action"], log["student_id"], log["encounters_deleted"], log["turns_deleted"]) == \
                ("withdraw", alice, 2, 6)
            assert log["at"].tzinfo is not None and log["detail"] == {"research_consent_version": "r1"}
        finally:
            await store.close()
        con = sqlite3.connect(tmp_path / "p.db")
        try:
            assert con.execute("SELECT count(*) FROM turns").fetchone() == (1,)
        finally:
            con.close()

    run(go())


def test_encounters_filters_consented_and_ended(tmp_path):
    async def go():
        store = await PlatformStore.open(url(tmp_path / "p.db"))
        try:
            alice = await consented(store, "alice")
            bob = await consented(store, "bob")
            a1 = await start(store, alice)
            a2 = await start(store, alice)
            b1 = await start(store, bob)
            await store.end_encounter(a1, alice, "dx")
            await store.set_consent(bob, "research", "r1", False)  # bob's consent lapsed (not a withdrawal)
            assert [e.id for e in await store.encounters()] == [a1, a2]
            assert [e.id for e in await store.encounters(ended_only=True)] == [a1]
            assert [e.id for e in await store.encounters(consented_only=False)] == [a1, a2, b1]
        finally:
            await store.close()

    run(go())


def test_purge_deletes_encounters_older_than_the_cutoff(tmp_path):
    async def go():
        store = await PlatformStore.open(url(tmp_path / "p.db"))
        try:
            sid = await consented(store, "s1")
            old = await start(store, sid)
            await store.add_turn(old, sid, "q", "a", "ok", None, 0.1)
            await asyncio.sleep(0.01)
            middle = datetime.now(UTC)
            await asyncio.sleep(0.01)
            new = await start(store, sid)
            assert await store.purge(30) == 0  # nothing is a month old
            assert await store.purge(1.0, now=middle + timedelta(days=1)) == 1
            assert [e.id for e in await store.encounters()] == [new]
            assert await store.encounter(old, None) is None
            with pytest.raises(ValueError):
                await store.purge(-1)
            with pytest.raises(ValueError):
                await store.purge(1, now=datetime(2030, 1, 1))  # naive
            log = await store.audit()
            assert [(r["action"], r["encounters_deleted"], r["turns_deleted"]) for r in log] == \
                [("purge", 0, 0), ("purge", 1, 1)]
            assert log[1]["detail"]["older_than_days"] == 1.0
            assert datetime.fromisoformat(log[1]["detail"]["cutoff"]) == middle
        finally:
            await store.close()

    run(go())


def test_korean_text_round_trips(tmp_path):
    q = "언제부터 가슴이 아프셨어요? 🩺"
    a = "어제 저녁부터요. 숨이 차요."
    dx = "급성 관상동맥 증후군, 폐색전증"

    async def go():
        store = await PlatformStore.open(url(tmp_path / "p.db"))
        try:
            sid = await consented(store, "학생-01")
            eid = await store.start_encounter(sid, "흉통", "ko", "모델", "cd" * 32)
            await store.add_turn(eid, sid, q, a, "ok", None, 1.25)
            await store.end_encounter(eid, sid, dx)
        finally:
            await store.close()
        store = await PlatformStore.open(url(tmp_path / "p.db"))
        try:
            row = await store.encounter(eid, sid)
            assert (row.case, row.language, row.model, row.differential) == ("흉통", "ko", "모델", dx)
            assert (row.turns[0].question, row.turns[0].answer) == (q, a)
            assert await store.counts_per_case() == {"흉통": 1}
        finally:
            await store.close()

    run(go())


@pytest.mark.parametrize("bad, needle", [
    ("postgresql://u:secret@127.0.0.1:1/db", "cannot open the platform database"),
    ("postgresql+asyncpg://u:secret@127.0.0.1:1/db", "127.0.0.1"),
    ("nonsense://u:secret@host/db", "cannot use the database URL"),
    ("not a url u:secret@", "not a database URL"),
    ("://u:secret@host/db", "not a database URL"),
])
def test_a_bad_url_says_what_is_wrong_without_the_password(bad, needle):
    with pytest.raises(PlatformStoreError) as err:
        run(PlatformStore.open(bad))
    message = str(err.value)
    assert needle in message and "secret" not in message and "\n" not in message
    assert err.value.__cause__ is None and err.value.__suppress_context__


def test_a_missing_sqlite_folder_is_named(tmp_path):
    with pytest.raises(PlatformStoreError, match="folder of the SQLite database does not exist"):
        run(PlatformStore.open(url(tmp_path / "nowhere" / "p.db")))
    assert not (tmp_path / "nowhere").exists()


def test_urls_are_mapped_to_async_drivers(tmp_path):
    assert async_url(f"sqlite:///{tmp_path}/p.db").drivername == "sqlite+aiosqlite"
    assert async_url("postgresql://u:pw@h/db").drivername == "postgresql+asyncpg"
    assert async_url("postgres://u:pw@h/db").drivername == "postgresql+asyncpg"
    assert async_url("postgresql+asyncpg://u:pw@h/db").drivername == "postgresql+asyncpg"
