"""Read SITEMAPKIT_NO_EXTENSIONS once (the same variable steers setup.py), and take
BLAKE2 without ``hashlib``, whose import also starts OpenSSL (~7 ms of a ~70 ms CLI start)."""

from __future__ import annotations

import os

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


__all__ = ["NO_EXTENSIONS", "blake2b", "usable_cores"]
