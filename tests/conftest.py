"""Shared test helpers. The c/py implementation fixture comes from the
``sitemapkit_fixtures`` plugin (tests/helpers), which benchmarks/ uses too."""

from __future__ import annotations

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
