"""Dask adapter: ``write_sitemaps(ddf_or_bag, out, base_url)`` on whatever scheduler
is active (a ``distributed`` cluster when a Client exists).

Each Dask partition becomes one ``write_partition`` task on a worker; the driver
collects only the manifests and commits once. A URL in two partitions is written
once, the first partition's copy kept, with no rows moved between workers: a first
pass has each partition send the driver its URLs' sorted 8-byte keys (computed by
the hot unit, no XML, no file), the driver merges them to find the repeats, and each
partition is then written once, leaving out the URLs an earlier one has (the folder
mode's way). ``unique=True`` skips the first pass for data you guarantee has no
duplicate URLs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import ConfigError
from .sources.partitions import entries_from_rows, table_columns
from .write.options import WriterOptions, resolve
from .write.partition import partition_keys, repeated_keys, write_once
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
    drops: dict[int, bytes] = {}
    if not unique:  # the keys pass: 8 bytes a URL to the driver, nothing written
        keys = compute(*[delayed(_keys, pure=True)(part, prefix, pid, opts, columns)
                         for pid, part in enumerate(parts)])  # type: ignore[no-untyped-call]
        drops = repeated_keys(keys)
    tasks = [delayed(_write, pure=True)(part, os.fspath(out), prefix, pid, opts,
                                        storage_options, columns, drops.get(pid, b""))
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
