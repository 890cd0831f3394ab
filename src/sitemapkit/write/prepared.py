"""Keys-first partitioned writes that read and format each row once.

A partition's first pass (``prepare_partition``) streams its entries through the hot
unit as a write does, but keeps each shard's bytes unwritten, with the keys of its
URLs in order, and hands the driver the partition's ascending keys (16 bytes a URL).
The driver merges every partition's keys (``partition.repeated_keys``); the second
pass (``PreparedPartition.write``) then only cuts the URLs an earlier partition has
out of the kept shards (``drop_urls``, no row read or checked again), gzips and stores
them. A bad entry fails the first pass, before anything is stored.

The kept shards, about ten times the size of the gzipped ones, stay in memory where
the first pass ran (a Dask worker holds them as a task result and spills them as it
spills any data; a folder-mode worker process up to ``affinity.KEEP_BYTES``) or,
past ``keep_bytes``, in files in ``spill_dir``; or, for an engine whose second job
may run anywhere (Spark), in the output's own storage (``keep_in``: ``Storage.keep``),
which the second pass reads back and removes. Text sitemaps are not prepared: their
lines keep no lastmod, so a cut shard could not tell its newest.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from .. import _urlset
from ..errors import ConfigError
from ..rules.model import EntryError
from .compress import content_digest, gzip_bytes
from .options import WriterOptions, resolve
from .partition import PartitionManifest, ShardInfo, in_partition, shard_name, sorted_keys
from .storage import Storage, open_storage, storage_error
from .stream import LineSource, MemoryShards

EXAMPLES_NAMED = 10  # URLs left out for repeating an earlier partition, named per partition
_BLOCK_START = b"<url><loc>"


@dataclass(frozen=True)
class PreparedShard:
    """One shard as the buffer wrote it, every URL in, and its URLs' keys in order:
    in memory, or in ``spilled`` (the shard's bytes, then the keys)."""

    urls: int
    raw_bytes: int
    newest_lastmod: str | None
    data: bytes = b""
    keys: bytes = b""
    spilled: str | None = None
    kept: str | None = None  # its name in the output's storage (``Storage.keep``)

    def load(self, storage: Storage | None = None) -> tuple[bytes, bytes]:
        """(shard bytes, keys)."""
        if self.kept is not None:
            assert storage is not None
            both = storage.read_kept(self.kept)
            return both[:self.raw_bytes], both[self.raw_bytes:]
        if self.spilled is None:
            return self.data, self.keys
        with open(self.spilled, "rb") as fh:
            return fh.read(self.raw_bytes), fh.read()


@dataclass
class PreparedPartition:
    """A partition read, checked and formatted, not yet stored: ``keys`` (ascending)
    go to the driver, ``write`` stores the shards once the repeats are known."""

    partition: int
    base_url: str
    options: WriterOptions
    shards: list[PreparedShard]
    keys: bytes
    duplicate_count: int = 0
    skipped_count: int = 0
    skipped_by_rule: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    @property
    def nbytes(self) -> int:
        """The bytes it keeps in memory (not those spilled)."""
        return sum(len(s.data) + len(s.keys) for s in self.shards) + len(self.keys)

    def __sizeof__(self) -> int:
        """What an engine's memory accounting must count: Dask sizes a task result with
        ``sys.getsizeof``, and without this would see a few dozen bytes, never spill the
        kept shards and let a worker outgrow its memory limit instead."""
        return object.__sizeof__(self) + self.nbytes

    def to_dict(self) -> dict[str, Any]:
        """Plain data for an engine to send to its second job: only what ``keep_in``
        left in storage (the shards' names), never their bytes, and no keys."""
        assert all(s.kept is not None for s in self.shards)
        return {"partition": self.partition, "base_url": self.base_url,
                "shards": [[s.urls, s.raw_bytes, s.newest_lastmod, s.kept] for s in self.shards],
                "duplicate_count": self.duplicate_count, "skipped_count": self.skipped_count,
                "skipped_by_rule": self.skipped_by_rule, "examples": self.examples}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], options: WriterOptions) -> PreparedPartition:
        shards = [PreparedShard(urls, raw, newest, kept=name)
                  for urls, raw, newest, name in data["shards"]]
        return cls(int(data["partition"]), str(data["base_url"]), options, shards, b"",
                   int(data["duplicate_count"]), int(data["skipped_count"]),
                   dict(data["skipped_by_rule"]), list(data["examples"]))

    def without_keys(self) -> PreparedPartition:
        """The same partition without its keys: all the second pass needs to be sent."""
        return replace(self, keys=b"")

    def write(self, out: str | os.PathLike[str], drop: bytes = b"",
              storage_options: Mapping[str, Any] | None = None
              ) -> tuple[PartitionManifest, list[str]]:
        """Store the shards, leaving out the URLs whose key is in ``drop`` (ascending:
        an earlier partition has them); return the manifest and up to 10 of those URLs.
        A shard left with no URL is not stored."""
        opts = self.options
        storage = open_storage(out, fsync=opts.fsync, follow_symlink=opts.follow_symlink,
                               storage_options=storage_options)
        named: list[str] = []
        stored: list[Future[ShardInfo]] = []
        workers = opts.workers or 1
        # a cut shard is written into one of workers + 1 scratch buffers in turn: one
        # being cut while the others gzip; reused, not mapped afresh for every shard
        room = max((s.raw_bytes for s in self.shards), default=0) if drop else 0
        scratch = [bytearray(room) for _ in range(workers + 1 if room else 0)]
        try:
            with ThreadPoolExecutor(workers) as pool:
                for shard in self.shards:
                    into = scratch[len(stored) % len(scratch)] if scratch else None
                    data, urls, newest = self._cut(shard, drop, named, into, storage)
                    if urls:
                        stored.append(pool.submit(self._store, storage, len(stored) + 1,
                                                  data, urls, newest))
                    if len(stored) > workers:  # few shards in memory at once
                        stored[-workers - 1].result()
                shards = [job.result() for job in stored]
            storage.drop_kept([s.kept for s in self.shards if s.kept is not None])
        except OSError as exc:
            raise storage_error(storage, exc) from exc
        url_count = sum(s.urls for s in shards)
        return PartitionManifest(
            partition=self.partition, base_url=self.base_url, format=opts.format,
            shards=shards, url_count=url_count,
            duplicate_count=self.duplicate_count + sum(s.urls for s in self.shards) - url_count,
            skipped_count=self.skipped_count, skipped_by_rule=dict(self.skipped_by_rule),
            examples=list(self.examples)), named

    def _cut(self, shard: PreparedShard, drop: bytes, named: list[str],
             out: bytearray | None, storage: Storage) -> tuple[bytes | memoryview, int,
                                                               str | None]:
        """The shard's bytes without the dropped URLs (in ``out`` when any is), its
        URL count and newest lastmod."""
        data, keys = shard.load(storage)
        if not drop:
            return data, shard.urls, shard.newest_lastmod
        cut, urls, newest, found = _urlset.drop_urls(data, keys, drop, False,
                                                     EXAMPLES_NAMED - len(named), out)
        named += [_loc_at(data, at) for at in found]
        return cut, urls, newest

    def _store(self, storage: Storage, number: int, data: bytes | memoryview, urls: int,
               newest: str | None) -> ShardInfo:
        """Worker thread: gzip one shard and stage it for the commit."""
        gz = gzip_bytes(data, self.options.level, self.options.backend)
        name = shard_name(self.options, self.partition, number, content_digest(gz))
        storage.stage(name, gz)
        return ShardInfo(name, urls, len(data), len(gz), newest)


