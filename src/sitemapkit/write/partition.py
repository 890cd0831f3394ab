"""write_partition(): one partition of a large set, written where any engine task runs.

A partition streams its entries through the same hot unit, limits and gzip as
``write_sitemaps`` and stores each shard whole under a deterministic name (partition
id, shard number, content digest). No index names those files yet, so nothing a
reader can reach changes; the driver gathers the small manifests and ``commit``
makes the set live once. The same partition written twice (a retried or
speculative task) gives the same names and bytes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .. import _urlset
from .._compat import quick_handoffs, usable_cores
from .._display import size
from ..errors import ConfigError
from ..protocol import PARTITION_SHARD_PATTERN
from ..rules.model import EntryError
from ..sources.inputs.partitions import KEY_BYTES, partition_key
from .compress import content_digest, gzip_bytes
from .options import WriterOptions, resolve
from .storage import Storage, open_storage, storage_error
from .stream import LineSource, MemoryShards, ShardStream

MANIFEST_VERSION = 1


@dataclass(frozen=True)
class ShardInfo:
    """One stored shard: what the commit checks and the index lists."""

    name: str
    urls: int
    raw_bytes: int
    gz_bytes: int
    newest_lastmod: str | None


@dataclass
class PartitionManifest:
    """What one partition wrote: a few hundred bytes per shard, whatever its URL count.

    Plain data (``to_dict``/``from_dict``) so engines can collect it as JSON-able rows.
    """

    partition: int
    base_url: str
    format: str
    shards: list[ShardInfo]
    url_count: int = 0
    duplicate_count: int = 0
    skipped_count: int = 0
    skipped_by_rule: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)  # skipped and duplicate entries
    version: int = MANIFEST_VERSION

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PartitionManifest:
        if data.get("version") != MANIFEST_VERSION:
            raise ConfigError(f"a partition manifest of version {data.get('version')!r}; this "
                              f"sitemapkit reads version {MANIFEST_VERSION}")
        fields = dict(data)
        fields["shards"] = [ShardInfo(**s) for s in data["shards"]]
        return cls(**fields)


def shard_name(opts: WriterOptions, partition: int, number: int, digest: str) -> str:
    """``sitemap-p00042-00001-<digest>.xml.gz``: stable across retries of a partition."""
    ext = "txt" if opts.format == "text" else "xml"
    return PARTITION_SHARD_PATTERN.format(partition=partition, number=number, digest=digest,
                                          ext=ext)


class _PartitionStream(ShardStream):
    """The writer's shard stream, staging each gzipped shard for the commit."""

    def __init__(self, storage: Storage, partition: int, prefix: str, opts: WriterOptions,
                 impl: ModuleType, pool: ThreadPoolExecutor, workers: int) -> None:
        super().__init__(Path(), prefix, opts, impl, pool, workers)
        self.storage, self.partition = storage, partition
        self.stored: dict[int, tuple[str, int]] = {}  # shard number -> (name, gz bytes)

    def submit(self, data: bytes) -> Future[tuple[Path, str]]:
        assert self.pool is not None
        return self.pool.submit(self._put, len(self.shards) + 1, data)

    def _put(self, number: int, data: bytes) -> tuple[Path, str]:
        gz = gzip_bytes(data, self.opts.level, self.opts.backend)
        digest = content_digest(gz)
        name = shard_name(self.opts, self.partition, number, digest)
        self.storage.stage(name, gz)
        self.stored[number] = (name, len(gz))
        return Path(name), digest


def write_partition(entries: Iterable[object] | LineSource, out: str | os.PathLike[str],
                    base_url: str, partition_id: int, *, options: WriterOptions | None = None,
                    storage_options: Mapping[str, Any] | None = None,
                    _impl: ModuleType | None = None, **overrides: Any) -> PartitionManifest:
    """Write one partition's shards into ``out`` (a directory or an fsspec URL) and
    return its manifest. Never touches the live index: ``commit`` does that.

    A bad entry raises ``EntryError`` naming the partition and the entry's offset in
    it (with ``on_invalid="skip"`` the manifest counts it instead).
    """
    return _write(entries, out, base_url, partition_id, options, storage_options, _impl,
                  None, overrides)[0]


def keyed_partition(entries: Iterable[object] | LineSource, out: str | os.PathLike[str],
                    base_url: str, partition_id: int, drop: bytes = b"", *,
                    options: WriterOptions | None = None,
                    storage_options: Mapping[str, Any] | None = None,
                    _impl: ModuleType | None = None,
                    **overrides: Any) -> tuple[PartitionManifest, bytes, list[str]]:
    """``write_partition`` that also returns the ascending keys
    (``sources.partitions.partition_key``, 16 bytes a key) of the URLs it wrote, taken
    by the hot unit from the hash its duplicate check computes anyway. URLs whose key
    is in ``drop`` (keys earlier partitions wrote, same form) are left out and counted
    as duplicates; the third item names up to 10 of them."""
    return _write(entries, out, base_url, partition_id, options, storage_options, _impl,
                  drop, overrides)


