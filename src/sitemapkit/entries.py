"""Sitemap entries and the rules that make them valid, defined once.

Both writer twins send every entry that is not already canonical here (the
"slow path"): percent-encoding, IDNA, dot segments, date parsing. Errors carry
a rule id from ``RULES`` so messages name the rule that was broken.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

MAX_LOC_LENGTH = 2047  # protocol-rules 10: fewer than 2,048 characters
CHANGEFREQS = frozenset({"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"})
DEFAULT_PORTS = {"http": "80", "https": "443"}

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
    "changefreq": "changefreq must be one of always, hourly, daily, weekly, monthly, yearly, "
    "never, in lower case (sitemapkit rules 19)",
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


class EntryError(ValueError):
    """A rule broken by one field of one entry (position filled in by the writer)."""

    def __init__(self, rule: str, field: str, value: object, detail: str = "") -> None:
        self.rule, self.field, self.value, self.detail = rule, field, value, detail
        self.position: int | None = None
        super().__init__(self._text())

    def at(self, position: int) -> EntryError:
        self.position = position
        self.args = (self._text(),)
        return self

    def _text(self) -> str:
        where = f"entry {self.position}: " if self.position is not None else ""
        shown = repr(self.value)
        if len(shown) > 200:
            shown = shown[:197] + "..."
        extra = f" ({self.detail})" if self.detail else ""
        return f"{where}{self.field} {shown} breaks rule '{self.rule}': {RULES[self.rule]}{extra}"


class Normalized(NamedTuple):
    """Canonical, emit-ready strings for one entry (what ``UrlsetBuffer.add`` takes)."""

    loc: str
    lastmod: str | None
    changefreq: str | None
    priority: str | None
    alternates: tuple[tuple[str, str], ...]


# --- loc ------------------------------------------------------------------

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
# Characters kept as they are in path and query (RFC 3986 pchar, '/', '?');
# everything else ASCII is percent-encoded, '%' is checked separately.
_KEEP = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?"
)
_HEX = frozenset("0123456789abcdefABCDEF")
ENTITY_IN_URL = re.compile(r"&(?:amp|lt|gt|quot|apos);")
_HOST_OK = re.compile(r"[a-z0-9.\-_~!$&'()*+,;=]+|\[[0-9a-f:.]+\]")


def _check_chars(text: str, field: str, value: object) -> None:
    for ch in text:
        o = ord(ch)
        if o < 0x20 or 0x7F <= o <= 0x9F:
            raise EntryError("loc-control-char", field, value, f"U+{o:04X}")
        if 0xD800 <= o <= 0xDFFF:
            raise EntryError("loc-unicode", field, value, f"lone surrogate U+{o:04X}")


def _encode_tail(tail: str, field: str, value: object) -> str:
    """Percent-encode path+query: UTF-8 for non-ASCII, upper-case %hh."""
    out: list[str] = []
    i, n = 0, len(tail)
    while i < n:
        ch = tail[i]
        if ch == "%":
            if i + 2 < n and tail[i + 1] in _HEX and tail[i + 2] in _HEX:
                out.append("%" + tail[i + 1 : i + 3].upper())
                i += 3
                continue
            raise EntryError("loc-percent", field, value, f"at character {i + 1}")
        if ch in _KEEP:
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
        i += 1
    return "".join(out)


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4, so '/docs/../etc' cannot pass as under '/docs/'."""
    if "/." not in path and not path.startswith("."):
        return path
    out: list[str] = []
    segments = path.split("/")
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == ".":
            if last:
                out.append("")
        elif seg == "..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(seg)
    result = "/".join(out)
    return result if result.startswith("/") else "/" + result


def split_url(url: str, field: str = "loc", value: object = None) -> tuple[str, str, str]:
    """Return canonical (scheme, authority, path+query) of an absolute http(s) URL."""
    value = url if value is None else value
    _check_chars(url, field, value)
    m = _SCHEME.match(url)
    if not m or url[m.end() : m.end() + 2] != "//":
        raise EntryError("loc-absolute", field, value)
    scheme = m.group(1).lower()
    if scheme not in DEFAULT_PORTS:
        raise EntryError("loc-scheme", field, value, f"scheme {scheme!r}")
    rest = url[m.end() + 2 :]
    rest = rest.split("#", 1)[0]  # fragments never become entries (sitemapkit rules 13)
    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    if "@" in authority:
        raise EntryError("loc-userinfo", field, value)
    host, port = authority, ""
    if not authority.endswith("]") and ":" in authority:
        host, port = authority.rsplit(":", 1)
        if port and not (port.isascii() and port.isdigit() and int(port) <= 65535):
            raise EntryError("loc-port", field, value, f"port {port!r}")
    if not host:
        raise EntryError("loc-absolute", field, value, "no host")
    try:
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError as exc:
        raise EntryError("loc-host", field, value, str(exc)) from None
    host = host.lower()
    if not _HOST_OK.fullmatch(host):
        raise EntryError("loc-host", field, value, f"host {host!r}")
    if port == DEFAULT_PORTS[scheme] or port == "":
        port = ""
    else:
        port = ":" + str(int(port))
    if tail.startswith("?") or not tail:
        tail = "/" + tail
    path, sep, query = tail.partition("?")
    tail = _remove_dot_segments(path) + sep + query
    return scheme, host + port, _encode_tail(tail, field, value)


