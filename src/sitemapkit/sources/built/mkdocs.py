"""MkDocs, ProperDocs and Zensical: ``X/index.html`` or ``X.html`` comes from
``docs_dir/X.md``, ``X/index.md`` or ``X/README.md``. Zensical may be configured by
``mkdocs.yml``; the pages' generator meta says which of them built the site.

A multilingual site may have no config at the top but one per language in a language
folder (``docs/de/mkdocs.yml``, or ``de/mkdocs.yml`` below ``--source``), each
building its language into a folder of the one output: each language's pages then
come from its own ``docs_dir``, found by the URL path its ``site_url`` (else its
``site_dir``, else its folder's name) gives it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .family import Built, Known, Layout, is_language, join, read_config, site_url, stem

CONFIGS = {"mkdocs.yml": "MkDocs", "properdocs.yml": "ProperDocs", "zensical.toml": "Zensical"}


@dataclass(frozen=True)
class _Config:
    """One config: its folder, family, settings and file name."""

    folder: Path
    family: str
    project: dict[str, Any]
    name: str

    @property
    def docs(self) -> Path:
        return self.folder / str(self.project.get("docs_dir", "docs"))

    @property
    def url(self) -> str | None:
        return site_url(self.project.get("site_url"))

    @property
    def site(self) -> Path | None:
        given = self.project.get("site_dir")
        return Path(os.path.normpath(self.folder / str(given))) if given else None


def _config_in(folder: Path) -> _Config | None:
    for name, family in CONFIGS.items():
        if (folder / name).is_file():
            return _Config(folder, family, _settings(folder / name), name)
    return None


def _settings(path: Path, depth: int = 0) -> dict[str, Any]:
    """A config's settings, with those of the config its ``INHERIT`` names under them
    (MkDocs reads a child's paths from the child's folder all the same)."""
    config = read_config(path)
    project = config.get("project", config) if path.suffix == ".toml" else config
    if not isinstance(project, dict):
        return {}
    parent = project.get("INHERIT")
    if isinstance(parent, str) and depth < 8 and (path.parent / parent).is_file():
        return {**_settings(path.parent / parent, depth + 1), **project}
    return project


def _language_configs(source: Path, generator: str = "") -> list[_Config]:
    """Configs one level down in language folders: ``LANG/`` or ``docs/LANG/``; else,
    those a build wrote into a staging folder (``.build/LANG/mkdocs.yml``, often
    git-ignored, whose ``docs_dir`` holds the files it copied there: they are dated as
    the tracked files with the same bytes) when the pages name no other generator and
    they are more languages than the tracked ones."""
    found = [c for parent in (source, source / "docs") for c in _configs_below(parent)]
    if generator and not generator.startswith(MARKS):
        return found
    # a staging folder's configs name the docs the build copied there: one whose docs
    # folder is missing is some other project's, not this build's staging
    staged = [configs for folder in _folders(source)
              if folder.name not in NOT_STAGING and not is_language(folder.name)
              and (configs := [c for c in _configs_below(folder) if c.docs.is_dir()])]
    # several: the set a build wrote last; it wins over tracked configs for fewer
    # languages (docs/en/mkdocs.yml alone, which the build reads to write them all)
    last = max(staged, key=lambda configs: max(_written(c) for c in configs), default=[])
    return last if len(last) > len(found) else found


MARKS = ("mkdocs", "zensical", "properdocs")  # the generator meta of this family's pages
NOT_STAGING = frozenset({"docs", "node_modules", ".git", ".cache", ".venv", "venv"})


def _folders(parent: Path) -> list[Path]:
    try:
        return sorted(p for p in parent.iterdir() if p.is_dir())
    except OSError:
        return []


def _configs_below(parent: Path) -> list[_Config]:
    return [c for c in map(_config_in, (p for p in _folders(parent) if is_language(p.name)))
            if c is not None]


def _written(config: _Config) -> float:
    try:
        return (config.folder / config.name).stat().st_mtime
    except OSError:
        return 0.0


def detect(source: Path, generator: str) -> Layout | None:
    root = _config_in(source)
    configs = [root] if root else _language_configs(source, generator)
    if not configs:
        return None
    family = "Zensical" if generator.startswith("zensical") else configs[0].family
    if len(configs) == 1:
        only = configs[0]
        blog = blog_dir(only.project.get("plugins"))
        return Layout(family, only.docs, candidates, base_url=only.url,
                      language_folders=() if root else tuple(_output_folders(configs)),
                      base_from=f"{only.name} site_url", content_from=f"{only.name} docs_dir",
                      choose=written_last if family in ("MkDocs", "ProperDocs") else None,
                      made_lists=None if blog is None else partial(blog_views, blog))
    first = min(configs, key=lambda c: len(_path_of(c.url)))
    base = first.url
    if base and all(c.url for c in configs):  # the URL every language's is under
        base = base[:len(base) - len(_path_of(base))] + _common_path(
            [_path_of(c.url) for c in configs])
    return Layout(family, source, known=partial(_language_pages, tuple(configs)),
                  language_folders=tuple(_output_folders(configs)), base_url=base,
                  base_from=f"{_shown(first, source)} site_url",
                  made_lists=partial(_language_blogs, tuple(configs)))


def _language_pages(configs: tuple[_Config, ...], built: Built) -> dict[str, list[Known]]:
    """Each page's source in the docs_dir of the language whose output folder holds it."""
    found: dict[str, list[Known]] = {}
    prefixes = _prefixes(configs, built)
    if prefixes is None:
        return found
    order = sorted(zip(prefixes, configs, strict=True), key=lambda pair: -len(pair[0]))
    for key in built.keys:
        for prefix, config in order:
            if key.startswith(prefix) or key + "/" == prefix:
                rest = key[len(prefix):]
                path = rest if rest.endswith(".html") else join(rest, "index.html")
                hits = [config.docs / c for c in candidates(path)
                        if (config.docs / c).is_file()]
                if hits:
                    found[key] = [Known(str(hits[0]))]
                break
    return found


