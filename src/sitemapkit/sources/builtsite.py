"""A built site's pages, read from its output directory: every ``.html`` file that is
a page, with its URL, read only up to ``</head>``.

Left out, and counted by kind: redirect stubs (a meta refresh), noindex pages, pages
whose canonical URL points elsewhere, 404 pages, files under asset folders, and HTML
fragments (no ``<html>`` or ``<head>``). A page's URL is its own canonical when it has
one on this site (``X/`` and ``X/index.html`` are one URL); otherwise ``X/index.html``
becomes ``X/``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

from ..errors import InputError, UsageError
from .htmlmeta import HtmlSignals, html_signals, same_url

ASSET_DIRS = frozenset({"assets", "static", "_static", "_images", "_downloads", "_sources",
                        "css", "js", "fonts", "img", "images", "search", "node_modules"})
HEAD_CHUNK = 1 << 13  # most heads end in the first 8 KiB
HEAD_LIMIT = 1 << 20  # a <head> longer than this is read no further
_HEAD_END = re.compile(rb"</head\s*>", re.IGNORECASE)
_DOCUMENT = re.compile(rb"<html[\s>]|<head[\s>]", re.IGNORECASE)
_PLAIN = re.compile(r"[A-Za-z0-9._~/-]*")  # a path that percent-encoding leaves as it is
LEFT_OUT = ("redirect stubs", "noindex pages", "pages with a canonical URL pointing elsewhere",
            "404 pages", "files under asset folders", "HTML fragments")


@dataclass(frozen=True)
class BuiltPage:
    path: str  # relative to the output directory, with '/'
    url: str


@dataclass
class Scan:
    pages: list[BuiltPage] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LEFT_OUT, 0))
    other_base: list[tuple[str, str]] = field(default_factory=list)  # (page, its canonical)


def scan(out_dir: Path, base: str) -> Scan:
    """Every page of ``out_dir`` (in path order) whose URL is under ``base``."""
    if not out_dir.is_dir():
        raise UsageError(f"{out_dir} is not a directory (give the generator's output "
                         "directory, e.g. site/ or public/)")
    result = Scan()
    root = os.fspath(out_dir)
    for rel in sorted(_html_files(root, result)):
        head = read_head(root + "/" + rel)
        if not _DOCUMENT.search(head):
            result.left_out["HTML fragments"] += 1
            continue
        path = _page_path(rel)
        page_url = base + (path if _PLAIN.fullmatch(path) else quote(path))
        reason, url = _classify(rel, html_signals(head.decode("utf-8", "replace")), page_url,
                                base, result)
        if reason:
            result.left_out[reason] += 1
        else:
            result.pages.append(BuiltPage(rel, url))
    if not result.pages and not any(result.left_out.values()):
        raise UsageError(f"{out_dir} holds no HTML pages; build the site first")
    return result


def _html_files(root: str, result: Scan) -> list[str]:
    """Relative paths of the .html files, asset folders and hidden ones skipped (one
    ``scandir`` per directory, no per-file stat)."""
    found: list[str] = []
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(root, rel_dir) if rel_dir else root))
        except OSError as exc:
            raise InputError(f"cannot read {os.path.join(root, rel_dir)}: "
                             f"{exc.strerror or exc}") from None
        for entry in entries:
            name = entry.name
            rel = rel_dir + "/" + name if rel_dir else name
            if entry.is_dir():
                if name.startswith("."):
                    continue
                if name in ASSET_DIRS:
                    result.left_out["files under asset folders"] += _count_html(entry.path)
                    continue
                stack.append(rel)
            elif name.endswith((".html", ".htm")):
                found.append(rel)
    return found


def _count_html(directory: str) -> int:
    return sum(name.endswith((".html", ".htm")) for _, _, files in os.walk(directory)
               for name in files)


def read_head(path: str | os.PathLike[str]) -> bytes:
    """The bytes up to ``</head>`` (or the first MiB); an unreadable page is an error."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise InputError(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from None
    try:
        data = b""
        while len(data) < HEAD_LIMIT:
            chunk = os.read(fd, HEAD_CHUNK)
            if not chunk:
                break
            data += chunk
            end = _HEAD_END.search(data, max(0, len(data) - len(chunk) - 8))
            if end:
                return data[:end.end()]
        return data
    except OSError as exc:
        raise InputError(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _page_path(rel: str) -> str:
    """``X/index.html`` -> ``X/``; anything else as it is."""
    if rel == "index.html" or rel.endswith("/index.html"):
        return rel[: -len("index.html")]
    return rel


def _classify(rel: str, signals: HtmlSignals, page_url: str, base: str,
              result: Scan) -> tuple[str | None, str]:
    """(why the page is left out, a LEFT_OUT kind, or None; its URL)."""
    if signals.redirect:
        return "redirect stubs", page_url
    if rel.rsplit("/", 1)[-1] == "404.html" or rel == "404/index.html" or \
            rel.endswith("/404/index.html"):
        return "404 pages", page_url
    if signals.noindex:
        return "noindex pages", page_url
    if not signals.canonical or signals.canonical == page_url:
        return None, page_url
    canonical = urljoin(page_url, signals.canonical).split("#", 1)[0]
    if same_url(canonical, page_url) or same_url(canonical, page_url + "index.html") or \
            same_url(canonical + "index.html", page_url):
        return None, canonical if canonical.startswith(base) else page_url
    if not canonical.startswith(base) and _same_path(canonical, page_url, base):
        result.other_base.append((rel, canonical))  # the base URL is what disagrees
        return None, page_url
    return "pages with a canonical URL pointing elsewhere", page_url


def _same_path(canonical: str, page_url: str, base: str) -> bool:
    """The canonical names this page under another base URL (a different host or root)."""
    tail = page_url[len(base):]
    path = urlsplit(canonical).path
    return path.endswith("/" + tail) or (not tail and path.endswith("/"))
