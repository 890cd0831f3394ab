"""Shared test helpers. The c/py implementation fixture comes from the
``sitemapkit_fixtures`` plugin (tests/helpers), which benchmarks/ uses too."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

BASE = "https://example.com/docs/"

# Modules that run real generators, engines, browsers or kill loops. Their writer work is
# the hot unit, whose twins are byte-identical (the property tests), and every twin
# parameter they have runs in the default leg: the pure leg (``--no-c-extensions``, after
# a default run) may leave them out with ``-m "not heavy"``.
HEAVY = frozenset({
    "test_site_generators", "test_site_book_generators", "test_site_eleventy", "test_site_nextjs",
    "test_site_versions", "test_site",
    "test_scaleout_dask", "test_scaleout_spark", "test_scaleout_s3", "test_key_collisions",
    "test_sphinx", "test_sphinx_parts", "test_mkdocs", "test_mkdocs_shapes",
    "test_plugin_real_shapes", "test_human_view", "test_docs_site", "test_git_history_oracle",
    "test_languages_and_notify_plugins", "test_partitions", "test_list_pages",
    "test_crash", "test_load", "test_kill_loop", "test_signals", "test_cli_mutations",
    "test_fuzz", "test_corrupt_gzip", "test_two_sets"})


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "heavy: a real generator, engine, browser or kill "
                            "loop (see HEAVY in tests/conftest.py)")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker per core this process may use (a CI runner's 2, not the
    host's), at most 4: each may hold a generator build or a JVM."""
    from sitemapkit._compat import usable_cores

    return min(4, usable_cores())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.stem in HEAVY:
            item.add_marker(pytest.mark.heavy)


@pytest.fixture
def out(tmp_path: Path) -> Path:
    path = tmp_path / "site"
    path.mkdir()
    return path


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file's bytes, to prove a failed run changed nothing."""
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def run(*args: str, stdin: str | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``sitemapkit ARGS`` as a user runs it: a subprocess of this interpreter."""
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], input=stdin,
                          capture_output=True, text=True, env={**os.environ, **(env or {})},
                          timeout=120)


@pytest.fixture(params=[pytest.param("c", marks=pytest.mark.c_extension),
                        pytest.param("py", marks=pytest.mark.pure_twin)])
def twin_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """Run the CLI on each twin (--no-c-extensions deselects 'c')."""
    return {"SITEMAPKIT_NO_EXTENSIONS": "1" if request.param == "py" else ""}


def unreadable_page(path: Path) -> Path:
    """A page no one can read, even root: a UNIX socket under a page's name (opening it
    fails with ENXIO). A dangling link would not do: links are never followed."""
    import socket

    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
    return path


@pytest.fixture
def engine():
    """A search engine stand-in on 127.0.0.1 that records what it is sent."""
    from fake_engine import FakeEngine

    server = FakeEngine()
    yield server
    server.close()


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[Path, str]]:
    """A folder served over HTTP on 127.0.0.1: (the folder, its URL)."""
    folder = tmp_path / "www"
    folder.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(folder), **kwargs)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield folder, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
