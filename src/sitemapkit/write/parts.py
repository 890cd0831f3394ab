"""write_part_files(): a folder of part files as one set, one partition per file,
optionally in a process pool: an engine's output needs no cluster to become sitemaps.

Part files are not partitioned by URL, so the same URL may sit in two of them. A
first pass reads, checks and formats each part once (``prepared.prepare_partition``),
keeping its shards unwritten in the worker process that read it (``affinity``; past
512 MB a worker spills them to a temp folder in ``$TMPDIR``, about ten times the
gzipped size) and reporting the 127-bit keys of its URLs (16 bytes a URL); the driver
merges the keys, and the second pass runs in that same worker, cutting the URLs an
earlier part has out of the kept shards, gzipping and storing them, with no row read
again. The first copy in file
order wins and every dropped copy is counted as a duplicate. A bad row fails the
first pass, before any shard is stored. ``unique=True`` skips the keys for data that
is known to be unique. Text sitemaps keep no lastmod to cut by, so their parts are
read twice (keys, then a write that leaves the repeats out as it meets them).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .._files import remove_dead_temp_folders
from ..errors import InputError
from ..rules.model import EntryError
from ..sources.inputs.partfiles import PartReader, part_files
from ..sources.inputs.readers import UNREADABLE, unreadable
from . import affinity
from .affinity import Task, Workers
from .compress import description
from .options import WriterOptions, resolve
from .partition import (
    PartitionManifest,
    keyed_partition,
    partition_keys,
    repeat_examples,
    repeated_keys,
    write_partition,
)
from .prepared import prepare_partition
from .result import WriteResult
from .setcommit import commit
from .storage import Storage, open_storage, staged

PID_BITS = 20  # partitions per run: up to a million part files
_IN_PARTITION = re.compile(r"^partition \d+, entry \d+: ")

# A worker's answer: the manifest ({} in a first pass) and, from a first pass, the
# part's keys.
Answer = tuple[dict[str, Any], bytes]


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
    storage = open_storage(out, fsync=opts.fsync, storage_options=storage_options)
    with _workers(min(jobs, len(files))) as workers:  # both passes: one start-up
        passes = _Passes([str(f) for f in files], os.fspath(out), prefix, opts, workers,
                         storage_options, storage)
        manifests = passes.unique() if unique else passes.keys_first()
    result = commit(out, manifests, prefix, options=opts, storage_options=storage_options)
    result.elapsed = time.perf_counter() - started
    result.gzip = description(opts.backend, opts.level)  # the workers are this machine's
    return result


class _Passes:
    """The folder's passes over its parts, in worker processes or here."""

    def __init__(self, files: list[str], out: str, prefix: str, opts: WriterOptions,
                 workers: Workers | None, storage_options: Mapping[str, Any] | None,
                 storage: Storage) -> None:
        self.files, self.out, self.prefix, self.opts = files, out, prefix, opts
        self.workers, self.storage_options, self.storage = workers, storage_options, storage
        self.owners: list[int] = []  # the worker that read each part in the first pass

    def unique(self) -> list[dict[str, Any]]:
        return [manifest for manifest, _ in self._run("write", {})]

    def keys_first(self) -> list[dict[str, Any]]:
        """Every part's keys first, then each part written once without the repeats:
        from the shards its first pass kept, in the worker that kept them."""
        if self.opts.format == "text":
            keys = [k for _, k in self._run("keys", {})]
            return [m for m, _ in self._run("write", repeated_keys(keys))]
        remove_dead_spills()
        spill = tempfile.mkdtemp(prefix=f"{SPILL_PREFIX}{os.getpid()}-")
        try:
            keys = [k for _, k in self._run("prepare", {}, spill)]
            return [m for m, _ in self._run("finish", repeated_keys(keys), spill, owned=True)]
        finally:
            affinity.forget()
            shutil.rmtree(spill, ignore_errors=True)

    def _run(self, mode: str, drops: Mapping[int, bytes], spill: str = "",
             owned: bool = False) -> list[Answer]:
        """Every task's answer; when one fails, the shards the others stored are removed
        (no index lists them) and its error is raised."""
        tasks = [(_write_one, (self.files[pid], self.out, self.prefix, pid, self.opts, mode,
                               drops.get(pid, b""), spill, self.storage_options),
                  f"{'reading' if mode in ('prepare', 'keys') else 'writing'} "
                  f"{Path(self.files[pid]).name}") for pid in range(len(self.files))]
        if self.workers is None:
            results, failure = _here(tasks)
        else:
            results, ran, failure = self.workers.run(tasks, self.owners if owned else None)
            self.owners = self.owners if owned else ran
        if failure is not None:
            try:  # the next commit tidies what this cannot remove; the failure is the news
                _discard(self.storage,
                         [n for answer in results if answer for n in _names(answer[0])])
            except OSError:
                pass
            raise failure
        return results


