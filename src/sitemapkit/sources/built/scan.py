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
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

from ..._compat import usable_cores
from ..._display import count
from ..._files import HUMAN_VIEW_GENERATOR
from ..._urlset import LINK as LINK_SIGNALS
from ..._urlset import USE_EXTENSIONS, PageHead, read_pages
from ...errors import InputError, UsageError
from ...heads.meta import (
    ELSEWHERE,
    NOINDEX,
    REDIRECT,
    HtmlSignals,
    same_page,
    same_url,
)
from .listing import frontier

# a language folder a localized 404 page sits in: ``de``, ``pt-BR``, ``zh-hans`` (two
# letters first: three-letter section names such as api/ or cli/ are no languages here)
_LOCALE = re.compile(r"[a-z]{2}(?:[-_][A-Za-z]{2,4})?")
_PLAIN = re.compile(r"[A-Za-z0-9._~/-]*")  # a path that percent-encoding leaves as it is
NOT_FOUND, FRAGMENT = "404 pages", "HTML fragments"  # beside htmlmeta's page signals
LINK = "symbolic links, not followed (one may lead out of the output)"
UNREAD = "pages or folders that cannot be read (no regular file, or unreadable)"
LEFT_OUT = (REDIRECT, NOINDEX, ELSEWHERE, NOT_FOUND, FRAGMENT, LINK, UNREAD)
SINGULAR = {REDIRECT: "redirect stub", NOINDEX: "noindex page", NOT_FOUND: "404 page",
            ELSEWHERE: "page with a canonical URL pointing elsewhere",
            FRAGMENT: "HTML fragment",
            LINK: "symbolic link, not followed (one may lead out of the output)",
            UNREAD: "page or folder that cannot be read (no regular file, or unreadable)"}


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
    signals: HtmlSignals | None = None  # a page left out for its canonical: what it says


@dataclass
class Scan:
    pages: list[BuiltPage] = field(default_factory=list)
    left: list[LeftOut] = field(default_factory=list)
    other_base: list[tuple[str, str]] = field(default_factory=list)  # (page, its canonical)
    canonicals: int = 0  # pages (not left out for a signal) that name a canonical URL
    generators: dict[str, int] = field(default_factory=dict)  # generator meta -> pages

    @property
    def left_out(self) -> dict[str, int]:
        counts = dict.fromkeys(LEFT_OUT, 0)
        for item in self.left:
            counts[item.reason] += 1
        return counts


def scan(out_dir: Path, base: str, beside: Callable[[], None] = lambda: None) -> Scan:
    """Every page of ``out_dir`` (in path order) whose URL is under ``base``. A large
    site is read by one worker per core (``_workers``): the same result, in the same
    order, as one worker gives. ``beside`` runs here while the workers read (work that
    needs no page: the generator's content index, the old sitemap)."""
    require_dir(out_dir)
    root = os.fspath(out_dir)
    files, subtrees, links = frontier(root)
    workers = _workers() if len(files) + len(subtrees) >= PARALLEL_UNITS else 1
    if workers > 1:
        result = _read_parallel(root, base, files, subtrees, workers, beside)
    else:
        beside()
        result = _classified(base, read_pages(root, files, subtrees), Scan())
    if links:
        _classified(base, [(rel, *LINK_SIGNALS) for rel in links], result)
        result.left.sort(key=operator.attrgetter("path"))
    if not result.pages and not result.left:
        raise UsageError(f"{out_dir} holds no HTML pages; build the site first")
    return result


SHOWN_LINKS = 5  # links named one by one, with where they lead


def link_notes(out_dir: Path, found: Scan) -> list[str]:
    """The links the scan did not follow, each with where it leads: a folder or page
    outside the output, inside it, or nowhere (dangling, or a loop)."""
    links = [item.path for item in found.left if item.reason == LINK]
    if not links:
        return []
    top = out_dir.resolve()
    shown = []
    for rel in links[:SHOWN_LINKS]:
        path = out_dir / rel
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        try:
            real = path.resolve(strict=True)
            where = "inside the output" if real.is_relative_to(top) else "outside the output"
        except (OSError, RuntimeError):
            where = "dangling or a loop"
        shown.append(f"{rel} -> {target} ({where})")
    more = f", and {len(links) - SHOWN_LINKS:,} more" if len(links) > SHOWN_LINKS else ""
    return [f"symbolic links not followed (a page behind one is not listed; link the "
            f"files themselves into the output to list them): {'; '.join(shown)}{more}"]


