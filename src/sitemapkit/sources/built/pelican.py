"""Pelican: slugs come from titles, so only edit links and a map file map its pages.
What Pelican makes as lists is known by its default URLs: the index and its pages
(``index2.html``), tags, categories, authors and archives."""

from __future__ import annotations

import re
from pathlib import Path

from .family import Built, Layout, assigned, site_url

_LISTS = re.compile(r"(?:index\d*\.html|(?:tags|categories|authors|archives)\.html|"
                    r"(?:tag|category|author)/.+)?")


def detect(source: Path, generator: str) -> Layout | None:
    if (source / "pelicanconf.py").is_file():
        # SITEURL as a deploy sets it (publishconf.py), else as the local config does
        for name in ("publishconf.py", "pelicanconf.py"):
            if (base := site_url(assigned(source / name, "SITEURL"))) is not None:
                return Layout("Pelican", source / "content", base_url=base,
                              base_from=f"{name} SITEURL", made_lists=made_lists)
        return Layout("Pelican", source / "content", made_lists=made_lists)
    return None


def made_lists(built: Built) -> frozenset[str]:
    return frozenset(key for key in built.keys if _LISTS.fullmatch(key))