def _loc_at(data: bytes, at: int) -> str:
    """The loc of the URL block starting at ``data[at]``, as it was given (unescaped)."""
    start = at + len(_BLOCK_START)
    return html.unescape(data[start:data.index(b"</loc>", start)].decode("ascii"))


class _Keeping(MemoryShards):
    """The writer's stream keeping each closed shard with its URLs' keys, in memory or
    spilled to a file in ``spill_dir``."""

    def __init__(self, prefix: str, opts: WriterOptions, impl: ModuleType, partition: int,
                 spill_dir: str | None, keep_bytes: int, keep_in: Storage | None) -> None:
        super().__init__(prefix, opts, impl, keep=False)
        self.partition, self.spill_dir, self.room = partition, spill_dir, keep_bytes
        self.keep_in = keep_in
        self.kept: list[PreparedShard] = []
        self.keys: list[bytes] = []  # every shard's, for the driver's ascending copy
        self.buf.key_locs()

    def submit(self, data: bytes) -> Future[tuple[Path, str]]:
        buf = self.buf
        keys = buf.take_keys()
        self.keys.append(keys)
        if self.keep_in is not None:
            name = kept_shard_name(self.partition, len(self.kept) + 1)
            self.keep_in.keep(name, [data, keys])
            shard = PreparedShard(buf.count, len(data), buf.newest_lastmod, kept=name)
        elif self.spill_dir is None or len(data) + len(keys) <= self.room:
            self.room -= len(data) + len(keys)
            shard = PreparedShard(buf.count, len(data), buf.newest_lastmod, data, keys)
        else:
            path = Path(self.spill_dir, f"p{self.partition}-{len(self.kept) + 1}.raw")
            with open(path, "wb") as fh:
                fh.write(data)
                fh.write(keys)
            shard = PreparedShard(buf.count, len(data), buf.newest_lastmod, spilled=str(path))
        self.kept.append(shard)
        return super().submit(data)


