"""Docusaurus: the route metadata it writes at build time. Each docs page, blog post
and Markdown page has a JSON file under ``.docusaurus/`` naming its ``permalink`` and
its ``source`` (``@site/docs/intro.mdx``); React pages come from ``src/pages/X.js``
or ``src/pages/X/index.js``. Blog lists, tags and category index pages have none.

A site with several locales is built one locale after another, and ``.docusaurus/``
keeps the last one's records only (``i18n.json`` says which, and each locale's base
URL). The other locales' pages are the same routes under their own base URL: each
comes from its locale's translation under ``i18n/<locale>/`` where there is one, else
from the default locale's file (Docusaurus' fallback), and the site's URL is the
default locale's, not the last one built."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from .family import (
    Built,
    Known,
    Layout,
    assigned,
    declared_lastmod,
    front_matter,
    join,
    site_url,
    stem,
    url_key,
)

CONFIGS = ("docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs",
           "docusaurus.config.mts", "docusaurus.config.cjs")
PAGE_SUFFIXES = (".js", ".jsx", ".ts", ".tsx", ".md", ".mdx")


def detect(source: Path, generator: str) -> Layout | None:
    config = next((source / name for name in CONFIGS if (source / name).is_file()), None)
    if config is None:
        return None
    base_url, base_from = _base_url(source, config)
    said = f"no build record of {config.name} in {source / '.docusaurus'} (`docusaurus " \
        f"build` writes it): url and baseUrl are read from {config.name} as written, which " \
        "misses presets, imports and environment variables" if "as written" in base_from \
        else ""

    def known(built: Built) -> dict[str, list[Known]]:
        if said:
            built.warnings.append(said)
        return _all_locales(source, built, route_metadata(source, built.base_path,
                                                          built.notes, built.declared))

    return Layout("Docusaurus", source, partial(_page_candidates, source, _locales(source)),
                  known=known,
                  made_lists=lambda built: _lists_of_all_locales(
                      source, built, list_routes(source, built.base_path, built.keys)),
                  base_url=base_url, base_from=base_from,
                  declares="last_update")


def _base_url(source: Path, config: Path) -> tuple[str | None, str]:
    """(``url`` + ``baseUrl``, where they were read): as the build resolved them
    (``.docusaurus/`` keeps the config as JSON, environment variables and presets
    applied; for a site of several locales, the default locale's), else as the config
    file writes them."""
    locales = _locales(source)
    if locales is not None:
        default = locales.configs.get(locales.default, {})
        found = site_url(default.get("url"), default.get("baseUrl"))
        if found:
            return found, (f".docusaurus/i18n.json (the build's record of {config.name}) "
                           f"url {default.get('url')} and baseUrl {default.get('baseUrl')} "
                           f"of the default locale")
    built = source / ".docusaurus" / "docusaurus.config.mjs"
    try:
        text = built.read_text("utf-8")
        resolved = json.loads(text[text.index("{"): text.rindex("}") + 1])
        return site_url(resolved.get("url"), resolved.get("baseUrl")), \
            (f".docusaurus/docusaurus.config.mjs (the build's record of {config.name}) url "
             f"{resolved.get('url')} and baseUrl {resolved.get('baseUrl')}")
    except (OSError, ValueError, AttributeError):
        return site_url(assigned(config, "url"), assigned(config, "baseUrl")), \
            f"{config.name} url and baseUrl (as written: no .docusaurus/ of a build to read)"


def candidates(path: str, pages: str = "src/pages") -> list[str]:
    name, directory = stem(path)
    names = [join(pages, name, "index")] if directory else []
    if name:
        names.insert(0, join(pages, name))
    return [n + suffix for n in names for suffix in PAGE_SUFFIXES]


def _page_candidates(source: Path, locales: _Locales | None, path: str) -> list[str]:
    """A React or Markdown page of ``src/pages``; under another locale's folder, its
    translation in ``i18n/<locale>/docusaurus-plugin-content-pages`` if one is there,
    else the same page of ``src/pages``."""
    if locales is not None:
        top = locales.prefix(locales.default)
        for locale in locales.configs:
            folder = locales.prefix(locale)[len(top):] if locales.prefix(locale).startswith(
                top) else ""
            if locale != locales.default and folder and path.startswith(folder):
                rest = path[len(folder):]
                kept = locales.configs[locale].get("path", locale)
                translated = [c for c in candidates(rest, join(
                    "i18n", str(kept), "docusaurus-plugin-content-pages"))
                    if (source / c).is_file()]
                return translated or candidates(rest)
    return candidates(path)


def route_metadata(source: Path, base_path: str, notes: list[str],
                   declared: dict[str, str] | None = None) -> dict[str, list[Known]]:
    """URL key -> source, from every plugin's metadata files. ``base_path`` is the
    path of the base URL (``/`` or Docusaurus' ``baseUrl``), which permalinks carry.
    A ``last_update`` date in a page's front matter goes into ``declared``:
    Docusaurus shows it, and its sitemap lists it, over git's."""
    found: dict[str, list[Known]] = {}
    root = source / ".docusaurus"
    if not root.is_dir():
        notes.append(f"no .docusaurus/ in {source} (`docusaurus build` writes it): docs and "
                     "blog pages map only by their edit links")
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".json") or name.startswith("__"):
                continue
            try:
                with open(os.path.join(folder, name), "rb") as fh:
                    data = json.load(fh)
            except (OSError, ValueError):
                continue
            if not isinstance(data, dict):
                continue
            permalink, origin = data.get("permalink"), data.get("source")
            if isinstance(permalink, str) and isinstance(origin, str) and \
                    origin.startswith("@site/") and permalink.startswith(base_path):
                key = url_key(permalink[len(base_path):])
                known = Known(str(source / origin[len("@site/"):]))
                when = _last_update(data, known.source)
                if when is not None and declared is not None:
                    declared[os.path.realpath(known.source)] = when
                if known not in found.get(key, []):
                    found.setdefault(key, []).append(known)
    return found


@dataclass(frozen=True)
class _Locales:
    """``.docusaurus/i18n.json``: the locale the records are of, the default one, and
    each locale's settings (``baseUrl``, ``path`` under ``i18n/``)."""

    current: str
    default: str
    configs: dict[str, dict[str, Any]]

    def prefix(self, locale: str) -> str:
        return str(self.configs.get(locale, {}).get("baseUrl") or "/")


def _locales(source: Path) -> _Locales | None:
    """The site's locales, when it has more than one."""
    data = _json(source / ".docusaurus" / "i18n.json")
    configs = data.get("localeConfigs")
    current, default = data.get("currentLocale"), data.get("defaultLocale")
    if not isinstance(configs, dict) or len(configs) < 2 or not isinstance(current, str) \
            or not isinstance(default, str):
        return None
    return _Locales(current, default, {str(k): v for k, v in configs.items()
                                       if isinstance(v, dict)})


# where a plugin's translations live under i18n/<locale>/, and its own folder
_TRANSLATED = (("docusaurus-plugin-content-docs/current/", "docs/"),
               ("docusaurus-plugin-content-blog/", "blog/"),
               ("docusaurus-plugin-content-pages/", "src/pages/"))


def _default_source(rel: str, locales: _Locales) -> str | None:
    """The default locale's file behind a record's source (a translation's original)."""
    folder = f"i18n/{locales.configs.get(locales.current, {}).get('path', locales.current)}/"
    if not rel.startswith(folder):
        return rel
    rest = rel[len(folder):]
    return next((own + rest[len(kept):] for kept, own in _TRANSLATED if rest.startswith(kept)),
                None)


def _locale_source(source: Path, rel: str, locale: str, locales: _Locales) -> str:
    """A locale's file for a default-locale one: its translation, else the original."""
    if locale != locales.default:
        folder = locales.configs.get(locale, {}).get("path", locale)
        for kept, own in _TRANSLATED:
            if rel.startswith(own) and (source / "i18n" / str(folder) / kept /
                                        rel[len(own):]).is_file():
                return f"i18n/{folder}/{kept}{rel[len(own):]}"
    return rel


def _all_locales(source: Path, built: Built, found: dict[str, list[Known]]
                 ) -> dict[str, list[Known]]:
    """``found`` (the last locale's records) with every other locale's pages of the
    same routes: those that are pages of the output and not recorded already."""
    locales = _locales(source)
    if locales is None:
        return found
    here = locales.prefix(locales.current)
    derived: dict[str, list[Known]] = {}
    for key, known in found.items():
        permalink = built.base_path + key
        if len(known) != 1 or not (permalink + "/").startswith(here):
            continue
        rel = _default_source(os.path.relpath(known[0].source, source).replace(os.sep, "/"),
                              locales)
        if rel is None:
            continue
        tail = permalink[len(here):] if len(permalink) >= len(here) else ""
        for locale in locales.configs:
            other = url_key((locales.prefix(locale) + tail)[len(built.base_path):])
            if locale == locales.current or other in found or other not in built.keys:
                continue
            path = str(source / _locale_source(source, rel, locale, locales))
            derived[other] = [Known(path)]
            update = front_matter(path, ("last_update",)).get("last_update")
            when = declared_lastmod(update.get("date")) if isinstance(update, dict) else None
            if when is not None:
                built.declared[os.path.realpath(path)] = when
    return {**found, **derived}


def _lists_of_all_locales(source: Path, built: Built, found: frozenset[str]) -> frozenset[str]:
    """The last locale's list routes, and the same routes under every other locale."""
    locales = _locales(source)
    if locales is None:
        return found
    here = locales.prefix(locales.current)
    more = set(found)
    for key in found:
        permalink = built.base_path + key
        if (permalink + "/").startswith(here):
            tail = permalink[len(here):] if len(permalink) >= len(here) else ""
            more.update(url_key((locales.prefix(locale) + tail)[len(built.base_path):])
                        for locale in locales.configs)
    return frozenset(k for k in more if k in built.keys or k in found)


def _last_update(data: dict[str, object], source: str) -> str | None:
    """A page's ``last_update`` date as its source's front matter writes it (the
    metadata has it as a JS Date: a day there reads as midnight UTC)."""
    front = data.get("frontMatter")
    update = front.get("last_update") if isinstance(front, dict) else None
    if not isinstance(update, dict) or update.get("date") is None:
        return None
    written = front_matter(source, ("last_update",)).get("last_update")
    given = written.get("date") if isinstance(written, dict) else None
    return declared_lastmod(given if given is not None else update["date"])


def list_routes(source: Path, base_path: str, keys: frozenset[str]) -> frozenset[str]:
    """The list pages the plugins make, by URL key: every page under a blog's base path
    that no post is (the blog index, its pages, tags, authors, the archive), and the
    tag and category pages whose props (``.docusaurus/<plugin>/<id>/p/*.json``) name
    them."""
    found: set[str] = set()
    blogs: list[str] = []
    for path in (source / ".docusaurus").glob("*/*/*.json"):
        if path.parent.parent.name.startswith("docusaurus-plugin-content-blog") and \
                path.name.startswith("blogMetadata-"):
            blog = _json(path).get("blogBasePath")
            if isinstance(blog, str) and blog.startswith(base_path):
                blogs.append(url_key(blog[len(base_path):]))
    for path in (source / ".docusaurus").glob("*/*/p/*.json"):
        found.update(url_key(link[len(base_path):]) for link in _permalinks(_json(path))
                     if link.startswith(base_path))
    found.update(key for key in keys for blog in blogs
                 if key == blog or key.startswith(blog + "/"))
    return frozenset(found)


def _json(path: Path) -> dict[str, object]:
    try:
        with open(path, "rb") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _permalinks(data: object) -> list[str]:
    """Every ``permalink`` (and ``allTagsPath``) string in a JSON value."""
    if isinstance(data, dict):
        return [v for k, v in data.items() if k in ("permalink", "allTagsPath") and
                isinstance(v, str)] + [p for v in data.values() for p in _permalinks(v)]
    if isinstance(data, list):
        return [p for v in data for p in _permalinks(v)]
    return []
