"""Dask adapter: ``write_sitemaps(ddf_or_bag, out, base_url)`` on whatever scheduler
is active (a ``distributed`` cluster when a Client exists).

Each Dask partition becomes one partition of the set, written on a worker; the
driver collects only the manifests and commits once. A URL in two partitions is
written once, the first partition's copy kept, with no rows moved between workers
and no row read twice: a first pass reads, checks and formats each partition
(``write.prepared``), and its shards stay on the worker, unwritten, as the task's
result (Dask spills them to disk as it spills any result); the driver gathers only
their URLs' sorted 16-byte keys and merges them to find the repeats, and each
partition's shards are then stored with the repeats cut out, where they are. A
partition's repeats depend only on the partitions before it, so on a ``distributed``
cluster the driver merges the keys of each finished prefix (when it has doubled, to
keep the merges' total within twice the last one) and stores those partitions while
the rest are still read: no barrier between the passes.
With ``duplicates="engine"`` the keys never reach the driver: each partition's keys
are cut into ranges of their first word, one task a range finds the repeats there
(the hot unit's ``repeats``), and each partition's drop list is joined on a worker:
a shuffle of the keys through Dask's own graph, 16 bytes a URL across the workers,
and the driver holds only the manifests whatever the URL count. ``"auto"`` (the
default) takes it when the first partition's keys, times the partition count, would
pass ``driver_budget`` bytes, and says so.
``unique=True`` skips the first pass for data you guarantee has no duplicate URLs.
Text sitemaps keep no lastmod to cut by: their partitions are read twice (keys,
then a write that leaves the repeats out).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from typing import Any

from . import _urlset
from .errors import ConfigError
from .sources.inputs.partitions import KEY_BYTES, entries_from_rows, table_columns
from .write.options import WriterOptions, resolve
from .write.partition import (
    DRIVER_KEYS_BUDGET,
    check_duplicates_option,
    choose_check,
    key_ranges,
    partition_keys,
    repeat_examples,
    repeated_keys,
    write_once,
)
from .write.prepared import PreparedPartition, prepare_partition
from .write.result import WriteResult
from .write.setcommit import commit

__all__ = ["write_sitemaps"]


def write_sitemaps(data: Any, out: str | os.PathLike[str], base_url: str, *,
                   unique: bool = False, duplicates: str = "auto",
                   npartitions: int | None = None, driver_budget: int = DRIVER_KEYS_BUDGET,
                   options: WriterOptions | None = None,
                   storage_options: Mapping[str, Any] | None = None,
                   **overrides: Any) -> WriteResult:
    """Write ``data`` (a Dask DataFrame with columns loc and any of lastmod, changefreq,
    priority; or a Bag of URL strings, mappings or UrlEntry) as one sitemap set."""
    import dask.bag as db
    import dask.dataframe as dd
    from dask.base import compute
    from dask.delayed import delayed

    started = time.perf_counter()
    opts, prefix = resolve(options, overrides, base_url)  # bad options fail here, not on workers
    check_duplicates_option(duplicates, driver_budget)
    if isinstance(data, dd.DataFrame):
        columns = table_columns(list(data.columns), "the Dask DataFrame")
        _check_dtypes(data[columns].dtypes)
        data = data[columns]
    elif isinstance(data, db.Bag):
        columns = []
    else:
        raise ConfigError(f"sitemapkit.dask.write_sitemaps takes a Dask DataFrame or Bag, not "
                          f"{type(data).__name__}")
    parts = list((data.repartition(npartitions=npartitions) if npartitions else data)
                 .to_delayed())
    target = os.fspath(out)
    notes: list[str] = []
    if unique:
        manifests = compute(*[delayed(_write, pure=True)(part, target, prefix, pid, opts,
                                                         storage_options, columns, b"")
                              for pid, part in enumerate(parts)])  # type: ignore[no-untyped-call]
    elif opts.format == "text":  # read twice: keys, then the write
        keyed = [delayed(_keys, pure=True)(part, prefix, pid, opts, columns)
                 for pid, part in enumerate(parts)]
        if duplicates == "engine":  # the drop lists made on the workers, too
            drop = _engine_drops(keyed)
        else:
            found = repeated_keys(compute(*keyed))  # type: ignore[no-untyped-call]
            drop = [found.get(pid, b"") for pid in range(len(parts))]
        manifests = compute(*[delayed(_write, pure=True)(part, target, prefix, pid, opts,
                                                         storage_options, columns, drop[pid])
                              for pid, part in enumerate(parts)])  # type: ignore[no-untyped-call]
    else:  # each partition's shards kept where they were formatted until the keys merge
        prepare = [delayed(_prepare, pure=True)(part, prefix, pid, opts, columns)
                   for pid, part in enumerate(parts)]
        client = _client()
        budget = Budget(driver_budget if duplicates == "auto" else None, len(prepare), notes)
        manifests = (_in_engine(prepare, target, storage_options) if duplicates == "engine"
                     else _by_prefix(client, prepare, target, storage_options, budget)
                     if client else _after_all(prepare, target, storage_options, budget))
    result = commit(out, manifests, prefix, options=opts, storage_options=storage_options)
    result.notes[:0] = notes
    result.elapsed = time.perf_counter() - started
    return result


def _client() -> Any:
    """The ``distributed`` Client that ``dask.compute`` would use here, or None (a
    local scheduler: it has no futures to pipeline with)."""
    from dask.base import get_scheduler

    owner = getattr(get_scheduler(), "__self__", None)  # type: ignore[no-untyped-call]
    try:
        from distributed import Client
    except ImportError:
        return None
    return owner if isinstance(owner, Client) else None


class Budget:
    """``duplicates="auto"``: whether the driver's check stays within ``driver_budget``,
    judged from partition 0's key count times the partition count (a Dask DataFrame's
    length is unknown until it is read) once its first pass ends."""

    def __init__(self, limit: int | None, partitions: int, notes: list[str]) -> None:
        self.limit, self.partitions, self.notes = limit, partitions, notes

    def engine(self, first_keys: bytes) -> bool:
        """True when the engine's check must take over (said in a note)."""
        if self.limit is None:
            return False
        urls = len(first_keys) // KEY_BYTES * self.partitions
        limit, self.limit, said = self.limit, None, len(self.notes)  # judged once
        how = choose_check(urls, limit, self.notes)
        self.notes[said] = self.notes[said].replace("the keys of", "the keys of about") + (
            f" (estimated from the first of {self.partitions:,} partitions)")
        return how == "engine"


