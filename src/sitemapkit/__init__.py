"""sitemapkit: fast, correct, git-dated sitemaps (sitemaps.org protocol 0.9)."""

from __future__ import annotations

from ._urlset import USE_EXTENSIONS
from ._version import __version__
from .errors import ConfigError, NoUrlsError, SitemapkitError
from .rules.model import RULES, EntryError, UrlEntry
from .write import WriteResult, WriterOptions, write_sitemaps
from .write.partition import PartitionManifest, write_partition
from .write.setcommit import commit

__all__ = [
    "RULES",
    "USE_EXTENSIONS",
    "ConfigError",
    "EntryError",
    "NoUrlsError",
    "PartitionManifest",
    "SitemapkitError",
    "UrlEntry",
    "WriteResult",
    "WriterOptions",
    "__version__",
    "commit",
    "write_partition",
    "write_sitemaps",
]
