"""Read SITEMAPKIT_NO_EXTENSIONS once (the same variable steers setup.py), take BLAKE2
without ``hashlib``, whose import also starts OpenSSL (~7 ms of a ~70 ms CLI start), and
the process facts the writer's threads depend on (cores, GIL hand-offs)."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - Pythons without the builtin module
    from hashlib import blake2b

NO_EXTENSIONS = os.environ.get("SITEMAPKIT_NO_EXTENSIONS", "") not in ("", "0")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity: a container's or taskset's
    share), not the host's count ``os.cpu_count()`` gives."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


# How long a thread waits for the GIL before it asks the holder to hand it over, while the
# writer's gzip workers run beside its row loop (Python's own: 5 ms).
HANDOFF_SECONDS = 0.0005
_handoff_lock = threading.Lock()
_handoff_users = 0
_handoff_saved = 0.0


@contextlib.contextmanager
def quick_handoffs() -> Iterator[None]:
    """A gzip worker that finished a shard needs the GIL a few times (to return, write,
    take the next); the row loop in C holds it and lets a waiting thread in every few
    hundred rows, once that thread has asked. With Python's 5 ms before asking, the
    workers waited ~40 ms a shard, a core idle meanwhile. The process's own interval
    comes back when the last writer leaves (writers may run in several threads)."""
    global _handoff_users, _handoff_saved
    with _handoff_lock:
        if _handoff_users == 0:
            _handoff_saved = sys.getswitchinterval()
            sys.setswitchinterval(min(_handoff_saved, HANDOFF_SECONDS))
        _handoff_users += 1
    try:
        yield
    finally:
        with _handoff_lock:
            _handoff_users -= 1
            if _handoff_users == 0:
                sys.setswitchinterval(_handoff_saved)


__all__ = ["HANDOFF_SECONDS", "NO_EXTENSIONS", "blake2b", "quick_handoffs", "usable_cores"]
