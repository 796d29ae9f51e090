"""Worker processes that answer large reads, so that big pages are built on every core.

A ``GET /messages`` page of 5,000 messages is a few SQLite queries and then mostly Python:
turning rows into records takes about nine tenths of its time (profiled on the ``medium``
organization). SQLite lets go of the interpreter lock while it searches, but the records are
built under it, so in one process four such pages take about as long at once as one after the
other. :class:`ReadWorkers` runs such requests in processes of their own, each with a
read-only :class:`Store` on the same file (WAL mode: each request reads one snapshot, and sees
every write the serving process committed before it). Writes, event queues, the rate limit,
authentication and the parsing of parameters stay in the serving process; a worker only reads.

A worker is ``python -m chatops.sandbox.workers DB``, fed pickled calls on its standard input
and answering on its standard output, one call at a time. Not :mod:`multiprocessing`: its
``spawn`` runs the main script of the serving process again in every child, and a script that
starts a sandbox without an ``if __name__ == "__main__"`` guard would start another one there
(``fork`` is unsafe in a process with threads). The processes start on the first read that
needs one (up to one per core, as the load asks), stop with the sandbox, and end by themselves
when the serving process dies (their standard input closes).
"""

from __future__ import annotations

import importlib
import logging
import os
import pickle
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, TypeVar

from .store import Store

__all__ = ["ReadWorkers", "WorkerError", "WorkerLost", "WorkerUnavailable", "worker_store"]

T = TypeVar("T")
log = logging.getLogger("chatops.sandbox")
_NICE = 5  # CFS weight 335 against the serving process's 1024
_MAX_FAILED_STARTS = 3  # then the serving process answers every call itself
_HEADER = 8  # a message is its length in 8 bytes, then a pickle
#: a worker process's program (``-m`` would run this file a second time, as ``__main__``)
_MAIN = "import sys; from chatops.sandbox.workers import serve; serve(sys.argv[1])"


class WorkerUnavailable(RuntimeError):
    """No worker can take the call now: the caller answers in its own process."""


class WorkerLost(WorkerUnavailable):
    """A worker process ended before it answered (killed, out of memory)."""


class WorkerError(RuntimeError):
    """The call raised in the worker; the message holds the worker's traceback."""