def _here(tasks: list[Task]) -> tuple[list[Any], BaseException | None]:
    """The tasks run in this process, one after another, until one fails."""
    results: list[Any] = []
    for function, args, _ in tasks:
        try:
            results.append(function(*args))
        except Exception as exc:
            return results, exc
    return results, None


def _names(manifest: Mapping[str, Any]) -> set[str]:
    return {shard["name"] for shard in manifest.get("shards", ())}  # keys pass: none


@contextlib.contextmanager
def _workers(jobs: int) -> Iterator[Workers | None]:
    """Worker processes for ``jobs`` > 1, else None (the tasks run here)."""
    if jobs <= 1:
        yield None
        return
    workers = Workers(jobs)
    try:
        yield workers
    finally:
        workers.close()


SPILL_PREFIX = "sitemapkit-parts-"  # + the driver's pid: the spill folders in $TMPDIR


def remove_dead_spills() -> None:
    """Spill folders of drivers that were killed (their pid is gone)."""
    remove_dead_temp_folders(SPILL_PREFIX)


def _discard(storage: Storage, names: list[str]) -> None:
    """Remove shards this run staged but will not list (staged: never a live file, even
    where the live set holds a shard of the same content and name)."""
    storage.delete([staged(n) for n in names])


def _write_one(path: str, out: str, prefix: str, pid: int, opts: WriterOptions, mode: str,
               drop: bytes, spill: str, storage_options: Mapping[str, Any] | None) -> Answer:
    """Worker: one part file as one partition, in the pass ``mode`` names: "prepare"
    (the first pass: the part's shards are kept in this process, beyond
    ``affinity.KEEP_BYTES`` in the ``spill`` folder, and its keys returned), "finish"
    (the second, from what the first kept here), "keys" and "write" (each reads the
    part: text sitemaps, and "write" alone for unique data). URLs whose key is in
    ``drop`` (an earlier part file has them) are left out and named in the manifest."""
    if mode == "finish":  # no row is read again
        manifest, dropped = affinity.take(pid).write(out, drop, storage_options)
        return _named(manifest, Path(path).name, dropped).to_dict(), b""
    reader = PartReader(Path(path))
    try:
        with reader.opened() as source:
            if mode == "prepare":
                kept = prepare_partition(source, prefix, pid, options=opts, spill_dir=spill,
                                         keep_bytes=affinity.KEEP_BYTES - affinity.kept_bytes())
                affinity.keep(pid, kept.without_keys())
                return {}, kept.keys
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
    except InputError as exc:  # named by the reader already, or named here
        raise InputError(str(exc) if str(exc).startswith("cannot read ") else
                         f"{Path(path).name} {exc}") from None
    except UNREADABLE as exc:
        raise InputError(unreadable(reader.where(), exc)) from None
    return _named(manifest, reader.path.name, dropped).to_dict(), b""


def _named(manifest: PartitionManifest, name: str, dropped: list[str]) -> PartitionManifest:
    manifest.examples += repeat_examples(name, dropped, "part file")
    return manifest
