"""sitemapkit: fast, correct, git-dated sitemaps (sitemaps.org protocol 0.9)."""

from __future__ import annotations

from ._urlset import USE_EXTENSIONS
from .entries import RULES, EntryError, UrlEntry
from .writer import (
    ConfigError,
    NoUrlsError,
    WriteResult,
    WriterOptions,
    write_sitemaps,
)

__version__ = "0.1.0"

__all__ = [
    "RULES",
    "USE_EXTENSIONS",
    "ConfigError",
    "EntryError",
    "NoUrlsError",
    "UrlEntry",
    "WriteResult",
    "WriterOptions",
    "__version__",
    "write_sitemaps",
]
