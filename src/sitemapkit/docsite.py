"""Helpers every docs-host adapter needs, written once: page rules, HTML signals,
robots.txt. No MkDocs or Sphinx imports here."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from fnmatch import fnmatchcase, translate
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urljoin, urlsplit

from .entries import normalize_changefreq, normalize_priority

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
    canonical = None
    for tag in _LINK.findall(head):
        if "canonical" not in tag.lower():
            continue
        a = _attrs(tag)
        if "canonical" in a.get("rel", "").lower().split() and a.get("href"):
            canonical = a["href"]
    return HtmlSignals(noindex, canonical, redirect)


def same_url(a: str, b: str) -> bool:
    """Equal after lower-casing scheme/host, ignoring a fragment, and percent-encoding
    the path one way (Sphinx writes ``a b/`` in a canonical where the sitemap has
    ``a%20b/``; ``ü`` and ``%C3%BC`` are one URL too)."""
    pa, pb = urlsplit(a), urlsplit(b)
    return (pa.scheme.lower(), pa.netloc.lower(), _path_key(pa.path), pa.query) == \
        (pb.scheme.lower(), pb.netloc.lower(), _path_key(pb.path), pb.query)


def _path_key(path: str) -> str:
    return quote(unquote(path or "/"), safe="/:@!$&'()*+,;=~")


@dataclass(frozen=True)
class PageRules:
    """Exclusion globs and changefreq/priority defaults and glob rules (off by default)."""

    exclude: tuple[str, ...] = ()
    changefreq: str | None = None
    priority: float | str | None = None
    rules: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def build(cls, exclude: Iterable[str], changefreq: str | None, priority: Any,
              rules: Iterable[Mapping[str, Any]]) -> PageRules:
        checked = []
        for rule in rules:
            unknown = set(rule) - {"match", "changefreq", "priority"}
            if "match" not in rule or unknown:
                raise ValueError(f"each rule needs 'match' and may set 'changefreq' and "
                                 f"'priority'; got {dict(rule)!r}")
            normalize_changefreq(rule.get("changefreq"))
            normalize_priority(rule.get("priority"))
            checked.append(rule)
        normalize_changefreq(changefreq)
        normalize_priority(priority)
        return cls(tuple(exclude), changefreq, priority, tuple(checked))

    @cached_property
    def _exclude_re(self) -> re.Pattern[str] | None:
        """All exclusion globs as one regex: one match per page, not one per pattern."""
        return re.compile("|".join(f"(?:{translate(p)})" for p in self.exclude)) \
            if self.exclude else None

    def excluded(self, path: str) -> bool:
        return self._exclude_re is not None and self._exclude_re.match(path) is not None

    def hints(self, path: str, meta: Mapping[str, Any] | None) -> tuple[Any, Any]:
        """(changefreq, priority): config default, then the first matching rule, then meta."""
        changefreq, priority = self.changefreq, self.priority
        for rule in self.rules:
            if fnmatchcase(path, str(rule["match"])):
                changefreq = rule.get("changefreq", changefreq)
                priority = rule.get("priority", priority)
                break
        if meta:
            changefreq = meta.get("changefreq", changefreq)
            priority = meta.get("priority", priority)
        return changefreq, priority


def as_lastmod(value: datetime | None, kind: str) -> datetime | date | None:
    """'datetime' keeps the commit time with its offset; 'date' its calendar day there."""
    if value is None or kind == "none":
        return None
    return value.date() if kind == "date" else value


def robots_sitemap_line(robots: Path, sitemap_urls: Iterable[str]) -> bool:
    """Add ``Sitemap:`` lines to robots.txt, creating it if needed, never twice.

    Returns True when the file changed. Existing content is kept byte for byte.
    """
    text = robots.read_text("utf-8") if robots.exists() else ""
    present = {line.split(":", 1)[1].strip() for line in text.splitlines()
               if line.lower().startswith("sitemap:")}
    missing = [u for u in sitemap_urls if u not in present]
    if not missing:
        return False
    if text and not text.endswith("\n"):
        text += "\n"
    if text and not text.endswith("\n\n"):
        text += "\n"
    text += "".join(f"Sitemap: {u}\n" for u in missing)
    temp = robots.with_name(f".{robots.name}.{os.getpid()}.tmp")
    try:  # atomic: a crawler or a failed build never sees half a robots.txt
        temp.write_text(text, "utf-8")
        os.replace(temp, robots)
    finally:
        temp.unlink(missing_ok=True)
    return True


def join_url(base: str, path: str) -> str:
    """``urljoin`` for the common case (a plain relative path) at a tenth of its cost."""
    if path.startswith(("/", ".", "?", "#")) or "/." in path or ":" in path.split("/", 1)[0]:
        return urljoin(base, path)
    return base.rsplit("/", 1)[0] + "/" + path


def is_host_root(base_url: str) -> bool:
    return urlsplit(base_url).path in ("", "/")
