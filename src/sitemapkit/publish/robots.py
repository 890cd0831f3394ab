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
    present = {url_key(line.split(":", 1)[1].strip()) for line in text.splitlines()
               if line.strip().lower().startswith("sitemap:")}  # one URL in any spelling
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


def is_host_root(base_url: str) -> bool:
    return urlsplit(base_url).path in ("", "/")
