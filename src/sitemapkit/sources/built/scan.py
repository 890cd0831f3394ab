"""A built site's pages, read from its output directory: every ``.html`` file that is
a page, with its URL, read only up to ``</head>``.

A page is left out only for what it says or is: a redirect stub (a meta refresh), a
noindex page, a page whose canonical URL points elsewhere, a 404 page (``404.html``,
or ``404/index.html`` at the top), an HTML fragment (no ``<html>`` or ``<head>``).
Never for the name of a folder on its path. A page and its canonical are one page
when they differ only by a trailing slash, ``index.html`` or Sphinx's ``…/index/``;
the canonical form is listed (except ``…/index/``, which servers do not serve).
"""

from __future__ import annotations

import multiprocessing
import operator
import os
import re
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from ...errors import InputError, UsageError
from ..htmlmeta import ELSEWHERE, NOINDEX, REDIRECT, HtmlSignals, html_signals, url_identity
from .listing import frontier, page_paths

HEAD_CHUNK = 1 << 13  # most heads end in the first 8 KiB
HEAD_LIMIT = 1 << 20  # a <head> longer than this is read no further
_HEAD_END = re.compile(rb"</head\s*>", re.IGNORECASE)
_DOCUMENT = re.compile(rb"<html[\s>]|<head[\s>]", re.IGNORECASE)
_PLAIN = re.compile(r"[A-Za-z0-9._~/-]*")  # a path that percent-encoding leaves as it is
NOT_FOUND, FRAGMENT = "404 pages", "HTML fragments"  # beside htmlmeta's page signals
LEFT_OUT = (REDIRECT, NOINDEX, ELSEWHERE, NOT_FOUND, FRAGMENT)
SINGULAR = {REDIRECT: "redirect stub", NOINDEX: "noindex page", NOT_FOUND: "404 page",
            ELSEWHERE: "page with a canonical URL pointing elsewhere",
            FRAGMENT: "HTML fragment"}


@dataclass(frozen=True)
class BuiltPage:
    path: str  # relative to the output directory, with '/'
    url: str
    signals: HtmlSignals = HtmlSignals()


@dataclass(frozen=True)
class LeftOut:
    path: str
    url: str
    reason: str  # one of LEFT_OUT
    detail: str = ""  # the canonical it points to, the refresh target


@dataclass
class Scan:
    pages: list[BuiltPage] = field(default_factory=list)
    left: list[LeftOut] = field(default_factory=list)
    other_base: list[tuple[str, str]] = field(default_factory=list)  # (page, its canonical)
    generators: dict[str, int] = field(default_factory=dict)  # generator meta -> pages

    @property
    def left_out(self) -> dict[str, int]:
        counts = dict.fromkeys(LEFT_OUT, 0)
        for item in self.left:
            counts[item.reason] += 1
        return counts


def scan(out_dir: Path, base: str) -> Scan:
    """Every page of ``out_dir`` (in path order) whose URL is under ``base``. A large
    site is read by one worker process per core (``_workers``): the same result, in
    the same order, as one process gives."""
    if not out_dir.is_dir():
        raise UsageError(f"{out_dir} is not a directory (give the generator's output "
                         "directory, e.g. site/ or public/)")
    root = os.fspath(out_dir)
    files, subtrees = frontier(root)
    workers = _workers() if len(files) + len(subtrees) >= PARALLEL_UNITS else 1
    result = _read_parallel(root, base, files, subtrees, workers) if workers > 1 else \
        _read(root, base, page_paths(root, files, subtrees))
    if not result.pages and not result.left:
        raise UsageError(f"{out_dir} holds no HTML pages; build the site first")
    return result


def _read(root: str, base: str, rels: list[str]) -> Scan:
    """The pages and left-out files among ``rels``, in their order."""
    result = Scan()
    for rel in rels:
        head = read_head(root + "/" + rel)
        path = _page_path(rel)
        page_url = base + (path if _PLAIN.fullmatch(path) else quote(path))
        if not _DOCUMENT.search(head):
            result.left.append(LeftOut(rel, page_url, FRAGMENT))
            continue
        signals = html_signals(head.decode("utf-8", "replace"))
        if signals.generator:
            name = signals.generator.split()[0].lower() if signals.generator.split() else ""
            result.generators[name] = result.generators.get(name, 0) + 1
        reason, url = _classify(rel, signals, page_url, base, result)
        if reason:
            result.left.append(LeftOut(rel, page_url, reason, _detail(reason, signals)))
        else:
            result.pages.append(BuiltPage(rel, url, signals))
    return result


