"""The commit: name every file, then make the new set live in dependency order
(shards, extra indexes, the entry point, then copies) and remove only the files of
the previous set that are no longer listed.

Until the entry point's rename, the old entry point still names only old files;
a failure before it removes the new names it added. After it, the new set is live
and later failures are only warnings.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from .._display import count
from . import output
from .index import index_xml
from .options import WriterOptions
from .result import WriteResult
from .storage import Storage, live_set
from .stream import ShardStream


def plan(run: ShardStream) -> list[tuple[Path, str]]:
    """(temp, final name) for every file of the new set, entry point last."""
    opts, r = run.opts, run.result
    stored = [(s, *s.future.result()) for s in run.shards]
    if len(stored) == 1:
        assert run.first_raw is not None
        name = str(opts.filename)
        moves = [(run.write_temp(run.first_raw, name), name)]
        if opts.gzip_copy:  # after the entry point: a copy, referenced by nothing
            moves.append((stored[0][1], name + ".gz"))
        else:
            output.remove_owned_temps([stored[0][1]])
        r.entry_point, r.shard_files = name, [name]
        return moves
    moves = []
    entries: list[tuple[str, str | None]] = []
    for shard, tmp, digest in stored:
        name = str(opts.shard_pattern).format(number=shard.number, digest=digest)
        moves.append((tmp, name))
        r.shard_files.append(name)
        entries.append((r.url(name), shard.newest_lastmod))
    index_moves = []
    for number, xml in enumerate(index_xml(entries, opts.max_bytes), start=1):
        name = (str(opts.index_filename) if number == 1
                else opts.extra_index_pattern.format(number=number))
        index_moves.append((run.write_temp(xml, name), name))
        r.index_files.append(name)
    r.entry_point = r.index_files[0]
    return moves + index_moves[1:] + index_moves[:1]


def previous_set(storage: Storage, opts: WriterOptions, prefix: str,
                 warnings: list[str] | None = None) -> list[str]:
    """What was published here last, read from its entry point (xml or text): the
    files this run replaces and removes. A set that listed sitemaps of another base URL
    is said in ``warnings``: those files are not this folder's, and stay."""
    sample = opts.extra_index_pattern.format(number=12345)
    extra = re.compile(re.escape(sample).replace("12345", r"\d+"))
    names: dict[str, None] = {}
    elsewhere: list[str] = []
    for entry in sorted({str(opts.filename), str(opts.index_filename or opts.filename)}):
        found = live_set(storage, entry, extra, prefix)
        names.update(dict.fromkeys(found.names))
        elsewhere += found.elsewhere
    if elsewhere and warnings is not None:
        warnings.append(f"the sitemap replaced in {storage.where} listed "
                        f"{count(len(elsewhere), 'sitemap')} of another base URL than "
                        f"{prefix} (e.g. {elsewhere[0]}); no file was removed for them")
    return list(names)


def commit(out: Path, moves: list[tuple[Path, str]], r: WriteResult, opts: WriterOptions,
            old: list[str]) -> None:
    """Renames in dependency order: shards, extra indexes, the entry point, then copies.

    Until the entry point's rename, the old entry point still names only old files,
    which are not touched; a failure before it removes the new names it added. After
    it, the new set is live and later failures are only warnings. A single-file set's
    ``.gz`` copy is removed before and renamed after ``sitemap.xml``, so at every
    instant it either matches ``sitemap.xml`` or is absent.
    """
    new = [name for _, name in moves]
    old_names = set(old)
    entry_at = new.index(r.entry_point)
    journal = output.temp_path(out, output.JOURNAL)
    renamed: list[str] = []
    stashed: list[tuple[Path, str]] = []  # old copies moved aside, put back on failure
    try:
        output.write_journal(journal, r.entry_point, new, old, opts.fsync)
        for _, name in moves[entry_at + 1:]:
            if (out / name).exists():
                stash = output.temp_path(out, "stash")
                os.replace(out / name, stash)
                stashed.append((stash, name))
        for tmp, name in moves[:entry_at + 1]:
            os.replace(tmp, out / name)
            renamed.append(name)
    except BaseException:  # a failure, Ctrl-C or SIGTERM: the old set, as it was
        output.remove_owned(out, [n for n in renamed if n not in old_names])
        for stash, name in stashed:
            with contextlib.suppress(OSError):
                os.replace(stash, out / name)
        output.remove_owned_temps([journal])
        raise
    try:
        _after_entry(out, moves[entry_at + 1:], r, opts, old, new, journal, stashed)
    except KeyboardInterrupt as stop:  # the new set is live: finish tidying, then stop
        stop.committed = True  # type: ignore[attr-defined]  # the CLI's last line says so
        _after_entry(out, [], r, opts, old, new, journal, stashed)
        raise


def _after_entry(out: Path, copies: list[tuple[Path, str]], r: WriteResult,
                 opts: WriterOptions, old: list[str], new: list[str], journal: Path,
                 stashed: list[tuple[Path, str]]) -> None:
    """Once the entry point is live: the copies, then the old set's files and the
    journal go. Run again after a stop, it only removes what is left (idempotent)."""
    output.remove_owned_temps([stash for stash, _ in stashed])
    for tmp, name in copies:
        try:
            os.replace(tmp, out / name)
        except OSError as exc:
            output.remove_owned_temps([tmp])
            new.remove(name)
            r.warnings.append(f"{name} could not be written ({exc.strerror}); "
                              f"{r.entry_point} is complete without it")
    try:
        if opts.fsync:
            output.sync_dir(out)
        kept = set(new)
        r.removed += output.remove_owned(out, [name for name in old if name not in kept])
        output.remove_owned_temps([journal])
    except OSError as exc:
        r.warnings.append(f"the new sitemaps are in place, but tidying up failed: {exc}; "
                          "stale files are removed by the next run")
    r.files = new