def _after_all(prepare: list[Any], target: str,
               storage_options: Mapping[str, Any] | None,
               budget: Budget) -> list[dict[str, Any]]:
    """Both passes on a local scheduler: every partition prepared (and kept), then the
    keys merged once, then every partition stored."""
    from dask.base import compute, persist
    from dask.delayed import delayed

    kept = persist(*prepare)  # type: ignore[no-untyped-call]
    keys = compute(*[delayed(_keys_of, pure=True)(k) for k in kept])  # type: ignore[no-untyped-call]
    if keys and budget.engine(keys[0]):
        del keys
        return _in_engine(list(kept), target, storage_options)
    drops = repeated_keys(keys)
    manifests: list[dict[str, Any]] = compute(*[  # type: ignore[no-untyped-call]
        delayed(_finish, pure=True)(k, target, drops.get(pid, b""), storage_options)
        for pid, k in enumerate(kept)])
    return manifests


def _by_prefix(client: Any, prepare: list[Any], target: str,
               storage_options: Mapping[str, Any] | None,
               budget: Budget) -> list[dict[str, Any]]:
    """Both passes on a cluster, the second started a prefix at a time: partition p's
    repeats are the keys partitions 0..p-1 hold, so once every partition up to p is
    prepared they are final. The merge runs again each time the finished prefix has
    doubled (and at the end), so all merges together cost at most twice the last.

    The prefixes only fill early if partitions are read in order, which Dask's own
    ordering does not do (it breaks ties by key name). So the first pass goes in as
    one graph per doubling (partitions 0, 1, 2-3, 4-7, ...; a few dozen graphs for a
    billion partitions, not one each), earlier ones at a higher priority; a stored
    partition frees what its first pass kept, so the second pass outranks them all."""
    from dask.delayed import delayed
    from distributed import as_completed

    kept: list[Any] = []
    pending: dict[Any, int] = {}  # each partition's keys, as its first pass ends
    for rank, (lo, hi) in enumerate(_doublings(len(prepare))):
        batch = client.compute(prepare[lo:hi] + [delayed(_keys_of, pure=True)(p)
                                                 for p in prepare[lo:hi]], priority=-rank)
        kept += batch[:hi - lo]
        pending.update(zip(batch[hi - lo:], range(lo, hi), strict=True))
    keys: list[bytes | None] = [None] * len(kept)
    finishing: list[Any] = []
    merged = 0
    try:
        for done in as_completed(list(pending)):  # type: ignore[no-untyped-call]
            keys[pending.pop(done)] = done.result()  # the worker lets its copy go
            if merged == 0 and keys[0] is not None and budget.engine(keys[0]):
                client.cancel(list(pending))  # the workers find the repeats instead
                return _in_engine(kept, target, storage_options)
            ready = merged
            while ready < len(keys) and keys[ready] is not None:
                ready += 1
            if ready > merged and (ready == len(keys) or ready >= 2 * merged):
                drops = repeated_keys([k or b"" for k in keys[:ready]])
                for pid in range(merged, ready):  # the kept shards go once stored
                    finishing.append(client.submit(_finish, kept[pid], target,
                                                   drops.get(pid, b""), storage_options,
                                                   pure=False, priority=1))
                    kept[pid] = None
                merged = ready
    except BaseException:  # a partition failed: stop the rest (what was already stored
        # is in no live index, and the next commit tidies it)
        client.cancel([k for k in kept if k is not None] + list(pending) + finishing)
        raise
    manifests: list[dict[str, Any]] = client.gather(finishing)
    return manifests


