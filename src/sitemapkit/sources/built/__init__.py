"""Sources for ``sitemapkit site``: a built site's pages (``scan``), the generator's
own sitemaps (``floor``), each page's source file (``mapping``), and one module per
generator family saying what that generator knows about its pages. Supporting a new
generator is one new module with a ``detect`` function, listed in ``FAMILIES``."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import (
    antora,
    astro,
    docusaurus,
    eleventy,
    hugo,
    jekyll,
    mdbook,
    mkdocs,
    nextjs,
    pelican,
    rspress,
    sphinx,
    vitepress,
)
from . import scan as scanning  # (the name ``scan`` stays the module's)
from .family import Layout
from .floor import OldSitemap, read_old
from .scan import Scan

# first match wins: Docusaurus and MkDocs projects may also hold a _config.yml or conf.py
FAMILIES: tuple[Callable[[Path, str], Layout | None], ...] = (
    mkdocs.detect, docusaurus.detect, hugo.detect, sphinx.detect, jekyll.detect,
    pelican.detect, vitepress.detect, astro.detect, mdbook.detect, rspress.detect,
    antora.detect, eleventy.detect, nextjs.detect)


def detect(source: Path, generator: str = "") -> Layout | None:
    """The layout of the generator whose config is in ``source`` (None: unknown).
    ``generator`` is what the pages' generator meta says, lower-cased."""
    for family in FAMILIES:
        layout = family(source, generator)
        if layout is not None:
            return layout
    return None


USUAL_FOLDERS = ("docs", "website", "doc", "documentation", "book")
PARENTS = 8  # output folders sit a few levels under their project (docs/.vitepress/dist)
OUTSIDE_PARENTS = 3  # ... and outside a repository, no further up than that
_MARK = re.compile(rb"""<meta\s+name=["']?generator["']?\s+content=["']?([A-Za-z]+)""", re.I)


@dataclass
class Project:
    """Where ``find_project`` found the generator's project, and what it says of it."""

    folder: Path | None
    said: str = ""  # how it was found, or why none was
    others: list[Path] = field(default_factory=list)  # more folders with a config


def find_project(out: Path, here: Path) -> Project:
    """The generator's project for the output ``out`` when no ``--source`` is given:
    the nearest folder above the output (up to its repository's top; none when the
    output is a work tree of its own, a deploy branch's) with a config this package
    knows, else the current folder, else one of its usual docs folders (``docs/``,
    ``website/``, ...), else the folder of a config the current folder's repository
    tracks whose content folder holds the output's pages' sources (a ``mkdocs.yml``
    two folders down with ``docs_dir: ../../docs``). The first found is taken; the
    others are named. Nothing above the current folder's repository is looked at."""
    try:
        start = out.resolve()
    except OSError:
        start = out.absolute()
    top = next((p for p in (start, *start.parents) if (p / ".git").exists()), None)
    above = [p for p in start.parents][:PARENTS if top is not None else OUTSIDE_PARENTS]
    if top is not None and top in above:
        above = above[: above.index(top) + 1]
    elif top == start:
        above = []  # the output is a repository of its own (gh-pages): its project is not
    here = here.resolve()
    order = [*above, here, *(here / name for name in USUAL_FOLDERS)]
    mark = _generator_mark(start)
    # outside a repository, a folder above the output is a project only by a config of
    # its own: language-folder configs there (a sibling's ``x/de/mkdocs.yml``) are not
    layouts = {folder: layout for folder in dict.fromkeys(order) if folder.is_dir() and
               (layout := detect(folder, mark)) is not None and _fits(layout, start) and
               not (layout.language_folders and top is None and folder in above)}
    # a config whose generator the output's pages name comes first (a Hugo build beside
    # an unrelated mkdocs.yml)
    found = sorted(layouts, key=lambda f: (
        bool(mark) and not layouts[f].family.lower().startswith(mark),
        # a single language folder's config whose language has no folder here comes
        # after a project's own config
        bool(layouts[f].language_folders) and not _language_in(layouts[f], start)))
    if not found:
        return _tracked_project(start, here, mark)
    chosen = found[0]
    how = "the current folder" if chosen == here else \
        "a folder above the output" if chosen in above else "a docs folder of the current one"
    return Project(chosen, f"project {_shown(chosen, here)} ({how}; --source chooses another)",
                   found[1:])


# every file name a family's ``detect`` looks for: the tracked configs worth asking
CONFIG_FILES = frozenset((*mkdocs.CONFIGS, *hugo.CONFIG_NAMES, *docusaurus.CONFIGS,
                          *astro.CONFIGS, *rspress.CONFIGS, *eleventy.CONFIGS,
                          *nextjs.CONFIGS,
                          "book.toml", "conf.py",
                          "_config.yml", "pelicanconf.py", "antora-playbook.yml"))
SAMPLE_PAGES = 40  # output pages a candidate project's content folder is held against


