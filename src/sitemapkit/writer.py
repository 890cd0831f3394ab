"""write_sitemaps(): stream entries into shards, gzip them in threads, write the index.

Data flows one way: entries -> hot unit (``_urlset``) -> shard bytes -> worker
threads (gzip + temp file) -> one commit of renames. Nothing is renamed into
place until every entry was accepted, so a failed run leaves the old set intact.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any, Literal
from urllib.parse import quote

from . import _output, _urlset
from ._display import count, shown_path
from ._urlset_py import NS, escape
from .changes import Changes, LastmodRecord
from .compress import check_level, gzip_bytes
from .entries import EntryError, Normalized, normalize_base_url, normalize_entry
from .hreflang import ClusterCheck

PROTOCOL_MAX_URLS = 50_000
PROTOCOL_MAX_BYTES = 52_428_800  # current protocol maximum (uncompressed)
DEFAULT_MAX_BYTES = 10_485_760  # older, stricter figure every consumer accepts
EXAMPLES_KEPT = 100


class ConfigError(ValueError):
    """An option is out of range or unsafe."""


class NoUrlsError(ValueError):
    """Nothing to write: an empty sitemap is never written (sitemapkit rules 7)."""


@dataclass(frozen=True)
class WriterOptions:
    """Everything write_sitemaps() can be told; plugins and the CLI build one of these."""

    max_urls: int = PROTOCOL_MAX_URLS
    max_bytes: int = DEFAULT_MAX_BYTES
    format: Literal["xml", "text"] = "xml"
    filename: str | None = None  # sitemap.xml / sitemap.txt
    index_filename: str | None = None  # xml: same as filename; text: sitemap-index.xml
    shard_pattern: str | None = None  # sitemap-{number:05d}-{digest}.xml.gz
    extra_index_pattern: str = "sitemap-index-{number:05d}.xml"
    gzip_copy: bool = True  # single-file sets also get filename + ".gz"
    gzip_level: int = 6
    gzip_backend: str = "zlib"
    on_invalid: Literal["error", "skip"] = "error"
    workers: int | None = None
    fsync: bool = True
    now: datetime | None = None  # reference time for the future-lastmod check
    lock_timeout: float = 600.0
    follow_symlink: bool = False  # allow an output directory that is a symlink
    changes_file: str | None = None  # per-URL lastmod record: enables WriteResult.changes

    def resolved(self) -> WriterOptions:
        """Fill defaults that depend on the format and check every value."""
        text = self.format == "text"
        ext = "txt" if text else "xml"
        opts = replace(
            self,
            filename=self.filename or f"sitemap.{ext}",
            shard_pattern=self.shard_pattern or f"sitemap-{{number:05d}}-{{digest}}.{ext}.gz",
        )
        opts = replace(opts, index_filename=opts.index_filename
                       or ("sitemap-index.xml" if text else opts.filename))
        opts._check()
        return opts

    def _check(self) -> None:
        def bad(msg: str) -> ConfigError:
            return ConfigError(msg)

        if self.format not in ("xml", "text"):
            raise bad(f"format must be 'xml' or 'text', not {self.format!r}")
        if not isinstance(self.max_urls, int) or not 1 <= self.max_urls <= PROTOCOL_MAX_URLS:
            raise bad(f"max_urls must be 1..{PROTOCOL_MAX_URLS}, not {self.max_urls!r}")
        if not isinstance(self.max_bytes, int) or not 1024 <= self.max_bytes <= PROTOCOL_MAX_BYTES:
            raise bad(f"max_bytes must be 1024..{PROTOCOL_MAX_BYTES:,} (the protocol maximum), "
                      f"not {self.max_bytes!r}")
        if self.on_invalid not in ("error", "skip"):
            raise bad(f"on_invalid must be 'error' or 'skip', not {self.on_invalid!r}")
        if self.workers is not None and (not isinstance(self.workers, int) or self.workers < 1):
            raise bad(f"workers must be a positive integer, not {self.workers!r}")
        try:
            check_level(self.gzip_backend, self.gzip_level)
            for what, name in (("filename", self.filename),
                               ("index_filename", self.index_filename)):
                _output.check_file_name(str(name), what)
            for what, pattern in (("shard_pattern", self.shard_pattern),
                                  ("extra_index_pattern", self.extra_index_pattern)):
                sample = str(pattern).format(number=1, digest="0123abcd")
                _output.check_file_name(sample, what)
                if sample == str(pattern).format(number=2, digest="0123abcd"):
                    raise ValueError(f"{what} {pattern!r} must contain {{number}}")
        except KeyError as exc:
            raise bad(f"a file name pattern uses an unknown field {{{exc.args[0]}}}; the "
                      "fields are {number} and {digest}, e.g. "
                      "'sitemap-{number:05d}-{digest}.xml.gz'") from None
        except (ValueError, IndexError) as exc:
            raise bad(str(exc)) from None
        if not str(self.shard_pattern).endswith(".gz"):
            raise bad(f"shard_pattern {self.shard_pattern!r} must end in .gz (shards are gzipped)")


@dataclass
class WriteResult:
    """What a run wrote and what it refused; ``summary()`` is the one-line report."""

    out_dir: Path
    entry_point: str
    files: list[str]
    index_files: list[str]
    shard_files: list[str]
    url_count: int
    shard_count: int
    duplicate_count: int = 0
    duplicates: list[tuple[int, str]] = field(default_factory=list)
    skipped_count: int = 0
    skipped: list[EntryError] = field(default_factory=list)
    skipped_by_rule: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    changes: Changes | None = None  # with changes_file: URLs changed since the last run
    base_url: str = ""  # normalized URL of out_dir

    def url(self, name: str) -> str:
        """A written file's URL: names come from options, so percent-encoded like a loc."""
        return self.base_url + quote(name)

    def summary(self) -> str:
        return (f"{count(self.url_count, 'URL')} in {count(self.shard_count, 'shard')}, "
                f"{self.skipped_count:,} skipped, {count(self.duplicate_count, 'duplicate')} "
                f"-> {shown_path(self.out_dir / self.entry_point)} ({self.elapsed:.2f} s)")


