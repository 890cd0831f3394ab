"""A sitemap at a URL, for ``sitemapkit validate``: the file and, for an index, the
sitemaps it lists under its own folder, fetched into a temporary folder laid out as
the site is, so the checks that map an index's locs to files work as on a local copy.
Every read is capped at the protocol's largest file, with a timeout and one retry, and
each URL has a total deadline across its retries: a server that answers a byte a second
is cut off there, not read for ever."""

from __future__ import annotations

import concurrent.futures
import contextlib
import gzip
import html
import http.client
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from .._version import __version__
from ..errors import FetchError
from ..protocol import FETCH_DEADLINE, MAX_BYTES, MAX_URLS

FETCH_TIMEOUT = 20.0  # seconds a request may stay silent
READ_BLOCK = 1 << 16
ATTEMPTS = 2  # a timeout, a refused connection or a 5xx answer is tried once more
_LOC = re.compile(rb"<loc>\s*([^<]*?)\s*</loc>")


def is_url(arg: str) -> bool:
    return arg.startswith(("http://", "https://"))


@dataclass
class Fetched:
    """The entry file's local copy, the URL of its folder (the base URL of the local
    folder), and what became of each sitemap an index lists: fetched beside it, not
    fetched (its reason), or elsewhere (outside the folder: not fetched, not checked)."""

    path: Path
    base: str
    folder: Path
    url: str  # the entry point's
    children: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # listed loc -> why not fetched
    elsewhere: list[str] = field(default_factory=list)  # listed locs outside ``base``
    notes: list[str] = field(default_factory=list)

    def said(self) -> str:
        """One line: what was fetched, what failed and what was skipped."""
        listed = self.children + len(self.failed) + len(self.elsewhere)
        if not listed:
            return f"{self.url}: fetched"
        parts = [f"{self.children:,} of the {listed:,} sitemaps it lists fetched"]
        if self.failed:
            parts.append(f"{len(self.failed):,} could not be")
        if self.elsewhere:
            parts.append(f"{len(self.elsewhere):,} outside {self.base} not fetched")
        return f"{self.url}: fetched, with " + ", ".join(parts)


CHILD_THREADS = 4  # listed sitemaps fetched at once: one that hangs holds one of them


def fetch(url: str, into: Path, timeout: float = FETCH_TIMEOUT,
          deadline: float = FETCH_DEADLINE) -> Fetched:
    """Fetch ``url`` into ``into`` (an empty folder), and the sitemaps an index lists
    below its folder; one that lies elsewhere is named in a note, not fetched. The entry
    point has ``deadline`` seconds, whole; the sitemaps it lists share one more
    ``deadline`` (fetched a few at a time, so one that hangs costs its own wait, not
    the others'). A listed sitemap that cannot be fetched is recorded in ``failed``
    with its reason and the rest are still fetched; a redirect to another origin is
    said in a note."""
    parts = urlsplit(url)
    if not parts.netloc:
        raise FetchError(f"{url} has no host")
    name = unquote(parts.path.rsplit("/", 1)[-1]) or "sitemap.xml"
    notes: list[str] = []
    landed: list[str] = []
    entry = _store(into, name, _get(url, timeout, deadline, notes, landed))
    at = landed[-1] if landed else url  # after redirects: where the file lives
    folder_url = at.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[0] + "/"
    found = Fetched(entry, folder_url, into, url)
    below: dict[str, str] = {}  # loc -> its path below the folder
    for loc in _index_locs(entry)[:MAX_URLS]:
        if not loc.startswith(folder_url):
            found.elsewhere.append(loc)
        elif loc.split("#", 1)[0] not in (url.split("#", 1)[0], at):  # the index is here
            below.setdefault(loc, unquote(loc[len(folder_url):].split("?", 1)[0]))
    end = time.monotonic() + deadline

    def one(loc: str) -> str | None:
        try:
            left = end - time.monotonic()
            if left <= 0:
                return (f"not fetched: the {deadline:g} s deadline for the sitemaps the "
                        "index lists had passed (--fetch-deadline sets it)")
            _store(into, below[loc], _get(loc, min(timeout, left), left, notes))
        except FetchError as exc:
            return str(exc).removeprefix(f"cannot fetch {loc}: ")
        return None

    with concurrent.futures.ThreadPoolExecutor(CHILD_THREADS) as pool:
        for loc, failure in zip(below, pool.map(one, below), strict=True):
            if failure is None:
                found.children += 1
            else:
                found.failed[loc] = failure
    found.notes += notes
    if found.elsewhere:
        found.notes.append(f"{len(found.elsewhere):,} sitemaps the index lists lie outside "
                           f"{folder_url} and were not fetched or checked, e.g. "
                           f"{found.elsewhere[0]}")
    return found