def _tracked_project(out: Path, here: Path, mark: str) -> Project:
    """The project among the generator configs the current folder's repository tracks:
    the one whose content folder holds the sources of the output's pages. Two that hold
    them equally well: none taken, both named."""
    none = Project(None, f"no generator config in {here}, above {out}, in "
                   f"{'/, '.join(USUAL_FOLDERS)}/ or among the configs git tracks here: "
                   "pass --source with the folder that holds it")
    top = next((p for p in (here, *here.parents) if (p / ".git").exists()), None)
    if top is None:
        return none
    try:
        listed = subprocess.run(["git", "-c", "core.quotepath=false", "ls-files", "-z"],
                                cwd=here, capture_output=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return none
    folders: dict[Path, None] = {}
    for name in os.fsdecode(listed).split("\0"):
        head, _, base = name.rpartition("/")
        if base in CONFIG_FILES:
            folders[here / head] = None
        elif head.endswith(".vitepress") and base.startswith("config."):
            folders[(here / head).parent] = None
    pages = _sample_pages(out)
    scored = []
    for folder in folders:
        layout = detect(folder, mark) if folder.is_dir() else None
        if layout is not None and layout.content.is_dir() and _fits(layout, out):
            held = sum(any((layout.content / c).exists() for c in layout.candidates(page))
                       for page in pages)
            scored.append((held, folder))
    scored.sort(key=lambda pair: -pair[0])
    if not scored or (scored[0][0] == 0 and len(scored) > 1):
        return none
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return Project(None, f"two generator configs git tracks here fit {out} as well: "
                       f"{_shown(scored[0][1], here)} and {_shown(scored[1][1], here)}; "
                       "pass --source with the one that built it")
    chosen = scored[0][1]
    return Project(chosen, f"project {_shown(chosen, here)} (a config git tracks here, whose "
                   f"content folder holds the pages' sources; --source chooses another)",
                   [f for _, f in scored[1:]])


def _fits(layout: Layout, out: Path) -> bool:
    """False for configs in language-named folders (``de/mkdocs.yml``) when no page of
    their languages is in the output: no folder of theirs there, and no sampled page's
    source in their docs folder. A parent's translations are not this build."""
    if not layout.language_folders:
        return True
    return _language_in(layout, out) or any(
        (layout.content / c).exists() for page in _sample_pages(out)
        for c in layout.candidates(page))


def _language_in(layout: Layout, out: Path) -> bool:
    root = _pages_root(out)
    return any((root / name).is_dir() for name in layout.language_folders)


def _pages_root(out: Path) -> Path:
    """The output, or its newest version's folder when it is versioned (mike's
    ``versions.json``)."""
    try:
        listed = json.loads((out / "versions.json").read_text())
        first = listed[0].get("version") if isinstance(listed, list) and listed else None
        if isinstance(first, str) and (out / first).is_dir():
            return out / first
    except (OSError, ValueError, AttributeError):
        pass
    return out


def _sample_pages(out: Path) -> list[str]:
    """A few HTML pages of the output (of its newest version), relative to that."""
    root = _pages_root(out)
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [os.path.relpath(os.path.join(folder, f), root) for f in sorted(files)
                  if f.endswith(".html") and f != "404.html"]
        if len(found) >= SAMPLE_PAGES:
            break
    return found[:SAMPLE_PAGES]


def _generator_mark(out: Path) -> str:
    """The generator the output's front page names (``<meta name="generator">``),
    lower-cased, or ""."""
    try:
        with open(out / "index.html", "rb") as fh:
            head = fh.read(1 << 16)
    except OSError:
        return ""
    found = _MARK.search(head)
    return found[1].decode().lower() if found else ""


def _shown(folder: Path, here: Path) -> str:
    try:
        return os.path.relpath(folder, here.resolve())
    except ValueError:
        return str(folder)


def read_site(out: Path, base: str, project: Path | None, name: str,
              early: Layout | None = None) -> tuple[Scan, Layout | None, OldSitemap | None]:
    """(the pages, the generator's layout, its old sitemap ``name``). While the pages
    are read, what needs none of them is done here: the old sitemap, and the part of
    the layout's records that needs no page (Hugo's content index), for the layout
    its config names (``early``, when the caller detected it already); the pages'
    generator meta may name another (Zensical)."""
    if early is None and project is not None:
        early = detect(project)
    olds: list[OldSitemap | None] = []

    def beside() -> None:
        if early is not None:
            early.prepare()
        olds.append(read_old(out, name, base))

    found = scanning.scan(out, base, beside)
    layout = detect(project, generator_meta(found)) if project is not None else None
    if early is not None and layout is not None and layout.family == early.family:
        layout = early  # the one prepared
    return found, layout, olds[0]


def generator_meta(found: Scan) -> str:
    """The generator most pages name in their generator meta (``zensical``, ``hugo``)."""
    if not found.generators:
        return ""
    name = Counter(found.generators).most_common(1)[0][0]
    return name.split("-")[0].split("/")[0]
