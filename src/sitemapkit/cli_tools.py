"""``sitemapkit validate`` and ``sitemapkit index`` (``write`` lives in cli.py)."""

from __future__ import annotations

import argparse
import sys

from .siteindex import SiteIndexError, build_index
from .validate import UsageError, ValidateOptions, validate
from .validate.site import DEFAULT_MAX_BYTES


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    v = sub.add_parser("validate", help="check sitemaps, indexes, text sitemaps and robots.txt "
                       "against every protocol rule (exit 0 valid, 1 errors, 2 usage)")
    v.add_argument("paths", nargs="+", metavar="PATH",
                   help="sitemap file, or a directory (a built site or an output directory)")
    v.add_argument("--base-url", help="URL of PATH (a directory) on the site: enables the "
                   "scope, index-mapping and built-page checks")
    v.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                   help="uncompressed byte cap per file (at most 52428800)")
    v.add_argument("--strict", action="store_true", help="warnings fail too")
    v.add_argument("--json", action="store_true",
                   help="one JSON object per finding, then a JSON summary line")
    v.add_argument("--allow-namespace", action="append", default=[], metavar="URI",
                   help="accept extension elements in this namespace (e.g. image sitemaps)")
    v.add_argument("--no-page-check", action="store_true",
                   help="with --base-url: do not check that each loc maps to a built page")

    i = sub.add_parser("index", help="write one sitemap index over per-version sitemaps "
                       "(mike, ReadTheDocs-style /<lang>/<version>/)")
    i.add_argument("dirs", nargs="+", metavar="DIR",
                   help="version directories, or a mike site root holding versions.json")
    i.add_argument("-o", "--out", required=True, help="index file to write, e.g. site/sitemap.xml")
    i.add_argument("--base-url", required=True, help="URL of the index file's directory")
    i.add_argument("--versions", action="append", default=[], metavar="NAME_OR_GLOB",
                   help="mike: only these versions (repeatable; globs like '2.*')")
    i.add_argument("--alias", help="mike: only the version this alias points to, e.g. latest")
    i.add_argument("--no-robots", action="store_true", help="leave robots.txt alone")
    i.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES)
    i.add_argument("-q", "--quiet", action="store_true")


def run_validate(args: argparse.Namespace) -> int:
    options = ValidateOptions(base_url=args.base_url, max_bytes=args.max_bytes,
                              allow_namespaces=tuple(args.allow_namespace),
                              check_pages=not args.no_page_check)
    try:
        report = validate(args.paths, options)
    except UsageError as exc:
        print(f"sitemapkit: error: {exc}", file=sys.stderr)
        return 2
    for finding in report.findings:
        print(finding.as_json() if args.json else finding.text())
    if report.hidden() and not args.json:
        print(f"({report.hidden()} more findings of the same kinds not shown)")
    print(report.summary_json(args.strict) if args.json else report.summary(args.strict))
    return 0 if report.ok(args.strict) else 1


def run_index(args: argparse.Namespace) -> int:
    if args.versions and args.alias:
        print("sitemapkit: error: give --versions or --alias, not both", file=sys.stderr)
        return 2
    try:
        result = build_index(args.dirs, args.out, args.base_url, versions=args.versions,
                             alias=args.alias, robots=not args.no_robots,
                             max_bytes=args.max_bytes)
    except SiteIndexError as exc:
        for finding in exc.report.findings if exc.report else []:
            print(finding.text(), file=sys.stderr)
        print(f"sitemapkit: error: {exc}", file=sys.stderr)
        return 1
    except (ValueError, OSError) as exc:
        print(f"sitemapkit: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError) else 1
    for note in result.notes:
        print(f"sitemapkit: {note}", file=sys.stderr)
    if not args.quiet:
        print(result.summary())
    return 0
