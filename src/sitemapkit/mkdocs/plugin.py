"""Thin adapter: MkDocs pages -> UrlEntry -> write_sitemaps(), the same call as the CLI.

Collects each built page's HTML signals in ``on_post_page`` and writes in
``on_post_build``, over *every* published page: pages a ``--dirty`` build did not
rebuild are read back from their source (front matter) and output (HTML).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urljoin

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils.meta import get_data

from ..docsite import (
    HtmlSignals,
    PageRules,
    as_lastmod,
    html_signals,
    is_host_root,
    robots_sitemap_line,
    same_url,
)
from ..entries import EntryError, UrlEntry
from ..gitdates import GitDates, GitDatesError, GitOptions, git_dates
from ..writer import ConfigError, NoUrlsError, write_sitemaps
from .config import SitemapConfig

log = logging.getLogger("mkdocs.plugins.sitemapkit")


class SitemapPlugin(BasePlugin[SitemapConfig]):  # type: ignore[no-untyped-call]
    def __init__(self) -> None:
        self.command: str = "build"
        self.files: Files | None = None
        self.signals: dict[str, HtmlSignals] = {}
        self.pending: tuple[list[str], Future[GitDates]] | None = None

    def on_startup(self, *, command: Literal["build", "gh-deploy", "serve"],
                   dirty: bool) -> None:
        self.command = command

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        if not self.config.enabled or self.command == "serve":
            return None  # serve keeps MkDocs' own preview sitemap; live reload stays fast
        if not config.site_url:
            raise PluginError("sitemapkit: site_url is required in mkdocs.yml to build a "
                              "sitemap (sitemaps need absolute URLs); set it, or set "
                              "'enabled: false' for this plugin")
        try:
            self.rules = PageRules.build(self.config.exclude, self.config.changefreq,
                                         self.config.priority, self.config.rules)
        except (ValueError, EntryError) as exc:
            raise PluginError(f"sitemapkit: {exc}") from None
        # MkDocs' own sitemap.xml stamps every page with the build date: we own it now.
        config.theme.static_templates.discard("sitemap.xml")
        self.signals = {}
        return None

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files | None:
        self.files = files
        if self.config.enabled and self.command != "serve":
            # With the template dropped, the theme's raw sitemap.xml would be copied as a
            # static file, and would stay there as junk if the build failed.
            for file in [f for f in files if f.src_uri in ("sitemap.xml", "sitemap.xml.gz")
                         and not _inside(f.abs_src_path, config.docs_dir)]:
                files.remove(file)
            # The page list is known now: run the git pass beside the page builds (git in
            # its own process, parsing in a thread) instead of after them.
            paths = self._git_paths(files)
            pool = ThreadPoolExecutor(1, thread_name_prefix="sitemapkit-git")
            self.pending = (paths, pool.submit(git_dates, paths, self._git_options(config)))
            pool.shutdown(wait=False)  # the thread ends with the pass
        return None

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str | None:
        if self.config.enabled and self.command != "serve":
            self.signals[page.file.src_uri] = html_signals(output)
        return None

    @event_priority(-100)  # after every other plugin: a failure there keeps the old sitemap
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if not self.config.enabled or self.command == "serve" or self.files is None:
            return
        started = time.perf_counter()
        pages = [f for f in self.files.documentation_pages() if not _is_404(f)]
        dates = self._git_dates(config)
        entries, sources, canonical_elsewhere, noindex = [], [], 0, 0
        for file in pages:
            meta = _meta(file)
            setting = meta.get("sitemap", True)
            if setting is False or self.rules.excluded(file.src_uri):
                continue
            loc = urljoin(config.site_url or "", file.url)
            signals = self.signals.get(file.src_uri) or _read_signals(file)
            if signals.noindex:
                noindex += 1
                continue
            if signals.canonical and signals.canonical != loc and \
                    not same_url(urljoin(loc, signals.canonical), loc):
                canonical_elsewhere += 1
                continue
            changefreq, priority = self.rules.hints(
                file.src_uri, setting if isinstance(setting, dict) else None)
            lastmod = as_lastmod(dates.get(file.abs_src_path or ""), self.config.lastmod)
            entries.append(UrlEntry(loc, lastmod, changefreq, priority))
            sources.append(file.src_uri)
        if noindex:
            log.info(f"sitemapkit: {noindex} noindex pages left out")
        if canonical_elsewhere:
            log.info(f"sitemapkit: {canonical_elsewhere} pages with a canonical URL "
                     "pointing elsewhere left out")
        self._write(entries, sources, config, sum(e.lastmod is not None for e in entries),
                    started)

    def _git_paths(self, files: Files) -> list[str]:
        if self.config.lastmod == "none":
            return []
        return [f.abs_src_path for f in files.documentation_pages()
                if f.abs_src_path and not _is_404(f)]

    def _git_options(self, config: MkDocsConfig) -> GitOptions:
        c = self.config
        cache = c.cache_dir and str(Path(config.config_file_path or ".").parent / c.cache_dir)
        settings: dict[str, Any] = dict(  # values checked by the Config class
            date_kind=c.date_kind, ignore_revs=tuple(c.ignore_revs),
            ignore_revs_file=c.ignore_revs_file or None, uncommitted=c.uncommitted,
            untracked=c.untracked, not_in_git=c.not_in_git, no_git=c.no_git,
            shallow=c.shallow, cache_dir=cache or None)
        return GitOptions(**settings)

    def _git_dates(self, config: MkDocsConfig) -> GitDates:
        """The pass started in on_files, or a new one if later plugins changed the pages."""
        assert self.files is not None
        paths, pending = self.pending or ([], None)
        self.pending = None
        try:
            if pending is not None and paths == self._git_paths(self.files):
                result = pending.result()
            else:
                result = git_dates(self._git_paths(self.files), self._git_options(config))
        except GitDatesError as exc:
            raise PluginError(f"sitemapkit: {exc}") from None
        for warning in result.warnings:
            log.warning(f"sitemapkit: {warning}")
        for note in result.notes:
            log.info(f"sitemapkit: {note}")
        return result

    def _write(self, entries: list[UrlEntry], sources: list[str], config: MkDocsConfig,
               dated: int, started: float) -> None:
        c = self.config
        base = config.site_url or ""
        try:
            result = write_sitemaps(entries, config.site_dir, base, filename=c.filename,
                                    max_urls=c.max_urls, max_bytes=c.max_bytes,
                                    gzip_level=c.gzip_level)
        except EntryError as exc:
            page = sources[exc.position - 1] if exc.position else "?"
            raise PluginError(f"sitemapkit: page {page}: {exc}") from None
        except (ConfigError, NoUrlsError, OSError) as exc:
            raise PluginError(f"sitemapkit: {exc}") from None
        for warning in result.warnings:
            log.warning(f"sitemapkit: {warning}")
        if result.duplicate_count:
            log.warning(f"sitemapkit: {result.duplicate_count} duplicate URLs written once, "
                        f"e.g. {result.duplicates[0][1]}")
        entry_url = urljoin(base, result.entry_point)
        if c.robots_txt:
            if is_host_root(base):
                robots_sitemap_line(Path(config.site_dir) / "robots.txt",
                                    [urljoin(base, name) for name in result.index_files]
                                    or [entry_url])
            else:
                log.info(f"sitemapkit: {base} is a sub-path site; crawlers read robots.txt "
                         f"only at the host root, so add 'Sitemap: {entry_url}' there")
        log.info(f"sitemapkit: {result.url_count} URLs in {result.shard_count} "
                 f"shard{'s' if result.shard_count != 1 else ''}, {dated} with lastmod -> "
                 f"{os.path.join(config.site_dir, result.entry_point)} "
                 f"({time.perf_counter() - started:.2f} s)")


def _inside(path: str | None, directory: str) -> bool:
    return bool(path) and os.path.abspath(str(path)).startswith(
        os.path.join(os.path.abspath(directory), ""))


def _is_404(file: File) -> bool:
    return file.src_uri == "404.md" or file.url in ("404.html", "404/")


def _meta(file: File) -> Mapping[str, Any]:
    """Front matter: from the page if this build read it, else from its source."""
    if file.page is not None and file.page.markdown is not None:
        return file.page.meta
    if not file.abs_src_path:
        return {}
    try:
        return get_data(Path(file.abs_src_path).read_text("utf-8-sig"))[1]
    except OSError:
        return {}


def _read_signals(file: File) -> HtmlSignals:
    """A page a --dirty build did not rebuild: read its existing output."""
    try:
        return html_signals(Path(file.abs_dest_path).read_text("utf-8", errors="replace"))
    except OSError:
        return HtmlSignals()
