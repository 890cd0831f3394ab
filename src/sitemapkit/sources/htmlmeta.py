"""What a rendered page says about itself, read from its ``<head>`` only: robots
noindex, a meta refresh (a redirect stub), its canonical URL. Used by every host and
by the validator's built-page check."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote, urljoin, urlsplit

_META = re.compile(r"<meta\b[^>]*>", re.IGNORECASE)
_LINK = re.compile(r"<link\b[^>]*>", re.IGNORECASE)
_ATTR = re.compile(r"""([a-zA-Z:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_HEAD_END = re.compile(r"</head\s*>", re.IGNORECASE)


def _attrs(tag: str) -> dict[str, str]:
    return {m[1].lower(): m[2] if m[2] is not None else m[3] if m[3] is not None else m[4]
            for m in _ATTR.finditer(tag)}


@dataclass(frozen=True)
class HtmlSignals:
    """What a rendered page says about itself: robots noindex, a meta refresh (a
    redirect stub, not a page) and its canonical URL."""

    noindex: bool = False
    canonical: str | None = None
    redirect: bool = False


def html_signals(html: str) -> HtmlSignals:
    """Scan only the <head> (fast, and body text cannot trigger it)."""
    end = _HEAD_END.search(html)
    head = html[: end.start()] if end else html[:65536]
    lowered_head = head.lower()
    noindex = redirect = False
    if "robots" in lowered_head or "googlebot" in lowered_head or "refresh" in lowered_head:
        noindex, redirect = _meta_signals(head)
    canonical = None
    if "canonical" in lowered_head:  # most heads have no robots meta, many no canonical
        for tag in _LINK.findall(head):
            if "canonical" not in tag.lower():
                continue
            a = _attrs(tag)
            if "canonical" in a.get("rel", "").lower().split() and a.get("href"):
                canonical = a["href"]
    return HtmlSignals(noindex, canonical, redirect)


def _meta_signals(head: str) -> tuple[bool, bool]:
    """(noindex, redirect) from the robots/googlebot and refresh meta tags."""
    noindex = redirect = False
    for tag in _META.findall(head):
        lowered = tag.lower()
        if "robots" not in lowered and "googlebot" not in lowered and "refresh" not in lowered:
            continue  # most meta tags: skip the attribute parse
        a = _attrs(tag)
        if a.get("name", "").lower() in ("robots", "googlebot") and \
                "noindex" in a.get("content", "").lower().replace(" ", "").split(","):
            noindex = True
        if a.get("http-equiv", "").lower() == "refresh" and "url=" in \
                a.get("content", "").lower().replace(" ", ""):
            redirect = True
    return noindex, redirect


def same_url(a: str, b: str) -> bool:
    """Equal after lower-casing scheme/host, ignoring a fragment, and percent-encoding
    the path one way (Sphinx writes ``a b/`` in a canonical where the sitemap has
    ``a%20b/``; ``ü`` and ``%C3%BC`` are one URL too)."""
    return url_identity(a) == url_identity(b)


def url_identity(url: str) -> tuple[str, str, str, str]:
    """What ``same_url`` compares, usable as a dictionary key."""
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower(), _path_key(parts.path), parts.query


def _path_key(path: str) -> str:
    return quote(unquote(path or "/"), safe="/:@!$&'()*+,;=~")


def left_out(signals: HtmlSignals, loc: str) -> str | None:
    """Why a rendered page is not a sitemap entry (the hosts' info-line wording), or None."""
    if signals.redirect:
        return "redirect stubs"
    if signals.noindex:
        return "noindex pages"
    if signals.canonical and signals.canonical != loc and \
            not same_url(urljoin(loc, signals.canonical), loc):
        return "pages with a canonical URL pointing elsewhere"
    return None


LEFT_OUT_REASONS = ("redirect stubs", "noindex pages",
                    "pages with a canonical URL pointing elsewhere")
