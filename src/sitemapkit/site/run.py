"""One ``site`` run's settings and what its stages hand on to each other."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..publish.settings import PublishSettings
from ..sources.built.family import Layout
from ..sources.built.floor import OldSitemap
from ..sources.built.scan import BuiltPage, Scan
from ..sources.pages import PageRules
from ..write.options import WriterOptions


@dataclass
class Run:
    """One run's settings and what its stages hand on: the output, its base URL, the
    generator's layout and old sitemap, the pages to list and what was left out."""

    out: Path
    values: dict[str, Any]
    settings: PublishSettings
    writer: WriterOptions
    rules: PageRules
    project: Path | None
    source: str | os.PathLike[str] | None
    name: str = ""
    base: str = ""
    found: Scan | None = None
    layout: Layout | None = None
    old: OldSitemap | None = None
    generator: str = "the generator"
    pages: list[BuiltPage] = field(default_factory=list)
    # URL -> (output path, why it is not listed)
    unlisted: dict[str, tuple[str, str]] = field(default_factory=dict)
    kept: set[str] = field(default_factory=set)  # listed by keep_unlisted only
