"""write_part_files(): a folder of part files as one set, one partition per file,
optionally in a process pool: an engine's output needs no cluster to become sitemaps.

Part files are not partitioned by URL, so the same URL may sit in two of them. A
first pass has each partition report the 63-bit keys of the URLs it would write (8
bytes a URL, computed by the hot unit; no XML kept, no gzip, no file); the driver
merges them, and each partition is then written once, told the keys an earlier one
has, which the hot unit leaves out as it meets them. The first copy in file order
wins and every dropped copy is counted as a duplicate. A bad row fails the first
pass, before any shard is stored. ``unique=True`` skips the keys for data that is
known to be unique.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..rules.model import EntryError
from ..sources.partfiles import PartReader, part_files
from .commit import previous_set
from .compress import description
from .options import WriterOptions, resolve
from .partition import keyed_partition, partition_keys, repeated_keys, write_partition
from .result import WriteResult
from .setcommit import commit
from .storage import Storage, open_storage

PID_BITS = 20  # partitions per run: up to a million part files
_IN_PARTITION = re.compile(r"^partition \d+, entry \d+: ")

# (part file, out, prefix, partition, options, "keys" or "write", drop: array('q') bytes)
Task = tuple[str, str, str, int, WriterOptions, str, bytes]


def write_part_files(directory: str | os.PathLike[str], out: str | os.PathLike[str],
                     base_url: str, *, jobs: int = 1, unique: bool = False,
                     options: WriterOptions | None = None,
                     storage_options: Mapping[str, Any] | None = None,
                     **overrides: Any) -> WriteResult:
    """Write every part file of ``directory`` as one partition, then commit once."""
    started = time.perf_counter()
    opts, prefix = resolve(options, overrides, base_url)
    files = part_files(Path(directory))
    if len(files) >= 1 << PID_BITS:
        raise InputError(f"{directory} holds {len(files):,} part files; at most "
                         f"{(1 << PID_BITS) - 1:,} are supported")
    target = os.fspath(out)

    def tasks(mode: str, drops: Mapping[int, bytes]) -> list[Task]:
        return [(str(files[pid]), target, prefix, pid, opts, mode, drops.get(pid, b""))
                for pid in range(len(files))]

    storage = open_storage(out, fsync=opts.fsync, storage_options=storage_options)
    drops: dict[int, bytes] = {}
    with _pool(min(jobs, len(files))) as pool:  # one pool for both passes: one start-up
        if not unique:  # every partition's keys first: then each is written once
            keys = _run(tasks("keys", {}), pool, storage_options, storage, opts)
            drops = repeated_keys([k for _, k in keys])
        results = _run(tasks("write", drops), pool, storage_options, storage, opts)
    result = commit(out, [manifest for manifest, _ in results], prefix,
                    options=opts, storage_options=storage_options)
    result.elapsed = time.perf_counter() - started
    result.gzip = description(opts.backend, opts.level)  # the workers are this machine's
    return result


def _names(manifest: Mapping[str, Any]) -> set[str]:
    return {shard["name"] for shard in manifest.get("shards", ())}  # keys pass: none


@contextlib.contextmanager
def _pool(jobs: int) -> Iterator[Executor | None]:
    """Worker processes for ``jobs`` > 1, else None (the tasks run here)."""
    if jobs <= 1:
        yield None
        return
    from concurrent.futures import ProcessPoolExecutor  # on use: a faster CLI start

    with ProcessPoolExecutor(jobs) as pool:
        yield pool


def _run(tasks: list[Task], pool: Executor | None, storage_options: Mapping[str, Any] | None,
         storage: Storage, opts: WriterOptions) -> list[tuple[dict[str, Any], bytes]]:
    """Every task's result; when one fails, the shards the others stored are removed
    (no index lists them) and its error is raised."""
    work = [(*task, storage_options) for task in tasks]
    results: list[tuple[dict[str, Any], bytes]] = []
    failure: BaseException | None = None
    if pool is None or len(work) <= 1:
        try:
            results = [_write_one(*w) for w in work]
        except BaseException as exc:
            failure = exc
    else:
        for future in [pool.submit(_write_one, *w) for w in work]:
            try:
                results.append(future.result())
            except BaseException as exc:
                failure = failure or exc
    if failure is not None:
        try:  # the next commit tidies what this cannot remove; the failure is the news
            _discard(storage, opts, [n for manifest, _ in results for n in _names(manifest)])
        except OSError:
            pass
        raise failure
    return results


def _discard(storage: Storage, opts: WriterOptions, names: list[str]) -> None:
    """Remove shards this run stored but will not list, except any the live set names
    (content-addressed: an unchanged shard has the name it had last time)."""
    live = set(previous_set(storage, opts))
    storage.delete([n for n in names if n not in live])


def _write_one(path: str, out: str, prefix: str, pid: int, opts: WriterOptions, mode: str,
               drop: bytes, storage_options: Mapping[str, Any] | None
               ) -> tuple[dict[str, Any], bytes]:
    """Worker: one part file as one partition. ``keys``: the sorted keys of the URLs it
    would write, nothing stored; ``write``: its manifest, leaving out the URLs whose key
    is in ``drop`` (an earlier part file has them)."""
    reader = PartReader(Path(path))
    try:
        with reader.opened() as source:
            if mode == "keys":
                return {}, partition_keys(source, prefix, pid, options=opts)
            if drop:
                manifest, _, dropped = keyed_partition(source, out, prefix, pid, drop,
                                                       options=opts,
                                                       storage_options=storage_options)
            else:
                manifest, dropped = write_partition(source, out, prefix, pid, options=opts,
                                                    storage_options=storage_options), []
    except EntryError as exc:  # a plain message: it crosses a process boundary
        reader.row = exc.position or 0  # a Parquet row: the entry's offset in the part
        raise InputError(f"{reader.where()}: {_IN_PARTITION.sub('', str(exc))}") from None
    except InputError as exc:
        raise InputError(f"{Path(path).name} {exc}") from None
    except (UnicodeDecodeError, EOFError, gzip.BadGzipFile) as exc:
        raise InputError(f"cannot read {reader.where()}: {exc}") from None
    manifest.examples += [f"{reader.path.name}: {loc} repeats a URL of an earlier part "
                          "file; the first copy is kept" for loc in dropped]
    return manifest.to_dict(), b""
