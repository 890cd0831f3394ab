"""Public home of the hreflang helpers (``sitemapkit.hreflang``); they live in
``sitemapkit.rules.hreflang`` with the other entry rules."""

from __future__ import annotations

from .rules.hreflang import (
    X_DEFAULT,
    Alternates,
    ClusterCheck,
    check_cluster,
    cluster,
    normalize_alternates,
    pairs_from_config,
)

__all__ = ["X_DEFAULT", "Alternates", "ClusterCheck", "check_cluster", "cluster",
           "normalize_alternates", "pairs_from_config"]
