"""Running the sandbox: a data directory, a uvicorn server, and :class:`Sandbox` for Python."""

from __future__ import annotations

import logging
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn

from .._config import Credentials
from .._terminal import say
from . import clock, demo
from .app import create_app
from .files import private_folder
from .realm import FEATURE_LEVEL
from .state import RateLimit, SandboxState
from .store import Store
from .workers import ReadWorkers

log = logging.getLogger("chatops.sandbox")
DB_NAME = "sandbox.sqlite3"


def open_data_dir(
    data_dir: Path, *, size: str = "small", seed: int = 1, now: int | None = None
) -> tuple[Store, dict[str, demo.Account], bool]:
    """Open the organization in ``data_dir``, generating it first when the folder is new.

    ``now`` dates a new organization (its history ends there); default the current time.
    """
    private_folder(data_dir)
    db = data_dir / DB_NAME
    accounts_file = data_dir / "accounts.json"
    created = not db.exists() or not accounts_file.exists()
    if created:
        partial = data_dir / (DB_NAME + ".partial")
        for leftover in (partial, Path(str(partial) + "-wal"), Path(str(partial) + "-shm")):
            leftover.unlink(missing_ok=True)
        store = Store(partial)
        accounts = demo.generate(
            store, size=size, seed=seed, now=now, upload_dir=data_dir / "uploads"
        )
        store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.close()
        demo.save_accounts(accounts, accounts_file)
        partial.rename(db)  # only a finished organization takes the real name
    store = Store(db)
    return store, demo.load_accounts(accounts_file), created


def credential_keeper(
    accounts: dict[str, demo.Account], data_dir: Path, site: str
) -> Callable[[int, str], None]:
    """Keep a demo account's zuliprc file and ``accounts.json`` in step with its new API key."""
    lock = threading.Lock()

    def changed(user_id: int, api_key: str) -> None:
        with lock:
            for name, account in list(accounts.items()):
                if account.user_id == user_id:
                    accounts[name] = replace(account, api_key=api_key)
                    demo.save_accounts(accounts, data_dir / "accounts.json")
                    demo.write_credentials({name: accounts[name]}, site, data_dir / "zuliprc")

    return changed


