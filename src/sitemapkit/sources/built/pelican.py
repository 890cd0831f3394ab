"""Pelican: slugs come from titles, so only edit links and a map file map its pages."""

from __future__ import annotations

from pathlib import Path

from .family import Layout, assigned, site_url


def detect(source: Path, generator: str) -> Layout | None:
    if (source / "pelicanconf.py").is_file():
        # SITEURL as a deploy sets it (publishconf.py), else as the local config does
        for name in ("publishconf.py", "pelicanconf.py"):
            if (base := site_url(assigned(source / name, "SITEURL"))) is not None:
                return Layout("Pelican", source / "content", base_url=base,
                              base_from=f"{name} SITEURL")
        return Layout("Pelican", source / "content")
    return None
