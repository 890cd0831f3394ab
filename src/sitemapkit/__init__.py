"""sitemapkit: fast, correct, git-dated sitemaps (sitemaps.org protocol 0.9)."""

from __future__ import annotations

from ._urlset import USE_EXTENSIONS
from .errors import ConfigError, NoUrlsError, SitemapkitError
from .rules.model import RULES, EntryError, UrlEntry
from .write import WriteResult, WriterOptions, write_sitemaps

__version__ = "0.1.0"

__all__ = [
    "RULES",
    "USE_EXTENSIONS",
    "ConfigError",
    "EntryError",
    "NoUrlsError",
    "SitemapkitError",
    "UrlEntry",
    "WriteResult",
    "WriterOptions",
    "__version__",
    "write_sitemaps",
]
