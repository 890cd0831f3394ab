"""``sitemapkit index``: one sitemap index over per-version sitemaps."""

from __future__ import annotations

import argparse
import sys

from ..errors import SiteIndexError, SitemapkitError
from ..options import SITE
from .common import Subparsers, add_flag, declared, error, examples, fail

SHOWN = 20  # findings printed before the count of the rest


def add(sub: Subparsers, formatter: type[argparse.HelpFormatter]) -> None:
    i = sub.add_parser("index", formatter_class=formatter,
                       help="write one sitemap index over per-version sitemaps (mike, "
                       "Read the Docs-style /<lang>/<version>/)",
                       epilog=examples(
                           "sitemapkit index gh-pages/ -o gh-pages/ --base-url "
                           "https://docs.example.com/",
                           "sitemapkit index gh-pages/ -o gh-pages/ --base-url "
                           "https://docs.example.com/ --alias latest",
                           "sitemapkit index _build/en/latest _build/de/latest -o _build/ "
                           "--base-url https://docs.example.com/"))
    i.add_argument("dirs", nargs="+", metavar="DIR",
                   help="version directories, or a mike site root holding versions.json")
    i.add_argument("-o", "--out", required=True,
                   help="index file to write, or an existing directory to write "
                   "sitemap.xml in")
    i.add_argument("--base-url", required=True, help="URL of the index file's directory")
    i.add_argument("--versions", nargs="+", action="extend", default=[],
                   metavar="NAME_OR_GLOB", help="mike: only these versions (globs like '2.*')")
    i.add_argument("--alias", help="mike: only the version this alias points to, e.g. latest")
    add_flag(i, declared("robots_txt"), "robots_txt", SITE)
    i.add_argument("--no-robots", dest="robots_txt", action="store_false",
                   help=argparse.SUPPRESS)  # the name before --no-robots-txt, still taken
    add_flag(i, declared("max_bytes"), "max_bytes")
    add_flag(i, declared("dry_run"), "dry_run")
    i.add_argument("-q", "--quiet", action="store_true", help="no summary line")


def run(args: argparse.Namespace) -> int:
    if args.versions and args.alias:
        error("give --versions or --alias, not both")
        return 2
    try:
        from ..publish.siteindex import build_index  # on use: a faster CLI start

        result = build_index(args.dirs, args.out, args.base_url, versions=args.versions,
                             alias=args.alias, robots=args.robots_txt,
                             max_bytes=args.max_bytes, dry_run=args.dry_run)
    except SiteIndexError as exc:
        findings = list(getattr(exc.report, "findings", ()))
        for finding in findings[:SHOWN]:
            print(finding.text(), file=sys.stderr)
        if len(findings) > SHOWN:
            print(f"... and {len(findings) - SHOWN:,} more findings (sitemapkit validate on "
                  "each directory shows them all)", file=sys.stderr)
        return fail(exc)
    except SitemapkitError as exc:
        return fail(exc)
    except (ValueError, OSError) as exc:
        error(str(exc))
        return 2 if isinstance(exc, ValueError) else 1
    for note in result.notes:
        print(f"sitemapkit: {note}", file=sys.stderr)
    if not args.quiet:
        print(("dry run: " if args.dry_run else "") + result.summary())
    return 0
