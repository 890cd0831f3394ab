"""Sitemap index XML for (loc, lastmod) pairs: split at 50,000 entries or the byte
cap, one file per part (indexes are never nested, rule 27)."""

from __future__ import annotations

from .._urlset._urlset_py import escape
from ..protocol import MAX_URLS, SITEMAP_NS, XML_DECLARATION


def index_xml(entries: list[tuple[str, str | None]], max_bytes: int) -> list[bytes]:
    """One index file's bytes per part, in order."""
    head = f'{XML_DECLARATION}<sitemapindex xmlns="{SITEMAP_NS}">\n'.encode()
    tail = b"</sitemapindex>\n"
    files: list[bytes] = []
    parts: list[bytes] = []
    size = len(head) + len(tail)
    for loc, lastmod in entries:
        lm = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
        piece = f"<sitemap><loc>{escape(loc)}</loc>{lm}</sitemap>\n".encode()
        full = len(parts) >= MAX_URLS or size + len(piece) > max_bytes
        if parts and full:
            files.append(head + b"".join(parts) + tail)
            parts, size = [], len(head) + len(tail)
        parts.append(piece)
        size += len(piece)
    files.append(head + b"".join(parts) + tail)
    return files
