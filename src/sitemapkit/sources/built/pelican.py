"""Pelican: slugs come from titles, so only edit links and a map file map its pages."""

from __future__ import annotations

from pathlib import Path

from .family import Layout


def detect(source: Path, generator: str) -> Layout | None:
    if (source / "pelicanconf.py").is_file():
        return Layout("Pelican", source / "content")
    return None
