"""Sources for ``sitemapkit site``: a built site's pages (``scan``), the generator's
own sitemaps (``floor``), each page's source file (``mapping``), and one module per
generator family saying what that generator knows about its pages. Supporting a new
generator is one new module with a ``detect`` function, listed in ``FAMILIES``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

from . import (
    antora,
    astro,
    docusaurus,
    hugo,
    jekyll,
    mdbook,
    mkdocs,
    pelican,
    rspress,
    sphinx,
    vitepress,
)
from . import scan as scanning  # (the name ``scan`` stays the module's)
from .family import Layout
from .floor import OldSitemap, read_old
from .scan import Scan

# first match wins: Docusaurus and MkDocs projects may also hold a _config.yml or conf.py
FAMILIES: tuple[Callable[[Path, str], Layout | None], ...] = (
    mkdocs.detect, docusaurus.detect, hugo.detect, sphinx.detect, jekyll.detect,
    pelican.detect, vitepress.detect, astro.detect, mdbook.detect, rspress.detect,
    antora.detect)


def detect(source: Path, generator: str = "") -> Layout | None:
    """The layout of the generator whose config is in ``source`` (None: unknown).
    ``generator`` is what the pages' generator meta says, lower-cased."""
    for family in FAMILIES:
        layout = family(source, generator)
        if layout is not None:
            return layout
    return None


def read_site(out: Path, base: str, project: Path | None, name: str,
              early: Layout | None = None) -> tuple[Scan, Layout | None, OldSitemap | None]:
    """(the pages, the generator's layout, its old sitemap ``name``). While the pages
    are read, what needs none of them is done here: the old sitemap, and the part of
    the layout's records that needs no page (Hugo's content index), for the layout
    its config names (``early``, when the caller detected it already); the pages'
    generator meta may name another (Zensical)."""
    if early is None and project is not None:
        early = detect(project)
    olds: list[OldSitemap | None] = []

    def beside() -> None:
        if early is not None:
            early.prepare()
        olds.append(read_old(out, name, base))

    found = scanning.scan(out, base, beside)
    layout = detect(project, generator_meta(found)) if project is not None else None
    if early is not None and layout is not None and layout.family == early.family:
        layout = early  # the one prepared
    return found, layout, olds[0]


def generator_meta(found: Scan) -> str:
    """The generator most pages name in their generator meta (``zensical``, ``hugo``)."""
    if not found.generators:
        return ""
    name = Counter(found.generators).most_common(1)[0][0]
    return name.split("-")[0].split("/")[0]
