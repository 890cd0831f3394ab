"""mkdocs-static-i18n support: one sitemap over every language, with hreflang clusters.

The i18n plugin builds each language in turn (nested builds, one site_dir). Each
build hands its pages here; when every language is in, the clusters are formed by
the URL each page is published at, its language's prefix cut (``zh/sessions/`` and
``sessions/`` are one page), after MkDocs chose one source per URL: a stale
``zh/sessions.md`` beside ``zh/sessions/index.md`` still joins the cluster, as the
site's own language switcher links it. A page that is only the default language's
fallback copy is not a translation: it is left out (it duplicates the original,
protocol-rules 14) and never joins a cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..rules.hreflang import cluster
from ..sources.pages import PageRow


@dataclass(frozen=True)
class BuiltPage:
    """One built page, as the adapter saw it in its own language build."""

    key: str  # language-neutral URL path (the language's link cut), or the URL path
    locale: str | None  # language of the page's content
    language: str | None  # language build it was rendered in
    loc: str
    source: str  # absolute source path, for its git date
    changefreq: Any
    priority: Any
    label: str  # how errors name the page
    parts: tuple[str, ...] = ()  # files it renders besides its source (API objects' code)
    lists: tuple[str, ...] = ()  # sources of the pages it lists (blog posts)

    @property
    def is_fallback(self) -> bool:
        return self.locale is not None and self.locale != self.language


def i18n_plugin(config: Any) -> Any | None:
    """The mkdocs-static-i18n plugin instance, if it is active in this build."""
    plugin = config.plugins.get("i18n")
    if plugin is None or not hasattr(plugin, "build_languages") or \
            not hasattr(plugin, "current_language"):
        return None
    return plugin


def file_languages(file: Any) -> tuple[str | None, str | None]:
    """(content locale, build language) of an i18n-localized File."""
    return getattr(file, "locale", None), getattr(file, "locale_alternate_of", None)


def language_links(plugin: Any | None) -> dict[str, str]:
    """Each language's URL prefix under the site root (``zh/``; ``""`` at the root)."""
    if plugin is None:
        return {}
    return {str(lang.locale): str(lang.link or "/").lstrip("/")
            for lang in plugin.config.languages if lang.link is not None}


def neutral_url(url: str, language: str | None, links: dict[str, str]) -> str:
    """A page's URL path with its language's prefix cut: one key per translated page."""
    prefix = links.get(language or "", "")
    return url[len(prefix):] if prefix and url.startswith(prefix) else url


def x_default_language(setting: bool | str, default_language: str | None) -> str | None:
    if setting is True:
        return default_language
    return setting or None


def page_row(page: BuiltPage, alternates: tuple[tuple[str, str], ...] = ()) -> PageRow:
    return PageRow(page.loc, page.source, page.label, page.changefreq, page.priority,
                   alternates, page.parts, page.lists)


def with_alternates(rows: list[BuiltPage], languages: list[str], x_default: str | None
                    ) -> tuple[list[PageRow], int]:
    """Own-language pages with their cluster's alternates; fallback copies counted out."""
    own = [row for row in rows if not row.is_fallback]
    by_key: dict[str, dict[str, str]] = {}
    for row in own:
        by_key.setdefault(row.key, {})[row.language or ""] = row.loc
    order = {lang: i for i, lang in enumerate(languages)}
    out: list[PageRow] = []
    for row in own:
        members = by_key[row.key]
        if len(members) < 2:
            out.append(page_row(row))
            continue
        ordered = dict(sorted(members.items(), key=lambda kv: order.get(kv[0], len(order))))
        fallback_to = x_default if x_default in ordered else None
        out.append(page_row(row, cluster(ordered, fallback_to)))
    return out, len(rows) - len(own)
