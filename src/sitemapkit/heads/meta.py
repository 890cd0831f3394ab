"""What a rendered page says about itself, read from its ``<head>`` only: robots
noindex, a meta refresh (a redirect stub), its canonical URL, hreflang alternates and
generator. Used by every host and by the validator's built-page check."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple
from urllib.parse import quote, unquote, urljoin, urlsplit

from .tags import attributes, raw_tags, tokens

HEAD_END = re.compile(r"</head\s*>", re.IGNORECASE)
NEEDLES = ("canonical", "robots", "googlebot", "refresh", "hreflang", "generator")
_HEAD_TAGS = frozenset({"meta", "link"})


class HtmlSignals(NamedTuple):
    """What a rendered page says about itself: robots noindex, a meta refresh (a
    redirect stub, not a page), its canonical URL, its hreflang alternates and the
    generator that wrote it. A named tuple: one is made per page of a site, and it
    is made three times faster than a frozen dataclass."""

    noindex: bool = False
    canonical: str | None = None
    redirect: bool = False
    alternates: tuple[tuple[str, str], ...] = ()  # (hreflang, href) as written
    generator: str | None = None


def html_signals(html: str) -> HtmlSignals:
    """Scan only the <head> (fast, and body text cannot trigger it); the tags are read
    by ``htmltags``, so unquoted attributes, case and entities are handled."""
    end = HEAD_END.search(html)
    head = html[: end.start()] if end else html[:65536]
    tags = [(name, attributes(raw))  # only tags holding a needle: no stylesheets, og: tags
            for name, raw, _ in raw_tags(head, _HEAD_TAGS, NEEDLES)]
    return signals_from_tags(tags) if tags else _NOTHING


_NOTHING = HtmlSignals()


def signals_from_tags(tags: Iterable[tuple[str, dict[str, str]]]) -> HtmlSignals:
    """The signals from a head's ``link`` and ``meta`` tags (name, attributes), in order:
    the last canonical, any robots or googlebot noindex, a refresh with a URL, every
    hreflang alternate, the first generator."""
    noindex = redirect = False
    canonical = generator = None
    alternates: list[tuple[str, str]] = []
    for name, a in tags:
        if name == "link":
            rel, href = tokens(a.get("rel", "")), a.get("href", "").strip()
            if "canonical" in rel and href:
                canonical = href  # the last: a page's override follows the theme's
            elif "alternate" in rel and href and a.get("hreflang"):
                alternates.append((a["hreflang"].strip(), href))
            continue
        if name != "meta":
            continue
        meta, content = a.get("name", "").lower(), a.get("content", "")
        if meta in ("robots", "googlebot") and \
                "noindex" in content.lower().replace(" ", "").split(","):
            noindex = True
        elif meta == "generator" and generator is None:
            generator = content.strip()
        if a.get("http-equiv", "").lower() == "refresh" and \
                "url=" in content.lower().replace(" ", ""):
            redirect = True
    return HtmlSignals(noindex, canonical, redirect, tuple(alternates), generator)


def same_url(a: str, b: str) -> bool:
    """Equal after lower-casing scheme/host, ignoring a fragment, and percent-encoding
    the path one way (Sphinx writes ``a b/`` in a canonical where the sitemap has
    ``a%20b/``; ``ü`` and ``%C3%BC`` are one URL too)."""
    return url_identity(a) == url_identity(b)


def url_identity(url: str) -> tuple[str, str, str, str]:
    """What ``same_url`` compares, usable as a dictionary key."""
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower(), _path_key(parts.path), parts.query


def page_identity(url: str) -> tuple[str, str, str, str]:
    """``url_identity`` with the forms servers serve as one page folded together:
    ``X``, ``X/``, ``X/index.html`` and Sphinx dirhtml's ``X/index/``."""
    scheme, host, path, query = url_identity(url)
    if path.endswith("/index.html"):
        path = path[: -len("index.html")]
    path = path.rstrip("/")
    if path.endswith("/index"):
        path = path[: -len("/index")]
    return scheme, host, path, query


def same_page(a: str, b: str) -> bool:
    return page_identity(a) == page_identity(b)


def _path_key(path: str) -> str:
    return quote(unquote(path or "/"), safe="/:@!$&'()*+,;=~")


REDIRECT, NOINDEX, ELSEWHERE = ("redirect stubs", "noindex pages",
                                "pages with a canonical URL pointing elsewhere")
LEFT_OUT_REASONS = (REDIRECT, NOINDEX, ELSEWHERE)  # the hosts' info-line wording


def left_out(signals: HtmlSignals, loc: str) -> str | None:
    """Why a rendered page is not a sitemap entry (a LEFT_OUT_REASONS kind), or None."""
    if signals.redirect:
        return REDIRECT
    if signals.noindex:
        return NOINDEX
    if signals.canonical and signals.canonical != loc and \
            not same_url(urljoin(loc, signals.canonical), loc):
        return ELSEWHERE
    return None
