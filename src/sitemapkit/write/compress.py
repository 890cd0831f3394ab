"""Reproducible gzip: fixed mtime 0, no file name, OS byte 255, on any platform.

zlib and isal release the GIL while compressing, so shards compress in threads.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

BACKENDS = ("zlib", "isal")
LEVELS = {"zlib": range(10), "isal": range(4)}
# Each backend's level closest to zlib 6's output size on sitemap XML (isal 3: +7%).
DEFAULT_LEVEL = {"zlib": 6, "isal": 3}


def _module(backend: str) -> Any:
    if backend == "zlib":
        return zlib
    if backend == "isal":
        try:
            from isal import isal_zlib
        except ImportError:
            raise ValueError("gzip_backend 'isal' needs the 'fast' extra: "
                             "pip install 'sitemapkit[fast]'") from None
        return isal_zlib
    raise ValueError(f"unknown gzip_backend {backend!r}; choose one of {BACKENDS}")


def check_level(backend: str, level: int) -> None:
    _module(backend)
    levels = LEVELS[backend]
    if isinstance(level, bool) or not isinstance(level, int) or level not in levels:
        raise ValueError(f"gzip_level {level!r} does not exist for {backend}: its levels are "
                         f"{levels[0]} to {levels[-1]} ({DEFAULT_LEVEL[backend]} is the one "
                         "closest to zlib 6 in size, and the default)")


def gzip_bytes(data: bytes, level: int = 6, backend: str = "zlib") -> bytes:
    mod = _module(backend)
    comp = mod.compressobj(level, mod.DEFLATED, -15)
    body: bytes = comp.compress(data) + comp.flush()
    xfl = 2 if (backend == "zlib" and level == 9) else 4 if level <= 1 else 0
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00" + bytes((xfl, 255))
    trailer = struct.pack("<II", mod.crc32(data) & 0xFFFFFFFF, len(data) & 0xFFFFFFFF)
    return header + body + trailer
