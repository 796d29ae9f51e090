"""Run a test body written for ``Client`` against ``AsyncClient`` too.

:class:`Blocking` wraps an ``AsyncClient`` (or anything it hands out) so that a synchronous
test can drive it: a coroutine is run to completion on a private event loop, an async
iterator is iterated one ``__anext__`` at a time, ``with`` runs ``__aenter__``/``__aexit__``,
and ``close()`` is ``aclose()``. Nothing is translated beyond that, so a test passes for the
async client only when the async client does what the sync one does.

Every resource method called through the wrapper is recorded in :data:`CALLED` as
``(resource class, method)``, which ``conftest.py`` checks at the end of a run.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import pkgutil
from collections.abc import Callable
from typing import Any

from chatops.resources._base import AsyncResource

#: (resource class name, method name) of every resource method run through a wrapper
CALLED: set[tuple[str, str]] = set()

_SYNC_NAMES = {"close": "aclose"}


class Blocking:
    """A blocking view of an async object; every call runs on ``loop`` until it is done."""

    def __init__(self, target: Any, loop: asyncio.AbstractEventLoop) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_loop", loop)
        object.__setattr__(self, "_iterator", None)

    def __repr__(self) -> str:
        return repr(self._target)

    def __getattr__(self, name: str) -> Any:
        target = self._target
        if not hasattr(target, name) and name in _SYNC_NAMES:
            name = _SYNC_NAMES[name]
        value = getattr(target, name)
        if isinstance(value, AsyncResource):
            return Blocking(value, self._loop)
        if inspect.ismethod(value):
            if isinstance(target, AsyncResource):
                CALLED.add((type(target).__name__, name))
            return self._blocking(value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._target, name, value)

    def _blocking(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            return self._result(method(*args, **kwargs))

        return call

    def _result(self, value: Any) -> Any:
        if inspect.isawaitable(value):
            value = self._loop.run_until_complete(value)
        if value is self._target:
            return self
        if (
            hasattr(value, "__anext__")
            or hasattr(value, "__aiter__")
            or hasattr(value, "__aenter__")
        ):
            return Blocking(value, self._loop)
        return value

    # -- iteration -------------------------------------------------------------------------

    def __iter__(self) -> Blocking:
        if self._iterator is None:
            object.__setattr__(self, "_iterator", self._target.__aiter__())
        return self

    def __next__(self) -> Any:
        if self._iterator is None:
            self.__iter__()
        try:
            return self._loop.run_until_complete(self._iterator.__anext__())
        except StopAsyncIteration:
            raise StopIteration from None

    # -- with --------------------------------------------------------------------------------

    def __enter__(self) -> Any:
        return self._result(self._target.__aenter__())

    def __exit__(self, *exc: object) -> None:
        self._loop.run_until_complete(self._target.__aexit__(*exc))


def resource_methods() -> set[tuple[str, str]]:
    """(class, method) of every public method of the async resource classes."""
    from chatops._async_client import resources as package

    methods: set[tuple[str, str]] = set()
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for cls in vars(module).values():
            if inspect.isclass(cls) and issubclass(cls, AsyncResource) and cls is not AsyncResource:
                methods |= {
                    (cls.__name__, name)
                    for name, value in vars(cls).items()
                    if not name.startswith("_") and callable(value)
                }
    return methods