def _store(into: Path, rel: str, data: bytes) -> Path:
    """``data`` at ``rel`` below ``into``; a path that would leave it is refused."""
    target = (into / rel).resolve()
    if not target.is_relative_to(into.resolve()) or target == into.resolve():
        raise FetchError(f"{rel!r} is not a file name below the sitemap's folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc.lower()


class _Watch:
    """Sockets of one URL's requests, shut at its deadline, so that no read, of the
    headers or of the body, outlasts it (a per-read timeout never fires on a server
    that sends a byte a second)."""

    def __init__(self, seconds: float) -> None:
        self.sockets: list[socket.socket] = []
        self.passed = False
        self.timer = threading.Timer(seconds, self._shut)
        self.timer.daemon = True
        self.timer.start()

    def _shut(self) -> None:
        self.passed = True
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def add(self, sock: socket.socket) -> None:
        self.sockets.append(sock)
        if self.passed:
            self._shut()


def _opener(watch: _Watch, notes: list[str]) -> urllib.request.OpenerDirector:
    class Watched(http.client.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            watch.add(self.sock)

    class Http(Watched):
        pass

    class Https(Watched, http.client.HTTPSConnection):
        pass

    class HttpHandler(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(Http, req)

    class HttpsHandler(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(Https, req)

    class Redirects(urllib.request.HTTPRedirectHandler):
        """Follows http(s) redirects as urllib does (another scheme is refused);
        one to another origin is said."""

        def redirect_request(self, req: urllib.request.Request, fp: Any, code: int,
                             msg: str, headers: Any, newurl: str
                             ) -> urllib.request.Request | None:
            if _origin(newurl) != _origin(req.full_url):
                notes.append(f"{req.full_url} redirected (HTTP {code}) to {newurl}, on "
                             "another origin: that is what was checked")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return urllib.request.build_opener(HttpHandler, HttpsHandler, Redirects)


def _get(url: str, timeout: float, deadline: float = FETCH_DEADLINE,
         notes: list[str] | None = None, landed: list[str] | None = None) -> bytes:
    """The body of ``url``, at most ``MAX_BYTES`` bytes (a larger file is no sitemap),
    within ``deadline`` seconds from the first request to the last byte; the URL it
    came from after redirects is appended to ``landed``."""
    request = urllib.request.Request(url, headers={
        "User-Agent": f"sitemapkit/{__version__} (validate)", "Accept-Encoding": "identity"})
    end = time.monotonic() + deadline
    watch = _Watch(deadline)
    opener = _opener(watch, notes if notes is not None else [])
    late = FetchError(f"cannot fetch {url}: no whole answer within {deadline:g} s (the "
                      "deadline for one URL, retries included; --fetch-deadline sets it)")
    try:
        for attempt in range(ATTEMPTS):
            try:
                with opener.open(request, timeout=min(timeout, max(end - time.monotonic(),
                                                                   0.01))) as answer:
                    body = _read(answer, url, end)
                    if landed is not None:
                        landed.append(answer.geturl())
                if watch.passed:
                    raise late
                return body
            except urllib.error.HTTPError as exc:
                if exc.code < 500 or attempt + 1 == ATTEMPTS:
                    raise FetchError(f"cannot fetch {url}: HTTP {exc.code} {exc.reason}",
                                     exc.code) from None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                if watch.passed or time.monotonic() >= end:
                    raise late from None
                if attempt + 1 == ATTEMPTS:
                    reason = getattr(exc, "reason", exc)
                    raise FetchError(f"cannot fetch {url}: {reason} (tried {ATTEMPTS} times, "
                                     f"{timeout:g} s each); download it and give the "
                                     "file") from None
            if time.monotonic() + 0.5 >= end:
                raise late
            time.sleep(0.5)
    finally:
        watch.timer.cancel()
    raise AssertionError("unreachable")  # pragma: no cover


def _read(answer: http.client.HTTPResponse, url: str, end: float) -> bytes:
    """The body a block at a time (``read1`` returns what one receive brings), the
    deadline checked between blocks."""
    blocks, size = [], 0
    while block := answer.read1(READ_BLOCK):
        blocks.append(block)
        size += len(block)
        if size > MAX_BYTES:
            raise FetchError(f"{url} is larger than {MAX_BYTES:,} bytes, the most a "
                             "sitemap file may hold (sitemapkit rules 22)")
        if time.monotonic() >= end:
            raise http.client.IncompleteRead(b"".join(blocks))
    return b"".join(blocks)


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