def unread_warnings(found: Scan) -> list[str]:
    """The pages and folders that could not be read, each with why: left out, and said
    as a warning (the run goes on without them)."""
    unread = [item for item in found.left if item.reason == UNREAD]
    if not unread:
        return []
    shown = "; ".join(f"{_short(item.path)} ({item.detail})" for item in unread[:SHOWN_LINKS])
    more = f", and {len(unread) - SHOWN_LINKS:,} more" if len(unread) > SHOWN_LINKS else ""
    return [f"{count(len(unread), 'page or folder', 'pages or folders')} could not be read, "
            f"so {'it is' if len(unread) == 1 else 'they are'} not listed: {shown}{more}"]


def _short(path: str, keep: int = 60) -> str:
    """A path as a message shows it: a very long one by its two ends."""
    return path if len(path) <= 2 * keep + 1 else f"{path[:keep]}…{path[-keep:]}"


def require_dir(out_dir: Path) -> None:
    if not out_dir.is_dir():
        raise UsageError(f"{out_dir} is not a directory (give the generator's output "
                         "directory, e.g. site/ or public/)")


def _classified(base: str, heads: Sequence[PageHead], result: Scan) -> Scan:
    """``result`` with the pages and left-out files among ``heads`` added, in order."""
    generators = result.generators
    for rel, document, noindex, canonical, redirect, alternates, generator in heads:
        path = _page_path(rel)
        # a name that is not UTF-8 (os.fsdecode's surrogates): percent-encoded from its bytes
        page_url = base + (path if _PLAIN.fullmatch(path) else
                           quote(path.encode("utf-8", "surrogateescape")))
        if document is None:  # a link (never followed), or a page that cannot be read
            result.left.append(LeftOut(rel, page_url, LINK) if generator is None else
                               LeftOut(rel, page_url, UNREAD, generator))
            continue
        if not document:
            result.left.append(LeftOut(rel, page_url, FRAGMENT))
            continue
        found = HtmlSignals(noindex, canonical, redirect, alternates, generator)
        if found.generator == HUMAN_VIEW_GENERATOR:
            continue  # sitemapkit's own human view of the sitemap: no page of the site
        if found.generator:
            name = found.generator.split()[0].lower() if found.generator.split() else ""
            generators[name] = generators.get(name, 0) + 1
        reason, url = _classify(rel, found, page_url, base, result)
        if reason:
            result.left.append(LeftOut(rel, page_url, reason, _detail(reason, found),
                                       found if reason == ELSEWHERE else None))
        else:
            result.pages.append(BuiltPage(rel, url, found))
    return result


# --- one worker per core for a large site ----------------------------------------------
PARALLEL_UNITS = 2000  # files and folders in the top two levels; fewer: one worker
STRIPES_PER_WORKER = 8  # read in this many parts each, so classifying follows reading


def _workers() -> int:
    """Workers for the scan, one per usable core. With the C accelerator they are
    threads (it reads with the GIL released); the pure twin needs processes, so there
    it is 1 unless ``fork`` is safe and cheap (a POSIX system, no other thread running
    in this process that a child would inherit half-way)."""
    if not USE_EXTENSIONS and ("fork" not in multiprocessing.get_all_start_methods() or
                               threading.active_count() != 1):
        return 1
    return max(1, min(usable_cores(), 8))


def _read_parallel(root: str, base: str, files: list[str], subtrees: list[str],
                   workers: int, beside: Callable[[], None]) -> Scan:
    """``read_pages`` over stripes of the work in ``workers`` threads (C) or forked
    processes (pure); ``beside`` runs here meanwhile, then each stripe is classified
    here as soon as it is read, while the others are still being read. A process pool
    that breaks (a worker killed for memory) is an error, never a silent rerun."""
    files = sorted(files)
    n = workers * STRIPES_PER_WORKER
    pool: Executor = ThreadPoolExecutor(workers) if USE_EXTENSIONS else \
        ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    result = Scan()
    try:
        with pool:
            reading = [pool.submit(read_pages, root, files[i::n], subtrees[i::n])
                       for i in range(n)]
            beside()
            for stripe in as_completed(reading):
                _classified(base, stripe.result(), result)
    except BrokenProcessPool as exc:
        raise InputError(f"the scan of {root} stopped: a worker process was killed "
                         "(out of memory?); run again with fewer other jobs") from exc
    result.pages.sort(key=operator.attrgetter("path"))  # as one worker gives them
    result.left.sort(key=operator.attrgetter("path"))
    result.other_base.sort()
    return result


def _detail(reason: str, signals: HtmlSignals) -> str:
    return signals.canonical or "" if reason == ELSEWHERE else ""


