"""Streaming check of one XML sitemap or index (rules 1-8, 9-13, 15-20, 22-26, 33-39).

pyexpat callbacks, no tree: memory stays flat and a 50,000-URL shard takes a
fraction of a second. Cross-file facts go to the shared ``RunState``.
"""

from __future__ import annotations

from pathlib import Path
from xml.parsers import expat

from ..protocol import (
    KNOWN_EXTENSIONS,
    LEGACY_NAMESPACES,
    SITEMAP_NS,
    XHTML_NS,
)
from .entries import EntryCheck
from .filestate import SEP, FileState, _Ended
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

    # --- driving ------------------------------------------------------------
    def run(self) -> FileResult:
        try:
            return self._parse()
        finally:
            # The parser's handlers point back here, so this check would wait for a full
            # garbage collection with expat's buffers (~0.5 MB) alive: 44 MB at 80 files.
            self.parser = _Ended(self.parser.CurrentLineNumber)

    def _parse(self) -> FileResult:
        p = self.parser
        assert isinstance(p, expat.XMLParserType)
        p.StartElementHandler = self.start
        p.EndElementHandler = self.end
        p.CharacterDataHandler = self.chars
        p.XmlDeclHandler = self.xml_decl
        p.StartDoctypeDeclHandler = self.doctype
        p.EntityDeclHandler = self.entity_decl
        p.StartNamespaceDeclHandler = self.namespace_decl
        feed = ScanFeed(self, self.entries, self.state.scan_unit)
        broken_first: list[bool] = []  # the bytes the scan held broke before reading stopped

        def said_while_reading(severity: Severity, id_: str, message: str) -> None:
            broken_first.append(True)  # until expat has read what the scan held
            feed.to_expat()  # the line where the reading stopped, as expat alone has it
            broken_first.pop()
            self.say(severity, id_, message)

        content = Content(self.path, self.state.max_bytes, said_while_reading)
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
            self.say("error", "not-well-formed", f"not well-formed XML: "
                     f"{expat.ErrorString(exc.code)} at line {exc.lineno}, column "
                     f"{exc.offset + 1} (an unescaped '&' or '<' is the usual cause)")
            return self.result
        self.finish()
        return self.result

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


def _show(name: str) -> str:
    ns, _, local = name.rpartition(SEP)
    return f"{{{ns}}}{local}" if ns and ns != NS else local
