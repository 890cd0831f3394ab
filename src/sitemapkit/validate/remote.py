"""A sitemap at a URL, for ``sitemapkit validate``: the file and, for an index, the
sitemaps it lists under its own folder, fetched into a temporary folder laid out as
the site is, so the checks that map an index's locs to files work as on a local copy.
Every read is capped at the protocol's largest file, with a timeout and one retry."""

from __future__ import annotations

import gzip
import html
import re
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .._version import __version__
from ..errors import FetchError
from ..protocol import MAX_BYTES, MAX_URLS

FETCH_TIMEOUT = 20.0  # seconds for each request
ATTEMPTS = 2  # a timeout, a refused connection or a 5xx answer is tried once more
_LOC = re.compile(rb"<loc>\s*([^<]*?)\s*</loc>")


def is_url(arg: str) -> bool:
    return arg.startswith(("http://", "https://"))


@dataclass
class Fetched:
    """The entry file's local copy, the URL of its folder (the base URL of the local
    folder), and the number of listed sitemaps fetched beside it."""

    path: Path
    base: str
    folder: Path
    url: str  # the entry point's
    children: int = 0
    notes: list[str] = field(default_factory=list)


def fetch(url: str, into: Path, timeout: float = FETCH_TIMEOUT) -> Fetched:
    """Fetch ``url`` into ``into`` (an empty folder), and the sitemaps an index lists
    below its folder; one that lies elsewhere is named in a note, not fetched."""
    parts = urlsplit(url)
    if not parts.netloc:
        raise FetchError(f"{url} has no host")
    folder_url = url.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[0] + "/"
    name = unquote(parts.path.rsplit("/", 1)[-1]) or "sitemap.xml"
    entry = _store(into, name, _get(url, timeout))
    found = Fetched(entry, folder_url, into, url)
    children = _index_locs(entry)
    elsewhere = [loc for loc in children if not loc.startswith(folder_url)]
    for loc in children[:MAX_URLS]:
        if loc.startswith(folder_url):
            rel = unquote(loc[len(folder_url):].split("?", 1)[0])
            _store(into, rel, _get(loc, timeout))
            found.children += 1
    if elsewhere:
        found.notes.append(f"{len(elsewhere):,} sitemaps the index lists lie outside "
                           f"{folder_url} and were not fetched, e.g. {elsewhere[0]}")
    return found


def _store(into: Path, rel: str, data: bytes) -> Path:
    """``data`` at ``rel`` below ``into``; a path that would leave it is refused."""
    target = (into / rel).resolve()
    if not target.is_relative_to(into.resolve()) or target == into.resolve():
        raise FetchError(f"{rel!r} is not a file name below the sitemap's folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def _get(url: str, timeout: float) -> bytes:
    """The body of ``url``, at most ``MAX_BYTES`` bytes (a larger file is no sitemap)."""
    request = urllib.request.Request(url, headers={
        "User-Agent": f"sitemapkit/{__version__} (validate)", "Accept-Encoding": "identity"})
    for attempt in range(ATTEMPTS):
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                body: bytes = answer.read(MAX_BYTES + 1)
            if len(body) > MAX_BYTES:
                raise FetchError(f"{url} is larger than {MAX_BYTES:,} bytes, the most a "
                                 "sitemap file may hold (sitemapkit rules 22)")
            return body
        except urllib.error.HTTPError as exc:
            if exc.code < 500 or attempt + 1 == ATTEMPTS:
                raise FetchError(f"cannot fetch {url}: HTTP {exc.code} {exc.reason}",
                                 exc.code) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            if attempt + 1 == ATTEMPTS:
                reason = getattr(exc, "reason", exc)
                raise FetchError(f"cannot fetch {url}: {reason} (tried {ATTEMPTS} times, "
                                 f"{timeout:g} s each); download it and give the file") from None
        time.sleep(0.5)
    raise AssertionError("unreachable")  # pragma: no cover


def _index_locs(path: Path) -> list[str]:
    """The locs of a sitemap index (none for anything else), read within the cap."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            with gzip.open(path, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except (OSError, EOFError):
            return []  # the validator names a broken gzip file
    if b"<sitemapindex" not in data[:4096]:
        return []
    return [html.unescape(m[1].decode("utf-8", "replace")) for m in _LOC.finditer(data)]
