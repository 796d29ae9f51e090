"""Kernels for the audit notebooks: this interpreter, on a private socket, importing this chatops."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._resources import package_parent

__all__ = ["_current_python_kernel_manager", "kernel_environment", "kernel_socket_base"]


@contextlib.contextmanager
def kernel_environment() -> Iterator[None]:
    """Let kernels import this chatops even when it runs from a checkout, not installed.

    Kernels inherit the environment; when chatops is not in site-packages its folder goes on
    ``PYTHONPATH`` for the duration of the run.
    """
    root = str(package_parent())
    installed = (
        any(Path(p).resolve() == Path(root) for p in sys.path if p and "site-packages" in p)
        or "site-packages" in root
    )
    before = os.environ.get("PYTHONPATH")
    entries = [p for p in (before or "").split(os.pathsep) if p]
    if installed or root in entries:
        yield
        return
    os.environ["PYTHONPATH"] = os.pathsep.join([root, *entries])
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before


#: the longest kernel socket path: a Unix socket's path holds at most 107 bytes, and ZeroMQ
#: adds "-<n>" to the base for each of the kernel's five channels
_SOCKET_BASE_MAX = 100


def _private_socket_dir() -> Path:
    """A short folder for kernel sockets that only this user can enter, for when the Jupyter
    runtime folder's path is too long for a socket in it: ``chatops-<uid>`` in the system's
    temporary folder (0700, refused when it is anyone else's or open to others; then a new
    folder of its own)."""
    folder = Path(tempfile.gettempdir()) / f"chatops-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return Path(tempfile.mkdtemp(prefix="chatops-"))
    return folder


def kernel_socket_base() -> str:
    """The path a kernel's Unix sockets are named from (``<base>-1`` to ``<base>-5``): in the
    user's Jupyter runtime folder, or in :func:`_private_socket_dir` when that path would be
    longer than a socket's path may be (a deep ``JUPYTER_RUNTIME_DIR``, a test's temporary
    folder)."""
    from jupyter_core.paths import jupyter_runtime_dir

    name = f"chatops-kernel-{uuid.uuid4().hex[:16]}"
    runtime = Path(jupyter_runtime_dir())
    if len(os.fsencode(runtime / name)) > _SOCKET_BASE_MAX:
        return str(_private_socket_dir() / name)
    runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
    return str(runtime / name)


def _current_python_kernel_manager() -> type[Any]:
    """A kernel manager that starts ipykernel under this interpreter, whatever the kernelspec.

    jupyter_client already swaps a bare ``python`` in a kernelspec for ``sys.executable``, but
    a ``python3`` spec in the user's Jupyter folder may name another interpreter by path, which
    would run the audits without chatops (or with another version of it).
    """
    from jupyter_client.manager import AsyncKernelManager

    class CurrentPythonKernelManager(AsyncKernelManager):  # type: ignore[misc]
        def __init__(self, **kwargs: Any) -> None:
            # A Unix socket of its own in the user's runtime folder instead of TCP ports on
            # 127.0.0.1: no other local user can reach the kernel, and ipykernel has nothing
            # to warn about.
            if os.name == "posix" and "transport" not in kwargs:
                kwargs["transport"] = "ipc"
                kwargs.setdefault("ip", kernel_socket_base())
            super().__init__(**kwargs)

        def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
            cmd: list[str] = super().format_kernel_cmd(extra_arguments)
            if len(cmd) > 2 and cmd[1:3] == ["-m", "ipykernel_launcher"]:
                cmd[0] = sys.executable
            return cmd

        async def _async_interrupt_kernel(self) -> None:
            # jupyter_client interrupts a kernel before asking it to shut down. papermill shuts
            # a kernel down once its notebook is done, so there is nothing to interrupt, and a
            # SIGINT that lands while ipykernel handles a message is logged on the user's
            # terminal ("KeyboardInterrupt caught in kernel."). The shutdown request alone
            # stops it (and jupyter_client signals it after a grace period if it does not).
            if self.shutting_down:
                return
            await super()._async_interrupt_kernel()

    return CurrentPythonKernelManager
