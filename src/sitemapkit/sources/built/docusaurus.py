"""Docusaurus: the route metadata it writes at build time. Each docs page, blog post
and Markdown page has a JSON file under ``.docusaurus/`` naming its ``permalink`` and
its ``source`` (``@site/docs/intro.mdx``); React pages come from ``src/pages/X.js``
or ``src/pages/X/index.js``. Blog lists, tags and category index pages have none."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .family import (
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
    return Layout("Docusaurus", source, candidates,
                  known=lambda built: route_metadata(source, built.base_path, built.notes,
                                                     built.declared),
                  made_lists=lambda built: list_routes(source, built.base_path, built.keys),
                  base_url=_base_url(source, config), base_from=f"{config.name} url and baseUrl",
                  declares="last_update")


def _base_url(source: Path, config: Path) -> str | None:
    """``url`` + ``baseUrl``: as the build resolved them (``.docusaurus/`` keeps the
    config as JSON), else as the config file writes them."""
    built = source / ".docusaurus" / "docusaurus.config.mjs"
    try:
        text = built.read_text("utf-8")
        resolved = json.loads(text[text.index("{"): text.rindex("}") + 1])
        return site_url(resolved.get("url"), resolved.get("baseUrl"))
    except (OSError, ValueError, AttributeError):
        return site_url(assigned(config, "url"), assigned(config, "baseUrl"))


def candidates(path: str) -> list[str]:
    name, directory = stem(path)
    names = [join("src/pages", name, "index")] if directory else []
    if name:
        names.insert(0, join("src/pages", name))
    return [n + suffix for n in names for suffix in PAGE_SUFFIXES]


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
