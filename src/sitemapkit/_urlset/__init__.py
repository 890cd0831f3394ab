"""The hot unit, one package: this switch picks the compiled twin (``_urlset_c``, built
from ``ext/``) unless it is disabled or missing, else the pure reference (``_urlset_py``
with ``_canonical_py``, ``_rows_py``, ``_scan_py``, ``_locset_py``, ``_kernels_py``,
``_shards_py``)."""

from __future__ import annotations

from .._compat import NO_EXTENSIONS
from ._heads_py import LINK, PageHead, list_folder  # the scan's top levels: both builds
from ._locset_py import KEY_MASK  # the test switch's slot-word mask: one for both builds

USE_EXTENSIONS = False
if not NO_EXTENSIONS:
    try:
        from ._urlset_c import (
            ADDED,
            CRC32_CLMUL,
            DUPLICATE,
            EXHAUSTED,
            FULL,
            SCAN_DUPLICATE,
            SCAN_HANDOVER,
            SCAN_MORE,
            SLOW,
            LocSet,
            UrlScan,
            UrlsetBuffer,
            count_lines,
            crc32,
            drop_urls,
            head_signals,
            loc_hash,
            loc_key,
            read_pages,
            repeats,
            sort_keys,
        )

        USE_EXTENSIONS = True
    except ImportError:  # pragma: no cover - only without a compiled build
        pass

if not USE_EXTENSIONS:
    from ._heads_py import head_signals, read_pages
    from ._locset_py import loc_hash
    from ._scan_py import (  # type: ignore[assignment]
        SCAN_DUPLICATE,
        SCAN_HANDOVER,
        SCAN_MORE,
        UrlScan,
    )
    from ._urlset_py import (  # type: ignore[assignment]
        ADDED,
        CRC32_CLMUL,
        DUPLICATE,
        EXHAUSTED,
        FULL,
        SLOW,
        LocSet,
        UrlsetBuffer,
        count_lines,
        crc32,
        drop_urls,
        loc_key,
        repeats,
        sort_keys,
    )


def build_description() -> str:
    """Which build is active, for ``--version``, ``doctor`` and the summary notes."""
    if USE_EXTENSIONS:
        return "C accelerator: active"
    if NO_EXTENSIONS:
        return "pure-Python build (SITEMAPKIT_NO_EXTENSIONS is set)"
    return ("pure-Python build: the C accelerator was not compiled at install time "
            "(same output, slower; reinstall with a C compiler)")


__all__ = ["ADDED", "DUPLICATE", "EXHAUSTED", "FULL", "KEY_MASK", "LINK", "SLOW", "LocSet",
           "SCAN_DUPLICATE",
           "SCAN_HANDOVER", "SCAN_MORE", "UrlScan", "UrlsetBuffer", "USE_EXTENSIONS",
           "build_description", "count_lines", "crc32", "CRC32_CLMUL", "drop_urls",
           "head_signals", "list_folder", "loc_hash", "loc_key", "PageHead", "read_pages",
           "repeats", "sort_keys"]
