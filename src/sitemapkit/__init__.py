"""sitemapkit: fast, correct, git-dated sitemaps (sitemaps.org protocol 0.9).

The public names are loaded on first use (PEP 562), so that ``import sitemapkit`` is
instant: the command line installs its signal handlers before anything heavy is
imported, and a Ctrl-C or SIGTERM in its first moments is one line, not a traceback.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._urlset import USE_EXTENSIONS
    from ._version import __version__
    from .errors import ConfigError, NoUrlsError, SitemapkitError
    from .rules.model import RULES, EntryError, UrlEntry
    from .write import WriteResult, WriterOptions, write_sitemaps
    from .write.partition import PartitionManifest, write_partition
    from .write.setcommit import commit

_HOME = {  # public name -> the module that defines it
    "USE_EXTENSIONS": "._urlset", "__version__": "._version",
    "ConfigError": ".errors", "NoUrlsError": ".errors", "SitemapkitError": ".errors",
    "RULES": ".rules.model", "EntryError": ".rules.model", "UrlEntry": ".rules.model",
    "WriteResult": ".write", "WriterOptions": ".write", "write_sitemaps": ".write",
    "PartitionManifest": ".write.partition", "write_partition": ".write.partition",
    "commit": ".write.setcommit",
}

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


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'sitemapkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
