"""``sitemapkit validate``: every protocol rule over sitemaps, indexes, text sitemaps
and robots.txt."""

from __future__ import annotations

import argparse

from ..errors import UsageError
from .common import Subparsers, add_flag, declared, fail


def add(sub: Subparsers, formatter: type[argparse.HelpFormatter]) -> None:
    v = sub.add_parser("validate", formatter_class=formatter,
                       help="check sitemaps, indexes, text sitemaps and robots.txt against "
                       "every protocol rule (exit 0 valid, 1 errors, 2 usage)")
    v.add_argument("paths", nargs="+", metavar="PATH",
                   help="sitemap file, or a directory (a built site or an output directory)")
    v.add_argument("--base-url", help="URL of PATH (a directory) on the site: enables the "
                   "scope, index-mapping and built-page checks")
    add_flag(v, declared("max_bytes"), "max_bytes")
    v.add_argument("--strict", action="store_true", help="warnings fail too")
    v.add_argument("--json", action="store_true",
                   help="one JSON object per finding, then a JSON summary line")
    v.add_argument("--allow-namespace", action="append", default=[], metavar="URI",
                   help="accept extension elements in this namespace (repeatable)")
    v.add_argument("--no-page-check", action="store_true",
                   help="with --base-url: do not check that each loc maps to a built page")


def run(args: argparse.Namespace) -> int:
    from ..validate import ValidateOptions, validate  # on use: a faster CLI start

    options = ValidateOptions(base_url=args.base_url, max_bytes=args.max_bytes,
                              allow_namespaces=tuple(args.allow_namespace),
                              check_pages=not args.no_page_check)
    try:
        report = validate(args.paths, options)
    except UsageError as exc:
        return fail(exc)
    for finding in report.findings:
        print(finding.as_json() if args.json else finding.text())
    if not args.json:
        if report.hidden():
            print(f"({report.hidden():,} more findings of the same kinds not shown)")
        for note in report.notes:
            print(f"sitemapkit: note: {note}")
        if report.findings:
            print("(`sitemapkit rules N` explains rule N, with its sources)")
    print(report.summary_json(args.strict) if args.json else report.summary(args.strict))
    return 0 if report.ok(args.strict) else 1
