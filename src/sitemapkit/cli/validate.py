"""``sitemapkit validate``: every protocol rule over sitemaps, indexes, text sitemaps
and robots.txt."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import SitemapkitError
from ..protocol import DEFAULT_MAX_BYTES, MAX_BYTES
from .common import Subparsers, add_fetch_deadline, examples, fail

if TYPE_CHECKING:
    from ..validate import Report, ValidateOptions


def add(sub: Subparsers, formatter: type[argparse.HelpFormatter]) -> None:
    v = sub.add_parser("validate", formatter_class=formatter,
                       help="check sitemaps, indexes, text sitemaps and robots.txt against "
                       "every protocol rule (exit 0 valid, 1 errors, 2 usage)",
                       epilog=examples(
                           "sitemapkit validate site/ --base-url https://docs.example.com/",
                           "sitemapkit validate sitemap.xml.gz --strict",
                           "sitemapkit validate https://example.com/sitemap.xml",
                           "sitemapkit validate public/sitemap.xml --json | jq .id"))
    v.add_argument("paths", nargs="+", metavar="PATH",
                   help="sitemap file, a directory (a built site or an output directory), or "
                   "the http(s) URL of a sitemap (fetched with the sitemaps an index lists "
                   "under its folder)")
    v.add_argument("--base-url", help="URL of PATH (a directory) on the site: enables the "
                   "scope, index-mapping and built-page checks")
    v.add_argument("--max-bytes", type=int, default=MAX_BYTES, metavar="MAX_BYTES",
                   help=f"error past this many bytes uncompressed per file (default: the "
                   f"protocol's {MAX_BYTES:,}; past the older {DEFAULT_MAX_BYTES:,} a note)")
    v.add_argument("--strict", action="store_true", help="warnings fail too")
    v.add_argument("--json", action="store_true",
                   help="one JSON object per finding, then a JSON summary line")
    v.add_argument("--allow-namespace", action="append", default=[], metavar="URI",
                   help="accept extension elements in this namespace (repeatable)")
    v.add_argument("--no-page-check", action="store_true",
                   help="with --base-url: do not check that each loc maps to a built page")
    add_fetch_deadline(v)


def _validate(paths: list[str], options: ValidateOptions, tmp: Path,
              deadline: float) -> Report:
    """``validate`` over the paths, a URL among them fetched into ``tmp`` first; its
    findings then name the URL, not the local copy."""
    from ..validate import validate
    from ..validate.remote import fetch, is_url

    local, where, notes, origins = [], {}, [], {}
    for number, given in enumerate(paths):
        if not is_url(given):
            local.append(given)
            continue
        got = fetch(given, tmp / str(number), deadline=deadline)
        local.append(str(got.path))
        where[str(got.folder)] = got.base
        origins[str(got.path)] = got
        notes += got.notes + [got.said()]
    report = validate(local, dataclasses.replace(options, origins=origins))
    for folder, url in where.items():  # no finding or note names the local copy
        report.findings = [dataclasses.replace(
            f, file=url + f.file[len(folder) + 1:] if f.file.startswith(folder + os.sep)
            else f.file, message=f.message.replace(folder + os.sep, url))
            for f in report.findings]
        report.notes = [note.replace(folder + os.sep, url) for note in report.notes]
    report.notes[:0] = notes
    return report


def run(args: argparse.Namespace) -> int:
    from ..validate import ValidateOptions  # on use: a faster CLI start

    options = ValidateOptions(base_url=args.base_url, max_bytes=args.max_bytes,
                              allow_namespaces=tuple(args.allow_namespace),
                              check_pages=not args.no_page_check)
    with tempfile.TemporaryDirectory(prefix="sitemapkit-validate-") as tmp:
        try:
            report = _validate(args.paths, options, Path(tmp), args.fetch_deadline)
        except SitemapkitError as exc:
            return fail(exc)
    for finding in report.findings:
        print(finding.as_json() if args.json else finding.text())
    for note in report.notes if args.json else ():
        print(f"sitemapkit: note: {note}", file=sys.stderr)
    if not args.json:
        if report.hidden():
            print(f"({report.hidden():,} more findings of the same kinds not shown)")
        for note in report.notes:
            print(f"sitemapkit: note: {note}")
        if report.findings:
            print("(`sitemapkit rules N` explains rule N, with its sources)")
    print(report.summary_json(args.strict) if args.json else report.summary(args.strict))
    return 0 if report.ok(args.strict) else 1
