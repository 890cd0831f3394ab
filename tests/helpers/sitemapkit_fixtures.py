"""Pytest plugin shared by tests/ and benchmarks/: run everything on both twins.

Modelled on multidict's conftest: a session fixture parametrized over the C and
pure-Python hot units, a ``c_extension`` mark and ``--c-extensions`` /
``--no-c-extensions``. A missing C extension is an error, never a skip.
"""

from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sitemapkit import WriteResult, write_sitemaps

C_EXT_MARK = pytest.mark.c_extension
PURE_MARK = pytest.mark.pure_twin


@dataclass(frozen=True)
class Implementation:
    """One twin of the hot unit and a write_sitemaps() bound to it."""

    tag: str  # "c" or "py"

    @cached_property
    def module(self) -> ModuleType:
        name = f"sitemapkit._urlset._urlset_{self.tag}"
        try:
            return importlib.import_module(name)
        except ImportError as exc:
            pytest.fail(f"the C extension is missing ({exc}); build it with "
                        "`pip install -e .` or run the pure leg with --no-c-extensions",
                        pytrace=False)

    def write(self, entries: Any, out_dir: Path, base_url: str, **options: Any) -> WriteResult:
        options.setdefault("fsync", False)
        return write_sitemaps(entries, out_dir, base_url, _impl=self.module, **options)

    def __str__(self) -> str:
        return self.tag


@pytest.fixture(scope="session", params=[pytest.param(Implementation("c"), marks=C_EXT_MARK),
                                         pytest.param(Implementation("py"), marks=PURE_MARK)],
                ids=str)
def impl(request: pytest.FixtureRequest) -> Implementation:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def both_impls(request: pytest.FixtureRequest) -> list[Implementation]:
    """Both twins at once, for tests that compare them (only C is skipped by the flag)."""
    if request.config.getoption("c_extensions"):
        return [Implementation("c"), Implementation("py")]
    return [Implementation("py")]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--c-extensions", action=argparse.BooleanOptionalAction, default=True,
                     dest="c_extensions",
                     help="test the C extension too (on by default; --no-c-extensions for "
                          "the pure-Python leg)")
    parser.addoption("--pure-twin", action=argparse.BooleanOptionalAction, default=True,
                     dest="pure_twin",
                     help="test the pure twin's parameter too (on by default; "
                          "--no-pure-twin where only the C twin is under test: the "
                          "sanitizer build)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "c_extension: runs against the C extension twin")
    config.addinivalue_line("markers", "pure_twin: runs against the pure-Python twin alone")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    off = [mark for mark, option in (("c_extension", "c_extensions"), ("pure_twin", "pure_twin"))
           if not config.getoption(option)]
    if not off:
        return
    keep = [i for i in items if not any(i.get_closest_marker(mark) for mark in off)]
    config.hook.pytest_deselected(items=[i for i in items if i not in keep])
    items[:] = keep


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Figures from the reliability suite (examples run, rejections by rule, crash runs)."""
    from collections import Counter

    from figures import FIGURES

    if not FIGURES:
        return
    terminalreporter.section("sitemapkit reliability figures")
    for name, value in FIGURES.items():
        if isinstance(value, Counter):
            detail = ", ".join(f"{k}: {v:,}" for k, v in value.most_common())
            terminalreporter.write_line(f"{name}: {sum(value.values()):,} ({detail})")
        else:
            terminalreporter.write_line(f"{name}: {value}")
