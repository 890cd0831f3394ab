"""Validate paths: find the sitemaps, check each, then what spans files (rules 14, 15,
27, 28, 35, 36). Entry point: ``validate()``."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from .._display import shown_path
from .._files import kind_of, open_regular, read_regular
from ..errors import UsageError
from ..heads.meta import html_signals, same_page
from ..protocol import (
    FUTURE_TOLERANCE_SECONDS,
    MAX_BYTES,
    MIN_MAX_BYTES,
    SITEMAP_SUFFIXES,
    TEXT_SUFFIXES,
)
from ..rules.robots import sitemap_lines
from ..rules.urls import normalize_base_url
from .clusters import ClusterRecord
from .findings import Report, Say, Severity
from .scanfeed import scan_unit
from .sitewide import check_clusters, has_html, same_content
from .state import FileResult, RunState
from .textfile import check_text
from .urls import check_url, url_key
from .xmlfile import XmlCheck

if TYPE_CHECKING:
    from .remote import Fetched  # urllib is loaded only when a URL is given


@dataclass(frozen=True)
class ValidateOptions:
    base_url: str | None = None  # URL of the given directory (or of a file's directory)
    # files it did not write are judged by the protocol: an error past 52,428,800 bytes
    # (or a cap the caller sets), a note past the older 10,485,760 (reader.Content)
    max_bytes: int = MAX_BYTES
    allow_namespaces: tuple[str, ...] = ()
    check_pages: bool = True  # rule 14, when a directory and a base URL are given
    # the lastmods are each page's last commit (sitemapkit's own docs hosts): one day
    # for all is then git's answer, not a build date (rule 17's warning is off)
    dates_from_git: bool = False
    now: datetime | None = None
    # plain <url> blocks checked by the hot unit's scan: "auto" (the active twin), "c",
    # "py", or "off" (expat reads every element); the findings are the same
    fast_scan: str = "auto"
    # given path -> what fetching it from a URL found: its URL is then the base for the
    # scope and loop checks, and a listed sitemap that could not be fetched is named
    # with its reason (``validate.remote``)
    origins: Mapping[str, Fetched] = field(default_factory=dict)


def validate(paths: Iterable[str | os.PathLike[str]],
             options: ValidateOptions | None = None) -> Report:
    """Check sitemap files and directories; every finding names its protocol rule."""
    started = time.perf_counter()
    opts = options or ValidateOptions()
    if not MIN_MAX_BYTES <= opts.max_bytes <= MAX_BYTES:
        raise UsageError(f"max_bytes must be {MIN_MAX_BYTES}..{MAX_BYTES:,}, not {opts.max_bytes}")
    try:
        base = normalize_base_url(opts.base_url) if opts.base_url else None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    now = opts.now or datetime.now(timezone.utc)
    report = Report()
    unit = scan_unit(opts.fast_scan)
    state = RunState(report, opts.max_bytes, int(now.timestamp()) + FUTURE_TOLERANCE_SECONDS,
                     frozenset(opts.allow_namespaces), scan_unit=unit,
                     dates_from_git=opts.dates_from_git)
    if unit is not None:
        state.seen = unit.LocSet(tagged=True)
        state.clusters = ClusterRecord(unit.LocSet(values=True), unit.LocSet(values=True))
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise UsageError(f"{path}: no such file or directory")
        origin = opts.origins.get(os.fspath(given))
        tree = _Tree(path, _origin_base(origin) if origin else base, state, opts, origin)
        tree.check()
        report.results.update(tree.results)
    check_clusters(state)
    report.elapsed = time.perf_counter() - started
    return report


def _origin_base(origin: Fetched) -> str | None:
    """The URL of a fetched sitemap's folder, as the base of its local copy."""
    try:
        return normalize_base_url(origin.base)
    except ValueError:
        return None