ENGINE_RANGES = 32  # key ranges of the engine's check: tasks that each see every partition


def _in_engine(prepare: list[Any], target: str,
               storage_options: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Both passes with the repeats found on the workers: each partition's keys cut
    into ranges of their first word, a task a range runs the hot unit's ``repeats``
    over every partition's slice, and each partition's drop list joined where its
    shards are kept. Only the manifests come to the driver."""
    from dask.base import compute
    from dask.delayed import delayed

    drops = _engine_drops([delayed(_keys_of, pure=True)(p) for p in prepare])
    manifests: list[dict[str, Any]] = list(compute(*[  # type: ignore[no-untyped-call]
        delayed(_finish, pure=True)(p, target, drops[pid], storage_options)
        for pid, p in enumerate(prepare)]))
    return manifests


def _engine_drops(keys: list[Any]) -> list[Any]:
    """Each partition's drop list as a task's result, from tasks that each hold their
    partition's sorted keys (``keys``): the keys cut into ranges, one task a range."""
    from dask.delayed import delayed

    ranges = max(1, min(len(keys), ENGINE_RANGES))
    cuts = [(i << 63) // ranges for i in range(1, ranges)]
    sliced = [delayed(key_ranges, pure=True, nout=ranges)(k, cuts) for k in keys]
    found = [delayed(_range_repeats, pure=True)([s[r] for s in sliced])
             for r in range(ranges)]
    return [delayed(b"".join, pure=True)([f[pid] for f in found]) for pid in range(len(keys))]


def _range_repeats(arrays: list[bytes]) -> list[bytes]:
    """Worker: for one key range, each partition's keys that an earlier one has."""
    return list(_urlset.repeats(arrays))


def _doublings(n: int) -> list[tuple[int, int]]:
    """[0, 1), [1, 2), [2, 4), [4, 8), ... up to n: the prefixes the keys merge at."""
    bounds = [0] + [1 << k for k in range(max(n - 1, 0).bit_length())] + [n]
    return [(lo, hi) for lo, hi in zip(bounds, bounds[1:], strict=False) if lo < hi]


def _check_dtypes(dtypes: Any) -> None:
    lastmod = dtypes.get("lastmod")
    if lastmod is not None and str(lastmod).startswith("datetime64") and "," not in str(lastmod):
        raise ConfigError("column lastmod holds times without a UTC offset, so they could be "
                          "any time zone's: localize them first, e.g. "
                          "ddf['lastmod'] = ddf['lastmod'].dt.tz_localize('UTC')")


def _entries(part: Any, columns: list[str]) -> Any:
    """A partition's entries: a pandas frame as Arrow columns (``sources.arrowcols``:
    rows straight into the hot unit's byte path, no Python object per row; Arrow-backed
    strings, Dask's default, are not even copied), or a Bag partition's items."""
    if not columns:
        return part
    import pyarrow as pa  # dask[dataframe] requires it

    try:
        return pa.Table.from_pandas(part, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed Python types in a column
        return _python_rows(part, columns)


def _python_rows(part: Any, columns: list[str]) -> Iterable[object]:
    """A pandas frame's rows as entries, one Python object each (times formatted
    with their UTC offset): for columns Arrow cannot type."""
    values = []
    for name in columns:
        col = part[name]
        if name == "lastmod" and str(col.dtype).startswith("datetime64"):
            col = col.dt.tz_convert("UTC").dt.strftime("%Y-%m-%dT%H:%M:%S+00:00")
        values.append(col.astype(object).tolist())
    return entries_from_rows(zip(*values, strict=True), columns)


def _keys(part: Any, prefix: str, pid: int, opts: WriterOptions,
          columns: list[str]) -> bytes:
    """Worker, first pass: the partition's sorted URL keys."""
    return partition_keys(_entries(part, columns), prefix, pid, options=opts)


def _write(part: Any, out: str, prefix: str, pid: int, opts: WriterOptions,
           storage_options: Mapping[str, Any] | None, columns: list[str],
           drop: bytes) -> dict[str, Any]:
    """Worker: one partition as one sitemap partition, the URLs in ``drop`` left out."""
    return write_once(_entries(part, columns), out, prefix, pid, drop, options=opts,
                      storage_options=storage_options).to_dict()


def _prepare(part: Any, prefix: str, pid: int, opts: WriterOptions,
             columns: list[str]) -> PreparedPartition:
    """Worker, first pass: the partition read, checked and formatted; kept here."""
    return prepare_partition(_entries(part, columns), prefix, pid, options=opts)


def _keys_of(kept: PreparedPartition) -> bytes:
    """Worker: what the driver needs of a first pass, 16 bytes a URL."""
    return kept.keys


def _finish(kept: PreparedPartition, out: str, drop: bytes,
            storage_options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Worker, second pass: the kept shards stored, the URLs in ``drop`` cut out."""
    manifest, dropped = kept.write(out, drop, storage_options)
    manifest.examples += repeat_examples(f"partition {kept.partition}", dropped, "partition")
    return manifest.to_dict()
