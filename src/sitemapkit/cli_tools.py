"""``sitemapkit validate``, ``index``, ``rules`` and ``doctor`` (``write`` is in cli.py)."""

from __future__ import annotations

import argparse
import importlib.metadata
import platform
import re
import shutil
import subprocess
import sys

from . import __version__
from ._urlset import build_description
from .entries import RULES as ENTRY_RULES
from .protocol_rules import RULES, describe
from .siteindex import SiteIndexError, build_index
from .validate import UsageError, ValidateOptions, validate
from .validate.findings import RULE_OF
from .validate.site import DEFAULT_MAX_BYTES

OPTIONAL = ("isal", "zlib-ng", "lxml", "mkdocs", "properdocs", "mkdocs-static-i18n", "sphinx",
            "zensical")


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser],
                 formatter: type[argparse.HelpFormatter]) -> None:
    v = sub.add_parser("validate", formatter_class=formatter,
                       help="check sitemaps, indexes, text sitemaps and robots.txt against "
                       "every protocol rule (exit 0 valid, 1 errors, 2 usage)")
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
                   help="accept extension elements in this namespace (repeatable)")
    v.add_argument("--no-page-check", action="store_true",
                   help="with --base-url: do not check that each loc maps to a built page")

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
    i.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                   help="uncompressed byte cap for the index and the children's checks")
    i.add_argument("-q", "--quiet", action="store_true", help="no summary line")

    r = sub.add_parser("rules", formatter_class=formatter,
                       help="the protocol rules that messages cite, with their sources")
    r.add_argument("which", nargs="*", metavar="N_OR_ID",
                   help="rule numbers or ids, e.g. 10 or loc-too-long (default: all)")
    sub.add_parser("doctor", formatter_class=formatter,
                   help="the build (C accelerator or pure Python), Python, git and the "
                   "optional backends")


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
    if not args.json:
        if report.hidden():
            print(f"({report.hidden():,} more findings of the same kinds not shown)")
        for note in report.notes:
            print(f"sitemapkit: note: {note}")
        if report.findings:
            print("(`sitemapkit rules N` explains rule N, with its sources)")
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


def rule_ids() -> dict[int, list[str]]:
    """Rule number -> the ids that cite it: the writer's entry rules and the validator's."""
    ids: dict[int, set[str]] = {}
    for id_, text in ENTRY_RULES.items():
        cited = re.search(r"sitemapkit rules ([\d, -]+)", text)
        for part in cited.group(1).replace(" ", "").split(",") if cited else ():
            low, _, high = part.partition("-")
            for number in range(int(low), int(high or low) + 1):
                ids.setdefault(number, set()).add(id_)
    for id_, number in RULE_OF.items():
        ids.setdefault(number, set()).add(id_)
    return {n: sorted(v) for n, v in ids.items()}


def run_rules(args: argparse.Namespace) -> int:
    ids = rule_ids()
    wanted: list[int] = []
    for item in args.which:
        found = [int(item)] if item.isdigit() and int(item) in RULES else \
            [n for n, names in ids.items() if item in names]
        if not found:
            print(f"sitemapkit: error: no rule {item!r}; rules are 1-{max(RULES)} or ids such "
                  "as loc-too-long (sitemapkit rules lists them)", file=sys.stderr)
            return 2
        wanted += found
    for number in dict.fromkeys(wanted) if wanted else RULES:
        print(describe(number, ids.get(number)))
    return 0


def run_doctor(args: argparse.Namespace) -> int:
    git = shutil.which("git")
    git_version = "not found (lastmod needs git)"
    if git:
        done = subprocess.run([git, "--version"], capture_output=True, text=True, check=False)
        git_version = done.stdout.strip() or f"{git}: {done.stderr.strip()}"
    print(f"sitemapkit {__version__}: {build_description()}")
    print(f"python {platform.python_version()} ({sys.executable})")
    print(f"git: {git_version}")
    for name in OPTIONAL:
        try:
            found = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found = "not installed"
        print(f"{name}: {found}")
    return 0

