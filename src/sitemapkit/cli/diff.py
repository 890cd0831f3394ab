"""``sitemapkit diff OLD NEW``: what changed between two published sitemap sets (each a
URL, a folder or a file): URLs added, removed and re-dated, alternates changed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._files import atomic_write
from ..errors import SitemapkitError
from .common import Subparsers, add_fetch_deadline, examples, fail


def add(sub: Subparsers, formatter: type[argparse.HelpFormatter]) -> None:
    from ..publish.setdiff import FORMATS

    d = sub.add_parser("diff", formatter_class=formatter,
                       help="what changed between two sitemap sets: URLs added, removed and "
                       "re-dated, alternates changed",
                       epilog=examples(
                           "sitemapkit diff https://docs.example.com/sitemap.xml site/",
                           "sitemapkit diff old-site/ site/ --format markdown >> "
                           "\"$GITHUB_STEP_SUMMARY\"",
                           "sitemapkit diff gh-pages/ public/ --format json -o changes.json"))
    d.add_argument("old", metavar="OLD", help="the earlier set: a sitemap URL, a folder or a "
                   "sitemap file")
    d.add_argument("new", metavar="NEW", help="the later set, in any of those forms")
    d.add_argument("--format", choices=FORMATS, default="text", help="text for a terminal, "
                   "markdown for a CI job summary or a pull-request comment, json for scripts")
    d.add_argument("-o", "--output", metavar="FILE", help="write the report here instead of "
                   "to standard output")
    d.add_argument("--exit-code", action="store_true", help="exit 1 when anything changed, as "
                   "git diff --exit-code does")
    add_fetch_deadline(d)


def run(args: argparse.Namespace) -> int:
    from ..publish.readback import read_record
    from ..publish.setdiff import compare, render

    try:
        old, new = (read_record(given, args.fetch_deadline) for given in (args.old, args.new))
    except SitemapkitError as exc:
        return fail(exc)
    for note in old.notes + new.notes:
        print(f"sitemapkit: note: {note}", file=sys.stderr)
    found = compare(old, new)
    report = render(found, args.format)
    if args.output:
        atomic_write(Path(args.output), report)
        print(f"sitemapkit diff: {found.summary()} -> {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(report)
    return 1 if args.exit_code and found.changed else 0
