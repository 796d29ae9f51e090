"""The client tests run twice: on ``Client``, and on ``AsyncClient`` through a blocking wrapper.

The ``client_for`` fixture (and so ``admin``, ``member``, ...) is parametrised over both
clients; ``twin`` says which one a test has, and ``make_client`` builds one from arguments.
A test that cannot run on both (threads, the official client) says so with
``@pytest.mark.sync_only`` and then runs once, on ``Client``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox

from .twins import CALLED, Blocking, resource_methods

TWINS = ("sync", "async")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sync_only: runs on Client only (with a reason)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A ``sync_only`` test has no async variant: not collected (rather than skipped)."""
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        is_async = callspec is not None and callspec.params.get("twin") == "async"
        (drop if is_async and item.get_closest_marker("sync_only") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(params=TWINS)
def twin(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_client(twin: str) -> Iterator[Callable[..., chatops.Client]]:
    """``make_client(**kwargs)``: a ``Client``, or an ``AsyncClient`` behind :class:`Blocking`."""
    loop = asyncio.new_event_loop()
    made: list[Any] = []

    def make(**kwargs: Any) -> chatops.Client:
        client: Any = (
            chatops.Client(**kwargs)
            if twin == "sync"
            else Blocking(chatops.AsyncClient(**kwargs), loop)
        )
        made.append(client)
        return client  # type: ignore[no-any-return]

    yield make
    for client in made:
        client.close()
    loop.close()


@pytest.fixture
def client_for(
    sandbox: Sandbox, make_client: Callable[..., chatops.Client]
) -> Callable[..., chatops.Client]:
    def make(account: str, sb: Sandbox | None = None) -> chatops.Client:
        return make_client(config_file=(sb or sandbox).zuliprc(account))

    return make


def _whole_directory(session: pytest.Session) -> bool:
    """True when every test module here ran, unfiltered, and none failed."""
    option = session.config.option
    if getattr(option, "keyword", "") or getattr(option, "markexpr", ""):
        return False
    if session.testsfailed or session.shouldstop:
        return False
    modules = {path.name for path in HERE.glob("test_*.py")}
    return modules <= _COLLECTED_MODULES


HERE = Path(__file__).parent
_COLLECTED_MODULES: set[str] = set()
_SESSION: list[pytest.Session] = []


def pytest_collection_finish(session: pytest.Session) -> None:
    _SESSION.append(session)
    _COLLECTED_MODULES.update(item.path.name for item in session.items if item.path.parent == HERE)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run of the whole directory fails when an async resource method was not run."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: tests/conftest.py sums up
        workeroutput["twins_called"] = sorted(f"{c}.{m}" for c, m in CALLED)
        workeroutput["twins_whole"] = bool(CALLED) and _whole_directory(session)
        return
    if CALLED and _whole_directory(session) and resource_methods() - CALLED:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """How many public methods of the async resources the async runs called, and which not."""
    if not CALLED:
        return
    methods = resource_methods()
    missed = sorted(methods - CALLED)
    terminalreporter.write_line(
        f"async resource methods run through the twin tests: {len(methods & CALLED)} of "
        f"{len(methods)}; not run: {', '.join(f'{c}.{m}' for c, m in missed) or 'none'}"
    )
    if missed and _SESSION and _whole_directory(_SESSION[0]):
        terminalreporter.write_line(
            "FAILED: every async resource method must run through the twin tests", red=True
        )
