"""commit(): make the shards of many partitions live as one set, once.

Order is the whole guarantee, on a disk and on an object store alike: every listed
shard is checked against its manifest first; the staged shards are moved to their
final names next (until then no file of this run has a sitemap's name), then the extra
indexes, the entry point last (one whole-file write); only then are files of the previous set
that the new one no longer lists are removed: its shards one commit later (a reader
may still hold the old index), shard files that no index lists (older generations,
failed runs) at once. A reader polling the entry point sees the old set or the new
one, and never an index that names a missing shard.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._display import count
from ..errors import ConfigError, NoUrlsError, OutputError
from ..protocol import MAX_URLS, PARTITION_SHARD_PATTERN
from . import output
from .commit import previous_set
from .index import index_xml
from .options import WriterOptions, resolve
from .output import STAGED_PREFIX
from .partition import PartitionManifest, ShardInfo
from .result import WriteResult
from .storage import Storage, open_storage, staged, storage_error


def commit(out: str | os.PathLike[str], manifests: Iterable[PartitionManifest | Mapping[str, Any]],
           base_url: str, *, options: WriterOptions | None = None,
           storage_options: Mapping[str, Any] | None = None, retain_previous: bool = True,
           **overrides: Any) -> WriteResult:
    """Check every manifest against the stored files, write the index or indexes and
    make the set live. Options must match the ones the partitions were written with.

    ``retain_previous`` keeps the previous set's shards until the next commit, so a
    reader holding the old index never meets a missing shard (see ``_tidy``)."""
    started = time.perf_counter()
    opts, prefix = resolve(options, overrides, base_url)
    parts = _one_per_partition(manifests)
    storage = open_storage(out, fsync=opts.fsync, follow_symlink=opts.follow_symlink,
                           storage_options=storage_options)
    r = WriteResult(Path(storage.where), str(opts.index_filename), [], [], [], 0, 0,
                    base_url=prefix, location=storage.where)
    shards = _shards(parts, prefix, opts, r)
    if not shards:
        raise NoUrlsError("no URLs to write: refusing to write an empty sitemap"
                          + (f" ({r.skipped_count:,} entries skipped as invalid)"
                             if r.skipped_count else ""))
    try:
        with storage.lock(opts.lock_timeout):
            previous = previous_set(storage, opts, prefix, r.warnings)
            storage.unstage(_verify(storage, parts))
            _publish(storage, shards, opts, r)
            _tidy(storage, previous, opts, r, retain_previous)
    except OSError as exc:
        raise storage_error(storage, exc) from exc
    r.shard_count = len(r.shard_files)
    r.notes += output.removed_note(r.removed, "of the set it replaced, or of a killed run")
    r.elapsed = time.perf_counter() - started
    return r


def _one_per_partition(manifests: Iterable[PartitionManifest | Mapping[str, Any]]
                       ) -> list[PartitionManifest]:
    """A retried or speculative task may report its partition twice: once is kept when
    both copies agree; two different answers for one partition are an error."""
    seen: dict[int, PartitionManifest] = {}
    for item in manifests:
        m = item if isinstance(item, PartitionManifest) else PartitionManifest.from_dict(item)
        kept = seen.setdefault(m.partition, m)
        if kept.shards != m.shards:
            raise ConfigError(f"partition {m.partition} was reported twice with different "
                              "shards (input that changes between task attempts?); nothing "
                              "was committed")
    return [seen[p] for p in sorted(seen)]


def _shards(parts: list[PartitionManifest], prefix: str, opts: WriterOptions,
            r: WriteResult) -> list[ShardInfo]:
    """Every shard in partition order, after checking that the manifests fit this set."""
    shards: list[ShardInfo] = []
    for m in parts:
        if m.base_url != prefix or m.format != opts.format:
            raise ConfigError(f"partition {m.partition} was written for {m.base_url} "
                              f"({m.format}), not {prefix} ({opts.format}); nothing was "
                              "committed")
        shards.extend(m.shards)
        r.url_count += m.url_count
        r.duplicate_count += m.duplicate_count
        r.skipped_count += m.skipped_count
        for rule, n in m.skipped_by_rule.items():
            r.skipped_by_rule[rule] = r.skipped_by_rule.get(rule, 0) + n
        r.examples.extend(m.examples[: max(0, 100 - len(r.examples))])
    names = [s.name for s in shards]
    if len(set(names)) != len(names):
        raise ConfigError("two partitions name the same shard file; nothing was committed")
    return shards


def _verify(storage: Storage, parts: list[PartitionManifest]) -> list[str]:
    """Every shard a manifest lists is stored, with the size the manifest says: staged
    (returned, to be moved), or already under its final name (a commit of the same
    manifests that was stopped after its moves)."""
    waiting = []
    for m in parts:
        for s in m.shards:
            size = storage.size(staged(s.name))
            if size is not None:
                waiting.append(s.name)
            else:
                size = storage.size(s.name)
            if size != s.gz_bytes:
                state = "is missing" if size is None else f"has {size:,} bytes, not {s.gz_bytes:,}"
                raise OutputError(f"partition {m.partition}: shard {s.name} {state} in "
                                  f"{storage.where}; nothing was committed, the previous "
                                  "sitemaps there are unchanged")
    return waiting


def _publish(storage: Storage, shards: list[ShardInfo], opts: WriterOptions,
             r: WriteResult) -> None:
    """Extra indexes first, the entry point last: that one write makes the set live."""
    entries = [(r.url(s.name), s.newest_lastmod) for s in shards]
    indexes = index_xml(entries, opts.max_bytes)
    names = [str(opts.index_filename)] + [opts.extra_index_pattern.format(number=n)
                                          for n in range(2, len(indexes) + 1)]
    for name, data in list(zip(names, indexes, strict=True))[1:] + [(names[0], indexes[0])]:
        storage.put(name, data)
    r.entry_point, r.index_files = names[0], names
    r.shard_files = [s.name for s in shards]
    r.files = r.shard_files + names[1:] + names[:1]
    if len(names) > 1:
        r.warnings.append(f"{count(len(shards), 'shard')} need {len(names)} index files "
                          f"({MAX_URLS:,} sitemaps each): list every one in robots.txt or submit "
                          f"each ({', '.join(names)})")


def _tidy(storage: Storage, previous: list[str], opts: WriterOptions, r: WriteResult,
          retain_previous: bool) -> None:
    """After the set is live, remove what no reader can still need.

    With ``retain_previous`` the previous set's shards stay one more commit: a crawler
    or CDN that fetched the old index a moment ago (search engines fetch shards long
    after the index) still finds every shard it names. Shard files that neither set
    lists (older generations, failed runs) go now, and so do the previous set's
    indexes and copies that the new set does not reuse, the temp files of
    partition tasks that were killed mid-write (their retries wrote the shards again),
    and what an engine run killed between its jobs kept (``Storage.keep``).
    """
    live = set(r.files)
    shard_like = _shard_names(opts)
    old = [n for n in previous if n not in live]
    kept = {n for n in old if retain_previous and shard_like.fullmatch(n)}
    gone = [n for n in old if n not in kept]
    present = storage.names()
    strays = [n for n in present if shard_like.fullmatch(n) and n not in live
              and n not in kept and n not in gone and
              output.looks_like_sitemap(storage.get(n, output.SNIFF_BYTES) or b"", n)]
    if strays:  # another set in this folder may name files of the same shape
        listed = output.names_listed(present, storage.get)
        strays = [n for n in strays if n not in listed]
    # shards staged by tasks that were killed or retried, or by a run that never
    # committed: hidden, named by no manifest of this commit
    unused = [n for n in present if n.startswith(STAGED_PREFIX)
              and shard_like.fullmatch(n[len(STAGED_PREFIX):])]
    try:
        r.removed += storage.delete(gone + strays + unused)
        r.removed += storage.drop_kept()  # a killed engine run's prepared shards and keys
        r.removed += storage.remove_dead_temps(sorted(live | kept), opts.entry_names)
    except OSError as exc:
        r.warnings.append(f"the new sitemaps are live, but removing "
                          f"{count(len(gone) + len(strays), 'old file')} failed ({exc}); the "
                          "next commit removes them")
        return
    r.retained = sorted(kept)


def _shard_names(opts: WriterOptions) -> re.Pattern[str]:
    """Shard files sitemapkit names: partition shards, and write_sitemaps' own."""
    ext = "txt" if opts.format == "text" else "xml"
    samples = [PARTITION_SHARD_PATTERN.format(partition=11111, number=22222,
                                              digest="dddddddd", ext=ext),
               str(opts.shard_pattern).format(number=22222, digest="dddddddd")]
    return re.compile("|".join(
        re.escape(sample).replace("11111", r"\d+").replace("22222", r"\d+")
        .replace("dddddddd", "[0-9a-f]+") for sample in samples))
