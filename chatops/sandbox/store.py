"""One writing SQLite connection, a pool of reading ones, nested transactions and migrations.

The sandbox keeps all of its state in one SQLite file (WAL mode). Every domain function runs
inside :meth:`Store.atomic`, which opens a transaction or, when nested, a savepoint, so that a
refused request leaves nothing behind; :meth:`Store.after_commit` holds side effects (events)
until the transaction commits. Writes go through the one writing connection, one transaction at
a time.

Reads made inside :meth:`Store.reading` (the HTTP layer opens one around each request) and
outside the thread's own transaction use a connection of their own from a pool, so that
requests read at the same time, and while a write is under way. Such a block reads one snapshot
(a read transaction): it sees every transaction committed before its first read, and nothing of
one committed after it. When the thread writes, its snapshot ends, so that it reads its own
writes.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .files import private_file
from .schema import MIGRATIONS

Row = dict[str, Any]

#: memory-mapped I/O: the connections share the operating system's pages of the file
_MMAP_SIZE = 1 << 30


def _dict_factory(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> Row:
    return {col[0]: value for col, value in zip(cursor.description, row, strict=True)}


class _Reading(threading.local):
    """A thread's :meth:`Store.reading` block: how deep, and the connection it borrowed."""

    depth = 0
    conn: sqlite3.Connection | None = None


