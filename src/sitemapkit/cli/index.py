"""``sitemapkit index``: one sitemap index over per-version sitemaps."""

from __future__ import annotations

import argparse
import sys

from ..errors import SiteIndexError, SitemapkitError
from .common import Subparsers, add_flag, declared, error, fail


def add(sub: Subparsers, formatter: type[argparse.HelpFormatter]) -> None:
    i = sub.add_parser("index", formatter_class=formatter,
                       help="write one sitemap index over per-version sitemaps (mike, "
                       "Read the Docs-style /<lang>/<version>/)")
    i.add_argument("dirs", nargs="+", metavar="DIR",
                   help="version directories, or a mike site root holding versions.json")
    i.add_argument("-o", "--out", required=True,
                   help="index file to write, or an existing directory to write "
                   "sitemap.xml in")
    i.add_argument("--base-url", required=True, help="URL of the index file's directory")
    i.add_argument("--versions", nargs="+", action="extend", default=[],
                   metavar="NAME_OR_GLOB", help="mike: only these versions (globs like '2.*')")
    i.add_argument("--alias", help="mike: only the version this alias points to, e.g. latest")
    i.add_argument("--no-robots", action="store_true", help="leave robots.txt alone")
    add_flag(i, declared("max_bytes"), "max_bytes")
    i.add_argument("-q", "--quiet", action="store_true", help="no summary line")


def run(args: argparse.Namespace) -> int:
    if args.versions and args.alias:
        error("give --versions or --alias, not both")
        return 2
    try:
        from ..publish.siteindex import build_index  # on use: a faster CLI start

        result = build_index(args.dirs, args.out, args.base_url, versions=args.versions,
                             alias=args.alias, robots=not args.no_robots,
                             max_bytes=args.max_bytes)
    except SiteIndexError as exc:
        for finding in getattr(exc.report, "findings", ()):
            print(finding.text(), file=sys.stderr)
        return fail(exc)
    except SitemapkitError as exc:
        return fail(exc)
    except (ValueError, OSError) as exc:
        error(str(exc))
        return 2 if isinstance(exc, ValueError) else 1
    for note in result.notes:
        print(f"sitemapkit: {note}", file=sys.stderr)
    if not args.quiet:
        print(result.summary())
    return 0
