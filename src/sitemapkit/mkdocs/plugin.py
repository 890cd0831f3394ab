"""Thin adapter: MkDocs pages -> UrlEntry -> write_sitemaps(), the same call as the CLI.

Collects each built page's HTML signals in ``on_post_page`` and writes in
``on_post_build``, over *every* published page: pages a ``--dirty`` build did not
rebuild are read back from their source (front matter) and output (HTML). With
mkdocs-static-i18n, each language build hands in its pages and the last one writes
one sitemap for all languages, with hreflang clusters.

What a page shows beyond its source is collected while it renders: the posts a list
page shows (the ``posts`` a theme's page context holds, as Material's blog views do),
the files its ``--8<--`` snippets pull in (``snippets``, asked of pymdownx.snippets)
and the source files of the API objects a mkdocstrings page renders (``apiparts``).
"""

from __future__ import annotations

import logging
import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

from ..errors import SitemapkitError
from ..heads.meta import LEFT_OUT_REASONS, HtmlSignals, left_out
from ..options import DEFAULT_CACHE
from ..publish.pipeline import Outcome, publish_pages
from ..publish.settings import git_options, page_rules, publish_settings, writer_options
from ..rules.model import EntryError
from ..sources.git.dates import GitDates, GitOptions, git_dates
from ..sources.pages import PageRow, join_url
from .config import SitemapConfig
from .files import generated, inside, is_404, meta, page_signals, read_signals
from .i18n import (
    BuiltPage,
    file_languages,
    i18n_plugin,
    language_links,
    neutral_url,
    page_row,
    with_alternates,
    x_default_language,
)
from .shown import Shown
from .snippets import SnippetFiles

log = logging.getLogger("mkdocs.plugins.sitemapkit")


