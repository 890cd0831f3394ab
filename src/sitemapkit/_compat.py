"""Read SITEMAPKIT_NO_EXTENSIONS once; the same variable steers setup.py."""

from __future__ import annotations

import os

NO_EXTENSIONS = os.environ.get("SITEMAPKIT_NO_EXTENSIONS", "") not in ("", "0")
