"""Sphinx extension: ``extensions = ["sitemapkit.sphinx"]``.

A thin adapter. Per-document facts (noindex) are collected at read time into the
environment, so they survive incremental and parallel builds; the page list is
computed at ``build-finished`` from *all* documents, never from the pages written
in this run. Serial, ``-j`` and incremental builds give byte-identical sitemaps.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from datetime import datetime
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.i18n import docname_to_domain

from . import __version__
from .docsite import PageRules, as_lastmod, join_url, same_url
from .entries import EntryError, UrlEntry
from .gitdates import GitDates, GitDatesError, GitOptions, git_dates
from .hreflang import cluster, pairs_from_config
from .notify import NotifyConfigError
from .publish import PublishSettings, after_write, indexnow_settings, summary_line
from .writer import ConfigError, NoUrlsError, write_sitemaps

logger = logging.getLogger(__name__)
PREFIX = "sitemapkit_"
DEFAULT_EXCLUDE = ["genindex", "search", "py-modindex", "404", "_modules/*"]
OPTIONS: dict[str, Any] = {  # name (without prefix) -> default
    "base_url": None, "filename": "sitemap.xml", "exclude": [], "exclude_urls": [],
    "url_scheme": "{link}",
    "language": None, "version": None, "lastmod": "datetime", "changefreq": None,
    "priority": None, "rules": [], "date_kind": "committer", "ignore_revs": [],
    "ignore_revs_file": ".git-blame-ignore-revs", "uncommitted": "omit", "untracked": "omit",
    "not_in_git": "omit", "no_git": "omit", "shallow": "warn", "cache_dir": None,
    "max_urls": 50_000, "max_bytes": 10_485_760, "gzip_level": 6, "robots_txt": True,
    # hreflang: {"en": "https://example.com/en/", "de": "de/"}; prefixes relative to the base
    "languages": {}, "x_default": None, "validate": False, "indexnow": {}, "notify": [],
}
TYPES: dict[str, tuple[type, ...]] = {"validate": (bool, str), "languages": (dict, list),
                                      "x_default": (str, type(None))}
# sphinx-sitemap names accepted for a one-line switch (with a deprecation note).
MIGRATION = {"sitemap_url_scheme": "url_scheme", "sitemap_excludes": "exclude_urls",
             "sitemap_filename": "filename", "sitemap_locales": "locales"}


def setup(app: Sphinx) -> dict[str, Any]:
    for name, default in OPTIONS.items():
        app.add_config_value(PREFIX + name, default, "html", types=TYPES.get(name, ()))
    for old in MIGRATION:
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
def _noindex_docs(env: BuildEnvironment) -> set[str]:
    if not hasattr(env, "sitemapkit_noindex"):
        env.sitemapkit_noindex = set()  # type: ignore[attr-defined]
    return env.sitemapkit_noindex  # type: ignore[attr-defined,no-any-return]


def _collect(app: Sphinx, doctree: nodes.document) -> None:
    """Remember documents kept out by ``.. meta:: :robots: noindex`` or by a meta
    refresh (``:http-equiv=refresh: 0; url=...``: a redirect stub, not a page)."""
    for node in doctree.findall(nodes.meta):
        content = node.get("content", "").lower()
        if node.get("name", "").lower() in ("robots", "googlebot") and "noindex" in content \
                or node.get("http-equiv", "").lower() == "refresh" and "url=" in content:
            _noindex_docs(app.env).add(app.env.docname)


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _noindex_docs(env).discard(docname)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str],
           other: BuildEnvironment) -> None:
    _noindex_docs(env).update(_noindex_docs(other) & set(docnames))


# --- writing ----------------------------------------------------------------
def _setting(app: Sphinx, name: str) -> Any:
    return getattr(app.config, PREFIX + name)


def _writes_html_pages(app: Sphinx) -> bool:
    """html, dirhtml and their subclasses (by name/format), never epub or singlehtml."""
    builder = app.builder
    return builder.format == "html" and "epub" not in builder.name and \
        "singlehtml" not in builder.name


def _base_url(app: Sphinx) -> str | None:
    base = (app.config.html_baseurl or _setting(app, "base_url")
            or os.environ.get("READTHEDOCS_CANONICAL_URL"))
    if not base:
        return None
    return base if base.endswith("/") else base + "/"


def _require_base_url(app: Sphinx) -> None:
    """Fail before the build, as the MkDocs plugin does: a sitemap needs absolute URLs
    (rule 9), and a build that silently skips it looks like one that wrote it."""
    if _writes_html_pages(app) and _base_url(app) is None:
        raise ExtensionError("sitemapkit: no base URL: set html_baseurl (or "
                             "sitemapkit_base_url) in conf.py, or build on Read the Docs, which "
                             "sets READTHEDOCS_CANONICAL_URL; sitemaps need absolute URLs "
                             "(sitemapkit rules 9). To build without a sitemap, leave "
                             "'sitemapkit.sphinx' out of extensions")


def _migrated(app: Sphinx) -> dict[str, Any]:
    found = {new: getattr(app.config, old) for old, new in MIGRATION.items()
             if getattr(app.config, old, None) is not None}
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
    if exception is not None or not _writes_html_pages(app):
        return  # a failed build never replaces the previous sitemap
    started = time.perf_counter()
    base = _base_url(app)
    assert base is not None  # checked when the builder started
    migrated = _migrated(app)
    try:
        base, language_bases = _language_bases(app, base)
    except ValueError as exc:
        logger.warning(f"sitemapkit: {exc}; no sitemap was written", type="sitemapkit",
                       subtype="config")
        return
    scheme = migrated.get("url_scheme") or _setting(app, "url_scheme")
    try:
        rules = PageRules.build([*DEFAULT_EXCLUDE, *_setting(app, "exclude")],
                                _setting(app, "changefreq"), _setting(app, "priority"),
                                _setting(app, "rules"))
    except (ValueError, EntryError) as exc:
        logger.warning(f"sitemapkit: {exc}", type="sitemapkit", subtype="config")
        return
    env = app.env
    srcdir = os.path.abspath(env.srcdir)
    sources = _sources(env, srcdir)
    parts = _parts(app, srcdir)
    result = _dates(app, list(sources.values()), [p for ps in parts.values() for p in ps])
    noindex = _noindex_docs(env)
    exclude_urls = migrated.get("exclude_urls") or _setting(app, "exclude_urls")
    language = _setting(app, "language") or app.config.language or ""
    version = _setting(app, "version") or app.config.version or ""
    lang = f"{language}/" if language and "{lang}" in scheme else ""
    version = f"{version}/" if version and "{version}" in scheme else ""
    lastmod_kind = _setting(app, "lastmod")
    x_default = _setting(app, "x_default")
    target_uri = app.builder.get_target_uri
    no_meta: dict[str, Any] = {}
    entries, docs = [], []
    for docname, source in sources.items():
        meta = env.metadata.get(docname) or no_meta
        if docname in noindex or rules.excluded(docname) or \
                str(meta.get("sitemap", "")).strip().lower() in ("exclude", "false", "no"):
            continue
        link = target_uri(docname)
        if exclude_urls and any(fnmatchcase(link, pattern) for pattern in exclude_urls):
            continue
        path = scheme if scheme == "{link}" else scheme.format(lang=lang, version=version,
                                                                link=link)
        hints = {k: meta[f"sitemap-{k}"] for k in ("changefreq", "priority")
                 if f"sitemap-{k}" in meta} if meta else None
        changefreq, priority = rules.hints(docname, hints)
        page = link if path == "{link}" else path
        alternates = cluster({lang: join_url(prefix, page) for lang, prefix in
                              language_bases.items()}, x_default) if language_bases else ()
        entries.append(UrlEntry(join_url(base, page),
                                as_lastmod(_newest(result, source, parts.get(docname, ())),
                                           lastmod_kind),
                                changefreq, priority, alternates))
        docs.append(docname)
    for note in result.notes_for(sources[d] for d in docs):
        logger.info(f"sitemapkit: {note}")
    _write(app, entries, docs, base, migrated.get("filename") or _setting(app, "filename"), started)


def _language_bases(app: Sphinx, base: str) -> tuple[str, dict[str, str]]:
    """This build's base URL and every language's, from ``sitemapkit_languages``
    (prefixes are joined to the base URL, so '/en/latest/' and absolute URLs work).

    Only the configured languages count, never the directories under locale_dirs:
    a catalog existing does not make a published translation.
    """
    configured = _setting(app, "languages")
    if not configured:
        return base, {}
    languages = pairs_from_config(configured, "sitemapkit_languages")
    bases = {lang: urljoin(base, prefix if prefix.endswith("/") else prefix + "/")
             for lang, prefix in languages.items()}
    current = app.config.language or "en"
    if current not in bases:
        raise ValueError(f"this build's language {current!r} is not in sitemapkit_languages "
                         f"{sorted(bases)}")
    if app.config.html_baseurl and not same_url(bases[current], _base_url(app) or ""):
        logger.warning(f"sitemapkit: html_baseurl {app.config.html_baseurl!r} is not this "
                       f"language's URL {bases[current]!r} from sitemapkit_languages, so the "
                       "pages' canonical links point elsewhere; set html_baseurl per language "
                       "build", type="sitemapkit", subtype="config")
    x_default = _setting(app, "x_default")
    if x_default and x_default not in bases and "://" not in x_default:
        raise ValueError(f"sitemapkit_x_default {x_default!r} is neither a language of "
                         "sitemapkit_languages nor a URL")
    return bases[current], bases


def _sources(env: BuildEnvironment, srcdir: str) -> dict[str, str]:
    """docname -> absolute source path, in docname order. Sphinx >= 7.2 keeps the
    relative paths in a dict; reading it saves a Path object per document."""
    known = getattr(env.project, "_docname_to_path", None)
    if not isinstance(known, dict):
        known = {}
    return {d: os.path.join(srcdir, known.get(d) or env.doc2path(d, False))
            for d in sorted(env.found_docs)}


def _parts(app: Sphinx, srcdir: str) -> dict[str, list[str]]:
    """docname -> the other files its page is made of: what Sphinx records as its
    dependencies (include, literalinclude, csv-table and image files) and, in a
    translated build, its message catalog ``<locale_dir>/<lang>/LC_MESSAGES/<domain>.po``.
    A compact catalog serves several documents and counts for each of them."""
    env = app.env
    parts = {docname: [os.path.join(srcdir, os.fspath(dep)) for dep in deps]
             for docname, deps in env.dependencies.items()}
    language = app.config.language
    if language:  # Sphinx reads the catalogs whenever they exist for the language
        dirs = [os.path.join(srcdir, d, language, "LC_MESSAGES")
                for d in app.config.locale_dirs]
        catalogs: dict[str, list[str]] = {}  # domain -> its .po files (compact: shared)
        for docname in env.found_docs:
            domain = docname_to_domain(docname, app.config.gettext_compact)
            if domain not in catalogs:
                catalogs[domain] = [c for c in (os.path.join(d, domain + ".po") for d in dirs)
                                    if os.path.isfile(c)]
            if catalogs[domain]:
                parts.setdefault(docname, []).extend(catalogs[domain])
    return parts


def _newest(result: GitDates, source: str, parts: Iterable[str]) -> datetime | None:
    """The page's own date, moved forward by any newer part; undated if its source is."""
    own = result.get(source)
    if own is None:
        return None
    return max([own, *(d for d in map(result.get, parts) if d is not None)])


