"""Dask adapter: ``write_sitemaps(ddf_or_bag, out, base_url)`` on whatever scheduler
is active (a ``distributed`` cluster when a Client exists).

Each Dask partition becomes one ``write_partition`` task on a worker; the driver
collects only the manifests and commits once. By default rows are first shuffled by
a hash of the normalized loc, so a URL that appears in two partitions meets itself
in one and is written once. ``unique=True`` skips that shuffle (a full pass over the
data through the network) for data you guarantee has no duplicate URLs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from .errors import ConfigError
from .sources.partitions import (
    canonical_loc,
    entries_from_rows,
    entry_loc,
    entry_sort_key,
    partition_key,
    sort_key,
    table_columns,
)
from .write.options import WriterOptions, resolve
from .write.partition import write_partition
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
    write: Callable[..., dict[str, Any]]
    if isinstance(data, dd.DataFrame):
        columns = table_columns(list(data.columns), "the Dask DataFrame")
        _check_dtypes(data[columns].dtypes)
        parts, write = _frame_parts(data[columns], prefix, unique, npartitions), _write_frame
    elif isinstance(data, db.Bag):
        columns = []
        parts, write = _bag_parts(data, prefix, unique, npartitions), _write_bag
    else:
        raise ConfigError(f"sitemapkit.dask.write_sitemaps takes a Dask DataFrame or Bag, not "
                          f"{type(data).__name__}")
    tasks = [delayed(write, pure=True)(part, os.fspath(out), prefix, pid, opts,
                                            storage_options, columns, not unique)
             for pid, part in enumerate(parts)]
    manifests = compute(*tasks)  # type: ignore[no-untyped-call]
    result = commit(out, manifests, prefix, options=opts, storage_options=storage_options)
    result.elapsed = time.perf_counter() - started
    return result


def _check_dtypes(dtypes: Any) -> None:
    lastmod = dtypes.get("lastmod")
    if lastmod is not None and str(lastmod).startswith("datetime64") and "," not in str(lastmod):
        raise ConfigError("column lastmod holds times without a UTC offset, so they could be "
                          "any time zone's: localize them first, e.g. "
                          "ddf['lastmod'] = ddf['lastmod'].dt.tz_localize('UTC')")


def _frame_parts(ddf: Any, prefix: str, unique: bool, npartitions: int | None) -> list[Any]:
    if not unique:
        keys = ddf["loc"].map_partitions(
            lambda s: s.map(lambda loc: partition_key(loc, prefix)), meta=("loc", "int64"))
        ddf = ddf.assign(_sitemapkit_key=keys).shuffle(
            "_sitemapkit_key", npartitions=npartitions or ddf.npartitions)
    elif npartitions:
        ddf = ddf.repartition(npartitions=npartitions)
    return list(ddf.to_delayed())


def _bag_parts(bag: Any, prefix: str, unique: bool, npartitions: int | None) -> list[Any]:
    if unique:
        return list((bag.repartition(npartitions) if npartitions else bag).to_delayed())
    records = bag.map(lambda e: {"_sitemapkit_key": partition_key(entry_loc(e), prefix),
                                 "entry": e})
    ddf = records.to_dataframe(meta={"_sitemapkit_key": "int64", "entry": object})
    # entries of any Python type: the task-based shuffle pickles them (P2P needs Arrow types)
    ddf = ddf.shuffle("_sitemapkit_key", npartitions=npartitions or bag.npartitions,
                      shuffle_method="tasks")
    return list(ddf.to_delayed())


def _write_frame(frame: Any, out: str, prefix: str, pid: int, opts: WriterOptions,
                 storage_options: Mapping[str, Any] | None, columns: list[str],
                 ordered: bool) -> dict[str, Any]:
    """Worker: one pandas partition as one sitemap partition."""
    values = []
    for name in columns:
        col = frame[name]
        if name == "lastmod" and str(col.dtype).startswith("datetime64"):
            col = col.dt.tz_convert("UTC").dt.strftime("%Y-%m-%dT%H:%M:%S+00:00")
        values.append(col.astype(object).tolist())
    rows = list(zip(*values, strict=True))
    if ordered:
        rows.sort(key=sort_key)
    return write_partition(entries_from_rows(rows, columns), out, prefix, pid, options=opts,
                           storage_options=storage_options).to_dict()


def _write_bag(part: Any, out: str, prefix: str, pid: int, opts: WriterOptions,
               storage_options: Mapping[str, Any] | None, columns: list[str],
               ordered: bool) -> dict[str, Any]:
    """Worker: one Bag partition (a list, or a shuffled frame of entries)."""
    entries = list(part["entry"]) if hasattr(part, "columns") else list(part)
    if ordered:
        entries.sort(key=lambda e: (canonical_loc(entry_loc(e), prefix), entry_sort_key(e)))
    return write_partition(entries, out, prefix, pid, options=opts,
                           storage_options=storage_options).to_dict()
