"""``sitemapkit write``: sitemaps for URLs from a file or stdin, through the same
pipeline as the plugins. Its flags come from ``sitemapkit.options``."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Callable

from .._display import count
from .._urlset import USE_EXTENSIONS, build_description
from ..errors import InvalidEntriesError, SitemapkitError, UsageError
from ..options import CLI
from ..publish.pipeline import Outcome, publish, publish_result
from ..publish.settings import (
    PublishSettings,
    default_record,
    publish_settings,
    writer_options,
)
from ..rules.model import EntryError
from ..sources.inputs.lines import LineReader
from ..sources.inputs.readers import FORMATS, UNREADABLE, detect_format, open_binary, unreadable
from ..write.options import WriterOptions
from .common import Subparsers, add_declared, declared_values, error, examples, fail

PROGRESS_EVERY = 100_000


def add(sub: Subparsers, formatter: type[argparse.HelpFormatter]) -> None:
    w = sub.add_parser("write", formatter_class=formatter,
                       help="write sitemaps for URLs from a file or stdin",
                       epilog=examples(
                           "sitemapkit write urls.txt -o site/ --base-url https://example.com/",
                           "sitemapkit write urls.csv.gz -o site/ --base-url "
                           "https://example.com/ --robots-txt",
                           "zcat urls.jsonl.gz | sitemapkit write - --format jsonl -o site/ "
                           "--base-url https://example.com/",
                           "sitemapkit write parts/ --jobs 4 -o site/ --base-url "
                           "https://example.com/"))
    w.add_argument("input", help="input file, - for stdin (.gz inputs are read too), or a "
                   "folder of part files (.parquet, .csv, .tsv, .jsonl/.json, .txt): one "
                   "partition per file, committed once")
    w.add_argument("-o", "--out", required=True, help="output directory (the site root)")
    w.add_argument("--base-url", required=True, help="URL of the output directory on the site")
    w.add_argument("--format", choices=FORMATS,
                   help="input format (default: from the file extension; stdin: text)")
    w.add_argument("--text", action="store_true", help="write text sitemaps (one URL a line)")
    w.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    w.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="part files written at once, in N processes (folder input)")
    w.add_argument("--unique", action="store_true",
                   help="folder input: the URLs are known to be unique across part files, "
                   "so skip the cross-file duplicate check (16 bytes a URL)")
    add_declared(w, CLI)


def run(args: argparse.Namespace) -> int:
    values, indexnow = declared_values(args, CLI)
    try:
        settings = publish_settings(values, indexnow)
        writer = writer_options(values, format="text" if args.text else "xml",
                                changes_file=args.changes_file or
                                (default_record(args.out) if settings.indexnow else None))
    except SitemapkitError as exc:
        return fail(exc)
    if os.path.isdir(args.input):
        if settings.dry_run:
            return fail(UsageError("--dry-run is not available for a folder of part files yet; "
                                   "give one file, or write into a scratch folder"))
        try:
            return _report(args, *_write_parts(args, writer, settings))
        except SitemapkitError as exc:
            return fail(exc)
    try:
        raw = open_binary(args.input)
    except OSError as exc:
        error(f"cannot read {args.input}: {exc.strerror}")
        return 1
    progress = _progress(args.input)
    if writer.on_invalid == "error":  # read on: every bad row of the file in one run
        writer = dataclasses.replace(writer, on_invalid="report")
    with raw:
        try:
            reader = LineReader(raw, detect_format(args.input, args.format), progress)
        except SitemapkitError as exc:
            return fail(exc)
        try:
            outcome = publish(reader, args.out, args.base_url, writer, settings,
                              lambda position: f"input line {reader.line}",
                              waiting=lambda said: print(f"sitemapkit: {said}",
                                                         file=sys.stderr, flush=True))
        except InvalidEntriesError as exc:
            return _invalid(exc, reader)
        except EntryError as exc:
            return fail(reader.explain(exc) or exc)
        except SitemapkitError as exc:
            return fail(exc)
        except UNREADABLE as exc:
            where = f"{args.input} (after input line {reader.line:,})" if reader.line \
                else args.input
            error(unreadable(where, exc) + "; nothing was written")
            return 1
        finally:
            if progress is not None:
                print(file=sys.stderr)  # end the progress line
    return _report(args, outcome, settings.indexnow is not None and settings.indexnow.dry_run)


SHOWN = 20  # invalid entries named one by one; the rest are counted


def _invalid(exc: InvalidEntriesError, reader: LineReader) -> int:
    """Every invalid row of the input, the first ``SHOWN`` with their lines, then the
    count of the rest and the rules they broke."""
    first = exc.entries[0]
    hint = reader.explain(first) if isinstance(first, EntryError) else None
    if hint is not None and isinstance(first, EntryError) and first.where:
        # the reader is past the file's end: the line is the first refused entry's
        error(f"{first.where} {str(hint).split(' ', 2)[2]}; nothing was written")
        return 1
    if exc.count == 1 and isinstance(first, EntryError):  # one bad row: one line, as ever
        error(f"{first.located()}; nothing was written")
        return 1
    for entry in exc.entries[:SHOWN]:
        error(entry.located() if isinstance(entry, EntryError) else str(entry))
    if set(exc.by_rule) == {"loc-outside-site"} and isinstance(first, EntryError):
        error(f"every invalid row lies outside the base URL: is --base-url right? "
              f"({first.value!r} is not below it)")
    rest = exc.count - min(len(exc.entries), SHOWN)
    more = f" ({rest:,} not shown)" if rest else ""
    error(f"{exc}{more}; nothing was written (--skip-invalid writes the valid rows and "
          "counts the rest)")
    return 1


def _write_parts(args: argparse.Namespace, writer: WriterOptions,
                 settings: PublishSettings) -> tuple[Outcome, bool]:
    """A folder of part files: partitions, one commit, then the same publish steps."""
    if args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {args.jobs}")
    if args.format:
        raise UsageError("--format names one input file's format; the part files of a "
                         "folder are read by their extensions (--text writes text sitemaps)")
    from ..write.parts import write_part_files  # only for a folder: a faster CLI start

    result = write_part_files(args.input, args.out, args.base_url, jobs=args.jobs,
                              unique=args.unique, options=writer)
    return publish_result(result, args.out, args.base_url, settings), False


def _report(args: argparse.Namespace, outcome: Outcome, dry_run: bool) -> int:
    result = outcome.result
    for warning in outcome.warnings:
        print(f"sitemapkit: warning: {warning}", file=sys.stderr)
    for skipped in result.skipped[:10]:
        print(f"sitemapkit: skipped {skipped.located()}", file=sys.stderr)
    if result.skipped_count:
        rules = ", ".join(f"{k}: {v:,}" for k, v in sorted(result.skipped_by_rule.items()))
        invalid = count(result.skipped_count, "invalid entry", "invalid entries")
        print(f"sitemapkit: skipped {invalid} ({rules})", file=sys.stderr)
    if not args.quiet:
        print(("dry run: " if args.dry_run else "") + result.summary())
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


def _progress(path: str) -> Callable[[int, int], None] | None:
    """Progress on stderr for large inputs when stderr is a terminal: lines, rate, and
    for an uncompressed file the share read."""
    if not sys.stderr.isatty():
        return None
    plain = path != "-" and not path.endswith(".gz") and os.path.isfile(path)
    total = os.path.getsize(path) if plain else None
    started = time.perf_counter()

    def show(done: int, lines: int) -> None:
        elapsed = max(time.perf_counter() - started, 1e-9)
        print("\r" + progress_line(lines, elapsed, done, total), end="", file=sys.stderr)

    return show


def progress_line(entries: int, elapsed: float, done: int | None, total: int | None) -> str:
    line = f"{entries:,} entries read ({entries / elapsed:,.0f}/s)"
    if done is not None and total:
        line += f", {min(done / total, 1):.0%} of {total / 1e6:,.1f} MB"
    return line