def _page_path(rel: str) -> str:
    """``X/index.html`` -> ``X/``; anything else as it is."""
    if rel == "index.html" or rel.endswith("/index.html"):
        return rel[: -len("index.html")]
    return rel


def is_404(rel: str) -> bool:
    """The generator's not-found page: ``404.html`` anywhere (servers look for it by
    that name, per language too), or ``404/index.html`` at the top or in a language
    folder (Astro Starlight's ``de/404/``)."""
    if not rel.endswith(("404.html", "404.htm", "404/index.html")):
        return False  # (most pages: one call, no split)
    if rel.rsplit("/", 1)[-1] in ("404.html", "404.htm") or rel == "404/index.html":
        return True
    folder, _, rest = rel.partition("/")
    return rest == "404/index.html" and _LOCALE.fullmatch(folder) is not None


def _classify(rel: str, signals: HtmlSignals, page_url: str, base: str,
              result: Scan) -> tuple[str | None, str]:
    """(why the page is left out, a LEFT_OUT kind, or None; its URL)."""
    if signals.redirect:
        return REDIRECT, page_url
    if is_404(rel):
        return NOT_FOUND, page_url
    if signals.noindex:
        return NOINDEX, page_url
    if not signals.canonical:
        return None, page_url
    result.canonicals += 1
    if signals.canonical == page_url:
        return None, page_url
    canonical = urljoin(page_url, signals.canonical).split("#", 1)[0]
    if same_page(canonical, page_url):
        keep = canonical.startswith(base) and not _sphinx_index(canonical)
        return None, canonical if keep else page_url
    if _served_clean(canonical, page_url):  # X.html naming X: itself, as the site serves it
        return None, canonical if canonical.startswith(base) else page_url
    if not canonical.startswith(base) and _same_path(canonical, page_url, base):
        result.other_base.append((rel, canonical))  # the base URL is what disagrees
        return None, page_url
    return ELSEWHERE, page_url


def _served_clean(canonical: str, page_url: str) -> bool:
    """The canonical names this page without its ``.html``: the URL the site serves and
    links it at (Antora's ``html_extension_style: drop``, clean-URL servers)."""
    for suffix in (".html", ".htm"):
        if page_url.endswith(suffix):
            return same_url(canonical, page_url[: -len(suffix)])
    return False


def unknown_canonicals(found: Scan, base: str, is_page: Callable[[str], bool]) -> list[LeftOut]:
    """Put back the pages left out for a canonical URL on this site that is no page of
    the output (``is_page``): a canonical form this scan does not read as the page
    itself, or a page the build did not make. Listed at their own URL, they are
    returned, to be said: leaving them out would lose them for a reading of ours."""
    back = [item for item in found.left if item.reason == ELSEWHERE and item.signals
            and item.detail.startswith(base) and not is_page(item.detail)]
    if back:
        found.left = [item for item in found.left if item not in back]
        found.pages += [BuiltPage(item.path, item.url, item.signals or HtmlSignals())
                        for item in back]
        found.pages.sort(key=operator.attrgetter("path"))
    return back


def _sphinx_index(url: str) -> bool:
    return urlsplit(url).path.rstrip("/").endswith("/index") and url.endswith("/")


def _same_path(canonical: str, page_url: str, base: str) -> bool:
    """The canonical names this page under another base URL (a different host or root)."""
    tail = page_url[len(base):]
    path = urlsplit(canonical).path
    return path.endswith("/" + tail) or (not tail and path.endswith("/"))


def version_canonicals(found: Scan, root: str) -> int:
    """One version of a versioned site (``root``: the site's URL above its versions),
    as its pages' canonicals place them. A canonical naming the page under another
    version folder leaves it out, as the site says (``ELSEWHERE``); one naming it at
    ``root`` with no version is a build whose ``site_url`` lacked the version (mike
    without its plugin): the page stays, and it is no disagreement with the base URL.
    Returns how many pages named a version-less canonical."""
    pages = {page.path: page for page in found.pages}
    plain, keep = 0, []
    for rel, canonical in found.other_base:
        page = pages.get(rel)
        if page is None or not canonical.startswith(root):
            keep.append((rel, canonical))
        elif canonical == root + _page_path(rel):
            plain += 1
        else:
            del pages[rel]
            found.left.append(LeftOut(rel, page.url, ELSEWHERE, canonical))
    if len(pages) != len(found.pages):
        found.pages = [page for page in found.pages if page.path in pages]
        found.left.sort(key=operator.attrgetter("path"))
    found.other_base = keep
    return plain