def _dates(app: Sphinx, paths: list[str], parts: list[str]) -> GitDates:
    cache = _setting(app, "cache_dir")  # default: beside the doctrees, already a build cache
    cache_path = Path(app.doctreedir) / "sitemapkit" if cache is None else \
        Path(app.confdir) / cache if cache else None
    options = GitOptions(**{name: _setting(app, name) for name in (
        "date_kind", "uncommitted", "untracked", "not_in_git", "no_git", "shallow")},
        ignore_revs=tuple(_setting(app, "ignore_revs")),
        ignore_revs_file=_setting(app, "ignore_revs_file") or None,
        cache_dir=str(cache_path) if cache_path else None)
    try:
        result = git_dates([] if _setting(app, "lastmod") == "none" else paths, options,
                           extra=[] if _setting(app, "lastmod") == "none" else parts)
    except GitDatesError as exc:
        logger.warning(f"sitemapkit: {exc}", type="sitemapkit", subtype="git")
        result = git_dates([])
    for warning in result.warnings:
        logger.warning(f"sitemapkit: {warning}", type="sitemapkit", subtype="git")
    return result


def _write(app: Sphinx, entries: list[UrlEntry], docs: list[str], base: str, filename: str,
           started: float) -> None:
    def warn(message: str, subtype: str = "write", location: str | None = None) -> None:
        logger.warning(f"sitemapkit: {message}", location=location, type="sitemapkit",
                       subtype=subtype)

    try:
        indexnow, key_file, fail = indexnow_settings(_setting(app, "indexnow"))
    except ValueError as exc:
        return warn(f"{exc}; no sitemap was written", "config")
    settings = PublishSettings(_setting(app, "robots_txt"), _setting(app, "validate"), indexnow,
                               key_file, tuple(_setting(app, "notify")), fail,
                               _setting(app, "max_bytes"))
    record = Path(app.doctreedir) / "sitemapkit" / "lastmods.json" if indexnow else None
    try:
        result = write_sitemaps(entries, app.outdir, base, filename=filename,
                                max_urls=_setting(app, "max_urls"),
                                max_bytes=_setting(app, "max_bytes"),
                                gzip_level=_setting(app, "gzip_level"),
                                changes_file=str(record) if record else None)
    except EntryError as exc:
        doc = docs[exc.position - 1] if exc.position else None
        return warn(f"{exc}; no sitemap was written", location=doc)
    except (ConfigError, NoUrlsError, OSError) as exc:
        return warn(f"{exc}; no sitemap was written")
    try:
        outcome = after_write(result, app.outdir, base, settings)
    except (NotifyConfigError, OSError) as exc:  # robots.txt, the key file, a ping template
        raise ExtensionError(f"sitemapkit: the sitemaps are written, but {exc}") from None
    dated = sum(e.lastmod is not None for e in entries)
    logger.info(f"sitemapkit: {summary_line(result, dated, started)}")  # then what followed
    for warning in result.warnings:
        warn(warning)
    for info in outcome.infos:
        logger.info(f"sitemapkit: {info}")
    for message in outcome.warnings:  # -W makes these fail the build
        warn(message, "validate" if message.startswith("validate:") else "notify")
    if outcome.errors:  # invalid output, or a notification failure the user made fatal
        raise ExtensionError("sitemapkit: " + "\n".join(outcome.errors))
    return None
