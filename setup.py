"""Build the optional Cython accelerator; fall back to a pure-Python wheel.

* ``SITEMAPKIT_NO_EXTENSIONS=1`` builds a pure wheel on purpose.
* ``SITEMAPKIT_REQUIRE_EXTENSIONS=1`` turns a failed compile into an error
  (release builds must ship the extension).
* Otherwise a failed compile (no compiler, no Cython) prints a loud warning and
  the install goes on without the accelerator.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NO_EXTENSIONS = os.environ.get("SITEMAPKIT_NO_EXTENSIONS", "") not in ("", "0")
REQUIRE_EXTENSIONS = os.environ.get("SITEMAPKIT_REQUIRE_EXTENSIONS", "") not in ("", "0")
BANNER = "=" * 74


class BuildFailed(Exception):
    pass


class OptionalBuildExt(build_ext):
    """build_ext that turns any compile failure into BuildFailed."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # compiler missing, platform errors
            raise BuildFailed(str(exc)) from exc

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            raise BuildFailed(str(exc)) from exc


def cython_extensions() -> list[Extension]:
    from Cython.Build import cythonize  # ImportError -> pure build

    ext = Extension(
        "sitemapkit._urlset._urlset_c",
        ["ext/_urlset_c.pyx"],
        extra_compile_args=["-O2"] if sys.platform != "win32" else [],
    )
    return cythonize(
        [ext],
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "embedsignature": True,
        },
    )


def say(*lines: str) -> None:
    print(BANNER, *lines, BANNER, sep="\n", file=sys.stderr)


def main() -> None:
    if NO_EXTENSIONS:
        say("* Pure Python build * (SITEMAPKIT_NO_EXTENSIONS is set)")
        setup(ext_modules=[])
        return
    try:
        setup(ext_modules=cython_extensions(), cmdclass={"build_ext": OptionalBuildExt})
    except (BuildFailed, ImportError) as exc:
        if REQUIRE_EXTENSIONS:
            say("ERROR: the sitemapkit C extension failed to build and",
                "SITEMAPKIT_REQUIRE_EXTENSIONS is set.", f"Cause: {exc}")
            raise
        say("WARNING: the sitemapkit C extension could not be compiled.",
            f"Cause: {exc}",
            "Installing the pure-Python build: output is identical, only slower.")
        setup(ext_modules=[])
        say("* Pure Python build * (see the warning above)")
    else:
        say("* Accelerated build * (sitemapkit._urlset._urlset_c compiled)")


main()
