"""Streaming entries into shards: the hot unit fills one shard buffer at a time, the
slow path (``rules.normalize_entry``) answers what it cannot, and worker threads
gzip each closed shard into a temp file beside its target.

This is the "write shards" half of a run; ``commit`` names the files and makes them
live. Nothing here touches a live file.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Protocol, runtime_checkable

from ..errors import InvalidEntriesError
from ..protocol import FUTURE_TOLERANCE_SECONDS
from ..rules.fields import normalize_entry
from ..rules.hreflang import ClusterCheck
from ..rules.model import EntryError, Normalized
from ..sources.inputs.partitions import entry_loc
from . import output
from .changes import LastmodRecord
from .compress import content_digest, description, gzip_bytes
from .options import WriterOptions
from .result import WriteResult

EXAMPLES_KEPT = 100  # skipped entries and duplicates kept as examples in the result
RESERVE_MAX = 50_000_000  # rows the duplicate table makes room for at once, at most


@runtime_checkable
class LineSource(Protocol):
    """An input read as blocks of rows (``sources.lines.LineReader``: lines of bytes;
    ``sources.arrowcols.ArrowSource``: Arrow columns): the hot unit reads the plain
    rows itself (``feed``); the source parses the rows it leaves."""

    def blocks(self) -> Iterator[int]:
        """Make each block current; yield where its first row starts."""

    def feed(self, buf: object, pos: int) -> tuple[int, int, int]:
        """The hot unit's ``feed_lines`` (or ``feed_cells``) over the current block from
        ``pos``: (status, the row's start, its end)."""

    def parse(self, start: int, end: int) -> tuple[list[object], int]:
        """The entries of the row at ``start``, and where the next row starts."""

    def loc_at(self, start: int, end: int) -> str:
        """The loc of the row at ``start`` (to name a duplicate)."""

    def expected_rows(self) -> int | None:
        """About how many rows the input holds, asked once the first block is current
        (the duplicate table makes room for them at once); None when it cannot say."""


@dataclass
class Shard:
    """One closed shard: its counts, and the worker's (temp file, content digest)."""

    number: int
    urls: int
    raw_bytes: int
    newest_lastmod: str | None
    future: Future[tuple[Path, str]]


class ShardStream:
    """One run's shards: owns the buffer, the temp files and the result's counts."""

    def __init__(self, out_dir: Path, prefix: str, opts: WriterOptions, impl: ModuleType,
                 pool: ThreadPoolExecutor | None, workers: int) -> None:
        self.out_dir, self.prefix, self.opts, self.impl = out_dir, prefix, opts, impl
        self.pool, self.workers = pool, workers
        now = opts.now or datetime.now(timezone.utc)
        self.future_limit = int(now.timestamp()) + FUTURE_TOLERANCE_SECONDS
        self.record = LastmodRecord(opts.changes_file, prefix) if opts.changes_file else None
        self.seen = impl.LocSet()
        self.buf = impl.UrlsetBuffer(prefix, opts.max_urls, opts.max_bytes, self.seen,
                                     self.future_limit, opts.format == "text",
                                     self.record is not None)
        self.shards: list[Shard] = []
        self.in_flight: deque[Shard] = deque()
        self.first_raw: bytes | None = None  # a single-shard set keeps its plain bytes
        self.temps: list[Path] = []
        self.clusters = ClusterCheck(impl.LocSet(values=True), prefix)
        self.line_alternates: bytes | None = None  # of the line being parsed in Python
        # where an entry came from (its input line, its page), asked as it is refused
        self.where: Callable[[int], str | None] | None = None
        self.result = WriteResult(out_dir, str(opts.filename), [], [], [], 0, 0,
                                  base_url=prefix, gzip=description(
                                      opts.backend, opts.level))

    def stream(self, entries: Iterable[object] | LineSource) -> None:
        """Feed every entry (or every line of a line source, or every row of Arrow
        columns); close the last shard. With ``on_invalid="report"``, raise
        ``InvalidEntriesError`` naming the invalid ones, once all are read."""
        buf, exhausted = self.buf, self.impl.EXHAUSTED
        if type(entries).__module__.startswith("pyarrow"):  # a table, batch or reader
            from ..sources.inputs.arrowcols import ArrowSource  # pyarrow is optional

            entries = ArrowSource(entries)
        if isinstance(entries, LineSource):
            self._stream_lines(entries)
        else:
            it = iter(entries)
            while True:
                status, entry = buf.feed(it)
                if status == exhausted:
                    break
                self._resolve(status, entry, buf.consumed)
        r = self.result
        if self.opts.on_invalid == "report" and r.skipped_count:  # every stream: none skips
            raise InvalidEntriesError(list(r.skipped), r.skipped_count, dict(r.skipped_by_rule))
        if buf.count:
            self._close_shard()

    def _stream_lines(self, source: LineSource) -> None:
        """Input bytes straight into the hot unit; the source parses what it leaves."""
        buf, impl = self.buf, self.impl
        first = True
        for pos in source.blocks():
            if first:  # how many rows are coming, asked once with the first block in hand
                first, rows = False, source.expected_rows()
                if rows:
                    self.seen.reserve(min(rows, RESERVE_MAX))
            while True:
                status, start, end = source.feed(buf, pos)
                if status == impl.EXHAUSTED:
                    break
                if status == impl.DUPLICATE:  # named while examples are wanted
                    self._duplicate(buf.consumed, source.loc_at(start, end)
                                    if len(self.result.duplicates) < EXAMPLES_KEPT else "")
                    pos = end
                elif status == impl.FULL and buf.count:
                    self._close_shard()
                    pos = start
                else:  # SLOW (or too large for an empty shard): parsed by the source
                    self.line_alternates = buf.slow_alternates if status == impl.SLOW else None
                    entries, pos = source.parse(start, end)
                    for entry in entries:
                        status, _ = buf.feed(iter((entry,)))
                        if status != impl.EXHAUSTED:
                            self._resolve(status, entry, buf.consumed)
                    self.line_alternates = None

    def _resolve(self, status: int, entry: object, position: int) -> None:
        """An entry the fast path did not add: normalize it, start a new shard, or
        count it as a duplicate."""
        impl, buf = self.impl, self.buf
        normalized: Normalized | None = None
        while status != impl.ADDED:
            if status == impl.SLOW:
                try:
                    normalized = normalize_entry(entry, self.prefix, self.future_limit)
                    if normalized.alternates:
                        self.settled_clusters().add(normalized.loc, normalized.alternates)
                        buf.remember_alternates(self.line_alternates, normalized.alternates)
                except EntryError as exc:
                    self._reject(exc.at(position))
                    return
                status = buf.add(*normalized)
            elif status == impl.FULL:
                if buf.count == 0:
                    self._reject(EntryError("entry-too-large", "entry", entry,
                                            f"about {len(repr(entry))} bytes; max_bytes is "
                                            f"{self.opts.max_bytes}").at(position))
                    return
                self._close_shard()
                status = buf.add(*normalized) if normalized else buf.offer(entry)
            else:  # DUPLICATE
                loc = normalized.loc if normalized else entry_loc(entry)  # any shape
                self._duplicate(position, str(loc))
                return

    def settled_clusters(self) -> ClusterCheck:
        """The cluster check, after it hears of the members the hot unit added from
        input bytes (rows whose alternates repeat the ones it last checked)."""
        for href in self.buf.take_arrivals():
            self.clusters.arrived(href)
        return self.clusters

    def _duplicate(self, position: int, loc: str) -> None:
        r = self.result
        r.duplicate_count += 1
        if len(r.duplicates) < EXAMPLES_KEPT:
            r.duplicates.append((position, loc))

    def _reject(self, exc: EntryError) -> None:
        if self.opts.on_invalid == "error":
            raise exc
        if self.where is not None and exc.position and exc.where is None:
            exc.where = self.where(exc.position)  # now: the reader is still on its line
        r = self.result
        r.skipped_count += 1
        r.skipped_by_rule[exc.rule] = r.skipped_by_rule.get(exc.rule, 0) + 1
        if len(r.skipped) < EXAMPLES_KEPT:
            r.skipped.append(exc)

    def _close_shard(self) -> None:
        buf = self.buf
        data = buf.getvalue()
        number = len(self.shards) + 1
        self.first_raw = data if number == 1 else None
        if self.record is not None:
            self.record.add(buf.pairs())
        shard = Shard(number, buf.count, len(data), buf.newest_lastmod, self.submit(data))
        self.shards.append(shard)
        self.in_flight.append(shard)
        self.result.url_count += buf.count
        buf.reset()
        while len(self.in_flight) > self.workers:  # bound memory: few shards in flight
            self.in_flight.popleft().future.result()

    def submit(self, data: bytes) -> Future[tuple[Path, str]]:
        """Hand a closed shard to a worker thread."""
        assert self.pool is not None
        return self.pool.submit(self._store, data)

    def _store(self, data: bytes) -> tuple[Path, str]:
        """Worker thread: gzip one shard into a temp file; return it and a content digest."""
        gz = gzip_bytes(data, self.opts.level, self.opts.backend)
        return self.write_temp(gz, "shard.gz"), content_digest(gz)

    def write_temp(self, data: bytes, name: str) -> Path:
        """A temp file beside its target, owned (and removed on failure) by this run."""
        tmp = output.temp_path(self.out_dir, name)
        self.temps.append(tmp)
        output.write_file(tmp, data, self.opts.fsync)
        return tmp

    def abandon(self) -> None:
        """After a failure: let workers finish, then remove every temp file."""
        for shard in self.shards:
            shard.future.cancel()
        if self.pool is not None:
            self.pool.shutdown(wait=True)
        output.remove_owned_temps(self.temps)


class MemoryShards(ShardStream):
    """The same stream, keeping each shard's uncompressed bytes instead of storing it:
    the hot unit and its slow path with no gzip or files (for tests and benchmarks).
    ``keep=False`` drops them too: a pass that only learns what a write would meet."""

    def __init__(self, prefix: str, opts: WriterOptions, impl: ModuleType,
                 keep: bool = True) -> None:
        super().__init__(Path(), prefix, opts, impl, None, 1)
        self.data: list[bytes] = []
        self.keep = keep

    def submit(self, data: bytes) -> Future[tuple[Path, str]]:
        if self.keep:
            self.data.append(data)
        done: Future[tuple[Path, str]] = Future()
        done.set_result((Path(), ""))
        return done
