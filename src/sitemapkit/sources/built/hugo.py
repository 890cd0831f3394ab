"""Hugo: every content file's URL computed as Hugo computes it, then matched to the
output. Content comes from ``contentDir``, each language's ``contentDir`` and the
``module.mounts`` that target ``content`` (with their ``lang``); ``url`` and ``slug``
front matter move a page; Hugo lower-cases paths unless ``disablePathToLower``; a
language other than the default lives under ``/<lang>/``. Sections with a
``permalinks`` pattern are left to edit links and ``--map`` (the map template)."""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .family import (
    LANGUAGE,
    Known,
    Layout,
    declared_lastmod,
    front_matter,
    join,
    read_config,
    site_url,
    url_key,
)

CONFIG_NAMES = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml",
                "config.yaml", "config.yml", "config.json")
CONTENT_SUFFIXES = (".md", ".markdown", ".html", ".htm", ".adoc", ".org", ".rst", ".pandoc")


@dataclass(frozen=True)
class Mount:
    folder: Path  # absolute source folder
    target: str  # path under content/ it appears at
    lang: str | None  # None: from the file name, else the default language


def detect(source: Path, generator: str) -> Layout | None:
    config = read_hugo_config(source)
    if config is None:
        return None
    index = ContentIndex(source, config)
    base = next((v for k, v in config.items() if k.lower() == "baseurl"), None)  # any case
    first = lastmod_before_git(config)
    return Layout("Hugo", source, known=lambda built: index.urls(built.keys, built.declared),
                  lists=is_branch,
                  made_lists=lambda built: made_lists(built.keys, taxonomies(config)),
                  prepare=index.build, base_url=site_url(base), base_from="Hugo's baseURL",
                  declares=", ".join(first) + " before :git in frontmatter.lastmod")


# Hugo's own order for a page's lastmod when the config sets none
DEFAULT_LASTMOD = (":git", "lastmod", "modified", "date", "publishdate", "pubdate",
                   "published")


def lastmod_before_git(config: dict[str, Any]) -> tuple[str, ...]:
    """The front-matter keys the config's ``[frontmatter] lastmod`` order puts before
    ``:git`` (Hugo takes the first a page has over git); none in Hugo's default order.
    ``:fileModTime`` is a build machine's file time, never a page's date: skipped."""
    section = next((v for k, v in config.items() if k.lower() == "frontmatter"), None)
    order = next((v for k, v in section.items() if k.lower() == "lastmod"), None) \
        if isinstance(section, dict) else None
    if not isinstance(order, list):
        return ()
    keys: list[str] = []
    for item in order:
        name = str(item).lower()
        for key in DEFAULT_LASTMOD if name == ":default" else (name,):
            if key == ":git":
                return tuple(keys)
            if not key.startswith(":") and key not in keys:
                keys.append(key)
    return tuple(keys)


def taxonomies(config: dict[str, Any]) -> frozenset[str]:
    """The taxonomies' URL folders (``[taxonomies]`` values; Hugo's default: tags and
    categories)."""
    given = next((v for k, v in config.items() if k.lower() == "taxonomies"), None)
    if isinstance(given, dict):
        return frozenset(str(v).strip("/") for v in given.values() if v)
    return frozenset({"tags", "categories"})


_PAGER = re.compile(r"(?:.*/)?page/\d+")


def made_lists(keys: frozenset[str], plurals: frozenset[str]) -> frozenset[str]:
    """The pages Hugo makes as lists, by URL key: the home page, sections (a folder
    page with pages below it), taxonomy and term pages (also under a language
    folder), and every pager page (``…/page/2``)."""
    folders = {key.rpartition("/")[0] for key in keys}
    folders |= {f.rsplit("/", n)[0] for f in list(folders) for n in range(1, f.count("/") + 1)}
    found = {""}
    for key in keys:
        segments = key.split("/")
        language = len(segments) > 1 and LANGUAGE.fullmatch(segments[0]) is not None
        if key in folders or _PAGER.fullmatch(key) or segments[0] in plurals or (
                language and segments[1] in plurals):
            found.add(key)
    return frozenset(found)


def is_branch(path: str) -> bool:
    """A branch bundle's ``_index`` file: a section, the home page, a taxonomy (a list)."""
    return path.rpartition(os.sep)[2].startswith("_index.")


def read_hugo_config(source: Path) -> dict[str, Any] | None:
    """The root config file merged with ``config/_default/`` (whose files named after a
    key, ``languages.toml`` or ``module.toml``, hold that key)."""
    config: dict[str, Any] | None = None
    for name in CONFIG_NAMES:
        if (source / name).is_file():
            config = read_config(source / name)
            break
    folder = source / "config" / "_default"
    if folder.is_dir():
        config = dict(config or {})
        for path in sorted(folder.iterdir()):
            if path.suffix not in (".toml", ".yaml", ".yml", ".json"):
                continue
            data = read_config(path)
            if path.stem in ("hugo", "config"):
                config.update(data)
            else:
                config[path.stem] = data
    return config


def mounts(source: Path, config: dict[str, Any], languages: dict[str, Any]) -> list[Mount]:
    """The content mounts: ``module.mounts`` that target content (they replace the
    default one), else ``contentDir`` and each language's own ``contentDir``."""
    module = config.get("module") or {}
    declared = [m for m in (module.get("mounts") or []) if isinstance(m, dict) and
                str(m.get("target", "")).split("/")[0] == "content"]
    if declared:
        return [Mount(source / str(m.get("source", "")), str(m["target"])[len("content"):],
                      _lang(m)) for m in declared]
    found = [Mount(source / str(config.get("contentDir", "content")), "", None)]
    for lang, settings in languages.items():
        if isinstance(settings, dict) and settings.get("contentDir"):
            found.append(Mount(source / str(settings["contentDir"]), "", lang))
    return found


