"""``sitemapkit doctor``: the build (C accelerator or pure Python), Python, git and
the optional backends."""

from __future__ import annotations

import argparse
import sys

from .._urlset import build_description
from .._version import __version__
from .common import Subparsers, examples

OPTIONAL = ("isal", "zlib-ng", "lxml", "mkdocs", "properdocs", "mkdocs-static-i18n", "sphinx",
            "zensical")


def add(sub: Subparsers, formatter: type[argparse.HelpFormatter]) -> None:
    sub.add_parser("doctor", formatter_class=formatter,
                   help="the build (C accelerator or pure Python), Python, git and the "
                   "optional backends",
                   epilog=examples("sitemapkit doctor", "python -m sitemapkit doctor"))


def run(args: argparse.Namespace) -> int:
    import importlib.metadata  # only here: it costs a CLI start ~15 ms
    import platform  # and these ~10 ms (shutil brings bz2 and lzma)
    import shutil

    from ..sources.git.commands import git_check
    from ..write.compress import DEFAULT_LEVEL, description, resolve_backend

    git = shutil.which("git")
    git_version = "not found (lastmod needs git)"
    if git:
        said, problem = git_check(git)
        git_version = f"{said} (unusable: {problem})" if problem else f"{said} ({git})"
    print(f"sitemapkit {__version__}: {build_description()}")
    print(f"python {platform.python_version()} ({sys.executable})")
    print(f"git: {git_version}")
    backend = resolve_backend("auto")
    print(f"{description(backend, DEFAULT_LEVEL[backend])} (what --gzip-backend auto, the "
          "default, uses here)")
    for name in OPTIONAL:
        try:
            found = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found = "not installed"
        print(f"{name}: {found}")
    return 0
