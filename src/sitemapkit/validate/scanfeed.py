"""Feed one file's bytes to its XML check, letting the hot unit's scan take the plain
``<url>`` blocks (see ``_scan_py``): expat reads the root element and whatever the
scan hands over, so a file's findings do not depend on whether the scan ran.

Where the scan hands over, expat is first fed blanks with the skipped bytes' line
breaks and trailing column, so its line and column numbers stay the file's own.
"""

from __future__ import annotations

import codecs
import importlib
import re
from collections.abc import Iterable
from types import ModuleType
from typing import TYPE_CHECKING
from xml.parsers import expat

from .._urlset import count_lines
from .._urlset._scan_py import UrlScan
from ..errors import UsageError
from ..protocol import SITEMAP_NS, XHTML_NS
from ..rules.dates import DateSpread

if TYPE_CHECKING:
    from .entries import EntryCheck
    from .filestate import FileState

# An XML declaration, then the <urlset> start tag; its attributes are read below.
_HEAD = re.compile(
    rb"(?:\xef\xbb\xbf)?(?:<\?xml[^<>]*\?>)?[ \t\r\n]*<urlset((?:[ \t\r\n]+[^\s=<>/]+[ \t\r\n]*="
    rb"[ \t\r\n]*(?:\"[^\"<]*\"|'[^'<]*'))*)[ \t\r\n]*>")
_ATTR = re.compile(rb"([^\s=]+)[ \t\r\n]*=[ \t\r\n]*(?:\"([^\"]*)\"|'([^']*)')")
_NS = SITEMAP_NS.encode()
_XHTML = XHTML_NS.encode()
HEAD_LIMIT = 1 << 14  # a start tag longer than this is left to expat
RESUME_LIMIT = 1 << 20  # a block longer than this leaves the rest of the file to expat


SCAN_UNITS = {"auto": "sitemapkit._urlset", "c": "sitemapkit._urlset._urlset_c",
              "py": "sitemapkit._urlset._scan_py", "off": ""}


def scan_unit(choice: str) -> ModuleType | None:
    """The hot-unit twin a ``fast_scan`` choice names (None: expat reads everything)."""
    if choice not in SCAN_UNITS:
        raise UsageError(f"fast_scan must be one of {', '.join(SCAN_UNITS)}, not {choice!r}")
    name = SCAN_UNITS[choice]
    return importlib.import_module(name) if name else None


