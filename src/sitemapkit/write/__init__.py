"""write_sitemaps(): stream entries into shards, gzip them in threads, commit the set.

Data flows one way: entries -> hot unit (``_urlset``) -> shard bytes -> worker
threads (gzip + temp file) -> one commit of renames. Nothing is renamed into place
until every entry was accepted, so a failed run leaves the old set intact.

Modules: ``options`` (WriterOptions), ``stream`` (shards), ``commit`` (naming and the
renames), ``index`` (index XML), ``output`` (atomic files, lock, temps),
``compress`` (reproducible gzip), ``changes`` (the per-URL lastmod record).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Any

from .. import _urlset
from .._compat import quick_handoffs
from ..errors import NoUrlsError, OutputError
from . import output
from .commit import commit, plan, previous_set
from .options import WriterOptions, resolve
from .result import WriteResult
from .storage import LocalStorage
from .stream import LineSource, MemoryShards, ShardStream

__all__ = ["WriteResult", "WriterOptions", "shard_bytes", "write_sitemaps"]


def write_sitemaps(
    entries: Iterable[object] | LineSource,
    out_dir: str | os.PathLike[str],
    base_url: str,
    *,
    options: WriterOptions | None = None,
    where: Callable[[int], str | None] | None = None,
    waiting: Callable[[str], None] | None = None,
    _impl: ModuleType | None = None,
    **overrides: Any,
) -> WriteResult:
    """Write sitemaps for ``entries`` (UrlEntry, URL strings or mappings) into ``out_dir``.

    ``base_url`` is the URL of ``out_dir`` on the site; every loc must be at or below it.
    Options are ``WriterOptions`` fields, given as ``options=`` and/or keywords.
    ``where`` names an entry's origin by its position (an input line), for every entry
    refused and counted. ``waiting`` hears at once when another writer holds the folder.
    """
    started = time.perf_counter()
    opts, prefix = resolve(options, overrides, base_url)
    impl = _impl or _urlset
    out = output.prepare_dir(out_dir, opts.follow_symlink)
    workers = opts.workers or 1  # filled by resolve()
    waited: list[str] = []
    with output.locked(out, opts.lock_timeout, waited, waiting), quick_handoffs(), \
            ThreadPoolExecutor(workers) as pool:
        warned: list[str] = []
        previous = previous_set(LocalStorage(out, opts.fsync), opts, prefix, warned)
        orphans = output.remove_stale_temps(out, previous, opts.entry_names, waited)
        run = ShardStream(out, prefix, opts, impl, pool, workers)
        run.result.removed += orphans
        run.result.warnings += warned
        run.result.notes += waited
        run.where = where
        try:
            run.stream(entries)
            if not run.shards:
                raise NoUrlsError(
                    "no URLs to write: refusing to write an empty sitemap"
                    + (f" ({run.result.skipped_count} entries skipped as invalid)"
                       if run.result.skipped_count else ""))
            commit(out, plan(run), run.result, opts, previous)
        except BaseException as exc:
            run.abandon()
            if isinstance(exc, OSError) and not isinstance(exc, OutputError):
                raise OutputError(
                    f"could not write sitemaps into {out}: {exc.strerror or exc}"
                    f"{output.named_file(exc)}; the previous "
                    "sitemaps there are unchanged") from exc
            raise
    _finish(run, opts, prefix)
    run.result.elapsed = time.perf_counter() - started
    return run.result


def shard_bytes(entries: Iterable[object] | LineSource, base_url: str, *,
                options: WriterOptions | None = None, _impl: ModuleType | None = None,
                **overrides: Any) -> list[bytes]:
    """Every shard's uncompressed bytes for ``entries``, in memory, exactly as
    ``write_sitemaps`` would write them (same checks; nothing is gzipped or stored)."""
    opts, prefix = resolve(options, overrides, base_url)
    run = MemoryShards(prefix, opts, _impl or _urlset)
    run.stream(entries)
    return run.data


def _finish(run: ShardStream, opts: WriterOptions, prefix: str) -> None:
    """After the set is live: the change record and the warnings about it."""
    r = run.result
    r.shard_count = len(r.shard_files)
    r.notes += output.removed_note(r.removed, "of the set it replaced, or of a killed run")
    if run.record is not None:
        r.changes = run.record.compare()
        try:
            run.record.save()
        except OSError as exc:
            r.warnings.append(f"the lastmod record {run.record.path} could not be saved "
                              f"({exc.strerror}); the next run compares with the older one")
    lonely, example = run.settled_clusters().missing_members()
    if lonely:
        r.warnings.append(f"{lonely} alternate URLs on this site were never written with "
                          f"their cluster, so search engines may ignore those clusters "
                          f"(sitemapkit rules 36)" + (f", e.g. {example}" if example else ""))
    if "{digest" not in str(opts.shard_pattern) and r.shard_count > 1:
        r.warnings.append(f"shard_pattern {opts.shard_pattern!r} has no {{digest}}: new shards "
                          "overwrite the ones the live index names while they are written, so "
                          "a reader may briefly see a mix (with {digest} it never can)")
    if run.buf.unused_fields:
        r.warnings.append(f"{run.buf.unused_fields} entries had lastmod, changefreq, priority "
                          "or alternates, which a text sitemap cannot carry")
