"""Streaming check of one XML sitemap or index (rules 1-8, 9-13, 15-20, 22-26, 33-39).

pyexpat callbacks, no tree: memory stays flat and a 50,000-URL shard takes a
fraction of a second. Cross-file facts go to the shared ``RunState``.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from xml.parsers import expat

from ..entries import ENTITY_IN_URL
from ..hreflang import X_DEFAULT
from .findings import Severity
from .reader import Content
from .state import FileResult, RunState, check_changefreq, check_priority
from .urls import check_url, origin

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
SEP = " "
LEGACY = {"http://www.google.com/schemas/sitemap/0.84": "the legacy Google 0.84 namespace",
          "http://www.google.com/schemas/sitemap/0.9": "a Google namespace",
          "https://www.sitemaps.org/schemas/sitemap/0.9": "https instead of http"}
URL_ORDER = {"loc": 1, "lastmod": 2, "changefreq": 3, "priority": 4}
INDEX_ORDER = {"loc": 1, "lastmod": 2}
LINK_ATTRS = frozenset({"rel", "href", "hreflang", "media", "type", "title"})
HREFLANG = re.compile(r"[A-Za-z]{2}(-[A-Za-z]{4})?(-[A-Za-z]{2})?", re.ASCII)
NO_EFFECT_REGIONS = {"uk": "en-GB", "eu": "a country", "un": "a country"}
MAX_URLS = 50_000


class _Stop(Exception):
    """Abort the parse: not a sitemap, or a construct we refuse to expand."""


class XmlCheck:
    """One file. ``run()`` returns its FileResult; findings go to the report."""

    def __init__(self, path: Path, shown_name: str, state: RunState,
                 scope: str | None) -> None:
        self.path, self.name, self.state = path, shown_name, state
        self.scope = scope  # URL prefix every loc must start with (rules 28, 34), if known
        self.file_no = state.file_number(shown_name)
        self.result = FileResult(path, "broken")
        self.parser = expat.ParserCreate("UTF-8", SEP)
        self.parser.buffer_text = True
        self.parser.buffer_size = 1 << 16
        self.depth = 0
        self.kind = ""
        self.order = 0
        self.field: str | None = None
        self.text: list[str] = []
        self.entry: dict[str, str] = {}
        self.loc_count = 0
        self.links: list[tuple[str, str | None, int]] = []  # hreflang, href key, line
        self.entry_line = 0
        self.skip_depth = 0  # inside an element whose content is not checked further
        self.link_depth = 0  # inside an xhtml:link (which must be empty)
        self._last = ""  # the previous child element, for order messages
        self.origin: str | None = None
        self.day: str | None = None  # the one calendar day of every lastmod, if only one
        self.many_days = False
        self.dated = 0
        self.newest_key = -(2**62)
        self.namespace_said = False  # one message for entries outside the namespace

    def say(self, severity: Severity, id_: str, message: str) -> None:
        self.state.report.add(severity, id_, self.name, self.parser.CurrentLineNumber, message)
        if severity == "error":
            self.result.errors += 1

    def say_at_entry(self, severity: Severity, id_: str, message: str) -> None:
        self.state.report.add(severity, id_, self.name, self.entry_line, message)
        if severity == "error":
            self.result.errors += 1

    # --- driving ------------------------------------------------------------
    def run(self) -> FileResult:
        p = self.parser
        p.StartElementHandler = self.start
        p.EndElementHandler = self.end
        p.CharacterDataHandler = self.chars
        p.XmlDeclHandler = self.xml_decl
        p.StartDoctypeDeclHandler = self.doctype
        p.EntityDeclHandler = self.entity_decl
        p.StartNamespaceDeclHandler = self.namespace_decl
        content = Content(self.path, self.state.max_bytes,
                          lambda sev, id_, msg: self.say(sev, id_, msg))
        utf8 = codecs.getincrementaldecoder("utf-8")("strict")
        offset = 0
        try:
            for chunk in content:
                if offset == 0 and chunk.startswith(codecs.BOM_UTF8):
                    self.say("warning", "bom", "starts with a UTF-8 byte-order mark")
                try:
                    utf8.decode(chunk)
                except UnicodeDecodeError as exc:
                    self.say("error", "encoding", f"bytes at offset {offset + exc.start:,} are "
                             "not valid UTF-8; sitemaps must be UTF-8")
                    return self.result
                offset += len(chunk)
                p.Parse(chunk, False)
            if content.stopped:
                return self._stopped()
            p.Parse(b"", True)
        except _Stop:
            return self.result
        except expat.ExpatError as exc:
            if content.stopped:
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
        count = r.urls if r.kind == "urlset" else len(r.references)
        if r.kind == "urlset" and count > MAX_URLS:
            self.say("error", "too-many-urls", f"{count:,} URLs; at most {MAX_URLS:,} per "
                     "sitemap")
        if r.kind == "index" and count > MAX_URLS:
            self.say("error", "too-many-sitemaps", f"{count:,} sitemaps; at most {MAX_URLS:,} "
                     "per index (nesting is not allowed)")
        if count == 0 and r.kind != "broken":
            self.say("error", "empty", f"an empty <{self.kind}>: at least one "
                     f"<{'url' if r.kind == 'urlset' else 'sitemap'}> is required")
        if self.dated >= 10 and not self.many_days:
            day = self.day
            self.state.report.add("warning", "lastmod-build-date", self.name, None,
                                  f"all {self.dated:,} lastmods fall on {day}: this looks "
                                  "like the build date, not each page's last change")
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
        self.depth += 1
        depth = self.depth
        if self.skip_depth:
            if self.link_depth and depth == self.link_depth + 1:
                self.say("error", "extension", "xhtml:link must be empty")
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
        extra = sorted(set(attrs) - LINK_ATTRS)
        if extra:
            self.say("error", "extension", f"xhtml:link has attributes {extra} beyond rel, "
                     "href, hreflang, media, type, title")
        rel, lang, href = attrs.get("rel"), attrs.get("hreflang"), attrs.get("href")
        if rel != "alternate":
            self.say("error", "hreflang-link", f"xhtml:link rel is {rel!r}, not 'alternate'")
        if href is None:
            self.say("error", "hreflang-link", "xhtml:link has no href")
        if lang is None:
            self.say("error", "hreflang-link", "xhtml:link has no hreflang")
            return
        if lang.lower() != X_DEFAULT:
            if not HREFLANG.fullmatch(lang):
                self.say("error", "hreflang-code", f"hreflang {lang!r} is not a language, "
                         "optional script and region (e.g. en, de-AT, zh-Hant-TW) or x-default")
            elif len(lang) >= 5 and lang[-3] == "-" and lang[-2:].lower() in NO_EFFECT_REGIONS:
                self.say("warning", "hreflang-region", f"hreflang {lang!r}: region "
                         f"{lang[-2:]!r} has no effect; use "
                         f"{NO_EFFECT_REGIONS[lang[-2:].lower()]}")
        key = None
        if href is not None:
            key = check_url(href, lambda s, i, m: self.say(s, i, m), "alternate href",
                            "hreflang-href")
        self.links.append((lang, key, self.parser.CurrentLineNumber))

    def chars(self, data: str) -> None:
        if self.field is not None:
            self.text.append(data)
        elif self.depth <= 2 and not self.skip_depth and data.strip():
            self.say("error", "unexpected-element", f"text {data.strip()[:40]!r} outside "
                     "any value element")
        elif self.skip_depth and self.depth == self.link_depth and data.strip():
            self.say("error", "extension", "xhtml:link must be empty")

    def end(self, name: str) -> None:
        depth = self.depth
        self.depth -= 1
        if self.skip_depth:
            if depth == self.skip_depth:
                self.skip_depth = self.link_depth = 0
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
                self.url_done()
            else:
                self.sitemap_done()

    # --- one entry ------------------------------------------------------------
    def _loc_key(self, loc: str, what: str) -> str | None:
        say = self.say_at_entry
        if self.loc_count != 1:
            say("error", "loc-count", f"{self.loc_count} <loc> elements; exactly one is "
                "required")
            if not self.loc_count:
                return None
        if loc != loc.strip():
            say("warning", "loc-escaping", f"{what} {loc!r} has surrounding whitespace")
            loc = loc.strip()
        if "&" in loc and ENTITY_IN_URL.search(loc):
            say("error", "double-escaped", f"{what} {loc!r} contains an entity after parsing: "
                "it was escaped twice")
        key = check_url(loc, say, what)
        if key is None:
            return None
        here = origin(key)
        if self.origin is None:
            self.origin = here
        elif here != self.origin:
            say("error", "one-host", f"{what} {loc!r} is on {here}, but this file's first URL "
                f"is on {self.origin}; one scheme, host and port per file")
        if self.scope and not key.startswith(self.scope):
            say("error", "index-scope" if self.kind == "sitemapindex" else "scope",
                f"{what} {loc!r} is not at or below {self.scope}, this file's directory")
        return key

    def _lastmod(self, id_: str) -> None:
        text = self.entry.get("lastmod")
        if text is None:
            return
        known = self.state.check_lastmod(text, self.say_at_entry, id_)
        if known is not None:
            canonical, k = known
            self.dated += 1
            if self.day is None:
                self.day = canonical[:10]
            elif not self.many_days and canonical[:10] != self.day:
                self.many_days = True
            if k > self.newest_key:
                self.newest_key, self.result.newest_lastmod = k, canonical

    def url_done(self) -> None:
        self.result.urls += 1
        key = self._loc_key(self.entry.get("loc", ""), "loc")
        self._lastmod("lastmod-format")
        say = self.say_at_entry
        if "changefreq" in self.entry:
            check_changefreq(self.entry["changefreq"], say)
        if "priority" in self.entry:
            check_priority(self.entry["priority"], say)
        if key is None:
            return
        self.state.check_duplicate(key, self.file_no, say)
        if self.state.page_check is not None:
            self.state.page_check(key, say)
        if self.links:
            self.cluster(key)

    def cluster(self, key: str) -> None:
        say = self.say_at_entry
        langs: dict[str, str | None] = {}
        for lang, href, _ in self.links:
            low = lang.lower()
            if low in langs:
                if langs[low] == href:
                    say("warning", "hreflang-repeat", f"hreflang {lang!r} is listed twice with "
                        "the same href")
                elif low == X_DEFAULT:
                    say("error", "x-default", "more than one x-default alternate")
                else:
                    say("error", "hreflang-repeat", f"hreflang {lang!r} points to two "
                        f"different hrefs ({langs[low]} and {href})")
            langs[low] = href
        if key not in langs.values():
            say("error", "hreflang-self", f"the alternates of {key} do not include the page "
                "itself; every member lists itself")
        members = frozenset((lang, href) for lang, href in langs.items() if href)
        self.state.clusters[key] = members
        self.state.cluster_lines[key] = (self.name, self.entry_line)

    def sitemap_done(self) -> None:
        loc = self.entry.get("loc", "")
        key = self._loc_key(loc, "index loc")
        self._lastmod("index-lastmod")
        self.result.references.append((loc.strip(), key, self.entry_line))


def _show(name: str) -> str:
    ns, _, local = name.rpartition(SEP)
    return f"{{{ns}}}{local}" if ns and ns != NS else local
