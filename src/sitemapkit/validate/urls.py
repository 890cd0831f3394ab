"""URL checks for <loc>, index <loc>, text lines and hreflang hrefs (rules 9-13, 15).

A URL already in canonical escaped form passes one regex; only the rest are
diagnosed, and the diagnosis shows the corrected form the writer would emit.
"""

from __future__ import annotations

import re

from ..protocol import DEFAULT_PORTS, MAX_LOC_LENGTH, MIN_LOC_LENGTH
from ..rules.model import EntryError
from ..rules.urls import split_url
from .findings import Say

_CANONICAL = re.compile(
    r"(https?)://([a-z0-9.\-]+)(?::([0-9]{1,5}))?"
    r"((?:/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-F]{2})*)?)", re.ASCII)
_PARTS = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*)://([^/?#]*)([^#]*)(#.*)?", re.DOTALL)
_PCT = re.compile(r"%[0-9a-fA-F]{2}")
_NOT_IN_URI = frozenset(' "<>{}|\\^`')



def url_key(url: str) -> str:
    """Rule 15 identity: scheme and host lower-cased, default port dropped, %hh upper.
    Path, query and trailing slash stay as they are (/a and /a/ differ)."""
    m = _PARTS.fullmatch(url)
    if not m:
        return url
    scheme, authority, rest = m[1].lower(), m[2].lower(), m[3]
    port = DEFAULT_PORTS.get(scheme)
    if port and authority.endswith(":" + port):
        authority = authority[: -len(port) - 1]
    if "%" in rest:
        rest = _PCT.sub(lambda p: p[0].upper(), rest)
    return f"{scheme}://{authority}{rest or '/'}"


def origin(key: str) -> str:
    """scheme://host[:port] of a url_key (rule 33)."""
    cut = key.find("/", key.find("://") + 3)
    return key if cut < 0 else key[:cut]


def check_url(url: str, report: Say, what: str = "loc",
              absolute_id: str = "loc-absolute") -> str | None:
    """Report every rule ``url`` breaks; return its rule-15 key, or None if unusable."""
    m = _CANONICAL.fullmatch(url)
    if m and MIN_LOC_LENGTH <= len(url) <= MAX_LOC_LENGTH:
        port = m[3]
        if port is None or port != DEFAULT_PORTS[m[1]]:
            return url if m[4] else url + "/"
        return url_key(url)
    return _diagnose(url, report, what, absolute_id)


def _diagnose(url: str, report: Say, what: str, absolute_id: str) -> str | None:
    parts = _PARTS.fullmatch(url)
    if not parts or not parts[2]:
        report("error", absolute_id, f"{what} {_show(url)} is not an absolute URL with scheme "
               "and host")
        return None
    if parts[1].lower() not in DEFAULT_PORTS:
        report("error", absolute_id, f"{what} {_show(url)} does not use http or https")
        return None
    if parts[4] is not None:
        report("warning", "loc-fragment", f"{what} {_show(url)} has a #fragment, which "
               "crawlers drop")
        url = url[: len(url) - len(parts[4])]
    problems = []
    if not url.isascii():
        problems.append("raw non-ASCII characters")
    bad = sorted({c for c in url if c in _NOT_IN_URI or ord(c) < 0x20 or ord(c) == 0x7F})
    if bad:
        problems.append(f"characters not allowed in a URI {''.join(bad)!r}")
    if url.count("%") != len(_PCT.findall(url)):
        problems.append("a malformed %-escape")
    try:
        scheme, authority, tail = split_url(url, what, url)
        corrected: str | None = f"{scheme}://{authority}{tail}"
    except EntryError as exc:
        corrected = None
        if not problems:
            problems.append(exc.detail or exc.rule)
    if problems:
        fix = f"; escaped it is {_show(corrected)}" if corrected and corrected != url else ""
        report("error", "loc-escaping", f"{what} {_show(url)} has {' and '.join(problems)}{fix}")
    measured = corrected or url
    if len(measured) > MAX_LOC_LENGTH:
        report("error", "loc-too-long", f"{what} is {len(measured):,} characters "
               f"(at most {MAX_LOC_LENGTH:,}): {_show(url)}")
    elif len(measured) < MIN_LOC_LENGTH:
        report("error", "loc-too-short", f"{what} {_show(url)} is under {MIN_LOC_LENGTH} "
               "characters (sitemap.xsd minLength)")
    return url_key(url)


def _show(url: str | None) -> str:
    text = repr(url)
    return text if len(text) <= 120 else text[:100] + "..." + text[-12:]
