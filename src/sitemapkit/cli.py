"""Command line: sitemapkit write, validate, index, rules and doctor.

Exit codes: 0 success, 1 invalid input or a failed write, 2 usage errors, 130 when
interrupted (Ctrl-C); an interrupted run leaves the previous sitemaps in place.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from collections.abc import Iterator, Sequence

from . import __version__
from ._display import count, shown_path
from ._urlset import USE_EXTENSIONS, build_description
from .cli_tools import add_commands, run_doctor, run_index, run_rules, run_validate
from .compress import DEFAULT_LEVEL
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


class _Help(argparse.HelpFormatter):
    """Every option on its help line with its default, when it has a value one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if "(default" in text or default in (None, False, [], argparse.SUPPRESS) or \
                not action.option_strings:
            return text
        return f"{text} (default: {default})"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sitemapkit", formatter_class=_Help,
        description="Fast, correct sitemaps (sitemaps.org 0.9): write them from a URL list, "
        "validate any sitemap, index per-version sitemaps.",
        epilog="Exit codes: 0 success, 1 invalid input or a failed write, 2 usage errors, "
        "130 interrupted. `sitemapkit rules N` explains the rule a message cites.")
    parser.add_argument("--version", action="version",
                        version=f"sitemapkit {__version__} ({build_description()})")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    w = sub.add_parser("write", formatter_class=_Help,
                       help="write sitemaps for URLs from a file or stdin")
    w.add_argument("input", help="input file, or - for stdin (.gz inputs are read too)")
    w.add_argument("-o", "--out", required=True, help="output directory (the site root)")
    w.add_argument("--base-url", required=True, help="URL of the output directory on the site")
    w.add_argument("--format", choices=FORMATS,
                   help="input format (default: from the file extension; stdin: text)")
    w.add_argument("--text", action="store_true", help="write text sitemaps (one URL a line)")
    w.add_argument("--max-urls", type=int, default=PROTOCOL_MAX_URLS,
                   help="URLs per sitemap file before a new shard starts")
    w.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                   help="uncompressed byte cap per file (at most 52428800)")
    w.add_argument("--gzip-level", type=int,
                   help="compression level (default: 6 for zlib, the level closest in size "
                   "for isal)")
    w.add_argument("--gzip-backend", choices=("zlib", "isal"), default="zlib",
                   help="gzip implementation; isal needs the 'fast' extra")
    w.add_argument("--filename", help="entry-point file name (default: sitemap.xml, or "
                   "sitemap.txt with --text)")
    w.add_argument("--index-filename", help="index file name when sharded (default: the "
                   "entry point; sitemap-index.xml with --text)")
    w.add_argument("--shard-pattern",
                   help="shard names with {number} and {digest} (default: "
                   "'sitemap-{number:05d}-{digest}.xml.gz')")
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
                   "(default with IndexNow: .cache/sitemapkit/lastmods-<OUT digest>.json, "
                   "outside the published directory)")
    n.add_argument("--indexnow-key", help="IndexNow key: submit URLs whose lastmod changed")
    n.add_argument("--indexnow-key-file", help="read the IndexNow key from this file")
    n.add_argument("--indexnow-key-location",
                   help="URL of the key file (default: /<key>.txt on the site)")
    n.add_argument("--indexnow-endpoint", default=INDEXNOW_ENDPOINT,
                   help="IndexNow endpoint to submit to")
    n.add_argument("--indexnow-batch", type=int, default=MAX_BATCH,
                   help="URLs per IndexNow request (at most 10000)")
    n.add_argument("--notify-timeout", type=float, default=10.0,
                   help="seconds to wait for each notification request")
    n.add_argument("--notify-retries", type=int, default=3,
                   help="retries for 429, 5xx and network errors, with backoff")
    n.add_argument("--ping", action="append", default=[], metavar="TEMPLATE",
                   help="GET this URL template after writing; {sitemap} is the entry URL "
                   "(repeatable)")
    n.add_argument("--dry-run", action="store_true",
                   help="show what IndexNow would submit; send nothing")
    n.add_argument("--fail-on-notify-error", action="store_true",
                   help="exit 1 when a notification fails (default: a warning)")
    add_commands(sub, _Help)
    return parser


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


def _indexnow(args: argparse.Namespace) -> IndexNowOptions | None:
    if not (args.indexnow_key or args.indexnow_key_file):
        return None
    return IndexNowOptions(
        load_key(args.indexnow_key, args.indexnow_key_file), args.indexnow_key_location,
        args.indexnow_endpoint, args.indexnow_batch, args.notify_timeout, args.notify_retries,
        dry_run=args.dry_run).checked()


def _default_record(out: str) -> str:
    """The lastmod record lives in a cache beside the working directory, never in OUT
    (which gets published); one per output directory."""
    digest = hashlib.sha1(os.path.abspath(out).encode()).hexdigest()[:12]
    return os.path.join(".cache", "sitemapkit", f"lastmods-{digest}.json")


def _write(args: argparse.Namespace) -> int:
    try:
        indexnow = _indexnow(args)
    except NotifyConfigError as exc:
        print(f"sitemapkit: error: {exc}", file=sys.stderr)
        return 2
    changes_file = args.changes_file or (_default_record(args.out) if indexnow else None)
    options = WriterOptions(
        max_urls=args.max_urls, max_bytes=args.max_bytes, format="text" if args.text else "xml",
        filename=args.filename, index_filename=args.index_filename,
        shard_pattern=args.shard_pattern, gzip_copy=not args.no_gzip_copy,
        gzip_level=DEFAULT_LEVEL.get(args.gzip_backend, 6) if args.gzip_level is None
        else args.gzip_level, gzip_backend=args.gzip_backend,
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
            result = write_sitemaps(_with_progress(reader, args.input), args.out,
                                    args.base_url, options=options)
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
        rules = ", ".join(f"{k}: {v:,}" for k, v in sorted(result.skipped_by_rule.items()))
        invalid = count(result.skipped_count, "invalid entry", "invalid entries")
        print(f"sitemapkit: skipped {invalid} ({rules})", file=sys.stderr)
    if not args.quiet:
        print(result.summary())
        if not USE_EXTENSIONS:
            print(f"sitemapkit: note: {build_description()}", file=sys.stderr)
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
    run = {"write": _write, "validate": run_validate, "index": run_index, "rules": run_rules,
           "doctor": run_doctor}[args.command]
    try:
        return run(args)
    except KeyboardInterrupt:
        out = f" in {shown_path(args.out)}" if getattr(args, "out", None) else ""
        print(f"\nsitemapkit: interrupted; the previous sitemaps{out} are unchanged",
              file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