def _send(stream: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(_HEADER, "big") + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    header = stream.read(_HEADER)
    if len(header) < _HEADER:
        raise EOFError
    size = int.from_bytes(header, "big")
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


class _Worker:
    """One worker process; :meth:`boot` returns once it has imported the handlers."""

    def __init__(self, db_path: str) -> None:
        package_root = str(Path(__file__).resolve().parents[2])  # this chatops, not another
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": package_root + (os.pathsep + path if path else "")}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _MAIN, db_path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self.ready = False

    def boot(self) -> None:
        assert self.proc.stdout is not None
        try:
            _receive(self.proc.stdout)  # "ready"
        except (EOFError, OSError) as exc:
            raise WorkerLost(f"read worker {self.proc.pid} did not start") from exc
        self.ready = True

    def call(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            _send(self.proc.stdin, (fn, args))
            ok, value = _receive(self.proc.stdout)
        except (EOFError, OSError) as exc:
            raise WorkerLost(f"read worker {self.proc.pid} ended") from exc
        if not ok:
            raise WorkerError(value)
        result: T = value
        return result

    def stop(self, timeout: float = 5) -> None:
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()  # the worker's loop ends at the end of its input
            except OSError:
                pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class ReadWorkers:
    """At most ``processes`` read-only worker processes on the database at ``db_path``.

    ``processes``: default one per core. A call finds an idle worker, or waits for one; while
    a worker is still starting (about a second of imports; one starts at a time), calls that
    find none idle are refused with :class:`WorkerUnavailable` and answered by the serving
    process, so that no request waits for a start. Workers run at a lower priority (nice 5)
    than the serving process, so that building large pages never delays small requests.
    """

    def __init__(self, db_path: str, processes: int | None = None) -> None:
        self.db_path = db_path
        self.processes = processes or os.cpu_count() or 1
        self._cond = threading.Condition()
        self._idle: list[_Worker] = []
        self._started = 0  # processes started and not lost, ready or not
        self._ready = 0
        self._failed_starts = 0
        self._closed = False
        self._all: list[_Worker] = []  # every worker started and not stopped
        #: calls the workers have answered (a refusal is an answer too)
        self.answered = 0

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker process (``fn`` and its arguments must pickle); blocks.

        Raises :class:`WorkerUnavailable` (and :class:`WorkerLost`, when the process ended
        before it answered): the caller answers itself; :class:`WorkerError` when the call
        raised in the worker.
        """
        worker = self._take()
        try:
            result = worker.call(fn, args)
        except WorkerError:  # the answer was read whole: the worker is ready for the next
            self._give_back(worker)
            raise
        except BaseException:
            # lost, or the exchange stopped half-way: an answer left in the pipe would be
            # read by the next call, so this worker goes
            worker.stop(timeout=0)
            with self._cond:
                self._forget(worker)
                self._started -= 1
                self._ready -= 1
            raise
        with self._cond:
            self.answered += 1
        self._give_back(worker)
        return result

    def start(self) -> None:
        """Start every worker now, at once, rather than on the first calls (in the background)."""
        with self._cond:
            while not self._closed and self._started < self.processes:
                self._boot_one()

    def wait_ready(self, timeout: float) -> bool:
        """Whether every worker has started and is ready within ``timeout`` seconds."""
        with self._cond:
            return self._cond.wait_for(lambda: self._ready == self.processes, timeout)

    def _boot_one(self) -> None:
        self._started += 1
        threading.Thread(target=self._boot, name="chatops-read-worker-boot", daemon=True).start()

    def _boot(self) -> None:
        worker: _Worker | None = None
        try:
            worker = _Worker(self.db_path)
            with self._cond:
                self._all.append(worker)
                if self._closed:  # closed while this one was being started
                    worker.proc.kill()
            worker.boot()
        except (OSError, WorkerLost):
            if not self._closed:
                log.warning("a read worker process on %s did not start", self.db_path)
            if worker is not None:
                worker.stop(timeout=0)
            with self._cond:
                if worker is not None:
                    self._forget(worker)
                self._started -= 1
                self._failed_starts += 1
            return
        with self._cond:
            self._ready += 1
        self._give_back(worker)

    def _forget(self, worker: _Worker) -> None:
        if worker in self._all:
            self._all.remove(worker)

    def pids(self) -> list[int]:
        """The process ids of the workers, started or starting."""
        with self._cond:
            return [worker.proc.pid for worker in self._all]

    def _take(self) -> _Worker:
        with self._cond:
            while True:
                if self._closed:
                    raise WorkerUnavailable("the read workers are closed")
                if self._idle:
                    return self._idle.pop()
                if self._failed_starts >= _MAX_FAILED_STARTS:
                    raise WorkerUnavailable("read worker processes do not start")
                if self._ready < self._started:
                    raise WorkerUnavailable("a read worker is starting")
                if self._started < self.processes:
                    self._boot_one()  # one at a time: each start is a second of imports
                    raise WorkerUnavailable("a read worker is starting")
                self._cond.wait()

    def _give_back(self, worker: _Worker) -> None:
        with self._cond:
            if not self._closed:
                self._idle.append(worker)
                self._cond.notify()
                return
            self._forget(worker)
        worker.stop()

    def close(self) -> None:
        """Stop the idle processes, and the busy ones once they have answered (idempotent)."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            for worker in idle:
                self._forget(worker)
            booting = [w for w in self._all if not w.ready]
            self._cond.notify_all()
        for worker in idle:
            worker.stop()
        for worker in booting:  # no need to let it finish its imports
            worker.proc.kill()

    def __repr__(self) -> str:
        return (
            f"ReadWorkers(processes={self.processes}, started={self._started}, "
            f"ready={self._ready}, idle={len(self._idle)})"
        )


_store: Store | None = None


def worker_store() -> Store:
    """The read-only store of this worker process."""
    if _store is None:
        raise RuntimeError("not in a read worker process")
    return _store


def serve(db_path: str) -> None:
    """A worker process's loop: a call in, its result out, until its input ends."""
    global _store
    calls, answers = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print goes to stderr, never into the answers
    # below the serving process: a large page never slows its small requests or its writes
    os.nice(_NICE)
    _store = Store(db_path, read_only=True)
    # the handlers, as the calls will need them: a request never waits for these imports
    importlib.import_module("chatops.sandbox.app")
    try:
        _send(answers, "ready")
        while True:
            try:
                fn, args = _receive(calls)
            except EOFError:
                break
            try:
                answer: tuple[bool, Any] = (True, fn(*args))
            except Exception:
                answer = (False, traceback.format_exc())
            _send(answers, answer)
    except BrokenPipeError:
        pass  # the serving process is gone
    finally:
        _store.close()