@dataclass
class _Shard:
    number: int
    urls: int
    raw_bytes: int
    newest_lastmod: str | None
    future: Future[tuple[Path, str]]


class _Run:
    """One write: owns the buffer, the thread pool and the temp files."""

    def __init__(self, out_dir: Path, prefix: str, opts: WriterOptions, impl: ModuleType,
                 pool: ThreadPoolExecutor, workers: int) -> None:
        self.out_dir, self.prefix, self.opts, self.impl = out_dir, prefix, opts, impl
        self.pool, self.workers = pool, workers
        now = opts.now or datetime.now(timezone.utc)
        self.future_limit = int(now.timestamp()) + 86_400  # clock-skew tolerance (rule 18)
        self.buf = impl.UrlsetBuffer(prefix, opts.max_urls, opts.max_bytes, impl.LocSet(),
                                     self.future_limit, opts.format == "text")
        self.shards: list[_Shard] = []
        self.in_flight: deque[_Shard] = deque()
        self.first_raw: bytes | None = None
        self.temps: list[Path] = []
        self.clusters = ClusterCheck()
        self.record = LastmodRecord(opts.changes_file, prefix) if opts.changes_file else None
        self.result = WriteResult(out_dir, str(opts.filename), [], [], [], 0, 0,
                                  base_url=prefix)

    # --- streaming -------------------------------------------------------
    def stream(self, entries: Iterable[object]) -> None:
        buf, exhausted = self.buf, self.impl.EXHAUSTED
        it = iter(entries)
        while True:
            status, entry = buf.feed(it)
            if status == exhausted:
                break
            self._resolve(status, entry, buf.consumed)
        if buf.count:
            self._close_shard()

    def _resolve(self, status: int, entry: object, position: int) -> None:
        impl, buf = self.impl, self.buf
        normalized: Normalized | None = None
        while status != impl.ADDED:
            if status == impl.SLOW:
                try:
                    normalized = normalize_entry(entry, self.prefix, self.future_limit)
                    if normalized.alternates:
                        self.clusters.add(normalized.loc, normalized.alternates)
                except EntryError as exc:
                    self._reject(exc.at(position))
                    return
                status = buf.add(*normalized)
            elif status == impl.FULL:
                if buf.count == 0:
                    size = len(repr(entry))
                    self._reject(EntryError("entry-too-large", "entry", entry,
                                            f"about {size} bytes; max_bytes is "
                                            f"{self.opts.max_bytes}").at(position))
                    return
                self._close_shard()
                status = buf.add(*normalized) if normalized else buf.offer(entry)
            else:  # DUPLICATE
                r = self.result
                r.duplicate_count += 1
                if len(r.duplicates) < EXAMPLES_KEPT:
                    loc = normalized.loc if normalized else getattr(entry, "loc", entry)
                    r.duplicates.append((position, str(loc)))
                return

    def _reject(self, exc: EntryError) -> None:
        if self.opts.on_invalid != "skip":
            raise exc
        r = self.result
        r.skipped_count += 1
        r.skipped_by_rule[exc.rule] = r.skipped_by_rule.get(exc.rule, 0) + 1
        if len(r.skipped) < EXAMPLES_KEPT:
            r.skipped.append(exc)

    def _close_shard(self) -> None:
        buf = self.buf
        data = buf.getvalue()
        number = len(self.shards) + 1
        self.first_raw = data if number == 1 else None
        if self.record is not None:
            self.record.add_shard(data, self.opts.format == "text")
        shard = _Shard(number, buf.count, len(data), buf.newest_lastmod,
                       self.pool.submit(self._store, data))
        self.shards.append(shard)
        self.in_flight.append(shard)
        self.result.url_count += buf.count
        buf.reset()
        while len(self.in_flight) > self.workers:  # bound memory: few shards in flight
            self.in_flight.popleft().future.result()

    def _store(self, data: bytes) -> tuple[Path, str]:
        """Worker thread: gzip one shard into a temp file; return it and a content digest."""
        gz = gzip_bytes(data, self.opts.gzip_level, self.opts.gzip_backend)
        tmp = _output.temp_path(self.out_dir, "shard.gz")
        self.temps.append(tmp)
        _output.write_file(tmp, gz, self.opts.fsync)
        return tmp, hashlib.blake2b(gz, digest_size=4).hexdigest()

    def _write_temp(self, data: bytes, name: str) -> Path:
        tmp = _output.temp_path(self.out_dir, name)
        self.temps.append(tmp)
        _output.write_file(tmp, data, self.opts.fsync)
        return tmp

    # --- commit ----------------------------------------------------------
    def commit(self) -> list[tuple[Path, str]]:
        """Name every file; return (temp, final name) pairs, entry point last."""
        opts, r = self.opts, self.result
        stored = [(s, *s.future.result()) for s in self.shards]
        if len(stored) == 1:
            assert self.first_raw is not None
            name = str(opts.filename)
            moves = [(self._write_temp(self.first_raw, name), name)]
            if opts.gzip_copy:  # after the entry point: a copy, referenced by nothing
                moves.append((stored[0][1], name + ".gz"))
            else:
                _output.remove_owned_temps([stored[0][1]])
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
            index_moves.append((self._write_temp(xml, name), name))
            r.index_files.append(name)
        r.entry_point = r.index_files[0]
        return moves + index_moves[1:] + index_moves[:1]

    def cleanup_temps(self) -> None:
        _output.remove_owned_temps(self.temps)


