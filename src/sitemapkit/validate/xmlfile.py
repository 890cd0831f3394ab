"""Streaming check of one XML sitemap or index (rules 1-8, 9-13, 15-20, 22-26, 33-39).

pyexpat callbacks, no tree: memory stays flat and a 50,000-URL shard takes a
fraction of a second. Cross-file facts go to the shared ``RunState``.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from xml.parsers import expat

from ..protocol import (
    KNOWN_EXTENSIONS,
    LEGACY_NAMESPACES,
    SITEMAP_NS,
    XHTML_NS,
)
from .entries import EntryCheck
from .filestate import SEP, FileState, _Ended, new_parser
from .findings import Severity
from .hreflang import check_link
from .reader import Content
from .scanfeed import ScanFeed
from .state import FileResult, RunState

NS = SITEMAP_NS
XHTML = XHTML_NS
LEGACY = LEGACY_NAMESPACES
URL_ORDER = {"loc": 1, "lastmod": 2, "changefreq": 3, "priority": 4}
INDEX_ORDER = {"loc": 1, "lastmod": 2}


class _Stop(Exception):
    """Abort the parse: not a sitemap, or a construct we refuse to expand."""


class XmlCheck(FileState):
    """One file. ``run()`` returns its FileResult; findings go to the report."""

    def __init__(self, path: Path, shown_name: str, state: RunState,
                 scope: str | None) -> None:
        super().__init__(path, shown_name, state, scope)
        self.entries = EntryCheck(self)
        self.resuming = False  # reading on after a broken spot

    # --- driving ------------------------------------------------------------
    def run(self) -> FileResult:
        try:
            return self._parse()
        finally:
            # The parser's handlers point back here, so this check would wait for a full
            # garbage collection with expat's buffers (~0.5 MB) alive: 44 MB at 80 files.
            self.parser = _Ended(self.parser.CurrentLineNumber)

    def _bind(self, p: expat.XMLParserType) -> expat.XMLParserType:
        p.StartElementHandler = self.start
        p.EndElementHandler = self.end
        p.CharacterDataHandler = self.chars
        p.XmlDeclHandler = self.xml_decl
        p.StartDoctypeDeclHandler = self.doctype
        p.EntityDeclHandler = self.entity_decl
        p.StartNamespaceDeclHandler = self.namespace_decl
        return p

    def _parse(self) -> FileResult:
        p = self.parser
        assert isinstance(p, expat.XMLParserType)
        self._bind(p)
        feed = ScanFeed(self, self.entries, self.state.scan_unit)
        broken_first: list[bool] = []  # the bytes the scan held broke before reading stopped

        def said_while_reading(severity: Severity, id_: str, message: str) -> None:
            broken_first.append(True)  # until expat has read what the scan held
            feed.to_expat()  # the line where the reading stopped, as expat alone has it
            broken_first.pop()
            self.say(severity, id_, message)

        content = Content(self.path, self.state.max_bytes, said_while_reading,
                          self.state.file_note(self.name))
        try:
            if not feed.read(content):
                return self.result
            if content.stopped:
                return self._stopped()
            p.Parse(b"", True)
        except _Stop:
            feed.settle()
            return self.result
        except expat.ExpatError as exc:
            feed.settle()
            if content.stopped and not broken_first:
                return self._stopped()
            self._not_well_formed(exc)
            if self.kind and self._resume(exc):
                self.finish()
                return self.result
            return self._stopped()  # the URLs read before the spot still count
        self.finish()
        return self.result

    def _not_well_formed(self, exc: expat.ExpatError) -> None:
        if self.kind and self.depth == 0 and not self.resuming:
            # past the root's end tag expat names the junk by what its buffer holds
            # ("junk after document element", or "invalid token" a few columns on):
            # one message, at the line, however the file was read
            self.say("error", "not-well-formed", f"not well-formed XML: text or markup "
                     f"after the root element ends, at line {exc.lineno} (only comments "
                     "and processing instructions may follow it)")
            return
        cause = _CAUSES.get(exc.code, "an unescaped '&' or '<' is the usual cause")
        self.say("error", "not-well-formed", f"not well-formed XML: "
                 f"{expat.ErrorString(exc.code)} at line {exc.lineno}, column "
                 f"{exc.offset + 1} ({cause})")

    def _resume(self, exc: expat.ExpatError) -> bool:
        """Read on past a broken spot: from the next ``<url>`` (``<sitemap>``) after it,
        under the file's own root start tag, with the file's line numbers, so every
        finding of the file is shown at once. False when nothing follows the spot."""
        data = b"".join(Content(self.path, self.state.max_bytes, lambda *said: None))
        root = _ROOT.search(data, 0, HEAD_SCAN)
        if root is None:
            return False
        tag = _ENTRY[self.kind]
        starts = _line_starts(data)
        line = min(max(exc.lineno, 1), len(starts))
        spot = starts[line - 1] + max(exc.offset, 0)  # the first parse's lines are the file's
        resumed = False
        for _ in range(MAX_RESUMES):
            found = tag.search(data, max(spot, root.end()))
            if found is None:
                return resumed
            at = found.start()
            parser = self._fresh_parser()
            fed = _padded(root.group(0), at, starts)
            self.resuming, resumed = True, True
            try:
                parser.Parse(fed + data[at:], True)
                return True
            except _Stop:
                return True
            except expat.ExpatError as again:
                self._not_well_formed(again)
                # where this parse stopped, in the file (its bytes are the file's from at)
                spot = max(at + 1, at + parser.ErrorByteIndex - len(fed))
        self.say("error", "not-well-formed", f"more than {MAX_RESUMES} broken spots: the "
                 "rest of the file is not read")
        return True

    def _fresh_parser(self) -> expat.XMLParserType:
        """A parser for the part after a broken spot, with this check's handlers and the
        state of one about to read the root element."""
        parser = self.parser = self._bind(new_parser())
        self.depth = self.skip_depth = self.link_depth = self.ext_depth = 0
        self.field, self.text, self.loose, self.entry = None, [], [], {}
        return parser

    def _stopped(self) -> FileResult:
        """Reading stopped early (a broken gzip stream, the size cap): count what was read."""
        self.state.report.urls += self.result.urls
        return self.result

    def finish(self) -> None:
        r = self.result
        r.kind = {"urlset": "urlset", "sitemapindex": "index"}.get(self.kind, "broken")
        self.entries.file_done()
        self.state.report.urls += r.urls

    # --- expat callbacks ----------------------------------------------------
    def xml_decl(self, version: str, encoding: str | None, standalone: int) -> None:
        if encoding and encoding.upper().replace("_", "-") not in ("UTF-8", "UTF8"):
            self.say("error", "encoding", f"the XML declaration names encoding {encoding!r}; "
                     "sitemaps must be UTF-8")

    def doctype(self, *args: object) -> None:
        self.say("error", "doctype", "a DOCTYPE declaration; sitemaps must not carry a DTD "
                 "(not parsed further)")
        raise _Stop

    def entity_decl(self, *args: object) -> None:  # pragma: no cover - DOCTYPE stops first
        raise _Stop

    def namespace_decl(self, prefix: str | None, uri: str) -> None:
        if self.depth > 0 and uri != NS:
            self.say("warning", "extension", f"namespace {uri!r} is declared below the root; "
                     "declare extension namespaces on the root element")

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if self.loose:
            self.loose_text()
        self.depth += 1
        depth = self.depth
        if self.skip_depth:
            if self.link_depth and depth == self.link_depth + 1:
                self.say("error", "extension", "xhtml:link must be empty")
            elif self.ext_depth and depth == self.ext_depth + 1:
                self.ext_children.add(name)
            return
        if depth == 3:
            self.child(name, attrs)
        elif depth == 2:
            self.entry, self.loc_count, self.order, self.links = {}, 0, 0, []
            self.entry_line = self.parser.CurrentLineNumber
            expected = "url" if self.kind == "urlset" else "sitemap"
            if name != NS + SEP + expected and name.rpartition(SEP)[2] == expected:
                if not self.namespace_said:  # said once, by the root or here
                    self.namespace_said = True
                    self.say("error", "namespace", f"<{expected}> is not in the sitemap "
                             f"namespace; declare xmlns=\"{NS}\" on the root")
                self.skip_depth = depth
            elif name != NS + SEP + expected:
                self.say("error", "unexpected-element", f"<{_show(name)}> inside "
                         f"<{self.kind}>; only <{expected}> is allowed")
                self.skip_depth = depth
        elif depth == 1:
            self.root(name)
        else:
            self.say("error", "unexpected-element", f"<{_show(name)}> nested inside a "
                     "value element")
            self.skip_depth = depth

    def root(self, name: str) -> None:
        if self.resuming:  # the file's own root tag again, after a broken spot: said once
            return
        ns, _, local = name.rpartition(SEP)
        if local in ("urlset", "sitemapindex"):
            self.kind = local
            if ns != NS:
                self.namespace_said = True
                why = LEGACY.get(ns, f"{ns!r}" if ns else "no namespace (xmlns is missing)")
                self.say("error", "namespace", f"<{local}> uses {why}; the namespace must be "
                         f"exactly {NS}")
            return
        if "sitemap" in self.path.name.lower():
            self.say("error", "not-a-sitemap", f"named like a sitemap, but the root is "
                     f"<{_show(name)}>, not <urlset> or <sitemapindex>")
        else:
            self.result.kind = "other"
            self.state.report.skipped.append(self.name)
        raise _Stop

    def child(self, name: str, attrs: dict[str, str]) -> None:
        ns, _, local = name.rpartition(SEP)
        order_of = URL_ORDER if self.kind == "urlset" else INDEX_ORDER
        if ns == NS and local in order_of:
            rank = order_of[local]
            if rank < self.order:  # a repeated element is reported when it ends
                self.say("error", "element-order", f"<{local}> after <{self._last}>; the order "
                         "is loc, lastmod, changefreq, priority, then extensions")
            self.order, self._last = max(rank, self.order), local
            self.field, self.text = local, []
            return
        if self.kind == "urlset" and ns == XHTML and local == "link":
            self.order, self._last = 5, "xhtml:link"
            self.link(attrs)
            self.skip_depth = self.depth  # empty content; anything inside is reported below
            self.link_depth = self.depth
            return
        if self.kind == "urlset" and ns in KNOWN_EXTENSIONS:
            self.order, self._last = 5, local
            prefix, top, _ = KNOWN_EXTENSIONS[ns]
            if local == top:  # its required children are checked when it ends
                self.ext_depth, self.ext_children = self.depth, set()
            self.skip_depth = self.depth
            return
        if self.kind == "urlset" and ns and ns != NS:
            self.order, self._last = 5, local
            if ns not in self.state.allow_namespaces:
                self.say("error", "extension", f"extension element <{local}> in namespace "
                         f"{ns!r} cannot be checked; allow it with --allow-namespace")
            self.skip_depth = self.depth
            return
        if self.kind == "urlset":
            self.say("error", "unexpected-element", f"<{_show(name)}> is not allowed in <url>")
        else:
            self.say("error", "index-format", f"<{_show(name)}> is not allowed in <sitemap>; "
                     "only <loc> and <lastmod>")
        self.skip_depth = self.depth

    def link(self, attrs: dict[str, str]) -> None:
        found = check_link(attrs, self.say)
        if found is not None:
            self.links.append((*found, self.parser.CurrentLineNumber))

    def chars(self, data: str) -> None:
        if self.field is not None:
            self.text.append(data)
        elif (self.depth <= 2 and not self.skip_depth
              or self.skip_depth and self.depth == self.link_depth):
            self.loose.append(data)

    def loose_text(self) -> None:
        """Text outside any value element, said once per run of text (at the tag that
        ends it), however the reads split it."""
        text = "".join(self.loose).strip()
        self.loose = []
        if not text:
            return
        if self.skip_depth:
            self.say("error", "extension", "xhtml:link must be empty")
        else:
            self.say("error", "unexpected-element", f"text {text[:40]!r} outside any value "
                     "element")

    def end(self, name: str) -> None:
        if self.loose:
            self.loose_text()
        depth = self.depth
        if depth == 2:  # where the fast scan may pick up again (see scanfeed)
            self.entry_closed_at = self.parser.CurrentByteIndex
        self.depth -= 1
        if self.skip_depth:
            if depth == self.skip_depth:
                if self.ext_depth:
                    self.extension_done(name)
                self.skip_depth = self.link_depth = self.ext_depth = 0
            return
        if depth == 3 and self.field is not None:
            value = "".join(self.text)
            if self.field == "loc":
                self.loc_count += 1
            elif self.field in self.entry:
                self.say("error", "element-order", f"<{self.field}> appears twice")
            self.entry[self.field] = value
            self.field = None
        elif depth == 2:
            if self.kind == "urlset":
                self.entries.url_done()
            else:
                self.entries.sitemap_done()


    def extension_done(self, name: str) -> None:
        """A known extension's element ends: the children its schema requires."""
        ns = name.rpartition(SEP)[0]
        prefix, top, required = KNOWN_EXTENSIONS[ns]
        have = {child.rpartition(SEP)[2] for child in self.ext_children
                if child.rpartition(SEP)[0] == ns}
        missing = [need for need in required if not set(need.split("|")) & have]
        if missing:
            shown = ", ".join(" or ".join(f"<{prefix}:{n}>" for n in need.split("|"))
                              for need in missing)
            self.say("error", "extension", f"<{prefix}:{top}> lacks {shown}, which its "
                     "published schema requires")