class ScanFeed:
    """``push`` each chunk in order, then ``push(b"", final=True)``; ``settle`` copies
    what the scan learned into the check before anything else reads it."""

    def __init__(self, check: FileState, entries: EntryCheck,
                 hot: ModuleType | None) -> None:
        self.check, self.entries = check, entries
        self.hot = hot
        self.mode = "head" if hot is not None and check.state.page_check is None else "expat"
        self.pending = b""
        self.scan: UrlScan | None = None  # or the C twin's, which has the same surface
        self.start_line = 0  # the line where the parser stopped reading, for the blanks
        self.fed = 0  # bytes given to the parser

    def read(self, chunks: Iterable[bytes]) -> bool:
        """Check UTF-8 and feed every chunk; False after an encoding error (reported,
        with the line of the bad bytes, once the parser has read what came before)."""
        c = self.check
        utf8 = codecs.getincrementaldecoder("utf-8")("strict")
        offset = lines = 0
        start = b""  # the first bytes, however the reads split them
        for chunk in chunks:
            if len(start) < len(codecs.BOM_UTF8):
                start += chunk[: len(codecs.BOM_UTF8) - len(start)]
                if start == codecs.BOM_UTF8:
                    c.say("warning", "bom", "starts with a UTF-8 byte-order mark")
            if not (chunk.isascii() and not utf8.getstate()[0]):
                try:
                    utf8.decode(chunk)
                except UnicodeDecodeError as exc:
                    self.push(b"", True)
                    line = lines + chunk.count(b"\n", 0, max(exc.start, 0)) + 1
                    c.state.report.add("error", "encoding", c.name, line, f"bytes at offset "
                                       f"{offset + exc.start:,} are not valid UTF-8; "
                                       "sitemaps must be UTF-8")
                    c.result.errors += 1
                    self.settle()
                    return False
            offset += len(chunk)
            lines += count_lines(chunk)  # for the line of an encoding error
            self.push(chunk, False)
        self.push(b"", True)  # no more bytes (all of them, or all before a stop)
        self.settle()
        return True

    def to_expat(self) -> None:
        """From here on the parser reads everything, starting with what the scan holds:
        a finding about the bytes read so far (the byte cap, a broken gzip stream) then
        has the line expat alone would give it."""
        if self.mode == "scan":
            pending, self.pending = self.pending, b""
            self._give(pending)
            self.mode = "expat"
        elif self.mode == "head":
            pending, self.pending = self.pending, b""
            self._to_expat(pending)

    def _parse(self, data: bytes) -> None:
        parser = self.check.parser
        assert isinstance(parser, expat.XMLParserType)
        self.fed += len(data)
        parser.Parse(data, False)

    def push(self, chunk: bytes, final: bool) -> None:
        if self.mode == "expat":
            self._parse(chunk)
            return
        buf = self.pending + chunk if self.pending else chunk
        self.pending = b""
        pos = 0
        if self.mode == "head":
            m = _HEAD.match(buf)
            if m is None:
                if not final and len(buf) < HEAD_LIMIT:
                    self.pending = buf  # the start tag may not be complete yet
                else:
                    self._to_expat(buf)
                return
            self._parse(buf[: m.end()])
            root = self._may_scan(m[1])
            if root is None:
                self._to_expat(buf[m.end():])
                return
            assert self.hot is not None
            c = self.check
            self.start_line = c.line()
            self.scan = self.hot.UrlScan(c.state.seen, c.file_no, c.state.future_limit,
                                         c.scope, self.start_line,
                                         root.get(b"xmlns:xhtml") == _XHTML)
            self.mode = "scan"
            pos = m.end()
        self._scan(buf, pos, final)

    def _may_scan(self, attrs: bytes) -> dict[bytes, bytes] | None:
        """The root's attributes, if it is <urlset> in the sitemap namespace, as the
        check saw it too."""
        c = self.check
        if c.kind != "urlset" or c.depth != 1 or c.namespace_said or c.skip_depth:
            return None
        found = {name: double or single for name, double, single in _ATTR.findall(attrs)}
        return found if found.get(b"xmlns") == _NS else None

    def _scan(self, buf: bytes, pos: int, final: bool) -> None:
        hot, scan = self.hot, self.scan
        assert hot is not None and scan is not None
        add_cluster, file_no = self.check.state.add_cluster, self.check.file_no
        while True:
            pos, status = scan.scan(buf, pos, final)
            for key, pairs, line in scan.take_clusters():  # before anything else is read
                add_cluster(key, frozenset(pairs), file_no, line)
            if status == hot.SCAN_DUPLICATE:
                self._duplicate()
                continue
            if status == hot.SCAN_MORE:
                self.pending = buf[pos:]
                return
            # Not plain: the parser reads up to the block's </url>, then the scan goes on
            # if the parser is back between entries.
            close = buf.find(b"</url>", pos)
            if close < 0:
                if final or len(buf) - pos >= RESUME_LIMIT:
                    self._give(buf[pos:])
                    self.mode = "expat"
                else:
                    self.pending = buf[pos:]  # the block's end is in a later chunk
                return
            close += len(b"</url>")
            self._give(buf[pos:close])
            if not self._between_entries():
                self._to_expat(buf[close:])
                return
            self._resume()
            pos = close

    def _duplicate(self) -> None:
        c, scan = self.check, self.scan
        assert scan is not None
        message = c.state.duplicate_message(scan.dup_key, scan.dup_first, c.file_no)
        c.state.report.add("error", "duplicate", c.name, scan.dup_line, message)
        c.result.errors += 1

    def _give(self, data: bytes) -> None:
        """The parser reads ``data`` where the scan stopped: first blanks with the scanned
        bytes' line breaks and trailing column, so its positions stay the file's own."""
        scan = self.scan
        assert scan is not None
        self.settle()
        self._parse(b"\n" * (scan.line - self.start_line) + b" " * scan.column + data)

    def _between_entries(self) -> bool:
        """The parser's last event was the </url> just given, at <urlset> level."""
        c = self.check
        return (c.depth == 1 and not c.skip_depth and c.field is None
                and c.entry_closed_at == self.fed - len(b"</url>"))

    def _resume(self) -> None:
        c, e, scan = self.check, self.entries, self.scan
        assert scan is not None
        scan.load(e.origin, e.dates.fields(), c.line())
        self.start_line = scan.line
        self.mode = "scan"

    def _to_expat(self, rest: bytes) -> None:
        self.mode = "expat"
        self._parse(rest)

    def settle(self) -> None:
        """Copy the scan's counts and file facts into the check (once per scanned run)."""
        scan, c = self.scan, self.check
        if scan is None or self.mode != "scan":
            return
        self.mode = "settled"
        e = self.entries
        c.result.urls += scan.urls
        scan.urls = 0
        e.origin = scan.origin
        e.dates = DateSpread(*scan.spread())
        c.result.newest_lastmod = e.dates.newest
