"""One SQLite connection, nested transactions and ordered migrations.

The sandbox keeps all of its state in one SQLite file (WAL mode). Every domain function runs
inside :meth:`Store.atomic`, which opens a transaction or, when nested, a savepoint, so that a
refused request leaves nothing behind; :meth:`Store.after_commit` holds side effects (events)
until the transaction commits.
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


def _dict_factory(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> Row:
    return {col[0]: value for col, value in zip(cursor.description, row, strict=True)}


class Store:
    """The sandbox's database: ``Store(path)``; ``":memory:"`` for throwaway stores."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":  # SQLite gives the -wal and -shm files the same mode
            for name in (self.path, self.path + "-wal", self.path + "-shm"):
                if name == self.path or os.path.exists(name):
                    private_file(Path(name))
        self._conn = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=30
        )
        self._conn.row_factory = _dict_factory
        if self.path != ":memory:":
            self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.execute("PRAGMA temp_store=MEMORY")
        self._conn.execute("PRAGMA cache_size=-65536")
        self._lock = threading.RLock()
        self._depth = 0
        # actions held by the thread whose transaction is open, run when it commits
        self._held: dict[int, list[Callable[[], None]]] = {}
        self.migrate()

    # -- transactions -----------------------------------------------------------------
    @contextmanager
    def atomic(self) -> Iterator[Store]:
        """A transaction; nested calls become savepoints that roll back on their own."""
        with self._lock:
            depth = self._depth
            name = f"sp{depth}"
            if depth == 0:
                self._conn.execute("BEGIN IMMEDIATE")
                self._held[threading.get_ident()] = []
            else:
                self._conn.execute(f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield self
            except BaseException:
                self._depth -= 1
                if depth == 0:
                    self._conn.execute("ROLLBACK")
                    self._held.pop(threading.get_ident(), None)
                else:
                    self._conn.execute(f"ROLLBACK TO {name}")
                    self._conn.execute(f"RELEASE {name}")
                raise
            else:
                self._depth -= 1
                if depth == 0:
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
        with self._lock:
            return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self._lock:
            self._conn.executemany(sql, rows)

    def insert(self, table: str, row: Row) -> int:
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        cur = self.execute(f"INSERT INTO {table} ({cols}) VALUES ({marks})", list(row.values()))
        return int(cur.lastrowid or 0)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Row | None:
        with self._lock:
            row: Row | None = self._conn.execute(sql, params).fetchone()
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
