"""``sitemapkit write``: sitemaps for URLs from a file or stdin, through the same
pipeline as the plugins. Its flags come from ``sitemapkit.options``."""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from collections.abc import Iterator

from .._display import count
from .._urlset import USE_EXTENSIONS, build_description
from ..errors import SitemapkitError
from ..options import CLI
from ..publish.pipeline import Outcome, publish
from ..publish.settings import publish_settings, writer_options
from ..rules.model import EntryError
from ..sources.inputs import FORMATS, Reader, detect_format, open_input
from .common import Subparsers, add_declared, declared_values, error, fail

PROGRESS_EVERY = 100_000


def add(sub: Subparsers, formatter: type[argparse.HelpFormatter]) -> None:
    w = sub.add_parser("write", formatter_class=formatter,
                       help="write sitemaps for URLs from a file or stdin")
    w.add_argument("input", help="input file, or - for stdin (.gz inputs are read too)")
    w.add_argument("-o", "--out", required=True, help="output directory (the site root)")
    w.add_argument("--base-url", required=True, help="URL of the output directory on the site")
    w.add_argument("--format", choices=FORMATS,
                   help="input format (default: from the file extension; stdin: text)")
    w.add_argument("--text", action="store_true", help="write text sitemaps (one URL a line)")
    w.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    add_declared(w, CLI)


def run(args: argparse.Namespace) -> int:
    values, indexnow = declared_values(args, CLI)
    try:
        settings = publish_settings(values, indexnow)
        writer = writer_options(values, format="text" if args.text else "xml",
                                changes_file=args.changes_file or
                                (_default_record(args.out) if settings.indexnow else None))
    except SitemapkitError as exc:
        return fail(exc)
    try:
        stream = open_input(args.input)
    except OSError as exc:
        error(f"cannot read {args.input}: {exc.strerror}")
        return 1
    with stream:
        reader = Reader(stream, detect_format(args.input, args.format))
        try:
            outcome = publish(_with_progress(reader, args.input), args.out, args.base_url,
                              writer, settings, lambda position: f"input line {reader.line}"
                              if position == reader.count else None)
        except EntryError as exc:
            return fail(reader.explain(exc) or exc)
        except SitemapkitError as exc:
            return fail(exc)
        except UnicodeDecodeError as exc:
            error(f"{exc}; nothing was written")
            return 1
    return _report(args, outcome, settings.indexnow is not None and settings.indexnow.dry_run)


def _report(args: argparse.Namespace, outcome: Outcome, dry_run: bool) -> int:
    result = outcome.result
    for warning in outcome.warnings:
        print(f"sitemapkit: warning: {warning}", file=sys.stderr)
    for skipped in result.skipped[:10]:
        print(f"sitemapkit: skipped {skipped}", file=sys.stderr)
    if result.skipped_count:
        rules = ", ".join(f"{k}: {v:,}" for k, v in sorted(result.skipped_by_rule.items()))
        invalid = count(result.skipped_count, "invalid entry", "invalid entries")
        print(f"sitemapkit: skipped {invalid} ({rules})", file=sys.stderr)
    if not args.quiet:
        print(result.summary())
        if not USE_EXTENSIONS:
            print(f"sitemapkit: note: {build_description()}", file=sys.stderr)
    if dry_run and result.changes and result.changes.all:
        for url in result.changes.all:
            print(f"would submit {url}")
    for note in outcome.infos:
        print(f"sitemapkit: {note}", file=sys.stderr)
    for failure in outcome.errors:
        print(f"sitemapkit: error: {failure}", file=sys.stderr)
    return 1 if outcome.errors else 0


def _with_progress(reader: Reader, path: str) -> Iterator[object]:
    """Progress on stderr for large inputs when stderr is a terminal: entries, rate, and
    for a file of known size the share read."""
    if not sys.stderr.isatty():
        yield from reader
        return
    total = os.path.getsize(path) if path != "-" and os.path.isfile(path) else None
    started = time.perf_counter()
    for entry in reader:
        if reader.count % PROGRESS_EVERY == 0:
            elapsed = max(time.perf_counter() - started, 1e-9)
            print("\r" + progress_line(reader.count, elapsed, _position(reader.stream), total),
                  end="", file=sys.stderr)
        yield entry
    if reader.count >= PROGRESS_EVERY:
        print(file=sys.stderr)


def progress_line(entries: int, elapsed: float, done: int | None, total: int | None) -> str:
    line = f"{entries:,} entries read ({entries / elapsed:,.0f}/s)"
    if done is not None and total:
        line += f", {min(done / total, 1):.0%} of {total / 1e6:,.1f} MB"
    return line


def _position(stream: object) -> int | None:
    """Bytes of the input file consumed so far (compressed bytes for .gz)."""
    raw = getattr(stream, "buffer", None)
    raw = getattr(raw, "fileobj", raw)  # gzip: the compressed file underneath
    try:
        return int(raw.tell()) if raw is not None else None
    except (OSError, ValueError):
        return None


def _default_record(out: str) -> str:
    """The lastmod record lives in a cache beside the working directory, never in OUT
    (which gets published); one per output directory."""
    digest = hashlib.sha1(os.path.abspath(out).encode()).hexdigest()[:12]
    return os.path.join(".cache", "sitemapkit", f"lastmods-{digest}.json")
