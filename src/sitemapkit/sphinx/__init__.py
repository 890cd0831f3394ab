"""Sphinx extension: ``extensions = ["sitemapkit.sphinx"]``.

A thin adapter. Per-document facts (noindex) are collected at read time into the
environment, so they survive incremental and parallel builds; the page list is
computed at ``build-finished`` from *all* documents, never from the pages written
in this run. Serial, ``-j`` and incremental builds give byte-identical sitemaps.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from .._version import __version__
from ..errors import ConfigError, GitDatesError, PublishError, SitemapkitError
from ..options import SPHINX, for_host
from ..publish.pipeline import Outcome, publish_pages
from ..publish.settings import git_options, page_rules, publish_settings, writer_options
from ..rules.model import EntryError
from ..sources.git.dates import GitDates, git_dates
from ..sources.pages import PageRow
from .pages import PREFIX, base_url, language_bases, noindex_docs, setting
from .pages import rows as page_rows

logger = logging.getLogger(__name__)
DEFAULT_EXCLUDE = ("genindex", "search", "py-modindex", "404", "_modules/*")
# sphinx-sitemap names accepted for a one-line switch (with a deprecation note).
MIGRATION = {"sitemap_url_scheme": "url_scheme", "sitemap_excludes": "exclude_urls",
             "sitemap_filename": "filename", "sitemap_locales": "locales"}
# sphinx-sitemap settings taken, so a conf.py or -D override that sets them builds (an
# unknown -D name is a warning, which fails -W), and said not to apply
NOT_APPLIED = {
    "sitemap_show_lastmod": "sitemapkit always writes lastmod, from git",
    "sitemap_indent": "sitemapkit writes one <url> a line, the layout it reads back to "
                      "know its own files; indentation would only add bytes",
}


def setup(app: Sphinx) -> dict[str, Any]:
    for option in for_host(SPHINX):
        app.add_config_value(PREFIX + option.name, option.default_for(SPHINX), "html",
                             types=option.types)
    for old in (*MIGRATION, *NOT_APPLIED, "site_url"):
        if old not in app.config.values:  # sphinx-sitemap itself may be loaded too
            app.add_config_value(old, None, "html")
    app.connect("doctree-read", _collect)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("builder-inited", _require_base_url)
    app.connect("build-finished", _finish)
    return {"version": __version__, "env_version": 1, "parallel_read_safe": True,
            "parallel_write_safe": True}


# --- per-document facts, kept in the environment ----------------------------
def _collect(app: Sphinx, doctree: nodes.document) -> None:
    """Remember documents kept out by ``.. meta:: :robots: noindex`` or by a meta
    refresh (``:http-equiv=refresh: 0; url=...``: a redirect stub, not a page)."""
    for node in doctree.findall(nodes.meta):
        content = node.get("content", "").lower()
        if node.get("name", "").lower() in ("robots", "googlebot") and "noindex" in content \
                or node.get("http-equiv", "").lower() == "refresh" and "url=" in content:
            noindex_docs(app.env).add(app.env.docname)


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    noindex_docs(env).discard(docname)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str],
           other: BuildEnvironment) -> None:
    noindex_docs(env).update(noindex_docs(other) & set(docnames))


# --- writing ----------------------------------------------------------------
def _writes_html_pages(app: Sphinx) -> bool:
    """html, dirhtml and their subclasses (by name/format), never epub or singlehtml."""
    builder = app.builder
    return builder.format == "html" and "epub" not in builder.name and \
        "singlehtml" not in builder.name


def _require_base_url(app: Sphinx) -> None:
    """Say it before the build: a sitemap needs absolute URLs (rule 9). A warning, as
    sphinx-sitemap gives (``-W`` fails on it): the build goes on, and no sitemap is
    written. A base URL taken from sphinx-sitemap's older ``site_url`` is noted."""
    if not _writes_html_pages(app):
        return
    if base_url(app) is None:
        logger.warning("sitemapkit: no base URL: set html_baseurl (or sitemapkit_base_url) in "
                       "conf.py, or build on Read the Docs, which sets "
                       "READTHEDOCS_CANONICAL_URL; sitemaps need absolute URLs (sitemapkit "
                       "rules 9). No sitemap is written. To build without a sitemap, leave "
                       "'sitemapkit.sphinx' out of extensions", type="sitemapkit",
                       subtype="config")
    elif getattr(app.config, "site_url", None) and base_url(app) == _dir(app.config.site_url):
        logger.info("sitemapkit: 'site_url' is sphinx-sitemap's older name for the base URL; "
                    "it still works, but prefer html_baseurl")


def _dir(url: str) -> str:
    return url if url.endswith("/") else url + "/"


def _failing(app: Sphinx) -> int:
    """How many warnings the build has had when ``-W`` (``--fail-on-warning``) makes it
    fail at its end (Sphinx 8 and later finish the build first): 0 otherwise."""
    if not getattr(app, "_fail_on_warnings", getattr(app, "warningiserror", False)):
        return 0
    return int(getattr(app, "_warncount", 0))