class SitemapPlugin(BasePlugin[SitemapConfig]):  # type: ignore[no-untyped-call]
    def __init__(self) -> None:
        self.command: str = "build"
        self.files: Files | None = None
        self.signals: dict[str, HtmlSignals] = {}
        self.written: dict[str, str] = {}  # dest_uri -> src_uri of the page written there
        self.pending: tuple[list[str], Future[GitDates]] | None = None
        self.languages_done: dict[str, list[BuiltPage]] = {}  # i18n: rows per language build
        self.shown = Shown()  # what pages show beyond their source, as they render

    def on_startup(self, *, command: Literal["build", "gh-deploy", "serve"],
                   dirty: bool) -> None:
        self.command = command

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig | None:
        if not self.config["enabled"] or self.command == "serve":
            return None  # serve keeps MkDocs' own preview sitemap; live reload stays fast
        if not config.site_url:
            name = os.path.basename(config.config_file_path or "mkdocs.yml")
            raise PluginError(f"sitemapkit: site_url is required in {name} to build a "
                              "sitemap (sitemaps need absolute URLs, sitemapkit rules 9); set "
                              "it, or set 'enabled: false' for this plugin")
        self.values: dict[str, Any] = dict(self.config)
        try:
            self.rules = page_rules(self.values)
            self.publish = publish_settings(self.values, self.values["indexnow"])
        except SitemapkitError as exc:
            raise _plugin_error(exc) from None
        # MkDocs' own sitemap.xml stamps every page with the build date: we own it now.
        config.theme.static_templates.discard("sitemap.xml")
        self.signals, self.written = {}, {}
        self.shown = Shown()
        self.snippets = SnippetFiles(config)
        return None

    @event_priority(-110)  # after plugins that write Markdown (macros): what snippets sees
    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig,
                         files: Files) -> str | None:
        if self._on():
            self.shown.add_parts(page, self.snippets.files(markdown))
        return None

    @event_priority(-110)  # after mkdocs-static-i18n (-100) has localized the file list
    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files | None:
        self.files = files
        if self.config["enabled"] and self.command != "serve":
            # With the template dropped, the theme's raw sitemap.xml would be copied as a
            # static file, and would stay there as junk if the build failed.
            for file in [f for f in files if f.src_uri in ("sitemap.xml", "sitemap.xml.gz")
                         and not inside(f.abs_src_path, config.docs_dir)]:
                files.remove(file)
            if i18n_plugin(config) is not None:
                return None  # one git pass for all languages, when the last build writes
            # The page list is known now: run the git pass beside the page builds (git in
            # its own process, parsing in a thread) instead of after them.
            paths = self._git_paths(files, config.docs_dir)
            pool = ThreadPoolExecutor(1, thread_name_prefix="sitemapkit-git")
            self.pending = (paths, pool.submit(git_dates, paths, self._git_options(config)))
            pool.shutdown(wait=False)  # the thread ends with the pass
        return None

    @event_priority(-110)  # after Material's blog (-100) put the view's posts in place
    def on_page_context(self, context: TemplateContext, /, *, page: Page,
                        config: MkDocsConfig, nav: Navigation) -> TemplateContext | None:
        if self._on() and self.values["date_lists"]:
            self.shown.posts(page, context)
        return None

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str | None:
        if self._on():
            self.signals[page.file.dest_uri] = page_signals(output)
            self.written[page.file.dest_uri] = page.file.src_uri
            if self.values["date_api_pages"]:
                self.shown.api_objects(page, config)
        return None

    def _on(self) -> bool:
        return bool(self.config["enabled"]) and self.command != "serve"

    # After plugins at default priority, so a failure there keeps the old sitemap; but
    # before mkdocs-static-i18n's (-100), which runs the other language builds from it.
    @event_priority(-90)
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if not self.config["enabled"] or self.command == "serve" or self.files is None:
            return
        started = time.perf_counter()
        rows = self._rows(config)
        i18n = i18n_plugin(config)
        if i18n is None:
            dates = self._git_dates(config, [r.source for r in rows if r.source], rows)
            self._write([page_row(row) for row in rows], dates, config, started)
            return
        self.languages_done[str(i18n.current_language)] = rows
        languages = [str(lang) for lang in i18n.build_languages]
        if not set(languages) <= set(self.languages_done):
            return  # the remaining language builds come next
        all_rows = [row for lang in languages for row in self.languages_done.pop(lang)]
        self.languages_done = {}
        paired, fallbacks = with_alternates(
            all_rows, languages, x_default_language(self.values["x_default"],
                                                    str(i18n.default_language)))
        if fallbacks:
            log.info(f"sitemapkit: {fallbacks} fallback copies of default-language pages left "
                     "out (not translations)")
        sources = [r.source for r in paired if r.source]
        self._write(paired, self._git_dates(config, sources, all_rows), config, started)

    def _rows(self, config: MkDocsConfig) -> list[BuiltPage]:
        """This build's published pages, after exclusions, redirects, noindex and
        canonical checks."""
        counts = dict.fromkeys(LEFT_OUT_REASONS, 0)
        rows, undatable = [], 0
        listed: list[File] = []  # the pages listed, for the notes on what they render
        links = language_links(i18n_plugin(config))
        site = _site_url(config)
        gone: list[str] = []  # written, then removed by a later step of the build
        for file in self._published():
            if not os.path.lexists(os.path.join(config.site_dir, file.dest_uri)):
                gone.append(file.dest_uri)
                continue
            front = meta(file)
            setting = front.get("sitemap", True)
            locale, language = file_languages(file)
            neutral_source = getattr(file, "norm_src_uri", file.src_uri)
            if setting is False or self.rules.excluded(file.src_uri) or \
                    (neutral_source != file.src_uri and self.rules.excluded(neutral_source)):
                continue
            loc = join_url(site, file.url)
            reason = left_out(self.signals.get(file.dest_uri) or read_signals(file), loc)
            if reason:
                counts[reason] += 1
                continue
            changefreq, priority = self.rules.hints(
                file.src_uri, setting if isinstance(setting, dict) else None)
            source = "" if generated(file, config.docs_dir) else file.abs_src_path or ""
            lists = self.shown.listed.get(file.dest_uri, ())
            undatable += not source and not lists
            rows.append(BuiltPage(neutral_url(loc.removeprefix(site), language, links),
                                  locale, language, loc, source, changefreq, priority,
                                  file.src_uri,
                                  self.shown.parts.get(file.dest_uri, ()), lists))
            listed.append(file)
        for note in self.shown.notes(listed):
            log.info(f"sitemapkit: {note}")
        for what, count in counts.items():
            if count:
                log.info(f"sitemapkit: {count:,} {what} left out")
        if gone:
            log.info(f"sitemapkit: {len(gone):,} page{'s' * (len(gone) != 1)} left out: "
                     f"removed from {os.path.basename(config.site_dir)}/ after MkDocs wrote "
                     f"{'them' if len(gone) != 1 else 'it'} (another plugin's on_post_build), "
                     f"e.g. {gone[0]}")
        if undatable and self.config["lastmod"] != "none":
            log.info(f"sitemapkit: {undatable:,} generated page{'s' * (undatable != 1)} "
                     "(no source file, listing no page): no lastmod")
        return rows

    def _published(self) -> list[File]:
        """One source per output page. Where two sources publish one URL (``X.md`` and
        ``X/README.md``), MkDocs keeps the one it wrote last: that page is listed, with
        its own date, language and signals, and the pair is reported (not a warning:
        MkDocs accepts the site, so a strict build must too)."""
        assert self.files is not None
        by_dest: dict[str, list[File]] = {}
        for file in self.files.documentation_pages():
            if not is_404(file):
                by_dest.setdefault(file.dest_uri, []).append(file)
        chosen = []
        for dest, files in by_dest.items():
            winner = files[-1]  # MkDocs writes pages in this order: the last one stays
            if len(files) > 1:
                winner = next((f for f in files if f.src_uri == self.written.get(dest)),
                              winner)
                others = " and ".join(f.src_uri for f in files if f is not winner)
                log.info(f"sitemapkit: {winner.src_uri} and {others} both publish "
                         f"{files[0].url or './'}; listed once, as {winner.src_uri} (the page "
                         "MkDocs wrote there)")
            chosen.append(winner)
        return chosen

    def _git_paths(self, files: Files, docs_dir: str) -> list[str]:
        if self.config["lastmod"] == "none":
            return []
        return [f.abs_src_path for f in files.documentation_pages()
                if f.abs_src_path and not is_404(f) and not generated(f, docs_dir)]

    def _git_options(self, config: MkDocsConfig) -> GitOptions:
        return git_options(self.values, self._cache(config) or None)

    def _cache(self, config: MkDocsConfig) -> str:
        """The cache directory beside mkdocs.yml; '' when turned off."""
        setting = self.values["cache_dir"]
        cache = DEFAULT_CACHE if setting is None else setting
        return cache and str(Path(config.config_file_path or ".").parent / cache)

    def _git_dates(self, config: MkDocsConfig, needed: list[str],
                   rows: list[BuiltPage]) -> GitDates:
        """The pass started in on_files when it covers ``needed``, else a new one; the
        parts and listed pages it did not cover (API objects' code) in one more pass,
        for them alone."""
        paths, pending = self.pending or ([], None)
        self.pending = None
        off = self.config["lastmod"] == "none"
        wanted = [] if off else sorted(set(needed))
        parts = [] if off else sorted({p for row in rows for p in (*row.parts, *row.lists)})
        try:
            if pending is not None and set(wanted) <= set(paths):
                result = pending.result()
                more = sorted(set(parts) - set(paths))
                if more:
                    result.update(git_dates([], self._git_options(config), extra=more))
            else:
                result = git_dates(wanted, self._git_options(config), extra=parts)
        except SitemapkitError as exc:
            raise _plugin_error(exc) from None
        for warning in result.warnings:
            log.warning(f"sitemapkit: {warning}")
        for note in result.notes_for(needed):  # only pages the sitemap lists count
            log.info(f"sitemapkit: {note}")
        return result

    def _changes_file(self, config: MkDocsConfig) -> str | None:
        """The lastmod record outlives site/ (a clean build empties it): in the cache."""
        if self.publish.indexnow is None:
            return None
        root = Path(config.config_file_path or ".").parent
        return str(root / (self._cache(config) or DEFAULT_CACHE) / "lastmods.json")

    def _write(self, rows: list[PageRow], dates: GitDates, config: MkDocsConfig,
               started: float) -> None:
        try:
            writer = writer_options(self.values, changes_file=self._changes_file(config))
            outcome = publish_pages(rows, dates, self.values["lastmod"], config.site_dir,
                                    _site_url(config), writer, self.publish, started)
        except SitemapkitError as exc:
            raise _plugin_error(exc) from None
        _log(outcome)


def _plugin_error(exc: SitemapkitError) -> PluginError:
    """Every error the pipeline raises, mapped once: a PluginError naming the page."""
    where = getattr(exc, "where", None) if isinstance(exc, EntryError) else None
    return PluginError(f"sitemapkit: {f'page {where}: ' if where else ''}{exc}")


def _log(outcome: Outcome) -> None:
    """Summary first, then warnings (``--strict`` fails on them), then notes."""
    log.info(f"sitemapkit: {outcome.infos[0]}")
    for warning in outcome.warnings:
        log.warning(f"sitemapkit: {warning}")
    for info in outcome.infos[1:]:
        log.info(f"sitemapkit: {info}")
    if outcome.errors:
        raise PluginError("sitemapkit: " + "\n".join(outcome.errors))


def _site_url(config: MkDocsConfig) -> str:
    """site_url as a directory, as MkDocs reads it (mike sets 'https://host/1.0')."""
    url = config.site_url or ""
    return url if url.endswith("/") else url + "/"