def index_xml(entries: list[tuple[str, str | None]], max_bytes: int) -> list[bytes]:
    """Index XML for (loc, lastmod) pairs, split at 50,000 entries or the byte cap (one
    file per part; indexes are never nested, rule 27)."""
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n'.encode()
    tail = b"</sitemapindex>\n"
    files: list[bytes] = []
    parts: list[bytes] = []
    size = len(head) + len(tail)
    for loc, lastmod in entries:
        lm = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
        piece = f"<sitemap><loc>{escape(loc)}</loc>{lm}</sitemap>\n".encode()
        full = len(parts) >= PROTOCOL_MAX_URLS or size + len(piece) > max_bytes
        if parts and full:
            files.append(head + b"".join(parts) + tail)
            parts, size = [], len(head) + len(tail)
        parts.append(piece)
        size += len(piece)
    files.append(head + b"".join(parts) + tail)
    return files


def write_sitemaps(
    entries: Iterable[object],
    out_dir: str | os.PathLike[str],
    base_url: str,
    *,
    options: WriterOptions | None = None,
    _impl: ModuleType | None = None,
    **overrides: Any,
) -> WriteResult:
    """Write sitemaps for ``entries`` (UrlEntry, URL strings or mappings) into ``out_dir``.

    ``base_url`` is the URL of ``out_dir`` on the site; every loc must be at or below it.
    Options are ``WriterOptions`` fields, given as ``options=`` and/or keywords.
    """
    started = time.perf_counter()
    try:
        opts = replace(options or WriterOptions(), **overrides).resolved()
    except TypeError as exc:
        raise ConfigError(str(exc)) from None
    try:
        prefix = normalize_base_url(base_url)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    impl = _impl or _urlset
    out = _output.prepare_dir(out_dir, opts.follow_symlink)
    workers = opts.workers or min(2, os.cpu_count() or 1)
    with _output.locked(out, opts.lock_timeout), ThreadPoolExecutor(workers) as pool:
        previous = _previous_set(out, opts)
        _output.remove_stale_temps(out, previous)
        run = _Run(out, prefix, opts, impl, pool, workers)
        try:
            run.stream(entries)
            if not run.shards:
                raise NoUrlsError(
                    "no URLs to write: refusing to write an empty sitemap"
                    + (f" ({run.result.skipped_count} entries skipped as invalid)"
                       if run.result.skipped_count else ""))
            moves = run.commit()
            _commit(out, moves, run.result, opts, previous)
        except BaseException as exc:
            for shard in run.shards:  # let workers finish before removing their files
                shard.future.cancel()
            pool.shutdown(wait=True)
            run.cleanup_temps()
            if isinstance(exc, OSError) and not isinstance(exc, _output.OutputError):
                raise _output.OutputError(
                    f"could not write sitemaps into {out}: {exc.strerror or exc}"
                    f"{f' ({exc.filename})' if exc.filename else ''}; the previous "
                    "sitemaps there are unchanged") from exc
            raise
    r = run.result
    r.shard_count = len(r.shard_files)
    if run.record is not None:
        r.changes = run.record.compare()
        try:
            run.record.save()
        except OSError as exc:
            r.warnings.append(f"the lastmod record {run.record.path} could not be saved "
                              f"({exc.strerror}); the next run compares with the older one")
    lonely = run.clusters.missing_members(prefix)
    if lonely:
        r.warnings.append(f"{len(lonely)} alternate URLs on this site were never written with "
                          f"their cluster, so search engines may ignore those clusters "
                          f"(sitemapkit rules 36), e.g. {lonely[0]}")
    if "{digest" not in str(opts.shard_pattern) and r.shard_count > 1:
        r.warnings.append(f"shard_pattern {opts.shard_pattern!r} has no {{digest}}: new shards "
                          "overwrite the ones the live index names while they are written, so "
                          "a reader may briefly see a mix (with {digest} it never can)")
    if run.buf.unused_fields:
        r.warnings.append(f"{run.buf.unused_fields} entries had lastmod, changefreq, priority "
                          "or alternates, which a text sitemap cannot carry")
    r.elapsed = time.perf_counter() - started
    return r