# --- one worker per core for a large site ----------------------------------------------
PARALLEL_UNITS = 2000  # files and folders in the top two levels; fewer: one process
_SIGNALS = operator.attrgetter(*(f.name for f in fields(HtmlSignals)))  # in field order
_Packed = tuple[list[tuple[Any, ...]], list[tuple[str, str, str, str]],
                list[tuple[str, str]], dict[str, int]]


def _workers() -> int:
    """Worker processes for the scan: one per usable core, but only where ``fork`` is
    safe and cheap (a POSIX system, no other thread running in this process that a
    child would inherit half-way); otherwise 1, and the scan runs here."""
    if "fork" not in multiprocessing.get_all_start_methods() or \
            threading.active_count() != 1:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 8))


def _read_parallel(root: str, base: str, files: list[str], subtrees: list[str],
                   workers: int) -> Scan:
    """``_read`` over stripes of the work in ``workers`` forked processes; each returns
    plain tuples (a dataclass pickles ten times slower), merged here in path order."""
    files = sorted(files)
    context = multiprocessing.get_context("fork")
    try:
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            packed = list(pool.map(_read_stripe, [root] * workers, [base] * workers,
                                   [files[i::workers] for i in range(workers)],
                                   [subtrees[i::workers] for i in range(workers)]))
    except BrokenProcessPool:  # a worker killed (memory): the same work, here
        return _read(root, base, page_paths(root, files, subtrees))
    result = Scan()
    for pages, left, other_base, generators in packed:
        result.pages += [BuiltPage(path, url, HtmlSignals(*signals))
                         for path, url, *signals in pages]
        result.left += [LeftOut(*item) for item in left]
        result.other_base += other_base
        for name, n in generators.items():
            result.generators[name] = result.generators.get(name, 0) + n
    result.pages.sort(key=lambda page: page.path)
    result.left.sort(key=lambda item: item.path)
    result.other_base.sort()
    return result


def _read_stripe(root: str, base: str, files: list[str], subtrees: list[str]) -> _Packed:
    """One worker's share: its top-level pages and the pages under its folders."""
    found = _read(root, base, page_paths(root, files, subtrees))
    pages = [(p.path, p.url, *_SIGNALS(p.signals)) for p in found.pages]
    left = [(i.path, i.url, i.reason, i.detail) for i in found.left]
    return pages, left, found.other_base, found.generators


def _detail(reason: str, signals: HtmlSignals) -> str:
    return signals.canonical or "" if reason == ELSEWHERE else ""


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


def is_404(rel: str) -> bool:
    """The generator's not-found page: ``404.html`` anywhere (servers look for it by
    that name, per language too), or ``404/index.html`` at the top."""
    return rel.rsplit("/", 1)[-1] in ("404.html", "404.htm") or rel == "404/index.html"


def _classify(rel: str, signals: HtmlSignals, page_url: str, base: str,
              result: Scan) -> tuple[str | None, str]:
    """(why the page is left out, a LEFT_OUT kind, or None; its URL)."""
    if signals.redirect:
        return REDIRECT, page_url
    if is_404(rel):
        return NOT_FOUND, page_url
    if signals.noindex:
        return NOINDEX, page_url
    if not signals.canonical or signals.canonical == page_url:
        return None, page_url
    canonical = urljoin(page_url, signals.canonical).split("#", 1)[0]
    if same_page(canonical, page_url):
        keep = canonical.startswith(base) and not _sphinx_index(canonical)
        return None, canonical if keep else page_url
    if not canonical.startswith(base) and _same_path(canonical, page_url, base):
        result.other_base.append((rel, canonical))  # the base URL is what disagrees
        return None, page_url
    return ELSEWHERE, page_url


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


def _sphinx_index(url: str) -> bool:
    return urlsplit(url).path.rstrip("/").endswith("/index") and url.endswith("/")


def _same_path(canonical: str, page_url: str, base: str) -> bool:
    """The canonical names this page under another base URL (a different host or root)."""
    tail = page_url[len(base):]
    path = urlsplit(canonical).path
    return path.endswith("/" + tail) or (not tail and path.endswith("/"))
