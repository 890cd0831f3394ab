"""Hugo: every content file's URL computed as Hugo computes it, then matched to the
output. Content comes from ``contentDir``, each language's ``contentDir`` and the
``module.mounts`` that target ``content`` (with their ``lang``); ``url`` and ``slug``
front matter move a page; Hugo lower-cases paths unless ``disablePathToLower``; a
language other than the default lives under ``/<lang>/``. Sections with a
``permalinks`` pattern are left to edit links and ``--map`` (the map template)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .family import Known, Layout, front_matter, join, read_config, url_key

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
    return Layout("Hugo", source, known=lambda built: content_urls(source, config, built.keys),
                  lists=is_branch)


def is_branch(path: str) -> bool:
    """A branch bundle's ``_index`` file: a section, the home page, a taxonomy (a list)."""
    return os.path.basename(path).startswith("_index.")


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


def content_urls(source: Path, config: dict[str, Any],
                 pages: frozenset[str]) -> dict[str, list[Known]]:
    """URL key (relative to the site root) -> the content files Hugo publishes there.
    A file's front matter (``url``, ``slug``) is read only when the URL its path gives
    is not a page of the output: one read per moved page, not one per page."""
    languages = {str(k): v for k, v in (config.get("languages") or {}).items()}
    default = str(config.get("defaultContentLanguage", "en"))
    in_subdir = bool(config.get("defaultContentLanguageInSubdir"))
    lower = not config.get("disablePathToLower")
    ugly = bool(config.get("uglyURLs"))
    patterned = _patterned(config.get("permalinks") or {})
    found: dict[str, list[Known]] = {}
    for mount in mounts(source, config, languages):
        for folder, dirs, files in os.walk(mount.folder):
            dirs.sort()
            rel_dir = os.path.relpath(folder, mount.folder).replace(os.sep, "/")
            rel_dir = join(mount.target, "" if rel_dir == "." else rel_dir)
            if rel_dir.split("/")[0] in patterned:
                continue
            for name in sorted(files):
                if not name.endswith(CONTENT_SUFFIXES):
                    continue
                path = os.path.join(folder, name)
                key = None
                for moved in (False, True):
                    found_url = _url(rel_dir, name, path, mount.lang, languages,
                                     default, lower, ugly, moved)
                    if found_url is None:
                        break
                    lang, url = found_url
                    prefix = lang if lang != default or in_subdir else ""
                    key = url_key(join(prefix, url)) if not url.endswith(".html") \
                        else join(prefix, url)
                    if key in pages:
                        break
                if key is not None:
                    found.setdefault(key, []).append(Known(path))
    return found


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
    segments = [s for s in rel_dir.split("/") if s] + ([] if bundle else [base])
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
