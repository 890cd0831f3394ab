"""Stream a sitemap file's uncompressed bytes: gzip checked, sizes capped (rules 23, 31).

Decompression is bounded, so a gzip bomb costs at most the protocol maximum of
output before reading stops.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

from ..protocol import DEFAULT_MAX_BYTES, MAX_BYTES
from .findings import Say, Severity

CHUNK = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"



class Content:
    """Iterate the uncompressed chunks of one file; ``size`` counts what was produced."""

    def __init__(self, path: Path, cap: int, report: Say,
                 note: Callable[[str], None] | None = None) -> None:
        self.path, self.cap, self.report, self.note = path, cap, report, note
        self.size = 0
        self.stopped = False  # read stopped early: later parse errors are not the file's
        self.gzipped = False

    def __iter__(self) -> Iterator[bytes]:
        """The chunks; a file that cannot be read (EIO, no permission), at its start or
        part way, is one finding and the end of this file, not of the run."""
        try:
            yield from self._chunks()
        except OSError as exc:
            self.stopped = True
            self.report("error", "unreadable", f"cannot be read after {self.size:,} bytes "
                        f"({exc.strerror or exc}): not checked further")
        if self.note and DEFAULT_MAX_BYTES < self.size <= self.cap:
            self.note(f"{self.size:,} bytes uncompressed: within the protocol's "
                      f"{MAX_BYTES:,} (since 2016), above the older {DEFAULT_MAX_BYTES:,} "
                      "that some tools still apply")

    def _chunks(self) -> Iterator[bytes]:
        with open(self.path, "rb") as raw:
            head = raw.read(CHUNK)
            named_gz = self.path.name.endswith(".gz")
            self.gzipped = head[:2] == GZIP_MAGIC
            if named_gz and not self.gzipped:
                kind = "a zip archive" if head[:2] == b"PK" else "not gzip data"
                self.report("error", "gzip", f"named .gz but {kind} (no 1f 8b magic bytes); "
                            "sitemaps are compressed with gzip only")
                self.stopped = True
                return
            if self.gzipped and not named_gz:
                self.report("error", "gzip", "gzip data in a file not named .gz")
            chunks = _chunks(head, raw)
            source = _gunzip(chunks, self._gzip_broken) if self.gzipped else chunks
            for chunk in source:
                yield from self._counted(chunk)
                if self.stopped:
                    return

    def _gzip_broken(self, severity: Severity, id_: str, message: str) -> None:
        """A corrupt or truncated stream: what follows is not the XML's fault."""
        self.stopped = True
        self.report(severity, id_, f"{message}; {self.size:,} bytes were read before it")

    def _counted(self, chunk: bytes) -> Iterator[bytes]:
        before, self.size = self.size, self.size + len(chunk)
        if before <= self.cap < self.size:
            self.report("error", "too-large", f"more than {self.cap:,} bytes uncompressed "
                        f"(the byte cap; protocol maximum {MAX_BYTES:,})")
        if self.size > MAX_BYTES:
            self.stopped = True
            self.report("error", "too-large", f"reading stopped after {MAX_BYTES:,} "
                        "uncompressed bytes (the protocol maximum)")
            chunk = chunk[: MAX_BYTES + len(chunk) - self.size]
        yield chunk


def _chunks(head: bytes, raw: object) -> Iterator[bytes]:
    if head:
        yield head
    read = raw.read  # type: ignore[attr-defined]
    while chunk := read(CHUNK):
        yield chunk


def _gunzip(chunks: Iterator[bytes], report: Say) -> Iterator[bytes]:
    """Multi-member gzip with CRC and length checks; output in bounded pieces."""
    inflater = zlib.decompressobj(31)
    for data in chunks:
        while data:
            try:
                out = inflater.decompress(data, CHUNK)
            except zlib.error as exc:
                report("error", "gzip", f"corrupt gzip stream: {exc}")
                return
            if out:
                yield out
            if inflater.eof:
                data = inflater.unused_data
                if data.strip(b"\0"):  # another member follows
                    inflater = zlib.decompressobj(31)
                else:
                    data = b""
            else:
                data = inflater.unconsumed_tail
    if not inflater.eof:
        report("error", "gzip", "truncated gzip stream: the file ends before the gzip "
               "trailer (an interrupted upload or copy)")