def _previous_set(out: Path, opts: WriterOptions) -> list[str]:
    """What the last run published here, read from its entry point (xml or text)."""
    sample = opts.extra_index_pattern.format(number=12345)
    extra = re.compile(re.escape(sample).replace("12345", r"\d+"))
    names = {str(opts.filename), str(opts.index_filename or opts.filename)}
    return list(dict.fromkeys(n for name in sorted(names)
                              for n in _output.live_set(out, name, extra)))


def _commit(out: Path, moves: list[tuple[Path, str]], r: WriteResult, opts: WriterOptions,
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
    journal = _output.write_journal(out, new, opts.fsync)
    renamed: list[str] = []
    stashed: list[tuple[Path, str]] = []  # old copies moved aside, put back on failure
    try:
        for _, name in moves[entry_at + 1:]:
            if (out / name).exists():
                stash = _output.temp_path(out, "stash")
                os.replace(out / name, stash)
                stashed.append((stash, name))
        for tmp, name in moves[:entry_at + 1]:
            os.replace(tmp, out / name)
            renamed.append(name)
    except OSError:
        _output.remove_owned(out, [n for n in renamed if n not in old_names])
        for stash, name in stashed:
            with contextlib.suppress(OSError):
                os.replace(stash, out / name)
        _output.remove_owned_temps([journal])
        raise
    _output.remove_owned_temps([stash for stash, _ in stashed])
    for tmp, name in moves[entry_at + 1:]:
        try:
            os.replace(tmp, out / name)
        except OSError as exc:
            _output.remove_owned_temps([tmp])
            new.remove(name)
            r.warnings.append(f"{name} could not be written ({exc.strerror}); "
                              f"{r.entry_point} is complete without it")
    try:
        if opts.fsync:
            _output.sync_dir(out)
        kept = set(new)
        _output.remove_owned(out, [name for name in old if name not in kept])
        _output.remove_owned_temps([journal])
    except OSError as exc:
        r.warnings.append(f"the new sitemaps are in place, but tidying up failed: {exc}; "
                          "stale files are removed by the next run")
    r.files = new