def _language_blogs(configs: tuple[_Config, ...], built: Built) -> frozenset[str]:
    prefixes = _prefixes(configs, built, say=False) or []
    return frozenset().union(*(
        blog_views(join(prefix, folder), built)
        for prefix, c in zip(prefixes, configs, strict=False)
        if (folder := blog_dir(c.project.get("plugins"))) is not None))


def _prefixes(configs: tuple[_Config, ...], built: Built, say: bool = True
              ) -> list[str] | None:
    """Where each language's pages sit in the output ('' or 'de/'): by the paths of
    distinct site_urls, else by nested site_dirs, else by the language folders the
    output holds, the one language without a folder at the top (None, with a note,
    when that leaves two)."""
    urls = [_path_of(c.url) for c in configs]
    if all(c.url for c in configs) and len(set(urls)) == len(urls):
        top = _common_path(urls)
        return [u[len(top):] for u in urls]
    sites = [c.site for c in configs if c.site is not None]
    if len(sites) == len(configs):
        top_site = min(sites, key=lambda p: len(p.parts))
        rel = [os.path.relpath(s, top_site).replace(os.sep, "/") for s in sites]
        if not any(r.startswith("..") for r in rel) and len(set(rel)) == len(rel):
            return ["" if r == "." else r + "/" for r in rel]
    folders = [(built.out / c.folder.name).is_dir() for c in configs]
    if folders.count(False) > 1:
        if not say:
            return None
        names = ", ".join(c.folder.name for c, f in zip(configs, folders, strict=True) if not f)
        built.notes.append(f"one config per language, but no output folder for {names}: "
                           "which of them is at the top is unknown, so their pages are "
                           "not mapped to sources")
        return None
    return [c.folder.name + "/" if f else "" for c, f in zip(configs, folders, strict=True)]


def _output_folders(configs: list[_Config]) -> list[str]:
    """The output folders a language's pages may sit in: its folder's name, the last
    part of its ``site_url``'s path, its ``site_dir``'s name."""
    names = {c.folder.name for c in configs}
    names |= {part for c in configs if c.url and (part := _path_of(c.url).strip("/")
                                                  .rpartition("/")[2])}
    names |= {c.site.name for c in configs if c.site is not None}
    return sorted(names)


def _path_of(url: str | None) -> str:
    return urlsplit(url).path or "/" if url else "/"


def _common_path(paths: list[str]) -> str:
    """The longest folder path every one of ``paths`` is in ('/', '/docs/')."""
    common = os.path.commonprefix(paths)
    return common[:common.rfind("/") + 1] or "/"


def _shown(config: _Config, source: Path) -> str:
    return os.path.relpath(config.folder / config.name, source).replace(os.sep, "/")


def candidates(path: str) -> list[str]:
    name, directory = stem(path)
    if not directory:
        return [name + ".md"]
    own = [name + ".md"] if name else []
    return own + [join(name, "index.md"), join(name, "README.md")]


def written_last(found: list[str]) -> str | None:
    """The one of ``X.md``, ``X/index.md`` and ``X/README.md`` that MkDocs builds
    ``X/index.html`` from: it walks a folder's files before its subfolders', so the
    folder's own page is written after ``X.md`` and replaces it; of ``index.md`` and
    ``README.md`` it excludes the README."""
    for suffix in ("/index.md", "/README.md"):
        chosen = [path for path in found if path.endswith(suffix) or path == suffix[1:]]
        if chosen:
            return chosen[0]
    return None


def blog_views(folder: str, built: Built) -> frozenset[str]:
    """Every page under the blog's folder (those without a source are its views)."""
    return frozenset(key for key in built.keys
                     if not folder or key == folder or key.startswith(folder + "/"))


def blog_dir(plugins: object) -> str | None:
    """The folder of Material's blog plugin (``blog_dir``, ``blog`` by default), whose
    pages without a source are its index pages, archive and category views; None
    without the plugin."""
    entries = list(plugins.items()) if isinstance(plugins, dict) else \
        [next(iter(e.items())) if isinstance(e, dict) and e else (e, None)
         for e in plugins] if isinstance(plugins, list) else []
    for name, settings in entries:
        if name == "blog":
            folder = str((settings or {}).get("blog_dir", "blog")) \
                if isinstance(settings, dict) or settings is None else "blog"
            return "" if folder.strip("/") == "." else folder.strip("/")
    return None