def _held_back(app: Sphinx) -> bool:
    """A build that Sphinx will fail writes nothing: the previous sitemap stays."""
    warnings = _failing(app)
    if warnings:
        logger.info(f"sitemapkit: no sitemap written: the build has {warnings} warning"
                    f"{'s' * (warnings != 1)} and -W fails it; the previous sitemap stays")
    return bool(warnings)


def _migrated(app: Sphinx) -> dict[str, Any]:
    found = {new: getattr(app.config, old) for old, new in MIGRATION.items()
             if getattr(app.config, old, None) is not None}
    for old, why in NOT_APPLIED.items():
        if getattr(app.config, old, None):
            logger.info(f"sitemapkit: '{old}' (sphinx-sitemap) is not applied: {why}")
    for old, new in MIGRATION.items():
        if new == "locales" and new in found:
            logger.info(f"sitemapkit: '{old}' is not used: set sitemapkit_languages to each "
                        "language's URL prefix (e.g. {'en': 'en/', 'de': 'de/'}) for hreflang "
                        "alternates")
        elif new in found:
            logger.info(f"sitemapkit: '{old}' is sphinx-sitemap's name; it still works, "
                        f"but prefer '{PREFIX}{new}'")
    return found


def _finish(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or not _writes_html_pages(app) or base_url(app) is None:
        return  # a failed build never replaces the previous sitemap (nor one without a base)
    if _held_back(app):
        return
    try:
        _publish(app, time.perf_counter())
    except SitemapkitError as exc:
        _report(app, exc)


def _report(app: Sphinx, exc: SitemapkitError) -> None:
    """Every error the pipeline raises, mapped once. After the sitemaps went live, or
    when git was told to fail: an error that fails the build (exit status 1, no
    traceback). Before: a warning (``-W`` fails on it) and the previous sitemap stays."""
    if isinstance(exc, (PublishError, GitDatesError)):
        _fail(app, str(exc), "git" if isinstance(exc, GitDatesError) else "write")
        return
    location = exc.where if isinstance(exc, EntryError) else None
    subtype = "config" if isinstance(exc, ConfigError) else "write"
    logger.warning(f"sitemapkit: {exc}; no sitemap was written", location=location,
                   type="sitemapkit", subtype=subtype)


def _fail(app: Sphinx, message: str, subtype: str) -> None:
    """Fail the build from ``build-finished`` the way Sphinx reports its own problems:
    an error line and exit status 1 (raising here would print a traceback)."""
    logger.error(f"sitemapkit: {message}", type="sitemapkit", subtype=subtype)
    app.statuscode = 1


def _values(app: Sphinx) -> dict[str, Any]:
    return {option.name: setting(app, option.name) for option in for_host(SPHINX)}


def _publish(app: Sphinx, started: float) -> None:
    values = _values(app)
    migrated = _migrated(app)
    base = base_url(app)
    assert base is not None  # checked when the builder started
    try:
        base, bases = language_bases(app, base)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    rules = page_rules(values, DEFAULT_EXCLUDE)
    settings = publish_settings(values, values["indexnow"])
    rows = page_rows(app, values, migrated, base, bases, rules)
    dates = _dates(app, values, rows)
    for note in dates.notes_for(row.source for row in rows):
        logger.info(f"sitemapkit: {note}")
    record = Path(app.doctreedir) / "sitemapkit" / "lastmods.json"
    writer = writer_options(values, filename=migrated.get("filename") or values["filename"],
                            changes_file=str(record) if settings.indexnow else None)
    if _held_back(app):  # the git pass warned, and -W fails the build on it
        return
    _log(app, publish_pages(rows, dates, values["lastmod"], app.outdir, base, writer, settings,
                            started))


def _dates(app: Sphinx, values: dict[str, Any], rows: list[PageRow]) -> GitDates:
    """One git pass for every page's source and parts, cached beside the doctrees."""
    cache = values["cache_dir"]
    cache_path = Path(app.doctreedir) / "sitemapkit" if cache is None else \
        Path(app.confdir) / cache if cache else None
    wanted = values["lastmod"] != "none"
    result = git_dates([row.source for row in rows] if wanted else [],
                       git_options(values, str(cache_path) if cache_path else None),
                       extra=[p for row in rows for p in row.parts] if wanted else [])
    for warning in result.warnings:
        logger.warning(f"sitemapkit: {warning}", type="sitemapkit", subtype="git")
    return result


def _log(app: Sphinx, outcome: Outcome) -> None:
    """Summary first; warnings carry subtypes so ``-W`` fails on them and
    ``suppress_warnings`` can silence one kind; errors fail the build."""
    logger.info(f"sitemapkit: {outcome.infos[0]}")
    for message in outcome.warnings:
        subtype = "validate" if message.startswith("validate:") else \
            "notify" if message in outcome.notify_failures else "write"
        logger.warning(f"sitemapkit: {message}", type="sitemapkit", subtype=subtype)
    for info in outcome.infos[1:]:
        logger.info(f"sitemapkit: {info}")
    if outcome.errors:  # invalid output, or a notification failure the user made fatal
        _fail(app, "\n".join(outcome.errors), "validate")
