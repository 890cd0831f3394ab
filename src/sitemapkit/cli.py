"""Command line: ``sitemapkit write``, ``validate`` and ``index``.

Exit codes: 0 success, 1 invalid input or a failed write, 2 usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator, Sequence

from . import __version__
from .cli_tools import add_commands, run_index, run_validate
from .entries import EntryError
from .inputs import FORMATS, InputError, Reader, detect_format, open_input
from .notify import (
    INDEXNOW_ENDPOINT,
    MAX_BATCH,
    IndexNowOptions,
    NotifyConfigError,
    announce,
    load_key,
)
from .writer import (
    DEFAULT_MAX_BYTES,
    PROTOCOL_MAX_URLS,
    ConfigError,
    NoUrlsError,
    WriteResult,
    WriterOptions,
    write_sitemaps,
)

PROGRESS_EVERY = 100_000


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sitemapkit", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"sitemapkit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write sitemaps for URLs from a file or stdin")
    w.add_argument("input", help="input file, or - for stdin (.gz inputs are read too)")
    w.add_argument("-o", "--out", required=True, help="output directory (the site root)")
    w.add_argument("--base-url", required=True, help="URL of the output directory on the site")
    w.add_argument("--format", choices=FORMATS, help="input format (default: from extension)")
    w.add_argument("--text", action="store_true", help="write text sitemaps (one URL a line)")
    w.add_argument("--max-urls", type=int, default=PROTOCOL_MAX_URLS)
    w.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                   help="uncompressed byte cap per file (at most 52428800)")
    w.add_argument("--gzip-level", type=int, default=6)
    w.add_argument("--gzip-backend", choices=("zlib", "isal"), default="zlib")
    w.add_argument("--filename", help="entry-point file name (default sitemap.xml)")
    w.add_argument("--index-filename", help="index file name when sharded")
    w.add_argument("--shard-pattern",
                   help="shard names, e.g. 'sitemap-{number:05d}-{digest}.xml.gz'")
    w.add_argument("--no-gzip-copy", action="store_true",
                   help="single-file sets: do not also write FILENAME.gz")
    w.add_argument("--skip-invalid", action="store_true",
                   help="skip invalid entries (counted and reported) instead of failing")
    w.add_argument("--no-fsync", action="store_true", help="skip fsync (faster, less durable)")
    w.add_argument("--follow-symlink", action="store_true",
                   help="allow an output directory that is a symlink")
    w.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    n = w.add_argument_group("telling search engines (off by default)")
    n.add_argument("--changes-file", help="per-URL lastmod record to compare runs with "
                   "(default with IndexNow: OUT/.sitemapkit-lastmods.json)")
    n.add_argument("--indexnow-key", help="IndexNow key: submit URLs whose lastmod changed")
    n.add_argument("--indexnow-key-file", help="read the IndexNow key from this file")
    n.add_argument("--indexnow-key-location", help="URL of the key file if not /<key>.txt")
    n.add_argument("--indexnow-endpoint", default=INDEXNOW_ENDPOINT)
    n.add_argument("--indexnow-batch", type=int, default=MAX_BATCH)
    n.add_argument("--notify-timeout", type=float, default=10.0)
    n.add_argument("--notify-retries", type=int, default=3)
    n.add_argument("--ping", action="append", default=[], metavar="TEMPLATE",
                   help="GET this URL template after writing; {sitemap} is the entry URL")
    n.add_argument("--dry-run", action="store_true",
                   help="show what IndexNow would submit; send nothing")
    n.add_argument("--fail-on-notify-error", action="store_true",
                   help="exit 1 when a notification fails (default: a warning)")
    add_commands(sub)
    return parser


def _with_progress(reader: Reader) -> Iterator[object]:
    """Progress on stderr for large inputs when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield from reader
        return
    started = time.perf_counter()
    for entry in reader:
        if reader.count % PROGRESS_EVERY == 0:
            rate = reader.count / max(time.perf_counter() - started, 1e-9)
            print(f"\r{reader.count:,} entries read ({rate:,.0f}/s)", end="", file=sys.stderr)
        yield entry
    if reader.count >= PROGRESS_EVERY:
        print(file=sys.stderr)


def _indexnow(args: argparse.Namespace) -> IndexNowOptions | None:
    if not (args.indexnow_key or args.indexnow_key_file):
        return None
    return IndexNowOptions(
        load_key(args.indexnow_key, args.indexnow_key_file), args.indexnow_key_location,
        args.indexnow_endpoint, args.indexnow_batch, args.notify_timeout, args.notify_retries,
        dry_run=args.dry_run).checked()


def _write(args: argparse.Namespace) -> int:
    try:
        indexnow = _indexnow(args)
    except NotifyConfigError as exc:
        print(f"sitemapkit: error: {exc}", file=sys.stderr)
        return 2
    changes_file = args.changes_file or (
        os.path.join(args.out, ".sitemapkit-lastmods.json") if indexnow else None)
    options = WriterOptions(
        max_urls=args.max_urls, max_bytes=args.max_bytes, format="text" if args.text else "xml",
        filename=args.filename, index_filename=args.index_filename,
        shard_pattern=args.shard_pattern, gzip_copy=not args.no_gzip_copy,
        gzip_level=args.gzip_level, gzip_backend=args.gzip_backend,
        on_invalid="skip" if args.skip_invalid else "error", fsync=not args.no_fsync,
        follow_symlink=args.follow_symlink, changes_file=changes_file,
    )
    try:
        stream = open_input(args.input)
    except OSError as exc:
        print(f"sitemapkit: error: cannot read {args.input}: {exc.strerror}", file=sys.stderr)
        return 1
    with stream:
        reader = Reader(stream, detect_format(args.input, args.format))
        try:
            result = write_sitemaps(_with_progress(reader), args.out, args.base_url,
                                    options=options)
        except ConfigError as exc:
            print(f"sitemapkit: error: {exc}", file=sys.stderr)
            return 2
        except EntryError as exc:
            line = f" (input line {reader.line})" if exc.position == reader.count else ""
            print(f"sitemapkit: error: {exc}{line}; nothing was written", file=sys.stderr)
            return 1
        except (InputError, NoUrlsError, UnicodeDecodeError) as exc:
            print(f"sitemapkit: error: {exc}; nothing was written", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"sitemapkit: error: writing {args.out} failed: {exc}", file=sys.stderr)
            return 1
    for warning in result.warnings:
        print(f"sitemapkit: warning: {warning}", file=sys.stderr)
    for skipped in result.skipped[:10]:
        print(f"sitemapkit: skipped {skipped}", file=sys.stderr)
    if result.skipped_count:
        rules = ", ".join(f"{k}: {v}" for k, v in sorted(result.skipped_by_rule.items()))
        print(f"sitemapkit: skipped {result.skipped_count} invalid entries ({rules})",
              file=sys.stderr)
    if not args.quiet:
        print(result.summary())
    return _announce(args, result, indexnow)


def _announce(args: argparse.Namespace, result: WriteResult,
              indexnow: IndexNowOptions | None) -> int:
    notes, failures = announce(result.changes, result.url(result.entry_point), indexnow,
                               args.ping)
    if indexnow and indexnow.dry_run and result.changes and result.changes.all:
        for url in result.changes.all:
            print(f"would submit {url}")
    for note in notes:
        print(f"sitemapkit: {note}", file=sys.stderr)
    for failure in failures:
        print(f"sitemapkit: warning: {failure}", file=sys.stderr)
    return 1 if failures and args.fail_on_notify_error else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "write":
        return _write(args)
    if args.command == "validate":
        return run_validate(args)
    if args.command == "index":
        return run_index(args)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
