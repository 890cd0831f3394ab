"""robots.txt: add the ``Sitemap:`` lines crawlers read, only at a host root."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from .._files import atomic_write, open_regular
from ..rules.robots import sitemap_lines


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
    missing = _missing(text, sitemap_urls)
    if not missing:
        return False
    if text and not text.endswith("\n"):
        text += "\n"
    if text and not text.endswith("\n\n"):
        text += "\n"
    text += "".join(f"Sitemap: {u}\n" for u in missing)
    atomic_write(robots, text)  # a crawler or a failed build never sees half of it
    return True


def robots_would_add(robots: Path, sitemap_urls: Iterable[str]) -> list[str]:
    """The URLs ``robots_sitemap_line`` would add (a dry run's answer), read the same
    way; a robots.txt that cannot be read would get them all."""
    try:
        with open_regular(robots) as fh:
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        text = ""
    return _missing(text, sitemap_urls)


def _missing(text: str, sitemap_urls: Iterable[str]) -> list[str]:
    from ..validate.urls import url_key  # on use: the validator stays out of a write's start

    present = {url_key(url) for _, url in sitemap_lines(text)}  # one URL in any spelling
    return [u for u in sitemap_urls if url_key(u) not in present]


def is_host_root(base_url: str) -> bool:
    return urlsplit(base_url).path in ("", "/")