def kept_shard_name(partition: int, number: int) -> str:
    """A prepared shard's name in the output's storage (``Storage.keep``): one per
    partition and number, so a retried task writes the same name again."""
    return f"p{partition:05d}-{number:05d}.xml"


def prepare_partition(entries: Iterable[object] | LineSource, base_url: str,
                      partition_id: int, *, options: WriterOptions | None = None,
                      spill_dir: str | os.PathLike[str] | None = None, keep_bytes: int = 0,
                      keep_in: Storage | None = None,
                      _impl: ModuleType | None = None, **overrides: Any) -> PreparedPartition:
    """A partition's first pass: every entry read, checked and formatted into shards
    that are kept, not stored: in memory, or with ``spill_dir`` in files there once
    ``keep_bytes`` are kept in memory, or with ``keep_in`` all in that storage. A bad
    entry raises ``EntryError`` naming the partition and the entry's offset in it
    (``on_invalid="skip"`` counts it instead)."""
    opts, prefix = resolve(options, overrides, base_url)
    if opts.format == "text":
        raise ConfigError("a text sitemap keeps no lastmod in its lines, so a prepared "
                          "shard could not tell its newest after a cut: write text "
                          "partitions with write_once")
    run = _Keeping(prefix, opts, _impl or _urlset, partition_id,
                   None if spill_dir is None else os.fspath(spill_dir), keep_bytes, keep_in)
    try:
        run.stream(entries)
    except EntryError as exc:
        raise in_partition(exc, partition_id) from None
    except OSError as exc:
        if keep_in is None:
            raise
        raise storage_error(keep_in, exc) from exc
    r = run.result
    return PreparedPartition(
        partition_id, prefix, opts, run.kept,
        sorted_keys(b"".join(run.keys), _impl or _urlset),
        duplicate_count=r.duplicate_count, skipped_count=r.skipped_count,
        skipped_by_rule=dict(r.skipped_by_rule),
        examples=[str(in_partition(e, partition_id)) for e in r.skipped]
        + [f"partition {partition_id}, entry {pos}: duplicate of an earlier entry: {loc}"
           for pos, loc in r.duplicates])
