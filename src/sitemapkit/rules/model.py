"""The entry model and the rule catalogue: what one ``<url>`` is, and the ids every
error message cites (``sitemapkit rules N`` explains each number)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any, NamedTuple

from ..errors import SitemapkitError
from ..protocol import CHANGEFREQS, MAX_LOC_LENGTH

RULES: dict[str, str] = {
    "entry-type": "an entry is a UrlEntry, a URL string or a mapping with a 'loc' key",
    "loc-type": "loc must be a string",
    "loc-control-char": "loc must not contain control characters (sitemapkit rules 11)",
    "loc-unicode": "loc must be valid Unicode (no lone surrogates) (sitemapkit rules 1, 11)",
    "loc-absolute": "loc must be an absolute http(s) URL with a host (sitemapkit rules 9)",
    "loc-scheme": "loc must use http or https (sitemapkit rules 9)",
    "loc-userinfo": "loc must not carry user:password@ credentials (sitemapkit rules 9)",
    "loc-host": "loc has an invalid host name (sitemapkit rules 11)",
    "loc-port": "loc has an invalid port (sitemapkit rules 9)",
    "loc-percent": "loc has a malformed %-escape; '%' must be followed by two hex digits "
    "(sitemapkit rules 11)",
    "loc-outside-site": "loc must be on the base URL's scheme and host and at or below its path "
    "(sitemapkit rules 33, 34)",
    "loc-escaped-twice": "loc contains an XML entity such as &amp;: it was XML-escaped before "
    "it reached the writer, which escapes it again; pass the plain URL (sitemapkit rules 2)",
    "loc-too-long": f"loc must be at most {MAX_LOC_LENGTH} characters once percent-encoded "
    "(sitemapkit rules 10)",
    "lastmod-type": "lastmod must be a datetime, a date or a W3C Datetime string "
    "(sitemapkit rules 16)",
    "lastmod-format": "lastmod must be YYYY-MM-DD or YYYY-MM-DDThh:mm:ss[.f](Z|+hh:mm) "
    "(sitemapkit rules 16)",
    "lastmod-timezone": "a lastmod with a time of day needs its UTC offset, e.g. "
    "2024-05-01T10:00:00+02:00 or 2024-05-01T08:00:00Z (a time alone is ambiguous); "
    "give a date without time, or a timezone-aware datetime "
    "(sitemapkit rules 16)",
    "lastmod-future": "lastmod must not be more than 24 hours in the future (sitemapkit rules 18)",
    "changefreq": f"changefreq must be one of {', '.join(CHANGEFREQS)}, in lower case "
    "(sitemapkit rules 19)",
    "priority": "priority must be a decimal number from 0.0 to 1.0 (sitemapkit rules 20)",
    "entry-too-large": "one entry alone does not fit in a sitemap under max_bytes "
    "(sitemapkit rules 23)",
    "alternate": "alternates are (hreflang, absolute http(s) URL) pairs; hreflang is a language, "
    "optional script and region, or x-default (sitemapkit rules 36-38)",
    "alternate-self": "an entry with alternates must list itself among them (sitemapkit rules 36)",
    "alternate-repeat": "each hreflang, x-default included, appears at most once per entry "
    "(sitemapkit rules 36, 39)",
    "alternate-cluster": "every member of an hreflang cluster carries the same alternates "
    "(sitemapkit rules 36)",
}


class UrlEntry(NamedTuple):
    """One ``<url>``. A tuple so the C twin reads fields without attribute lookups."""

    loc: str
    lastmod: datetime | date | str | None = None
    changefreq: str | None = None
    priority: float | str | Decimal | None = None
    alternates: tuple[tuple[str, str], ...] = ()


class EntryError(SitemapkitError, ValueError):
    """A rule broken by one field of one entry (position filled in by the writer)."""

    def __init__(self, rule: str, field: str, value: object, detail: str = "") -> None:
        self.rule, self.field, self.value, self.detail = rule, field, value, detail
        self.position: int | None = None
        self.where: str | None = None  # the page or input line, when a host knows it
        super().__init__(self._text())

    def at(self, position: int) -> EntryError:
        self.position = position
        self.args = (self._text(),)
        return self

    def located(self) -> str:
        """The message with where the entry came from, when a host said it:
        ``entry 2: loc 'x' breaks rule ... (input line 3)``."""
        return f"{self} ({self.where})" if self.where else str(self)

    def _text(self) -> str:
        where = f"entry {self.position}: " if self.position is not None else ""
        shown = repr(self.value)
        if len(shown) > 200:
            shown = shown[:197] + "..."
        text = RULES[self.rule]
        if self.detail:  # what this value did, before the rule's reference
            body, ref, tail = text.rpartition(" (sitemapkit rules ")
            text = (f"{body} ({self.detail}){ref}{tail}" if ref
                    else f"{text} ({self.detail})")
        return f"{where}{self.field} {shown} breaks rule '{self.rule}': {text}"


class Normalized(NamedTuple):
    """Canonical, emit-ready strings for one entry (what ``UrlsetBuffer.add`` takes)."""

    loc: str
    lastmod: str | None
    changefreq: str | None
    priority: str | None
    alternates: tuple[tuple[str, str], ...]


_FIELDS = frozenset(UrlEntry._fields)


def tuple_pairs(value: object) -> bool:
    """A tuple of tuples (JSON Lines' alternates, ``cluster()``): nothing to copy."""
    return type(value) is tuple and all(type(pair) is tuple for pair in value)


def as_url_entry(entry: object) -> UrlEntry:
    if isinstance(entry, UrlEntry):
        return entry
    if isinstance(entry, str):
        return UrlEntry(entry)
    if isinstance(entry, Mapping):
        unknown = set(entry) - _FIELDS
        if unknown or "loc" not in entry:
            raise EntryError("entry-type", "entry", entry,
                             f"unknown keys {sorted(map(str, unknown))}" if unknown else "no loc")
        data: dict[str, Any] = dict(entry)
        pairs = data.get("alternates")
        if pairs and not tuple_pairs(pairs):
            data["alternates"] = tuple(tuple(p) for p in pairs)
        return UrlEntry(**data)
    raise EntryError("entry-type", "entry", entry, type(entry).__name__)