def _lang(mount: dict[str, Any]) -> str | None:
    lang = mount.get("lang") or (mount.get("sites") or {}).get("matrix", {}).get("languages")
    if isinstance(lang, list):
        lang = lang[0] if len(lang) == 1 else None
    return str(lang) if lang else None


class ContentIndex:
    """Every content file's URL as its path gives it (``build``: needs no page, so it
    runs while the output is read), then, for ``urls``, the front matter (``url``,
    ``slug``) of the files whose URL is not a page of the output: one read per moved
    page, not one per page."""

    def __init__(self, source: Path, config: dict[str, Any]) -> None:
        self.source, self.config = source, config
        self.languages = {str(k): v for k, v in (config.get("languages") or {}).items()}
        self.default = str(config.get("defaultContentLanguage", "en"))
        self.in_subdir = bool(config.get("defaultContentLanguageInSubdir"))
        self.lower = not config.get("disablePathToLower")
        self.ugly = bool(config.get("uglyURLs"))
        self.first = lastmod_before_git(config)
        self.files: list[tuple[str, str, str, str, str | None]] | None = None

    def build(self) -> None:
        """(URL key by path, path, folder under content, name, mount language) of
        each content file outside ``permalinks`` sections, in walk order."""
        if self.files is not None:
            return
        files = []
        patterned = _patterned(self.config.get("permalinks") or {})
        for mount in mounts(self.source, self.config, self.languages):
            for folder, dirs, names in os.walk(mount.folder):
                dirs.sort()
                rel_dir = os.path.relpath(folder, mount.folder).replace(os.sep, "/")
                rel_dir = join(mount.target, "" if rel_dir == "." else rel_dir)
                if rel_dir.split("/")[0] in patterned:
                    continue
                for name in sorted(names):
                    if name.endswith(CONTENT_SUFFIXES):
                        path = folder + os.sep + name
                        key = self._key(rel_dir, name, path, mount.lang, False)
                        if key is not None:
                            files.append((key, path, rel_dir, name, mount.lang))
        self.files = files

    def urls(self, pages: frozenset[str], declared: dict[str, str]) -> dict[str, list[Known]]:
        """URL key -> the content files Hugo publishes there; into ``declared``, the
        front-matter lastmod of those whose config order puts a key before ``:git``
        (one read per file only then)."""
        self.build()
        found: dict[str, list[Known]] = {}
        for key, path, rel_dir, name, lang in self.files or []:
            if key not in pages:
                key = self._key(rel_dir, name, path, lang, True) or key
            found.setdefault(key, []).append(Known(path))
            if self.first:
                meta = {k.lower(): v for k, v in front_matter(path, self.first).items()}
                when = next((d for k in self.first if (d := declared_lastmod(meta.get(k)))),
                            None)
                if when is not None:
                    declared[os.path.realpath(path)] = when
        return found

    def _key(self, rel_dir: str, name: str, path: str, mount_lang: str | None,
             moved: bool) -> str | None:
        found_url = _url(rel_dir, name, path, mount_lang, self.languages, self.default,
                         self.lower, self.ugly, moved)
        if found_url is None:
            return None
        lang, url = found_url
        if lang != self.default or self.in_subdir:
            url = join(lang, url)
        elif url.startswith("/") or url.endswith("/"):
            url = join(url)
        return url_key(url) if not url.endswith(".html") else url


@functools.lru_cache(maxsize=256)
def _segments(rel_dir: str) -> tuple[str, ...]:
    """A content folder's path segments (computed once per folder, not per file)."""
    return tuple(s for s in rel_dir.split("/") if s)


def _patterned(permalinks: dict[str, Any]) -> set[str]:
    """Sections whose URLs a ``permalinks`` pattern sets (``posts = "/:year/:slug/"``,
    or under ``[permalinks.page]`` since Hugo 0.112): their edit links and ``--map``
    decide."""
    kinds = {"page", "section", "taxonomy", "term"}
    found = {key for key in permalinks if key not in kinds}
    for kind in kinds & set(permalinks):
        if isinstance(permalinks[kind], dict):
            found.update(permalinks[kind])
    return found


def _url(rel_dir: str, name: str, path: str, mount_lang: str | None,
         languages: dict[str, Any], default: str, lower: bool, ugly: bool,
         moved: bool) -> tuple[str, str] | None:
    """(language, URL path) of one content file, or None when its language is unknown;
    ``moved``: with its ``url`` and ``slug`` front matter read."""
    base = name.rsplit(".", 1)[0]
    lang = mount_lang
    stem_name, _, suffix = base.rpartition(".")
    if stem_name and suffix in languages:
        base, lang = stem_name, lang or suffix
    lang = lang or default
    if languages and lang not in languages:
        return None
    meta = front_matter(path, ("url", "slug")) if moved else {}
    url = meta.get("url")
    if isinstance(url, str) and url.strip():
        return lang, url.strip()
    bundle = base in ("index", "_index")
    segments = [*_segments(rel_dir), *(() if bundle else (base,))]
    slug = meta.get("slug")
    if isinstance(slug, str) and slug.strip() and segments and base != "_index":
        segments[-1] = slug.strip()
    out = "/".join(segments)
    if lower:
        out = out.lower()
    out = out.replace(" ", "-")
    if ugly and not bundle and out:
        return lang, out + ".html"
    return lang, out