def normalize_base_url(base_url: str) -> str:
    """Canonical base URL prefix, always ending in '/' (no query)."""
    try:
        scheme, authority, tail = split_url(base_url, "base_url", base_url)
    except EntryError as exc:
        raise ValueError(f"invalid base_url: {exc}") from None
    if "?" in tail:
        raise ValueError(f"invalid base_url {base_url!r}: it must not have a query")
    if "#" in base_url:
        raise ValueError(f"invalid base_url {base_url!r}: it must not have a #fragment "
                         "(the URL of the output directory, e.g. https://example.com/docs/)")
    if not tail.endswith("/"):
        tail += "/"
    return f"{scheme}://{authority}{tail}"


def _check_not_escaped(tail: str, field: str, value: object) -> None:
    if "&" in tail and ENTITY_IN_URL.search(tail):
        raise EntryError("loc-escaped-twice", field, value)


def normalize_loc(loc: object, base_prefix: str, field: str = "loc") -> str:
    if not isinstance(loc, str):
        raise EntryError("loc-type", field, loc)
    scheme, authority, tail = split_url(loc, field, loc)
    canonical = f"{scheme}://{authority}{tail}"
    _check_not_escaped(tail, field, loc)
    if not canonical.startswith(base_prefix):
        raise EntryError("loc-outside-site", field, loc, f"base URL {base_prefix!r}")
    if len(canonical) > MAX_LOC_LENGTH:
        raise EntryError("loc-too-long", field, loc, f"{len(canonical)} characters")
    return canonical


def normalize_href(href: object) -> str:
    """An alternate's href: absolute http(s), any host (alternates may be elsewhere)."""
    if not isinstance(href, str):
        raise EntryError("alternate", "alternate href", href)
    scheme, authority, tail = split_url(href, "alternate href", href)
    canonical = f"{scheme}://{authority}{tail}"
    _check_not_escaped(tail, "alternate href", href)
    if len(canonical) > MAX_LOC_LENGTH:
        raise EntryError("loc-too-long", "alternate href", href, f"{len(canonical)} characters")
    return canonical


# --- lastmod --------------------------------------------------------------

_W3C = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
    r"(?:T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:(Z)|([+-])([0-9]{2}):([0-9]{2})))?"
)
_MAX_OFFSET = 14 * 60  # xsd:dateTime allows -14:00..+14:00