def _not_regular(path: Path) -> str | None:
    """What a found path is when it is no regular file ("is a FIFO (named pipe)")."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return None  # gone: the reader says so
    return None if stat.S_ISREG(mode) else f"is {kind_of(mode)}"


class _Tree:
    """One given path: a directory (a built site or an output dir) or one file."""

    def __init__(self, path: Path, base: str | None, state: RunState,
                 opts: ValidateOptions, origin: Fetched | None = None) -> None:
        self.given = path
        # a fetched sitemap: the locs its index lists that were not fetched, by key
        self.unfetched = {url_key(loc): why for loc, why in origin.failed.items()} \
            if origin else {}
        self.elsewhere = {url_key(loc) for loc in origin.elsewhere} if origin else set()
        path = path.resolve()  # index targets are resolved too: one spelling per file
        self.root = path if path.is_dir() else path.parent
        self.base, self.state, self.opts = base, state, opts
        self.given_file = None if path.is_dir() else path
        self.results: dict[Path, FileResult] = {}
        self._by_name: dict[str, list[Path]] | None = None

    def shown(self, path: Path) -> str:
        """File names as the user gave them: relative to the given directory."""
        start = self.given if self.given_file is None else self.given.parent
        try:
            return (start / path.relative_to(self.root)).as_posix() \
                if self.given_file else path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def shown_dir(self) -> str:
        """The given directory as the user typed it (never just '.')."""
        return shown_path(self.given if self.given_file is None else self.given.parent)

    def url_of(self, path: Path) -> str | None:
        if not self.base:
            return None
        rel = path.relative_to(self.root).as_posix()
        return self.base + rel

    def scope_of(self, path: Path) -> str | None:
        """The directory URL a file's locs must be under (rule 34)."""
        url = self.url_of(path)
        return url_key(url.rsplit("/", 1)[0] + "/") if url else None

    # --- finding and checking files ---------------------------------------
    def check(self) -> None:
        pages = self.base and self.given_file is None and self.opts.check_pages
        if pages and not has_html(self.root):
            self.state.report.notes.append(f"{self.shown_dir()} holds no HTML pages: the "
                                           "built-page check (rule 14) is skipped")
            pages = False
        self.state.page_check = self._page_check if pages else None  # rule 14 needs a site
        files = [self.given_file] if self.given_file else self._find()
        if not files:
            self.state.report.add("error", "empty", self.shown_dir(), None,
                                  "no sitemap files found (names containing 'sitemap' and "
                                  "ending in .xml, .xml.gz, .txt or .txt.gz)")
            return
        files = self._drop_copies(files)
        top = [p for p in files if p.parent == self.root]  # the folder's own files first
        for path in top:
            self._check_file(path)
        below = [p for p in files if p.parent != self.root]
        if self.given_file is not None or not any(
                self.results[p].kind == "index" for p in top):
            for path in below:
                self._check_file(path)
            self._resolve_indexes()
        else:
            self._resolve_indexes()
            self._unlisted_below(below)
        self._unreferenced(files)
        self._robots()

    def _unlisted_below(self, below: list[Path]) -> None:
        """With an index at the top, the set is what it lists: a sitemap in a subfolder
        that no index lists (a version's own sitemap mike left, another tool's) is no
        part of it. Named in a note, not checked. A file an index reached through a
        linked folder (``latest -> 2.0``) was checked there, at the URL it is served at."""
        reached = {path.resolve() for path in self.results}
        unlisted = [p for p in below if p.resolve() not in reached]
        if unlisted:
            names = ", ".join(self.shown(p) for p in unlisted[:5])
            more = f" and {len(unlisted) - 5:,} more" if len(unlisted) > 5 else ""
            self.state.report.notes.append(
                f"{len(unlisted):,} sitemap{'s' * (len(unlisted) != 1)} in subfolders that no "
                f"index here lists, so no part of this set, not checked: {names}{more}")

    def _walk(self) -> Iterator[Path]:
        """Files with a sitemap suffix below the root, in a stable order, skipping dot dirs."""
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.lower().endswith(SITEMAP_SUFFIXES):
                    yield Path(dirpath) / name

    def _find(self) -> list[Path]:
        """What a directory run checks: names containing 'sitemap' (not dotfiles)."""
        return [p for p in self._walk()
                if not p.name.startswith(".") and "sitemap" in p.name.lower()]

    def _drop_copies(self, files: list[Path]) -> list[Path]:
        """``X.xml.gz`` holding exactly ``X.xml`` is one sitemap (MkDocs writes both)."""
        names = set(files)
        self.copies: set[Path] = set()
        for path in files:
            plain = path.with_name(path.name[:-3])
            if path.name.endswith(".gz") and plain in names and same_content(path, plain):
                self.copies.add(path)
        return [p for p in files if p not in self.copies]

    def _check_file(self, path: Path) -> FileResult:
        if path in self.results:
            return self.results[path]
        name, scope = self.shown(path), self.scope_of(path)
        self.state.report.files += 1
        odd = None if path == self.given_file else _not_regular(path)
        if odd is not None:  # found, not given: a FIFO's open would block for ever
            self.state.report.add("error", "not-a-file", name, None,
                                  f"{odd}, not a file: not read (a sitemap is a file)")
            self.results[path] = FileResult(path, "broken", errors=1)
            return self.results[path]
        if path.name.lower().endswith(TEXT_SUFFIXES):
            result = check_text(path, name, self.state, scope)
        else:
            result = XmlCheck(path, name, self.state, scope).run()
        self.results[path] = result
        return result

    # --- indexes (rules 27, 28) -------------------------------------------
    def _resolve_indexes(self) -> None:
        for index_path, result in list(self.results.items()):
            if result.kind != "index":
                continue
            for loc, key, line in result.references:
                if key is None:
                    continue
                say = self._sayer(index_path, line)
                if key in self.elsewhere:
                    continue  # fetched from a URL: said in a note, never fetched
                if key in self.unfetched:
                    say("error", "index-target", f"{loc} is listed, but could not be "
                        f"fetched: {self.unfetched[key]}")
                    continue
                target = self._target(index_path, loc, key, say)
                if target is None:
                    continue
                if not os.path.lexists(target):
                    say("error", "index-target", f"{loc} is listed, but {self.shown(target)} "
                        "does not exist")
                    continue
                child = self._check_file(target)
                if child.kind == "index":
                    say("error", "nested-index", f"{loc} is itself a sitemap index; indexes "
                        "must not be nested")
                elif child.kind in ("other", "broken") or child.errors:
                    say("error", "index-target", f"{loc} is not a valid sitemap "
                        f"({child.errors} errors in {self.shown(target)})")
                child.referenced = True

    def _target(self, index_path: Path, loc: str, key: str,
                say: Say) -> Path | None:
        if self.base:
            base_key = url_key(self.base)
            if not key.startswith(base_key):
                say("error", "index-scope", f"{loc} is outside this site ({self.base})")
                return None
            rel = unquote(key[len(base_key):].split("?", 1)[0])
            # checked where it is served: through a linked folder (mike's ``latest``),
            # at the link's URL, not at the folder the link leads to
            target = Path(os.path.normpath(self.root / rel))
            if not target.resolve().is_relative_to(self.root.resolve()):
                say("error", "index-scope", f"{loc} points outside {self.root}")
                return None
            return target
        # No base URL: map the loc's path relative to the index's own directory, longest
        # existing suffix first (a mike index lists 1.0/sitemap.xml, 2.0/sitemap.xml, ...).
        segments = unquote(key.split("?", 1)[0]).split("/")[3:]
        for i in range(len(segments)):
            candidate = index_path.parent.joinpath(*segments[i:]).resolve()
            if candidate != index_path and candidate.is_file():
                return candidate
        name = segments[-1] if segments else ""
        matches = [m for m in self._files_named().get(name, []) if m.resolve() != index_path]
        if len(matches) > 1:
            say("warning", "index-target", f"{loc}: {len(matches)} files named {name!r} under "
                f"{self.shown(self.root)}; give --base-url to map exactly")
        if matches:
            return matches[0].resolve()
        if (index_path.parent / name).resolve() == index_path:
            say("warning", "index-target", f"{loc} can only be matched to this index itself by "
                "name; give --base-url (the URL of this directory) to map it")
            return None
        return index_path.parent / name

    def _files_named(self) -> dict[str, list[Path]]:
        """Every sitemap-like file below the root by name (index mapping without a base)."""
        if self._by_name is None:
            self._by_name = {}
            for path in self._walk():
                self._by_name.setdefault(path.name, []).append(path)
        return self._by_name

    def _unreferenced(self, files: list[Path]) -> None:
        if not any(r.kind == "index" for r in self.results.values()) or self.given_file:
            return
        for path, result in self.results.items():
            if result.kind in ("urlset", "text") and not result.referenced:
                self.state.report.add("warning", "unreferenced", self.shown(path), None,
                                      "no sitemap index here lists this sitemap")

    # --- robots.txt (rule 35) ---------------------------------------------
    def _robots(self) -> None:
        robots = self.root / "robots.txt"
        if self.given_file or not robots.is_file():
            return
        try:
            with open_regular(robots) as fh:
                text = fh.read().decode("utf-8", errors="replace")
        except OSError as exc:
            self.state.report.add("warning", "robots", self.shown(robots), None,
                                  f"not read: {exc.strerror or exc}")
            return
        known = {p.name for p in self.results} | {p.name for p in self.copies}
        for number, url in sitemap_lines(text):
            say = self._sayer(robots, number)
            key = check_url(url, say, "robots.txt Sitemap:", "robots")
            if key is None:
                continue
            if self.base and key.startswith(url_key(self.base)):
                target = self.root / unquote(key[len(url_key(self.base)):])
                found = target in self.results or target in self.copies
            else:
                found = unquote(key.rsplit("/", 1)[-1]) in known
            if not found:
                say("warning", "robots", f"Sitemap: {url} matches no sitemap in this output")

    # --- built pages (rule 14) --------------------------------------------
    def _page_check(self, key: str, say: Say) -> None:
        assert self.base is not None
        base_key = url_key(self.base)
        if not key.startswith(base_key):
            return
        rel = unquote(key[len(base_key):].split("?", 1)[0])
        candidates = [rel, rel + "index.html"] if rel.endswith("/") or not rel else \
            [rel, rel + "/index.html", rel + ".html"]
        page = next((self.root / c for c in candidates if (self.root / c).is_file() or
                     _not_regular(self.root / c) not in (None, "is a folder")), None)
        if page is None:
            say("error", "page-missing", f"{key} maps to no built file under {self.root}")
            return
        if page.suffix not in (".html", ".htm"):
            return
        head = read_regular(page, 65536)
        if head is None:
            what = _not_regular(page) or "cannot be read"
            say("warning", "page-unread", f"{key} maps to {self.shown(page)}, which {what}: "
                "no page a crawler is served")
            return
        signals = html_signals(head.decode("utf-8", errors="replace"))
        if signals.redirect:
            say("warning", "page-redirect", f"{key} is a redirect stub (meta refresh), not a "
                "page; list its target instead")
        elif signals.noindex:
            say("warning", "page-noindex", f"{key} is marked noindex")
        elif signals.canonical and not same_page(signals.canonical, key) and \
                signals.canonical.startswith(("http://", "https://")):
            say("warning", "page-canonical", f"{key} names {signals.canonical} as canonical")

    def _sayer(self, path: Path, line: int) -> Say:
        def say(severity: Severity, id_: str, message: str) -> None:
            self.state.report.add(severity, id_, self.shown(path), line, message)
        return say
