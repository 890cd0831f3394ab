"""Reference twin of the validator's fast scan: runs of plain ``<url>`` blocks checked
in one pass over the bytes, with no parser callback per element.

A block is *plain* when its syntax is the common one (``<url>``, ``<loc>``, then any
of ``<lastmod>``, ``<changefreq>``, ``<priority>`` in order, then, where the root binds
``xhtml`` to XHTML, any ``<xhtml:link rel="alternate" hreflang=".." href=".."/>`` as the
writer writes them; no other attributes or extensions, whitespace between tags) and
every rule it touches passes without a finding. A plain block's alternates are queued
(``take_clusters``) for the check across files. The scan stops at the first block
that is not plain and the XML check (expat) takes over there with the line and column
numbers it would have had, so the findings are the same with or without the scan;
only a duplicate loc is reported from here, because it is common and needs nothing
but the line.
``ext/_scan.pxi`` (``UrlScan``) makes the same decisions in C.
"""

from __future__ import annotations

import re
from typing import Protocol

from ..protocol import (
    CANONICAL_URL,
    CHANGEFREQS,
    ENTITY_IN_URL,
    HREFLANG,
    MAX_LOC_LENGTH,
    MIN_LOC_LENGTH,
    NO_EFFECT_REGIONS,
    PLAIN_PRIORITIES,
    X_DEFAULT,
)
from ..rules.dates import DateSpread, lastmod_key, normalize_lastmod
from ..rules.model import EntryError
from ._urlset_py import LocSet

__all__ = ["SCAN_DUPLICATE", "SCAN_HANDOVER", "SCAN_MORE", "SCAN_WINDOW", "LocSet", "UrlScan"]

SCAN_MORE, SCAN_HANDOVER, SCAN_DUPLICATE = 0, 1, 2
# An unfinished block shorter than this waits for more bytes; a longer one is not plain.
SCAN_WINDOW = 1 << 16

_WS = rb"(?:[ \t\n]|\r\n)*"
_BLOCK = re.compile(
    _WS + rb"<url>" + _WS + rb"<loc>([^<]*)</loc>" + _WS
    + rb"(?:<lastmod>([^<]*)</lastmod>" + _WS + rb")?"
    + rb"(?:<changefreq>([^<]*)</changefreq>" + _WS + rb")?"
    + rb"(?:<priority>([^<]*)</priority>" + _WS + rb")?")
_LINK = re.compile(rb'<xhtml:link rel="alternate" hreflang="([^"<&]*)" href="([^"<]*)"/>' + _WS)
_END = re.compile(rb"</url>")
MAX_LINKS = 64  # alternates in one plain block (more: the XML check reads it)
_RAW_LOC = re.compile(rb"(?:[\x00-\x25\x27-\x7f]|&amp;|&apos;)*")  # ASCII; '&' only as two entities
_LASTMOD = re.compile(rb"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9:]{8}(?:\.[0-9]+)?(?:Z|[+-][0-9:]{5}))?")
_CHANGEFREQS = frozenset(c.encode() for c in CHANGEFREQS)
_PRIORITIES = frozenset(p.encode() for p in PLAIN_PRIORITIES)


class Seen(Protocol):
    def first(self, key: str, tag: int) -> int: ...


