"""URL rules: absolute http(s), canonical percent-encoding, IDNA hosts, dot segments,
scope under the base URL (rules 9-13, 33, 34)."""

from __future__ import annotations

import re

from ..protocol import (
    CANONICAL_URL,
    DEFAULT_PORTS,
    ENTITY_IN_URL,
    HEX_DIGITS,
    MAX_LOC_LENGTH,
    URL_KEPT,
)
from .model import EntryError

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_KEEP = frozenset(URL_KEPT)
_HEX = frozenset(HEX_DIGITS)
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


def already_canonical(url: str) -> bool:
    """``url`` is what ``split_url`` would make of it and breaks no URL rule: the slow
    path's work per character is skipped for the common case (an entry with alternates
    has 2 to 10 URLs: 35 µs an entry before this)."""
    m = CANONICAL_URL.fullmatch(url)
    return (m is not None and len(url) <= MAX_LOC_LENGTH
            and "/." not in m[1].partition("?")[0]  # a dot segment, or a name that may be one
            and not ("&" in url and ENTITY_IN_URL.search(url)))


def normalize_loc(loc: object, base_prefix: str, field: str = "loc") -> str:
    if not isinstance(loc, str):
        raise EntryError("loc-type", field, loc)
    if already_canonical(loc):
        canonical = loc
    else:
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
    if already_canonical(href):
        return href
    scheme, authority, tail = split_url(href, "alternate href", href)
    canonical = f"{scheme}://{authority}{tail}"
    _check_not_escaped(tail, "alternate href", href)
    if len(canonical) > MAX_LOC_LENGTH:
        raise EntryError("loc-too-long", "alternate href", href, f"{len(canonical)} characters")
    return canonical
