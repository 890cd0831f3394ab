"""The Sphinx side of page rows: every document of the environment, its URL under
the url scheme, its parts (dependencies and catalogs), its language cluster."""

from __future__ import annotations

import os
from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import urljoin

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.i18n import docname_to_domain

from ..heads.meta import same_url
from ..rules.hreflang import cluster, pairs_from_config
from ..sources.pages import PageRow, PageRules, join_url

logger = logging.getLogger(__name__)
PREFIX = "sitemapkit_"


def noindex_docs(env: BuildEnvironment) -> set[str]:
    if not hasattr(env, "sitemapkit_noindex"):
        env.sitemapkit_noindex = set()  # type: ignore[attr-defined]
    return env.sitemapkit_noindex  # type: ignore[attr-defined,no-any-return]


def setting(app: Sphinx, name: str) -> Any:
    return getattr(app.config, PREFIX + name)


def base_url(app: Sphinx) -> str | None:
    base = (app.config.html_baseurl or setting(app, "base_url")
            or os.environ.get("READTHEDOCS_CANONICAL_URL")
            or getattr(app.config, "site_url", None))  # sphinx-sitemap's older name
    if not base:
        return None
    return base if base.endswith("/") else base + "/"


def rows(app: Sphinx, values: dict[str, Any], migrated: dict[str, Any], base: str,
          language_bases: dict[str, str], rules: PageRules) -> list[PageRow]:
    """Every listed document as a page row: not noindex, not excluded by docname, URL
    or metadata; its URL from the url scheme, its parts, its language cluster."""
    env = app.env
    srcdir = os.path.abspath(env.srcdir)
    found_parts = parts(app, srcdir)
    noindex = noindex_docs(env)
    exclude_urls = migrated.get("exclude_urls") or values["exclude_urls"]
    scheme = migrated.get("url_scheme") or values["url_scheme"]
    language = values["language"] or app.config.language or ""
    version = values["version"] or app.config.version or ""
    lang = f"{language}/" if language and "{lang}" in scheme else ""
    version = f"{version}/" if version and "{version}" in scheme else ""
    target_uri = app.builder.get_target_uri
    no_meta: dict[str, Any] = {}
    rows = []
    for docname, source in sources(env, srcdir).items():
        meta = env.metadata.get(docname) or no_meta
        if docname in noindex or rules.excluded(docname) or \
                str(meta.get("sitemap", "")).strip().lower() in ("exclude", "false", "no"):
            continue
        link = target_uri(docname)
        if exclude_urls and any(fnmatchcase(link, pattern) for pattern in exclude_urls):
            continue
        page = link if scheme == "{link}" else scheme.format(lang=lang, version=version,
                                                              link=link)
        hints = {k: meta[f"sitemap-{k}"] for k in ("changefreq", "priority")
                 if f"sitemap-{k}" in meta} if meta else None
        changefreq, priority = rules.hints(docname, hints)
        alternates = cluster({lang: join_url(prefix, page) for lang, prefix in
                              language_bases.items()}, values["x_default"]) \
            if language_bases else ()
        rows.append(PageRow(join_url(base, page), source, docname, changefreq, priority,
                            alternates, tuple(found_parts.get(docname, ()))))
    return rows


def language_bases(app: Sphinx, base: str) -> tuple[str, dict[str, str]]:
    """This build's base URL and every language's, from ``sitemapkit_languages``
    (prefixes are joined to the base URL, so '/en/latest/' and absolute URLs work).

    Only the configured languages count, never the directories under locale_dirs:
    a catalog existing does not make a published translation.
    """
    configured = setting(app, "languages")
    if not configured:
        return base, {}
    languages = pairs_from_config(configured, "sitemapkit_languages")
    bases = {lang: urljoin(base, prefix if prefix.endswith("/") else prefix + "/")
             for lang, prefix in languages.items()}
    current = app.config.language or "en"
    if current not in bases:
        raise ValueError(f"this build's language {current!r} is not in sitemapkit_languages "
                         f"{sorted(bases)}")
    if app.config.html_baseurl and not same_url(bases[current], base_url(app) or ""):
        logger.warning(f"sitemapkit: html_baseurl {app.config.html_baseurl!r} is not this "
                       f"language's URL {bases[current]!r} from sitemapkit_languages, so the "
                       "pages' canonical links point elsewhere; set html_baseurl per language "
                       "build", type="sitemapkit", subtype="config")
    x_default = setting(app, "x_default")
    if x_default and x_default not in bases and "://" not in x_default:
        raise ValueError(f"sitemapkit_x_default {x_default!r} is neither a language of "
                         "sitemapkit_languages nor a URL")
    return bases[current], bases


def sources(env: BuildEnvironment, srcdir: str) -> dict[str, str]:
    """docname -> absolute source path, in docname order. Sphinx >= 7.2 keeps the
    relative paths in a dict; reading it saves a Path object per document."""
    known = getattr(env.project, "_docname_to_path", None)
    if not isinstance(known, dict):
        known = {}
    return {d: os.path.join(srcdir, known.get(d) or env.doc2path(d, False))
            for d in sorted(env.found_docs)}


def parts(app: Sphinx, srcdir: str) -> dict[str, list[str]]:
    """docname -> the other files its page is made of: what Sphinx records as its
    dependencies (include, literalinclude, csv-table and image files) and, in a
    translated build, its message catalog ``<locale_dir>/<lang>/LC_MESSAGES/<domain>.po``.
    A compact catalog serves several documents and counts for each of them. The
    compiled ``.mo`` Sphinx records is its ``.po`` beside it, when there is one: what
    the translator writes and git tracks (the ``.mo`` is a build product)."""
    env = app.env
    parts = {docname: [_catalog_source(os.path.join(srcdir, os.fspath(dep))) for dep in deps]
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


def _catalog_source(path: str) -> str:
    """A compiled message catalog as the ``.po`` it was compiled from, when that is
    beside it; any other file as it is."""
    if path.endswith(".mo") and os.path.isfile(po := path[:-3] + ".po"):
        return po
    return path