class UrlScan:
    """The scan of one ``<urlset>`` file, and what it learned (read back by the check)."""

    def __init__(self, seen: Seen, file_no: int, future_limit: int, scope: str | None,
                 line: int, links: bool = False) -> None:
        self.seen, self.file_no, self.future_limit = seen, file_no, future_limit
        self.links = links  # the root binds the xhtml prefix: plain blocks may have links
        self._clusters: list[tuple[str, tuple[tuple[str, str], ...], int]] = []
        self._langs: dict[str, str] = {}  # one string per hreflang: clusters hold millions
        self.scope = scope or ""
        self.origin: str | None = None  # scheme://host of the file's first loc
        self.line = line  # the line number at the scan position
        self.column = 0  # bytes since the last line break, or since the scan began
        self.urls = 0
        self.dates = DateSpread()
        self.dup_key, self.dup_first, self.dup_line = "", -1, 0
        self._lastmods: dict[bytes, tuple[str, int] | None] = {}

    def load(self, origin: str | None, spread: tuple[int, str | None, bool, int, str | None],
             line: int) -> None:
        """Carry on after the XML check read a block: its view of the file (``spread``:
        ``DateSpread.fields()``), and the line (the column starts again at 0: the
        check's parser is exactly there)."""
        self.origin, self.dates = origin, DateSpread(*spread)
        self.line, self.column = line, 0

    def spread(self) -> tuple[int, str | None, bool, int, str | None]:
        """The lastmods seen so far, as ``DateSpread.fields()``."""
        return self.dates.fields()

    def scan(self, buf: bytes, pos: int, final: bool) -> tuple[int, int]:
        """Check plain blocks from ``buf[pos:]``; (where it stopped, SCAN_*)."""
        match = _BLOCK.match
        while True:
            m = match(buf, pos)
            links: list[tuple[bytes, bytes]] = []
            end = m.end() if m is not None else -1
            while m is not None and self.links and len(links) <= MAX_LINKS:
                link = _LINK.match(buf, end)
                if link is None:
                    break
                links.append((link[1], link[2]))
                end = link.end()
            if len(links) > MAX_LINKS:
                return pos, SCAN_HANDOVER
            closed = _END.match(buf, end) if m is not None else None
            if m is None or closed is None:
                more = not final and len(buf) - pos < SCAN_WINDOW
                return pos, SCAN_MORE if more else SCAN_HANDOVER
            found = self._entry(m[1], m[2], m[3], m[4])
            if found is None:
                return pos, SCAN_HANDOVER
            loc, lastmod = found
            pairs = self._cluster(loc, links) if links else ()
            if pairs is None:
                return pos, SCAN_HANDOVER
            if self.origin is None:
                self.origin = loc[: loc.index("/", loc.index("://") + 3)]
            end = closed.end()
            url_line = self.line + buf.count(b"\n", pos, buf.find(b"<url>", pos))
            if pairs:
                self._clusters.append((loc, pairs, url_line))
            self._count(lastmod)
            self._advance(buf, pos, end)
            first = self.seen.first(loc, self.file_no)
            pos = end
            if first >= 0:
                self.dup_key, self.dup_first, self.dup_line = loc, first, url_line
                return pos, SCAN_DUPLICATE

    def take_clusters(self) -> list[tuple[str, tuple[tuple[str, str], ...], int]]:
        """(loc, its (hreflang lower-cased, href) pairs, line) of each plain block with
        alternates since the last call, in file order."""
        taken, self._clusters = self._clusters, []
        return taken

    def _cluster(self, loc: str, links: list[tuple[bytes, bytes]]
                 ) -> tuple[tuple[str, str], ...] | None:
        """The pairs of links that break no rule (36-39), each language once and the page
        among them; None otherwise (the XML check then says what is wrong)."""
        pairs: dict[str, str] = {}
        hrefs: dict[str, str] = {}  # x-default usually repeats a language's href
        for raw_lang, raw_href in links:
            lang = _plain_lang(raw_lang)
            href = _canonical_url(raw_href)
            if lang is None or href is None or lang in pairs:
                return None
            pairs[self._langs.setdefault(lang, lang)] = hrefs.setdefault(href, href)
        if loc not in pairs.values():
            return None
        return tuple(pairs.items())

    def _entry(self, raw_loc: bytes, raw_lastmod: bytes | None, changefreq: bytes | None,
               priority: bytes | None) -> tuple[str, tuple[str, int] | None] | None:
        """(loc, (canonical lastmod, key) or None) of a block that breaks no rule."""
        if changefreq is not None and changefreq not in _CHANGEFREQS:
            return None
        if priority is not None and priority not in _PRIORITIES:
            return None
        loc = _canonical_url(raw_loc)
        if loc is None or not loc.startswith(self.scope):
            return None
        if self.origin is not None and not (loc.startswith(self.origin)
                                            and loc[len(self.origin)] == "/"):
            return None
        lastmod = None
        if raw_lastmod is not None:
            lastmod = self._lastmod(raw_lastmod)
            if lastmod is None or lastmod[1] > self.future_limit:
                return None
        return loc, lastmod

    def _lastmod(self, raw: bytes) -> tuple[str, int] | None:
        try:
            return self._lastmods[raw]
        except KeyError:
            pass
        known = None
        if _LASTMOD.fullmatch(raw):
            try:
                canonical = normalize_lastmod(raw.decode("ascii"), None)
            except EntryError:
                pass
            else:
                assert canonical is not None
                known = (canonical, lastmod_key(canonical))
        if len(self._lastmods) < 100_000:
            self._lastmods[raw] = known
        return known

    def _count(self, lastmod: tuple[str, int] | None) -> None:
        self.urls += 1
        if lastmod is not None:
            self.dates.add(*lastmod)

    def _advance(self, buf: bytes, start: int, end: int) -> None:
        """Line and column after ``buf[start:end]`` (a line break is LF or CR LF)."""
        breaks = buf.count(b"\n", start, end)
        if breaks:
            self.line += breaks
            self.column = end - buf.rfind(b"\n", start, end) - 1
        else:
            self.column += end - start


def _canonical_url(raw: bytes) -> str | None:
    """A loc or href (its raw bytes) that is canonical and not escaped twice, decoded."""
    if not _RAW_LOC.fullmatch(raw):
        return None
    url = raw.decode("ascii").replace("&apos;", "'").replace("&amp;", "&")
    if not (MIN_LOC_LENGTH <= len(url) <= MAX_LOC_LENGTH and CANONICAL_URL.fullmatch(url)):
        return None
    if "&" in url and ENTITY_IN_URL.search(url):
        return None
    return url


def _plain_lang(raw: bytes) -> str | None:
    """A hreflang with no finding (a language, script and region, or x-default),
    lower-cased as clusters compare them."""
    lang = raw.decode("ascii", "replace")
    low = lang.lower()
    if low == X_DEFAULT:
        return low
    if not HREFLANG.fullmatch(lang):
        return None
    if len(lang) >= 5 and lang[-3] == "-" and low[-2:] in NO_EFFECT_REGIONS:
        return None
    return low
