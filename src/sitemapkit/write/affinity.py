"""Worker processes that keep what a first pass left for the second pass of the same
partition: the folder mode's first pass leaves each part's formatted shards in the
worker that read it, and the part's second pass runs in that worker, so the shards
are neither spilled to disk nor copied through the driver.

Each worker keeps up to ``KEEP_BYTES`` of shards in memory and spills the rest to
files (``prepared.PreparedPartition.spilled``). A worker that dies (killed, out of
memory) is an error naming the task it was running; the others are stopped.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from ..errors import OutputError

PR_SET_PDEATHSIG = 1  # prctl(2)
KEEP_BYTES = 512 << 20  # a worker's shards kept in memory between passes; more spill
_KEPT: dict[int, Any] = {}  # in a worker: partition -> what its first pass kept

Task = tuple[Callable[..., Any], tuple[Any, ...], str]  # function, arguments, what it is


def keep(partition: int, kept: Any) -> None:
    """In a worker (or here, with one job): hold a first pass's result."""
    _KEPT[partition] = kept


def kept_bytes() -> int:
    """How much the results held here keep in memory (their ``nbytes``)."""
    return sum(int(getattr(k, "nbytes", 0)) for k in _KEPT.values())


def take(partition: int) -> Any:
    """What the first pass of ``partition`` kept here, handed over once."""
    return _KEPT.pop(partition)


def forget() -> None:
    """Drop whatever is still held (a run that failed, here)."""
    _KEPT.clear()


def _serve(conn: Connection, driver_ends: Sequence[Connection], driver: int) -> None:
    """A worker's loop: run each task it is sent and send back (True, result) or
    (False, the exception). It ends with its driver: the driver's pipe ends a fork
    copied here are closed (else a dead driver's pipe never reads as closed), and
    Linux is asked to stop this process when the driver dies."""
    for end in driver_ends:
        end.close()
    _die_with(driver)
    while True:
        try:
            task = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if task is None:
            return
        function, args = task
        try:
            answer: tuple[bool, Any] = (True, function(*args))
        except BaseException as exc:  # sent to the driver, raised there
            answer = (False, exc)
        try:
            conn.send(answer)
        except Exception as exc:  # an answer that cannot be pickled
            conn.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


def _die_with(driver: int) -> None:
    """SIGKILL this process when its parent dies (Linux' PR_SET_PDEATHSIG); a driver
    already gone by now ends it at once. Elsewhere the closed pipe ends the loop."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != driver:
        os._exit(1)


class Workers:
    """``jobs`` worker processes; ``run`` spreads tasks over the idle ones, or sends
    each to the worker that ran an earlier task (``owners``)."""

    def __init__(self, jobs: int) -> None:
        context = multiprocessing.get_context()
        self.conns: list[Connection] = []
        self.procs: list[Any] = []
        for _ in range(jobs):
            here, there = context.Pipe()
            proc = context.Process(target=_serve, daemon=True,
                                   args=(there, [*self.conns, here], os.getpid()))
            proc.start()
            there.close()
            self.conns.append(here)
            self.procs.append(proc)

    def run(self, tasks: Sequence[Task], owners: Sequence[int] | None = None
            ) -> tuple[list[Any], list[int], BaseException | None]:
        """Every task's result (None where one failed), which worker ran each, and the
        first failure. After a failure no new task starts; running ones finish."""
        queues: list[deque[int]] = [deque() for _ in self.conns]
        shared: deque[int] = deque(range(len(tasks))) if owners is None else deque()
        for i, owner in enumerate(owners or ()):
            queues[owner].append(i)
        results: list[Any] = [None] * len(tasks)
        ran: list[int] = [-1] * len(tasks)
        running: dict[int, int] = {}  # worker -> task
        failure: BaseException | None = None
        while True:
            if failure is None:
                for w, conn in enumerate(self.conns):
                    if w not in running and (queues[w] or shared):
                        i = (queues[w] or shared).popleft()
                        conn.send(tasks[i][:2])
                        running[w], ran[i] = i, w
            if not running:
                return results, ran, failure
            ready = wait([self.conns[w] for w in running])
            for w in [w for w in running if self.conns[w] in ready]:
                i = running.pop(w)
                try:
                    ok, value = self.conns[w].recv()
                except EOFError:
                    ok, value = False, OutputError(
                        f"a worker process died while {tasks[i][2]} (killed, or out of "
                        "memory?)")
                if ok:
                    results[i] = value
                else:
                    failure = failure or value

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(None)
            except OSError:
                pass
        for proc in self.procs:
            proc.join(5)
            if proc.is_alive():
                proc.terminate()
        for conn in self.conns:
            conn.close()
