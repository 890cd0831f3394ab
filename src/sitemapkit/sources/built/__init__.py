"""Sources for ``sitemapkit site``: a built site's pages (``scan``), the generator's
own sitemaps (``floor``), each page's source file (``mapping``), and one module per
generator family saying what that generator knows about its pages. Supporting a new
generator is one new module with a ``detect`` function, listed in ``FAMILIES``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import docusaurus, hugo, jekyll, mkdocs, pelican, sphinx
from .family import Layout

# first match wins: Docusaurus and MkDocs projects may also hold a _config.yml or conf.py
FAMILIES: tuple[Callable[[Path, str], Layout | None], ...] = (
    mkdocs.detect, docusaurus.detect, hugo.detect, sphinx.detect, jekyll.detect,
    pelican.detect)


def detect(source: Path, generator: str = "") -> Layout | None:
    """The layout of the generator whose config is in ``source`` (None: unknown).
    ``generator`` is what the pages' generator meta says, lower-cased."""
    for family in FAMILIES:
        layout = family(source, generator)
        if layout is not None:
            return layout
    return None