def format_offset(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _format_datetime(dt: datetime, value: object) -> str:
    offset = dt.utcoffset()
    if offset is None:
        raise EntryError("lastmod-timezone", "lastmod", value, "naive datetime")
    seconds = int(offset.total_seconds())
    if offset % timedelta(minutes=1) or abs(seconds) > _MAX_OFFSET * 60:
        raise EntryError("lastmod-format", "lastmod", value, f"UTC offset {offset}")
    return (
        f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:"
        f"{dt.second:02d}{format_offset(seconds // 60)}"
    )


def _parse_w3c(text: str, value: object) -> str:
    m = _W3C.fullmatch(text)
    if not m:
        detail = "no UTC offset" if re.fullmatch(r"[0-9-]+T[0-9:.]+", text) else ""
        raise EntryError("lastmod-timezone" if detail else "lastmod-format", "lastmod", value,
                         detail)
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    try:
        date(year, month, day)
    except ValueError as exc:
        raise EntryError("lastmod-format", "lastmod", value, str(exc)) from None
    if m[4] is None:
        return text
    hour, minute, second = int(m[4]), int(m[5]), int(m[6])
    if hour > 23 or minute > 59 or second > 59:
        raise EntryError("lastmod-format", "lastmod", value, "time out of range")
    offset = 0
    if m[7] is None:
        oh, om = int(m[9]), int(m[10])
        offset = (oh * 60 + om) * (-1 if m[8] == "-" else 1)
        if om > 59 or abs(offset) > _MAX_OFFSET:
            raise EntryError("lastmod-format", "lastmod", value, "UTC offset out of range")
    return f"{text[:19]}{format_offset(offset)}"


def normalize_lastmod(value: object, future_limit: int | None) -> str | None:
    """Canonical 'YYYY-MM-DD' or 'YYYY-MM-DDThh:mm:ss+hh:mm'; checks the future limit."""
    if value is None:
        return None
    if isinstance(value, datetime):
        text = _format_datetime(value, value)
    elif isinstance(value, date):
        text = f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    elif isinstance(value, str):
        text = _parse_w3c(value.strip(" \t"), value)
    else:
        raise EntryError("lastmod-type", "lastmod", value)
    if future_limit is not None and lastmod_key(text) > future_limit:
        raise EntryError("lastmod-future", "lastmod", value)
    return text


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 (H. Hinnant's algorithm; the C twin uses the same)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def lastmod_key(text: str) -> int:
    """UTC seconds of a canonical lastmod (a date counts as its midnight UTC)."""
    days = days_from_civil(int(text[0:4]), int(text[5:7]), int(text[8:10]))
    if len(text) == 10:
        return days * 86400
    secs = int(text[11:13]) * 3600 + int(text[14:16]) * 60 + int(text[17:19])
    offset = (int(text[20:22]) * 60 + int(text[23:25])) * 60
    return days * 86400 + secs - (offset if text[19] == "+" else -offset)


# --- changefreq, priority, alternates -------------------------------------

def normalize_changefreq(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in CHANGEFREQS:
        raise EntryError("changefreq", "changefreq", value)
    return value


def normalize_priority(value: object) -> str | None:
    """Canonical decimal text: '0.5', '1.0', '0.85' (at most 3 decimals kept as given)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        raise EntryError("priority", "priority", value)
    try:
        number = Decimal(value.strip() if isinstance(value, str) else str(value))
    except InvalidOperation:
        raise EntryError("priority", "priority", value) from None
    if not number.is_finite() or not 0 <= number <= 1:
        raise EntryError("priority", "priority", value)
    if number != number.quantize(Decimal("0.001")):
        raise EntryError("priority", "priority", value, "more than 3 decimals")
    text = format(number.normalize(), "f")
    return text if "." in text else text + ".0"


_HREFLANG = re.compile(
    r"[A-Za-z]{2}(-[A-Za-z]{4})?(-[A-Za-z]{2})?|x-default", re.IGNORECASE | re.ASCII
)


def normalize_alternates(value: object) -> tuple[tuple[str, str], ...]:
    if not value:
        return ()
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise EntryError("alternate", "alternates", value)
    out: list[tuple[str, str]] = []
    for pair in value:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise EntryError("alternate", "alternates", pair)
        lang, href = pair
        if not isinstance(lang, str) or not _HREFLANG.fullmatch(lang):
            raise EntryError("alternate", "alternate hreflang", lang)
        out.append((lang, normalize_href(href)))
    return tuple(out)


def check_cluster(loc: str, alternates: tuple[tuple[str, str], ...]) -> None:
    """Google's per-entry rules: self-link present, no hreflang (or x-default) twice."""
    if not alternates:
        return
    seen: set[str] = set()
    for lang, _ in alternates:
        key = lang.lower()
        if key in seen:
            raise EntryError("alternate-repeat", "alternate hreflang", lang,
                             f"{loc} lists {lang!r} more than once")
        seen.add(key)
    if all(href != loc for _, href in alternates):
        raise EntryError("alternate-self", "alternates", loc,
                         f"none of {[h for _, h in alternates][:4]} is the entry's own URL")


# --- whole entries --------------------------------------------------------

_FIELDS = frozenset(UrlEntry._fields)


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
        if data.get("alternates"):
            data["alternates"] = tuple(tuple(p) for p in data["alternates"])
        return UrlEntry(**data)
    raise EntryError("entry-type", "entry", entry, type(entry).__name__)


def normalize_entry(entry: object, base_prefix: str, future_limit: int | None) -> Normalized:
    """The slow path: validate every field and return canonical strings."""
    e = as_url_entry(entry)
    loc = normalize_loc(e.loc, base_prefix)
    alternates = normalize_alternates(e.alternates)
    check_cluster(loc, alternates)
    return Normalized(
        loc,
        normalize_lastmod(e.lastmod, future_limit),
        normalize_changefreq(e.changefreq),
        normalize_priority(e.priority),
        alternates,
    )