def bind_socket(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this; without it small responses wait on delayed ACKs.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


class Sandbox:
    """A running sandbox server in a background thread.

    Example::

        with Sandbox.start() as sandbox:
            client = chatops.Client.from_zuliprc(sandbox.zuliprc("admin"))
            print(client.users.me().full_name)
    """

    def __init__(
        self,
        *,
        data_dir: Path,
        store: Store,
        accounts: dict[str, demo.Account],
        sock: socket.socket,
        state: SandboxState,
        server: uvicorn.Server,
        temporary: bool,
    ) -> None:
        self.data_dir = data_dir
        self.store = store
        self.accounts = accounts
        self.state = state
        self._sock = sock
        self._server = server
        self._temporary = temporary
        self._thread: threading.Thread | None = None
        self._moved_clock = False
        host, port = sock.getsockname()[:2]
        self.host = host
        self.port = int(port)
        self.site = f"http://{host if ':' not in host else f'[{host}]'}:{self.port}"

    @classmethod
    def start(
        cls,
        data_dir: str | Path | None = None,
        *,
        size: str = "small",
        seed: int = 1,
        host: str = "127.0.0.1",
        port: int = 0,
        feature_level: int = FEATURE_LEVEL,
        rate_limit: RateLimit | None = None,
        log_level: str = "warning",
        now: int | None = None,
        read_workers: int | None = None,
    ) -> Sandbox:
        """Open (or generate) the organization and serve it; returns once it accepts requests.

        With ``now`` (seconds since the epoch) the sandbox's clock starts at that moment and a
        new organization is generated for it, so that the same seed gives the same answers on
        any day (see :mod:`chatops.sandbox.clock`); until :meth:`stop`, the process's sandbox
        clock is moved.
        """
        temporary = data_dir is None
        path = (
            Path(tempfile.mkdtemp(prefix="chatops-sandbox-"))
            if data_dir is None
            else Path(data_dir)
        )
        if now is not None:
            clock.start_at(now)
        try:
            store, accounts, _ = open_data_dir(path, size=size, seed=seed, now=now)
        except BaseException:
            if now is not None:
                clock.reset()
            raise
        sock = bind_socket(host, port)
        upload_dir = private_folder(path / "uploads")
        state = SandboxState(
            store=store,
            upload_dir=upload_dir,
            feature_level=feature_level,
            rate_limit=rate_limit,
            read_workers=_read_workers(store, read_workers),
        )
        config = uvicorn.Config(
            create_app(state), log_level=log_level, lifespan="on", access_log=False
        )
        server = uvicorn.Server(config)
        sandbox = cls(
            data_dir=path,
            store=store,
            accounts=accounts,
            sock=sock,
            state=state,
            server=server,
            temporary=temporary,
        )
        sandbox._moved_clock = now is not None
        state.base_url = sandbox.site
        state.credentials_changed = credential_keeper(accounts, path, sandbox.site)
        demo.write_credentials(accounts, sandbox.site, path / "zuliprc")
        sandbox._run_in_thread()
        return sandbox

    def _run_in_thread(self) -> None:
        self._server.config.install_signal_handlers = False  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._sock]},
            name="chatops-sandbox",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the sandbox server did not start")
            time.sleep(0.01)

    def zuliprc(self, account: str) -> Path:
        """Path of the standard zuliprc file of a demo account."""
        if account not in self.accounts:
            raise KeyError(f"no demo account {account!r}; choose one of {', '.join(self.accounts)}")
        return self.data_dir / "zuliprc" / f"{account}.zuliprc"

    def credentials(self, account: str) -> Credentials:
        acc = self.accounts[account]
        return Credentials(site=self.site, email=acc.email, api_key=acc.api_key)

    def password(self, account: str) -> str:
        pw = self.accounts[account].password
        if pw is None:
            raise KeyError(f"demo account {account!r} has no password")
        return pw

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._sock.close()
        if self.state.read_workers is not None:
            self.state.read_workers.close()
        self.store.close()
        if self._moved_clock:
            clock.reset()
            self._moved_clock = False
        if self._temporary:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"Sandbox(site={self.site!r}, data_dir={str(self.data_dir)!r})"


def _read_workers(store: Store, processes: int | None) -> ReadWorkers | None:
    if processes == 0 or store.path == ":memory:":
        return None
    return ReadWorkers(store.path, processes)


def serve(
    data_dir: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 9991,
    size: str = "small",
    seed: int = 1,
    echo: Any = say,
) -> None:
    """Serve in the foreground until SIGINT or SIGTERM (the ``chatops sandbox serve`` command)."""
    t0 = time.monotonic()
    store, accounts, created = open_data_dir(data_dir, size=size, seed=seed)
    if created:
        echo(f"Generated a {size} demo organization (seed {seed}) in {time.monotonic() - t0:.1f}s")
    else:
        echo(f"Using the existing organization in {data_dir}")
    sock = bind_socket(host, port)
    actual_port = sock.getsockname()[1]
    site = f"http://{host}:{actual_port}"
    upload_dir = private_folder(data_dir / "uploads")
    state = SandboxState(
        store=store,
        upload_dir=upload_dir,
        base_url=site,
        credentials_changed=credential_keeper(accounts, data_dir, site),
        read_workers=_read_workers(store, None),
    )
    demo.write_credentials(accounts, site, data_dir / "zuliprc")
    echo(f"Credentials: {data_dir / 'zuliprc'}/<account>.zuliprc for {', '.join(accounts)}")
    echo(f"Serving {site} (Ctrl-C to stop)")
    config = uvicorn.Config(create_app(state), log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        if state.read_workers is not None:
            state.read_workers.close()
        store.close()
    echo("Sandbox stopped.")
