"""``sitemapkit doctor``: the build (C accelerator or pure Python), Python, git and
the optional backends."""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from .._urlset import build_description
from .common import Subparsers

OPTIONAL = ("isal", "zlib-ng", "lxml", "mkdocs", "properdocs", "mkdocs-static-i18n", "sphinx",
            "zensical")


def add(sub: Subparsers, formatter: type[argparse.HelpFormatter]) -> None:
    sub.add_parser("doctor", formatter_class=formatter,
                   help="the build (C accelerator or pure Python), Python, git and the "
                   "optional backends")


def run(args: argparse.Namespace) -> int:
    import importlib.metadata  # only here: it costs a CLI start ~15 ms
    import platform  # and these ~10 ms (shutil brings bz2 and lzma)
    import shutil
    import subprocess

    from ..sources.gitlog import git_too_old

    git = shutil.which("git")
    git_version = "not found (lastmod needs git)"
    if git:
        done = subprocess.run([git, "--version"], capture_output=True, text=True, check=False)
        git_version = done.stdout.strip() or f"{git}: {done.stderr.strip()}"
        problem = git_too_old(git)
        git_version += f" (unusable: {problem})" if problem else f" ({git})"
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
