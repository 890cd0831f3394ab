"""Benchmarks share the c/py fixture plugin with tests/ (loaded via -p in pyproject).

Each benchmark records its best time under a unique name; the summary at the
end prints the ratios the issues set targets for. Nothing here asserts a timing.
Scale with SITEMAPKIT_BENCH_N (default 1,000,000 entries).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

N = int(os.environ.get("SITEMAPKIT_BENCH_N", "1000000"))
TIMES: dict[str, float] = {}
NOTES: list[str] = []

RATIOS = [
    # (label, slower, faster, target)
    ("serialization: pure / C", "serialize[py]", "serialize[c]", 10.0),
    ("end to end: naive / sitemapkit(C)", "e2e-naive", "e2e-sitemapkit[c]", 5.0),
    ("end to end: naive at gzip's default level 9 / sitemapkit(C) at 6",
     "e2e-naive-gzip-default", "e2e-sitemapkit[c]", None),
    ("end to end: ElementTree / sitemapkit(C)", "e2e-etree", "e2e-sitemapkit[c]", 8.0),
    ("end to end: lxml / sitemapkit(C)", "e2e-lxml", "e2e-sitemapkit[c]", None),
    ("end to end: sitemapkit(C) / gzip-only, 1 thread (max 1.5)", "e2e-sitemapkit[c]",
     "gzip-only-1-thread", None),
    ("fast extra: naive at same ratio / sitemapkit(C)+isal", "e2e-naive-same-ratio",
     "e2e-sitemapkit-isal", 10.0),
]


def record(name: str, benchmark) -> None:
    stats = benchmark.stats
    if stats is not None:
        TIMES[name] = stats.stats.min


def best_of(benchmark, fn, *args, rounds: int = 3):
    """Run fn through pytest-benchmark and return (last result, best seconds), timing it
    ourselves too so that ratios still print under --benchmark-disable (CI smoke run)."""
    took: list[float] = []

    def timed():
        started = time.perf_counter()
        try:
            return fn(*args)
        finally:
            took.append(time.perf_counter() - started)

    result = benchmark.pedantic(timed, rounds=rounds)
    return result, min(took)


def pytest_terminal_summary(terminalreporter) -> None:
    if not TIMES and not NOTES:
        return
    tr = terminalreporter
    tr.section(f"sitemapkit ratios ({N:,} entries)")
    for name, seconds in sorted(TIMES.items()):
        tr.write_line(f"{name:40s} {seconds:9.3f} s")
    for label, slow, fast, target in RATIOS:
        if slow in TIMES and fast in TIMES:
            ratio = TIMES[slow] / TIMES[fast]
            goal = f" (target >= {target:g}x)" if target else ""
            tr.write_line(f"{label:62s} {ratio:7.2f}x{goal}")
    for note in NOTES:
        tr.write_line(note)


@pytest.fixture(scope="session")
def entries():
    from bench_data import make_entries

    return make_entries(N)


@pytest.fixture(scope="session", autouse=True)
def installed_bytecode() -> None:
    """Processes started by benchmarks load sitemapkit as an installed copy does: from
    bytecode, which pip compiles at install time. Without this, a machine that sets
    PYTHONDONTWRITEBYTECODE (as this one does) compiles ~45 modules from source on
    every start: ~30 ms that no user pays."""
    import compileall

    import sitemapkit

    compileall.compile_dir(Path(sitemapkit.__file__).parent, quiet=1)