class Store:
    """The sandbox's database: ``Store(path)``; ``":memory:"`` for throwaway stores.

    ``read_only``: a store that only reads a database another store writes (the sandbox's read
    worker processes); every connection refuses writes and no migration runs.
    """

    def __init__(self, path: str | Path = ":memory:", *, read_only: bool = False) -> None:
        self.path = str(path)
        self.read_only = read_only
        # another connection to ":memory:" would be another, empty, database
        self._shared = self.path != ":memory:"
        if self._shared:  # SQLite gives the -wal and -shm files the same mode
            for name in (self.path, self.path + "-wal", self.path + "-shm"):
                if name == self.path or os.path.exists(name):
                    private_file(Path(name))
        self._conn = self._connect()
        if self._shared and not read_only:
            self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.execute("PRAGMA cache_size=-65536")
        self._lock = threading.RLock()
        self._depth = 0
        self._owner: int | None = None  # the thread whose transaction is open
        # actions held by the thread whose transaction is open, run when it commits
        self._held: dict[int, list[Callable[[], None]]] = {}
        self._idle: list[sqlite3.Connection] = []  # read connections no block holds
        self._pool_lock = threading.Lock()
        self._reading = _Reading()
        self._closed = False
        if not read_only:
            self.migrate()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        conn.row_factory = _dict_factory
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA temp_store=MEMORY")
        if self._shared:
            conn.execute(f"PRAGMA mmap_size={_MMAP_SIZE}")
        if self.read_only:
            conn.execute("PRAGMA query_only=ON")
        return conn

    # -- reads on connections of their own ----------------------------------------------
    @contextmanager
    def reading(self) -> Iterator[Store]:
        """Reads of the calling thread use a pooled connection and one snapshot (see module).

        Reads inside the thread's own :meth:`atomic` block still use the writing connection,
        so that a transaction reads what it wrote. Nested blocks share the outer one's
        snapshot. For an in-memory store this changes nothing.
        """
        local = self._reading
        local.depth += 1
        try:
            yield self
        finally:
            local.depth -= 1
            if local.depth == 0 and local.conn is not None:
                conn, local.conn = local.conn, None
                self._give_back(conn)

    def _reader(self) -> sqlite3.Connection | None:
        """The connection the calling thread reads with; None: the writing connection."""
        local = self._reading
        if not local.depth or not self._shared or self._owner == threading.get_ident():
            return None
        conn = local.conn
        if conn is None:
            conn = local.conn = self._borrow()
        if not conn.in_transaction:
            conn.execute("BEGIN")  # the snapshot starts at the first read
        return conn

    def _borrow(self) -> sqlite3.Connection:
        with self._pool_lock:
            if self._closed:
                raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
            if self._idle:
                return self._idle.pop()
        return self._connect()

    def _give_back(self, conn: sqlite3.Connection) -> None:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")  # a read transaction: nothing to keep
        except sqlite3.Error:
            conn.close()
            return
        with self._pool_lock:
            if not self._closed:
                self._idle.append(conn)
                return
        conn.close()

    def _end_snapshot(self) -> None:
        """After the calling thread wrote: its next read sees the write."""
        conn = self._reading.conn
        if conn is not None and conn.in_transaction:
            conn.execute("ROLLBACK")

    # -- transactions -----------------------------------------------------------------
    @contextmanager
    def atomic(self) -> Iterator[Store]:
        """A transaction; nested calls become savepoints that roll back on their own."""
        with self._lock:
            depth = self._depth
            name = f"sp{depth}"
            if depth == 0:
                self._conn.execute("BEGIN IMMEDIATE")
                self._owner = threading.get_ident()
                self._held[threading.get_ident()] = []
            else:
                self._conn.execute(f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield self
            except BaseException:
                self._depth -= 1
                if depth == 0:
                    self._owner = None
                    self._conn.execute("ROLLBACK")
                    self._held.pop(threading.get_ident(), None)
                else:
                    self._conn.execute(f"ROLLBACK TO {name}")
                    self._conn.execute(f"RELEASE {name}")
                raise
            else:
                self._depth -= 1
                if depth == 0:
                    self._owner = None
                    self._commit()
                else:
                    self._conn.execute(f"RELEASE {name}")

    def _commit(self) -> None:
        """COMMIT, or roll back and drop the held actions when COMMIT itself fails.

        A failed COMMIT (a deferred constraint, a full disk, a busy database) leaves SQLite's
        transaction open; without the rollback the next ``BEGIN`` would fail and the held
        events would be announced with the next transaction's.
        """
        try:
            self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            self._held.pop(threading.get_ident(), None)
            raise
        self._end_snapshot()
        for action in self._held.pop(threading.get_ident(), []):
            action()

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run ``action`` once the calling thread's open transaction commits (now, outside one).

        A transaction that rolls back drops its actions: a refused request announces nothing.
        """
        held = self._held.get(threading.get_ident())
        if held is None:
            action()
        else:
            held.append(action)

    # -- queries ----------------------------------------------------------------------
    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        """A statement on the writing connection (a write: the thread's snapshot ends)."""
        with self._lock:
            cur = self._conn.execute(sql, params)
            if self._depth == 0:
                self._end_snapshot()
            return cur

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self._lock:
            self._conn.executemany(sql, rows)
            if self._depth == 0:
                self._end_snapshot()

    def insert(self, table: str, row: Row) -> int:
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        cur = self.execute(f"INSERT INTO {table} ({cols}) VALUES ({marks})", list(row.values()))
        return int(cur.lastrowid or 0)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Row]:
        reader = self._reader()
        if reader is not None:
            return reader.execute(sql, params).fetchall()
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Row | None:
        reader = self._reader()
        if reader is not None:
            cur = reader.execute(sql, params)
            found: Row | None = cur.fetchone()
            cur.close()
            return found
        with self._lock:
            cur = self._conn.execute(sql, params)
            row: Row | None = cur.fetchone()
            cur.close()  # a statement left running would hold its read transaction open
            return row

    def scalar(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        row = self.one(sql, params)
        return None if row is None else next(iter(row.values()))

    # -- schema -----------------------------------------------------------------------
    def migrate(self) -> None:
        """Apply the migrations this file has not seen yet, in order."""
        with self._lock:
            version = self._conn.execute("PRAGMA user_version").fetchone()["user_version"]
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                self._conn.executescript(
                    "BEGIN;" + script + f";PRAGMA user_version={number};COMMIT;"
                )

    def close(self) -> None:
        with self._pool_lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
        with self._lock:
            self._conn.close()

    def counts(self) -> dict[str, int]:
        """Row counts of every table: tests compare them to prove nothing changed."""
        tables = [
            r["name"]
            for r in self.query(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {t: int(self.scalar(f"SELECT count(*) FROM {t}")) for t in tables}
