"""robots.txt: add the ``Sitemap:`` lines crawlers read, only at a host root."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from .._files import atomic_write, open_regular
from ..validate.urls import url_key


def robots_sitemap_line(robots: Path, sitemap_urls: Iterable[str]) -> bool:
    """Add ``Sitemap:`` lines to robots.txt, creating it if needed, never twice.

    Returns True when the file changed. Existing content is kept byte for byte. A
    robots.txt that is no regular file (a folder, a FIFO: reading one would block) is
    ``NotRegular``, left as it is.
    """
    try:
        with open_regular(robots) as fh:
            text = fh.read().decode("utf-8")
    except FileNotFoundError:
        text = ""
    present = {url_key(url) for line in text.splitlines()
               if (url := _sitemap_url(line))}  # one URL in any spelling
    missing = [u for u in sitemap_urls if url_key(u) not in present]
    if not missing:
        return False
    if text and not text.endswith("\n"):
        text += "\n"
    if text and not text.endswith("\n\n"):
        text += "\n"
    text += "".join(f"Sitemap: {u}\n" for u in missing)
    atomic_write(robots, text)  # a crawler or a failed build never sees half of it
    return True


def _sitemap_url(line: str) -> str:
    """The URL of a ``Sitemap:`` line as RFC 9309 reads it: the key in any case, blanks
    around the colon, a ``#`` comment after the value; "" for any other line."""
    key, colon, value = line.lstrip("\ufeff").partition(":")
    if not colon or key.strip().lower() != "sitemap":
        return ""
    return value.split("#", 1)[0].strip()


def is_host_root(base_url: str) -> bool:
    return urlsplit(base_url).path in ("", "/")
