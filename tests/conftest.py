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


@pytest.fixture(params=[pytest.param("c", marks=pytest.mark.c_extension), "py"])
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
