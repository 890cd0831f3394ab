"""Work started ahead in a forked process while this one goes on: the git pass of
``sitemapkit site``, begun as soon as the pages' sources are known, runs on the other
core while the rows are built (on a 100,000-page site it takes as long as they do).

The child's result comes back pickled. Where a fork is not safe (no ``fork``, or
another thread running that the child would inherit half-way) nothing is started;
where the child fails or its work turns out not to be the work wanted, ``take``
gives None and the caller does the work itself: only the time is lost, never a
result or an error message.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Ahead(Generic[T]):
    """``work()`` running in a forked child; ``take()`` its result or None."""

    def __init__(self, work: Callable[[], T]) -> None:
        self.pid: int | None = None
        self.fd = -1
        if "fork" not in multiprocessing.get_all_start_methods() or \
                threading.active_count() != 1:
            return
        try:
            read, write = os.pipe()
        except OSError:  # out of file descriptors: the caller does the work
            return
        try:
            pid = os.fork()
        except OSError:  # out of processes or memory: likewise
            os.close(read)
            os.close(write)
            return
        if pid == 0:  # pragma: no cover - the child (its result is what the tests check)
            os.close(read)
            status = 1
            try:
                data = pickle.dumps(work(), pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(data)
                status = 0
            finally:
                os._exit(status)  # no atexit handlers, no buffers of the parent's flushed
        os.close(write)
        self.pid, self.fd = pid, read
        # never taken (the caller failed first): close the pipe, so a child blocked on
        # writing its result fails and exits, and reap it
        self._reap = weakref.finalize(self, _reap, pid, read)

    def take(self) -> T | None:
        """The child's result (waiting for it), or None if it gave none."""
        if self.pid is None:
            return None
        self._reap.detach()
        with os.fdopen(self.fd, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        if status != 0 or not data:
            return None
        result: T = pickle.loads(data)
        return result

    def cancel(self) -> None:
        """Its work is not the work wanted after all: wait for the child and drop what
        it gives (killed, it could leave a cache file half-written)."""
        self.take()


def _reap(pid: int, fd: int) -> None:
    os.close(fd)
    os.waitpid(pid, 0)
