"""The entry model and its rules, each in one module: ``model`` (UrlEntry, RULES,
EntryError), ``urls``, ``dates``, ``fields`` (and ``normalize_entry``), ``hreflang``."""

from __future__ import annotations

from .dates import lastmod_key, normalize_lastmod
from .fields import normalize_changefreq, normalize_entry, normalize_priority
from .hreflang import ClusterCheck, check_cluster, cluster, normalize_alternates
from .model import RULES, EntryError, Normalized, UrlEntry, as_url_entry
from .urls import normalize_base_url, normalize_href, normalize_loc, split_url

__all__ = ["RULES", "ClusterCheck", "EntryError", "Normalized", "UrlEntry", "as_url_entry",
           "check_cluster", "cluster", "lastmod_key", "normalize_alternates",
           "normalize_base_url", "normalize_changefreq", "normalize_entry", "normalize_href",
           "normalize_lastmod", "normalize_loc", "normalize_priority", "split_url"]