def partition_keys(entries: Iterable[object] | LineSource, base_url: str, partition_id: int,
                   *, options: WriterOptions | None = None, _impl: ModuleType | None = None,
                   **overrides: Any) -> bytes:
    """A partition's first pass: the ascending keys of the URLs it would write (as
    ``keyed_partition`` gives them), from the hot unit with no XML kept, no gzip and no
    file. A bad entry fails here, as it would in the write, before anything is stored."""
    opts, prefix = resolve(options, overrides, base_url)
    run = MemoryShards(prefix, opts, _impl or _urlset, keep=False)
    run.buf.key_locs()
    try:
        run.stream(entries)
    except EntryError as exc:
        raise in_partition(exc, partition_id) from None
    return bytes(run.buf.take_keys(ascending=True))


def sorted_keys(data: bytes, impl: ModuleType) -> bytes:
    """A partition's keys ascending, each once, for the driver: the hot unit's
    ``sort_keys``, a radix sort on the first word (336 ms for 4,000,000 keys here;
    numpy's sorts of 16-byte keys took 1.1 s with ``argsort`` on the first word, 2.1 s
    with ``lexsort``, 3.2 s with a structured ``sort``), which returns keys already in
    order (the usual case: a partition sorts its own) after one pass."""
    return bytes(impl.sort_keys(data))


DRIVER_KEYS_BUDGET = 2 << 30
"""Bytes of keys the driver's duplicate check may hold (16 a URL: 134,217,728 URLs);
past it ``duplicates="auto"`` moves the check into the engine."""
DUPLICATE_CHECKS = ("auto", "driver", "engine")


def check_duplicates_option(duplicates: str, driver_budget: int) -> None:
    """An engine adapter's ``duplicates`` and ``driver_budget``, refused before any job."""
    if duplicates not in DUPLICATE_CHECKS:
        raise ConfigError(f"duplicates={duplicates!r}: use one of "
                          f"{', '.join(map(repr, DUPLICATE_CHECKS))}")
    if not isinstance(driver_budget, int) or driver_budget < 0:
        raise ConfigError(f"driver_budget={driver_budget!r}: a number of bytes, 0 or more")


def choose_check(urls: int, driver_budget: int, notes: list[str],
                 limit: str = "driver_budget") -> str:
    """``duplicates="auto"``: the driver's check while its keys fit ``driver_budget``
    (``limit`` names where that figure comes from), else the engine's; the run says
    which in a note, and why."""
    held = urls * KEY_BYTES
    if held <= driver_budget:
        notes.append(f"duplicate check on the driver: the keys of {urls:,} URLs take "
                     f"{size(held)}, within {limit} ({size(driver_budget)})")
        return "driver"
    notes.append(f"duplicate check in the engine: the keys of {urls:,} URLs would take "
                 f"{size(held)} on the driver, past {limit} ({size(driver_budget)})")
    return "engine"


REPEATS_KEYS_A_THREAD = 1 << 20  # fewer keys than this for each thread: one thread