MAX_RESUMES = 1000  # broken spots read past in one file
HEAD_SCAN = 1 << 14  # bytes the root start tag is looked for in
_ROOT = re.compile(rb"<(?:urlset|sitemapindex)(?:\s[^>]*)?>")
_ENTRY = {"urlset": re.compile(rb"<url[\s>]"), "sitemapindex": re.compile(rb"<sitemap[\s>]")}
# what a well-formedness error most likely means, by expat's code
_CAUSES = {
    expat.errors.codes[expat.errors.XML_ERROR_NO_ELEMENTS]:
        "the file ends before its root element closes: cut short?",
    expat.errors.codes[expat.errors.XML_ERROR_UNCLOSED_TOKEN]:
        "the file ends inside a tag: cut short?",
}


def _padded(head: bytes, at: int, starts: list[int]) -> bytes:
    """``head`` then blanks, so that what follows is read at the line and column that
    byte ``at`` has in the file: the findings past a broken spot keep their places."""
    line = bisect.bisect_right(starts, at) - 1
    column = at - starts[line]
    rows = head.count(b"\n")
    if line > rows:
        return head + b"\n" * (line - rows) + b" " * column
    return head + b" " * max(column - (len(head) - (head.rfind(b"\n") + 1)), 0)


def _line_starts(data: bytes) -> list[int]:
    """The byte offset each line starts at."""
    starts = [0]
    at = data.find(b"\n")
    while at >= 0:
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    return starts


def _show(name: str) -> str:
    ns, _, local = name.rpartition(SEP)
    return f"{{{ns}}}{local}" if ns and ns != NS else local
