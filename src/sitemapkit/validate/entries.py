"""Per-entry checks of the XML validator: one <url> or <sitemap> once it has ended
(loc, one host per file, scope, lastmod, changefreq, priority, duplicates, the page
check, hreflang clusters), and the file's lastmod spread."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..protocol import ENTITY_IN_URL, MAX_URLS
from ..rules.dates import DateSpread
from .hreflang import cluster_members
from .state import check_changefreq, check_priority
from .urls import check_url, origin

if TYPE_CHECKING:
    from .filestate import FileState


class EntryCheck:
    """The entry checks of one file, with what they track across its entries."""

    def __init__(self, x: FileState) -> None:
        self.x = x
        self.origin: str | None = None
        self.dates = DateSpread()

    def loc_key(self, loc: str, what: str) -> str | None:
        say = self.x.say_at_entry
        if self.x.loc_count != 1:
            say("error", "loc-count", f"{self.x.loc_count} <loc> elements; exactly one is "
                "required")
            if not self.x.loc_count:
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
        if self.x.scope and not key.startswith(self.x.scope):
            say("error", "index-scope" if self.x.kind == "sitemapindex" else "scope",
                f"{what} {loc!r} is not at or below {self.x.scope}, this file's directory")
        return key

    def lastmod(self, id_: str) -> None:
        text = self.x.entry.get("lastmod")
        if text is None:
            return
        known = self.x.state.check_lastmod(text, self.x.say_at_entry, id_)
        if known is not None and self.dates.add(*known):
            self.x.result.newest_lastmod = known[0]

    def url_done(self) -> None:
        self.x.result.urls += 1
        key = self.loc_key(self.x.entry.get("loc", ""), "loc")
        self.lastmod("lastmod-format")
        say = self.x.say_at_entry
        if "changefreq" in self.x.entry:
            check_changefreq(self.x.entry["changefreq"], say)
        if "priority" in self.x.entry:
            check_priority(self.x.entry["priority"], say)
        if key is None:
            return
        self.x.state.check_duplicate(key, self.x.file_no, say)
        if self.x.state.page_check is not None:
            self.x.state.page_check(key, say)
        if self.x.links:
            self.cluster(key)

    def cluster(self, key: str) -> None:
        self.x.state.add_cluster(key, cluster_members(self.x.links, key, self.x.say_at_entry),
                                 self.x.file_no, self.x.entry_line)

    def sitemap_done(self) -> None:
        loc = self.x.entry.get("loc", "")
        key = self.loc_key(loc, "index loc")
        self.lastmod("index-lastmod")
        self.x.result.references.append((loc.strip(), key, self.x.entry_line))

    def file_done(self) -> None:
        """What the whole file shows: its entry count (rules 7, 22, 26) and a lastmod
        spread of one day, which looks like a build date (rule 17)."""
        x, r = self.x, self.x.result
        count = r.urls if r.kind == "urlset" else len(r.references)
        if r.kind == "urlset" and count > MAX_URLS:
            x.say("error", "too-many-urls", f"{count:,} URLs; at most {MAX_URLS:,} per sitemap")
        if r.kind == "index" and count > MAX_URLS:
            x.say("error", "too-many-sitemaps", f"{count:,} sitemaps; at most {MAX_URLS:,} "
                  "per index (nesting is not allowed)")
        if count == 0 and r.kind != "broken":
            x.say("error", "empty", f"an empty <{x.kind}>: at least one "
                  f"<{'url' if r.kind == 'urlset' else 'sitemap'}> is required")
        dates = self.dates
        if dates.dated >= 10 and not dates.many_days and not x.state.dates_from_git:
            x.state.report.add("warning", "lastmod-build-date", x.name, None,
                               f"all {dates.dated:,} lastmods fall on {dates.day}: this looks "
                               "like the build date, not each page's last change")