def repeated_keys(keys: Sequence[bytes], threads: int | None = None) -> dict[int, bytes]:
    """For each partition, the keys an earlier partition already has, ascending as
    ``keyed_partition`` takes them in ``drop``: the hot unit's ``repeats`` over the
    partitions' sorted key arrays (16 bytes a URL; no set of every URL: the C twin
    hashes one small slice of the key range at a time). The driver's one step that
    grows with the whole set, so past a million keys it runs in up to 8 threads
    (``threads``: the driver's cores), each over an equal range of the keys' 63-bit
    first words (hashes: equal shares), the GIL released."""
    arrays = [sorted_keys(a, _urlset) for a in keys]
    total = sum(len(a) for a in arrays) // KEY_BYTES
    n = max(1, min(threads or usable_cores(), 8, total // REPEATS_KEYS_A_THREAD))
    if n == 1:
        found = _urlset.repeats(arrays)
    else:
        cuts = [None, *((i << 63) // n for i in range(1, n)), None]
        with ThreadPoolExecutor(n) as pool:
            ranges = list(pool.map(lambda lo, hi: _urlset.repeats(arrays, lo, hi),
                                   cuts[:-1], cuts[1:]))
        found = [b"".join(parts) for parts in zip(*ranges, strict=True)]
    return {pid: keys for pid, keys in enumerate(found) if keys}


def key_ranges(keys: bytes, cuts: Sequence[int]) -> list[bytes]:
    """Ascending packed keys cut where their first word reaches each of ``cuts``
    (ascending): ``len(cuts) + 1`` slices, each ascending, for one task a range."""
    import bisect

    firsts = memoryview(keys).cast("q")[::2]
    at = [0, *(bisect.bisect_left(firsts, cut) for cut in cuts), len(firsts)]
    return [keys[lo * KEY_BYTES:hi * KEY_BYTES] for lo, hi in zip(at, at[1:], strict=False)]


def write_once(entries: Iterable[object] | LineSource, out: str | os.PathLike[str],
               base_url: str, partition_id: int, drop: bytes, *,
               options: WriterOptions | None = None,
               storage_options: Mapping[str, Any] | None = None) -> PartitionManifest:
    """The second pass of a keys-first write: this partition written once, leaving out
    the URLs an earlier partition has (their keys in ``drop``: the first copy is kept),
    with up to 10 of them named in the manifest's examples."""
    if not drop:
        return write_partition(entries, out, base_url, partition_id, options=options,
                               storage_options=storage_options)
    manifest, _, dropped = keyed_partition(entries, out, base_url, partition_id, drop,
                                           options=options, storage_options=storage_options)
    manifest.examples += repeat_examples(f"partition {partition_id}", dropped, "partition")
    return manifest


def repeat_examples(where: str, locs: list[str], whole: str) -> list[str]:
    """How a manifest names URLs left out because an earlier partition (or part file:
    ``whole``) has them."""
    return [f"{where}: {loc} repeats a URL of an earlier {whole}; the first copy is kept"
            for loc in locs]


def _write(entries: Iterable[object] | LineSource, out: str | os.PathLike[str],
           base_url: str, partition_id: int, options: WriterOptions | None,
           storage_options: Mapping[str, Any] | None, impl: ModuleType | None,
           drop: bytes | None, overrides: dict[str, Any]
           ) -> tuple[PartitionManifest, bytes, list[str]]:
    if not isinstance(partition_id, int) or partition_id < 0:
        raise ConfigError(f"partition_id must be a non-negative integer, not {partition_id!r}")
    opts, prefix = resolve(options, overrides, base_url)
    if opts.changes_file:
        raise ConfigError("changes_file (the per-URL lastmod record that IndexNow submissions "
                          "use) needs the whole set in one run; it is not available for "
                          "partitioned writes")
    storage = open_storage(out, fsync=opts.fsync, follow_symlink=opts.follow_symlink,
                           storage_options=storage_options)
    workers = opts.workers or 1  # filled by resolve()
    with quick_handoffs(), ThreadPoolExecutor(workers) as pool:
        run = _PartitionStream(storage, partition_id, prefix, opts, impl or _urlset, pool,
                               workers)
        if drop is not None:
            run.buf.key_locs(drop)
        try:
            run.stream(entries)
            for shard in run.shards:
                shard.future.result()
        except EntryError as exc:
            raise in_partition(exc, partition_id) from None
        except OSError as exc:
            raise storage_error(storage, exc) from exc
    r = run.result
    dropped = _dropped(r.duplicates, drop, prefix) if drop else set()
    manifest = PartitionManifest(
        partition=partition_id, base_url=prefix, format=opts.format,
        shards=[ShardInfo(run.stored[s.number][0], s.urls, s.raw_bytes, run.stored[s.number][1],
                          s.newest_lastmod) for s in run.shards],
        url_count=r.url_count, duplicate_count=r.duplicate_count,
        skipped_count=r.skipped_count, skipped_by_rule=dict(r.skipped_by_rule),
        examples=[str(in_partition(e, partition_id)) for e in r.skipped]
        + [f"partition {partition_id}, entry {pos}: duplicate of an earlier entry: {loc}"
           for pos, loc in r.duplicates if loc not in dropped])
    keys = run.buf.take_keys(ascending=True) if drop is not None else b""
    return manifest, bytes(keys), sorted(dropped)[:10]


def _dropped(duplicates: list[tuple[int, str]], drop: bytes, prefix: str) -> set[str]:
    """Which example duplicates repeat an earlier partition (their key is in ``drop``):
    a few keys computed again here, not one per row."""
    wanted = frozenset(drop[i:i + KEY_BYTES] for i in range(0, len(drop), KEY_BYTES))
    return {loc for _, loc in duplicates if partition_key(loc, prefix) in wanted}


def in_partition(exc: EntryError, partition: int) -> EntryError:
    """Name the partition in front of the entry's offset within it."""
    exc.where = f"partition {partition}, entry {exc.position}"
    text = str(exc.args[0]) if exc.args else str(exc)
    if not text.startswith("partition "):
        exc.args = (f"partition {partition}, {text}",)
    return exc
