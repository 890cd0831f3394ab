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
``unique=True`` skips the first pass for data you guarantee has no duplicate URLs.
Text sitemaps keep no lastmod to cut by: their partitions are read twice (keys,
then a write that leaves the repeats out).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import ConfigError
from .sources.inputs.partitions import entries_from_rows, table_columns
from .write.options import WriterOptions, resolve
from .write.partition import partition_keys, repeat_examples, repeated_keys, write_once
from .write.prepared import PreparedPartition, prepare_partition
from .write.result import WriteResult
from .write.setcommit import commit

__all__ = ["write_sitemaps"]


def write_sitemaps(data: Any, out: str | os.PathLike[str], base_url: str, *,
                   unique: bool = False, npartitions: int | None = None,
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
    if unique:
        manifests = compute(*[delayed(_write, pure=True)(part, target, prefix, pid, opts,
                                                         storage_options, columns, b"")
                              for pid, part in enumerate(parts)])  # type: ignore[no-untyped-call]
    elif opts.format == "text":  # read twice: keys, then the write
        keys = compute(*[delayed(_keys, pure=True)(part, prefix, pid, opts, columns)
                         for pid, part in enumerate(parts)])  # type: ignore[no-untyped-call]
        drops = repeated_keys(keys)
        manifests = compute(*[delayed(_write, pure=True)(part, target, prefix, pid, opts,
                                                         storage_options, columns,
                                                         drops.get(pid, b""))
                              for pid, part in enumerate(parts)])  # type: ignore[no-untyped-call]
    else:  # each partition's shards kept where they were formatted until the keys merge
        prepare = [delayed(_prepare, pure=True)(part, prefix, pid, opts, columns)
                   for pid, part in enumerate(parts)]
        client = _client()
        manifests = (_by_prefix(client, prepare, target, storage_options) if client
                     else _after_all(prepare, target, storage_options))
    result = commit(out, manifests, prefix, options=opts, storage_options=storage_options)
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


def _after_all(prepare: list[Any], target: str,
               storage_options: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Both passes on a local scheduler: every partition prepared (and kept), then the
    keys merged once, then every partition stored."""
    from dask.base import compute, persist
    from dask.delayed import delayed

    kept = persist(*prepare)  # type: ignore[no-untyped-call]
    drops = repeated_keys(compute(*[delayed(_keys_of, pure=True)(k)
                                    for k in kept]))  # type: ignore[no-untyped-call]
    manifests: list[dict[str, Any]] = compute(*[  # type: ignore[no-untyped-call]
        delayed(_finish, pure=True)(k, target, drops.get(pid, b""), storage_options)
        for pid, k in enumerate(kept)])
    return manifests


def _by_prefix(client: Any, prepare: list[Any], target: str,
               storage_options: Mapping[str, Any] | None) -> list[dict[str, Any]]:
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
