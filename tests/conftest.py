"""Shared fixtures: a real sandbox over HTTP on 127.0.0.1 and clients for its demo accounts."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox, Store
from chatops.sandbox import realm as realm_mod

# journals of applies and undos are indexed in chatops's state folder: the tests keep theirs
# out of the user's own (~/.local/state/chatops), in one folder the run's processes share
os.environ.setdefault("CHATOPS_STATE_DIR", tempfile.mkdtemp(prefix="chatops-state-"))


#: the scopes that take a minute or more (see ``--durations``), longest first; pytest-xdist
#: would otherwise start them by their number of tests, and one of two tests that take four
#: minutes together can be the last to start
LONGEST_FIRST = (
    "tests/browser/",
    "tests/test_report_plan.py",
    "tests/org/test_apply.py",
    "tests/changes/test_undo.py",
    "tests/security/test_hostile_audits.py",
    "tests/test_report_gone.py",
    "tests/changes/test_single_path.py",
    "tests/sandbox/test_fuzz.py",
    "tests/analytics/test_dataset_changes.py",
    "tests/analytics/test_data_cli.py",
    "tests/test_cli.py",
)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """How ``pytest -n N`` shares the tests out: a module's tests run in one process (its
    fixtures are built once); the browser tests all run in one process, one at a time (each
    drives a JupyterLab and a Chromium, and two at once on two cores starve each other); the
    client tests run in one process (their twin tally covers the whole directory); the longest
    scopes start first."""
    from xdist.scheduler import LoadScopeScheduling

    class Groups(LoadScopeScheduling):  # type: ignore[misc]
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            for folder in ("tests/browser/", "tests/client/"):
                if path.startswith(folder):
                    return folder
            return path

        def _assign_work_unit(self, node: Any) -> None:
            if not self.ordered:  # the longest scopes first, so that the run never ends on one
                self.ordered = True
                for scope in reversed(LONGEST_FIRST):
                    if scope in self.workqueue:
                        self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return Groups(config, log)


#: what the pytest-xdist workers said of the client tests' twin tally (tests/client/conftest.py)
_TWINS: dict[str, Any] = {"called": set(), "whole": False}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    out = getattr(node, "workeroutput", {})
    _TWINS["called"].update(tuple(name.split(".", 1)) for name in out.get("twins_called", []))
    _TWINS["whole"] = _TWINS["whole"] or bool(out.get("twins_whole"))


def _twins_missed() -> list[str]:
    from tests.client.twins import resource_methods

    return sorted(f"{c}.{m}" for c, m in resource_methods() - _TWINS["called"])


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Under pytest-xdist: a run of all the client tests fails when an async resource method
    was not run through the twin tests (as tests/client/conftest.py does in one process)."""
    if _TWINS["whole"] and not session.testsfailed and _twins_missed():
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _TWINS["called"]:
        return
    from tests.client.twins import resource_methods

    methods, missed = resource_methods(), _twins_missed()
    terminalreporter.write_line(
        f"async resource methods run through the twin tests: {len(methods) - len(missed)} of "
        f"{len(methods)}; not run: {', '.join(missed) or 'none'}"
    )
    if missed and _TWINS["whole"]:
        terminalreporter.write_line(
            "FAILED: every async resource method must run through the twin tests", red=True
        )


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """One small demo organization served for the whole session."""
    with Sandbox.start(tmp_path_factory.mktemp("sandbox"), size="small", seed=7) as sb:
        yield sb


@pytest.fixture(scope="module")
def fresh_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A sandbox of the module's own, for tests that change organization settings."""
    with Sandbox.start(tmp_path_factory.mktemp("fresh"), size="small", seed=11) as sb:
        yield sb


@pytest.fixture
def client_for(sandbox: Sandbox) -> Iterator[Callable[[str], chatops.Client]]:
    made: list[chatops.Client] = []

    def make(account: str, sb: Sandbox | None = None) -> chatops.Client:
        client = chatops.Client.from_zuliprc((sb or sandbox).zuliprc(account))
        made.append(client)
        return client

    yield make
    for c in made:
        c.close()


@pytest.fixture
def admin(client_for: Callable[[str], chatops.Client]) -> chatops.Client:
    return client_for("admin")


@pytest.fixture
def member(client_for: Callable[[str], chatops.Client]) -> chatops.Client:
    return client_for("member")


@pytest.fixture
def moderator(client_for: Callable[[str], chatops.Client]) -> chatops.Client:
    return client_for("moderator")


@pytest.fixture
def guest(client_for: Callable[[str], chatops.Client]) -> chatops.Client:
    return client_for("guest")


@pytest.fixture
def owner(client_for: Callable[[str], chatops.Client]) -> chatops.Client:
    return client_for("owner")


def store_digest(store: Store) -> str:
    """A digest of every row of every table: equal digests mean nothing changed."""
    h = hashlib.sha256()
    tables = [
        r["name"]
        for r in store.query(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    for t in tables:
        for row in store.query(
            f"SELECT * FROM {t} ORDER BY rowid"
            if t not in ("message_flags",)
            else f"SELECT * FROM {t} ORDER BY user_id, message_id"
        ):
            h.update(repr(sorted(row.items())).encode())
    return h.hexdigest()


@contextmanager
def unchanged(store: Store) -> Iterator[None]:
    """Assert that the block leaves the store exactly as it found it."""
    before = store_digest(store)
    yield
    assert store_digest(store) == before, "the refused request changed the store"


@contextmanager
def realm_settings(store: Store, **changes: Any) -> Iterator[None]:
    """Temporarily change organization settings (test set-up, not under test)."""
    import json

    old = realm_mod.realm_row(store)["settings"]
    realm_mod.update_settings(store, changes)
    try:
        yield
    finally:
        store.execute("UPDATE realm SET settings = ? WHERE id = 1", [old])
        json.loads(old)


def group_id(store: Store, name: str) -> int:
    return int(store.scalar("SELECT id FROM user_groups WHERE name = ?", [name]))


def age_messages(store: Store, message_ids: list[int], seconds: int) -> None:
    """Make messages look older (test set-up for time limits)."""
    for mid in message_ids:
        store.execute("UPDATE messages SET timestamp = timestamp - ? WHERE id = ?", [seconds, mid])


@pytest.fixture
def tmp_file(tmp_path: Path) -> Callable[[str, bytes], Path]:
    def make(name: str, data: bytes) -> Path:
        p = tmp_path / name
        p.write_bytes(data)
        return p

    return make
