"""Eleventy 3: which template made which page, Eleventy alone knows (permalinks,
computed data, pagination, directory data). The project's own Eleventy is asked with
``data/eleventy/pages.mjs``: it loads the config, reads the templates and the data
cascade and maps every page to its URL, as ``eleventy`` does, then stops before
rendering. Each page is dated by its template; a paginated page by its template and
what it paginates: the items of a collection (its members), or the data file that
supplies its data. The base URL is the site URL the project's global data names
(``metadata.url``, ``site.url``) under Eleventy's resolved ``pathPrefix``. Eleventy
writes no sitemap of its own, so there is no floor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .family import Built, Known, Layout, front_matter, site_url, url_key
from .jsconfig import load

CONFIGS = ("eleventy.config.js", "eleventy.config.mjs", "eleventy.config.cjs",
           "eleventy.config.ts", "eleventy.config.mts", "eleventy.config.cts",
           ".eleventy.js", ".eleventy.cjs")
PROGRAMS = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts")  # data files that are code
URL_NAMES = "url in _data/metadata.json (or site.url in _data/site.json)"


def detect(source: Path, generator: str) -> Layout | None:
    config = find_config(source)
    if config is None:
        return None
    asked = load("Eleventy", "eleventy/pages.mjs", config, str(source.resolve()))
    if isinstance(asked, str):  # no node, no Eleventy here: nothing is guessed
        return Layout("Eleventy", source, known=lambda built: _unasked(built, asked),
                      base_from=f"{config.name} (Eleventy could not be asked: {asked})",
                      base_unset=f"Eleventy could not be asked for its site URL ({asked})",
                      base_missing="--base-url with the site's URL, its pathPrefix included")
    settings = asked.get("config") or {}
    prefix = str(settings.get("pathPrefix") or "/")
    url = settings.get("url")
    site = Site(source.resolve(), asked)
    return Layout("Eleventy", source / str(settings.get("input") or "."),
                  known=site.known, members=site.members,
                  content_from="Eleventy's input directory (dir.input)",
                  base_url=site_url(url, prefix),
                  base_from=f"{settings.get('urlFrom')} and Eleventy's pathPrefix {prefix}",
                  base_unset=f"the project's global data names no site URL ({URL_NAMES})",
                  url_path=prefix, url_path_from="Eleventy's pathPrefix",
                  base_missing="--base-url with the site's URL, its pathPrefix "
                  f"{prefix} included (or name it as url in _data/metadata.json)")


def find_config(source: Path) -> Path | None:
    """The Eleventy config in ``source``, or its ``package.json`` when that depends on
    Eleventy and there is no config (Eleventy runs without one)."""
    config = next((source / name for name in CONFIGS if (source / name).is_file()), None)
    if config is not None:
        return config
    manifest = source / "package.json"
    try:
        data = json.loads(manifest.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    needs = {**(data.get("dependencies") or {}), **(data.get("devDependencies") or {})} \
        if isinstance(data, dict) else {}
    return manifest if "@11ty/eleventy" in needs else None


def _unasked(built: Built, why: str) -> dict[str, list[Known]]:
    built.warnings.append(f"Eleventy could not be asked which template made each page "
                          f"({why}): its pages have no source, so no lastmod (install the "
                          "site's packages with npm before sitemapkit site, or pass --map)")
    return {}


class Site:
    """Eleventy's answer, read against the built output's pages."""

    def __init__(self, root: Path, asked: dict[str, Any]) -> None:
        self.root = root
        self.pages: list[dict[str, Any]] = [p for p in asked.get("pages") or ()
                                            if isinstance(p, dict) and p.get("out")]
        self.data_files: dict[str, str] = dict(asked.get("dataFiles") or {})
        # a data pagination's answer, the same for each of its pages (front matter read once)
        self._data: dict[tuple[str, str, tuple[str, ...]], tuple[list[str], str]] = {}

    def path(self, relative: str) -> str:
        return str(self.root / relative)

    def known(self, built: Built) -> dict[str, list[Known]]:
        """URL key of each page -> its template, with the data files a page paginating
        data is made from."""
        found: dict[str, list[Known]] = {}
        for page in self.pages:
            key = url_key(str(page["out"]))
            if key not in built.keys:
                continue
            parts = tuple(self.path(f) for f in self.data_of(page)[0]) if page.get("data") \
                else ()
            found.setdefault(key, []).append(Known(self.path(str(page["input"])), parts))
        return found

    def members(self, built: Built) -> dict[str, tuple[str, ...]]:
        """URL key of each list page -> the sources of what it lists: a collection's
        items on that page of a pagination, or every item of the collections a template
        declares (``eleventyImport.collections``). A template that names ``collections``
        without declaring which, or paginates data a program computes, is undated."""
        found: dict[str, tuple[str, ...]] = {}
        for page in self.pages:
            key = url_key(str(page["out"]))
            if key not in built.keys:
                continue
            listed = page.get("members") if page.get("members") is not None else \
                page.get("imported")
            if listed:
                found[key] = tuple(self.path(str(f)) for f in listed)
            elif page.get("mentions"):
                built.unknown_members[key] = (
                    f"its template {page['input']} names collections but declares none, so "
                    "what it lists cannot be told (declare them in its front matter: "
                    "eleventyImport: {collections: [name]}, as Eleventy's incremental builds "
                    "need too)")
            elif page.get("data"):
                why = self.data_of(page)[1]
                if why:
                    built.unknown_members[key] = why
        return found

    def data_of(self, page: dict[str, Any]) -> tuple[list[str], str]:
        """(the files that supply what ``page`` paginates, why git cannot date them or
        ""): the global data files under its key, else the template's own front matter,
        else its template and directory data files."""
        asked = (str(page["input"]), str(page["data"]), tuple(map(str, page.get("local") or ())))
        if asked not in self._data:
            self._data[asked] = self._data_of(page)
        return self._data[asked]

    def _data_of(self, page: dict[str, Any]) -> tuple[list[str], str]:
        key = str(page["data"])
        head = key.split(".", 1)[0].split("[", 1)[0]
        files = [f for f, path in self.data_files.items()
                 if path == head or key.startswith(path + ".") or path.startswith(head + ".")]
        if not files:
            if head in front_matter(self.path(str(page["input"]))):
                return [], ""
            files = [str(f) for f in page.get("local") or ()]
        if not files:
            return [], (f"it paginates {key}, which Eleventy's config computes "
                        "(addGlobalData): git cannot date a program's output (pass --map "
                        "with its source)")
        programs = [f for f in files if f.endswith(PROGRAMS)]
        if programs:
            return files, (f"it paginates {key} from {programs[0]}, a program whose output "
                           "git cannot date (keep that data in a JSON or YAML file, or pass "
                           "--map)")
        return files, ""
