"""``sitemapkit site``: sitemaps for a site any generator built, from its output
directory, dated from git. Its flags come from ``sitemapkit.options`` (host ``site``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import SitemapkitError, UsageError
from ..options import SITE
from .common import Subparsers, add_declared, declared_values, examples, fail


def add(sub: Subparsers, formatter: type[argparse.HelpFormatter]) -> None:
    s = sub.add_parser("site", formatter_class=formatter,
                       help="git-dated sitemaps for a built site (Hugo, Zensical, MkDocs, "
                       "ProperDocs, Sphinx, Jekyll, ...), from its output directory",
                       epilog=examples(
                           "hugo && sitemapkit site public/",
                           "npm run build && sitemapkit site build/ --report left-out.jsonl",
                           "sitemapkit site _build/html --source docs/ --validate strict",
                           "sitemapkit site out/ --base-url https://example.com/docs/ "
                           "--map pages.jsonl"))
    s.add_argument("out_dir", metavar="OUT_DIR", help="the generator's output directory")
    s.add_argument("--base-url", help="URL of OUT_DIR on the site (default: the site URL "
                   "the generator's config names, else the one its own sitemap's locs give)")
    s.add_argument("--source", help="the generator's project directory, whose config says "
                   "how pages map to sources (default: the current folder when it holds "
                   "one; without one, no page gets a lastmod)")
    s.add_argument("--map", dest="map_file", metavar="FILE",
                   help="JSON Lines {\"url\": ..., \"source\": ...}: exact page sources, "
                   "over the layout rules")
    v = s.add_argument_group("versioned sites (mike's versions.json, or version folders)")
    v.add_argument("--versions", nargs="+", action="extend", default=[],
                   metavar="NAME_OR_GLOB", help="list these versions (mike: names or globs "
                   "like '2.*', default all; otherwise the version folders, e.g. 'en/*')")
    v.add_argument("--alias", help="mike: only the version this alias points to, e.g. latest")
    v.add_argument("--version-ref", action="append", default=[], metavar="VERSION=REF",
                   help="the tag, branch or commit that built a version (mike: read from "
                   "its deploy commits)")
    v.add_argument("--deploy-branch", metavar="BRANCH", help="mike's branch in the "
                   "project's repository (default: the branch OUT_DIR is a checkout of, "
                   "else gh-pages, else origin/gh-pages)")
    s.add_argument("-q", "--quiet", action="store_true", help="no summary line or notes; warnings "
                   "and errors still print")
    add_declared(s, SITE)


def _ref(given: str) -> tuple[str, str]:
    version, sep, ref = given.partition("=")
    if not sep or not version or not ref:
        raise UsageError(f"--version-ref takes VERSION=REF (a tag, branch or commit), "
                         f"not {given!r}")
    return version.strip("/"), ref


def run(args: argparse.Namespace) -> int:
    values, indexnow = declared_values(args, SITE)
    try:
        from ..site import site_sitemaps  # imported on use: a faster CLI start
        from ..site.versions import versioned_sitemaps
        from ..sources.built import find_project

        source = args.source
        found = None
        if source is None:  # where a build runs from, or where its output says
            found = find_project(Path(args.out_dir), Path.cwd())
            if found.folder is not None:
                source = str(found.folder)
        if args.versions and args.alias:
            raise UsageError("give --versions or --alias, not both")
        refs = dict(_ref(given) for given in args.version_ref)
        outcome: Any = None
        if not args.map_file and not indexnow:
            outcome = versioned_sitemaps(args.out_dir, args.base_url, source=source,
                                         versions=tuple(args.versions), alias=args.alias,
                                         refs=refs, deploy_branch=args.deploy_branch,
                                         **values)
        elif args.versions or args.alias or refs:
            raise UsageError("--map and IndexNow are not taken with a versioned site yet")
        if outcome is None:
            outcome = site_sitemaps(args.out_dir, args.base_url, source=source,
                                    map_file=args.map_file, indexnow=indexnow, **values)
    except SitemapkitError as exc:
        return fail(exc)
    project = []  # the project found, said first, where it is not the current folder
    if found is not None and found.folder is not None and (
            found.others or found.folder != Path.cwd().resolve()):
        others = f"; also a config in {', '.join(map(str, found.others))}" if found.others \
            else ""
        project = [found.said + others]
    if not args.quiet:
        print(f"sitemapkit: {'dry run: ' if args.dry_run else ''}{outcome.infos[0]}")
    for warning in outcome.warnings:
        print(f"sitemapkit: warning: {warning}", file=sys.stderr)
    for info in [*project, *outcome.infos[1:]] if not args.quiet else ():
        print(f"sitemapkit: {info}", file=sys.stderr)
    for error in outcome.errors:
        print(f"sitemapkit: error: {error}", file=sys.stderr)
    return 1 if outcome.errors else 0
