"""Reproducible gzip: fixed mtime 0, no file name, OS byte 255, on any platform.

zlib, isal and zlib-ng release the GIL while compressing, so shards compress in threads.
"""

from __future__ import annotations

import functools
import importlib
import struct
import zlib
from typing import Any

from .._compat import blake2b
from .._urlset import CRC32_CLMUL, crc32
from ..options import BACKENDS

AUTO = "zlib-ng"  # what "auto" takes when installed: zlib-ng 6 is within 1% of zlib 6's
# size and about 2.7x faster (isal is faster still, but 6-16% larger: never chosen alone)
LEVELS = {"zlib": range(10), "isal": range(4), "zlib-ng": range(10)}
# Each backend's level closest to zlib 6's output size on sitemap XML, measured on the
# CLI benchmark's mix and on a 50,000-URL shard with changefreq, priority and hreflang:
# zlib-ng 6 is +0.8% / +0.4% (zlib-ng 5: +5.0% / +1.3%); isal 2 is +15.6% / +5.6%
# (isal 3: +16.2% / +12.9%). Same output format; both release the GIL.
DEFAULT_LEVEL = {"zlib": 6, "isal": 2, "zlib-ng": 6}
_FAST = {"isal": ("isal", "isal_zlib"), "zlib-ng": ("zlib_ng", "zlib_ng")}


def resolve_backend(backend: str) -> str:
    """The backend that "auto" stands for here: zlib-ng when it imports, else zlib. The
    same input with the same resolved backend gives the same bytes; any other name is
    returned as given (and checked where it is used)."""
    if backend != "auto":
        return backend
    return AUTO if _importable(AUTO) else "zlib"


@functools.cache
def _importable(backend: str) -> bool:
    try:
        _module(backend)
    except ValueError:
        return False
    return True


def description(backend: str, level: int) -> str:
    """How a set was compressed, as the summary line and ``doctor`` say it."""
    return f"gzip: {backend} level {level}"


def _module(backend: str) -> Any:
    if backend == "zlib":
        return zlib
    if backend in _FAST:
        package, module = _FAST[backend]
        try:
            return importlib.import_module(f"{package}.{module}")
        except ImportError:
            raise ValueError(f"gzip_backend {backend!r} needs the 'fast' extra: "
                             "pip install 'sitemapkit[fast]'") from None
    raise ValueError(f"unknown gzip_backend {backend!r}; choose one of {BACKENDS}")


def check_level(backend: str, level: int) -> None:
    _module(backend)
    levels = LEVELS[backend]
    if isinstance(level, bool) or not isinstance(level, int) or level not in levels:
        raise ValueError(f"gzip_level {level!r} does not exist for {backend}: its levels are "
                         f"{levels[0]} to {levels[-1]} ({DEFAULT_LEVEL[backend]} is the one "
                         "closest to zlib 6 in size, and the default)")


def gzip_bytes(data: bytes | memoryview, level: int = 6, backend: str = "zlib") -> bytes:
    mod = _module(backend)
    comp = mod.compressobj(level, mod.DEFLATED, -15)
    xfl = 2 if (backend != "isal" and level == 9) else 4 if level <= 1 else 0
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00" + bytes((xfl, 255))
    # zlib-ng's and ISA-L's CRC-32 beat our folding (25 against 18.6 GB/s measured for
    # zlib-ng); our folding beats the standard library's zlib about 4.5 times
    check = crc32(data) if CRC32_CLMUL and backend == "zlib" else mod.crc32(data)
    trailer = struct.pack("<II", check & 0xFFFFFFFF, len(data) & 0xFFFFFFFF)
    return b"".join((header, comp.compress(data), comp.flush(), trailer))  # one copy


def content_digest(gz: bytes) -> str:
    """The 8 hex digits a shard's name carries: the same bytes, the same name."""
    return blake2b(gz, digest_size=4).hexdigest()
