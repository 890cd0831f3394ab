"""Each page's source file, and how it was found: the ``--map`` file first, then what
the generator recorded (``Layout.known``), then the layout's one existing candidate,
then the page's own edit link. Two sources for one page are reported, never guessed."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..._display import count
from .editlinks import PageTooLarge, edit_link_source
from .family import LANGUAGE, Built, Known, Layout, read_map, url_key
from .listing import PAGE_READ_LIMIT
from .scan import BuiltPage


@dataclass
class Sources:
    """Each page's source file and parts, and how they were found."""

    files: dict[str, str] = field(default_factory=dict)  # page path -> source ("" none)
    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the generator's records lacked
    warnings: list[str] = field(default_factory=list)  # git failing under the edit links
    by_map: int = 0
    by_generator: int = 0
    by_edit_link: int = 0
    made_lists: set[str] = field(default_factory=set)  # pages the generator made as lists
    declared: dict[str, str] = field(default_factory=dict)  # source -> front-matter lastmod
    not_pages: dict[str, str] = field(default_factory=dict)  # page path -> why it is none
    # page path -> its translations, (hreflang, page path) each (Layout.clusters)
    clusters: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    chosen: int = 0  # pages with two existing sources, of which the generator uses one
    # page path -> what it lists, by the generator's data (None: the family has none)
    members: dict[str, tuple[str, ...]] | None = None
    # output path of a list page -> why how new it is cannot be told (Built's)
    unknown_members: dict[str, str] = field(default_factory=dict)

    def rebase(self, old: str, new: str) -> None:
        """Sources the generator recorded under ``old`` (the folder it built from) are
        the files at the same place under ``new`` (that folder as of another commit)."""
        def moved(path: str) -> str:
            return new + path[len(old):] if path == old or path.startswith(old + os.sep) \
                else path
        self.files = {page: moved(path) for page, path in self.files.items()}
        self.parts = {page: tuple(map(moved, parts)) for page, parts in self.parts.items()}
        self.declared = {moved(path): date for path, date in self.declared.items()}


def page_key(page: BuiltPage, base: str) -> str:
    """The page's URL path under ``base``, as ``url_key`` folds it."""
    if page.url.startswith(base) and "?" not in page.url and "#" not in page.url:
        path = page.url[len(base):]  # the usual case: no URL parsing per page
        return url_key(unquote(path) if "%" in path else path)
    path = unquote(urlsplit(page.url).path)
    return url_key(path[len(unquote(urlsplit(base).path)):])


def find_sources(pages: list[BuiltPage], out: Path, base: str, layout: Layout | None,
                 source: Path | None, map_file: Path | None,
                 checkout: Callable[[str, str], Path | None] | None = None) -> Sources:
    root = source.resolve() if source is not None else Path.cwd() if map_file else None
    mapped = read_map(map_file) if map_file is not None else {}
    keys = {page.path: page_key(page, base) for page in pages}
    built = Built(out, unquote(urlsplit(base).path), frozenset(keys.values()))
    if checkout is not None:
        built = replace(built, checkout=checkout)
    known = layout.known(built) if layout and layout.known else {}
    made = layout.made_lists(built) if layout and layout.made_lists else frozenset()
    not_pages = layout.not_pages(built) if layout and layout.not_pages else {}
    exists = _Listing(os.path.realpath(layout.content)) if layout else None
    result = Sources(notes=built.notes, declared=built.declared, warnings=built.warnings)
    for page in pages:
        if keys[page.path] in not_pages:
            result.not_pages[page.path] = not_pages[keys[page.path]]
            result.files[page.path] = ""
            continue
        if keys[page.path] in made:
            result.made_lists.add(page.path)
        given = mapped.get(page.url) or mapped.get(page.path)
        recorded = _distinct(known.get(keys[page.path], []))
        if given is not None and root is not None:
            result.files[page.path] = os.path.join(root, given.source)
            if given.parts:
                result.parts[page.path] = tuple(os.path.join(root, p) for p in given.parts)
            result.by_map += 1
        elif recorded:
            if len(recorded) > 1:
                result.conflicts.append(f"{page.path}: {' and '.join(k.source for k in recorded)}")
            result.files[page.path] = recorded[0].source if len(recorded) == 1 else ""
            result.parts[page.path] = recorded[0].parts if len(recorded) == 1 else ()
            result.by_generator += len(recorded) == 1
        elif layout is None or exists is None or page.path in layout.generated:
            result.files[page.path] = ""
        else:
            found = [c for c in layout.candidates(page.path) if exists(c)]
            if len(found) > 1 and layout.choose is not None and \
                    (chosen := layout.choose(found)) is not None:
                result.chosen += 1
                found = [chosen]
            if len(found) > 1:
                result.conflicts.append(f"{page.path}: {' and '.join(found)}")
            result.files[page.path] = exists.root + "/" + found[0] if len(found) == 1 else ""
    _by_edit_links(result, out, root, base, pages)
    if layout is not None and layout.clusters is not None:
        path_of = {key: path for path, key in keys.items() if path not in result.not_pages}
        clusters = layout.clusters(built)
        for key, path in path_of.items():
            members = tuple((lang, path_of[k]) for lang, k in clusters.get(key, ())
                            if k in path_of)
            if len(members) > 1:
                result.clusters[path] = members
    if layout is not None and layout.members is not None:
        listing = layout.members(built)
        result.members = {page.path: listing[keys[page.path]] for page in pages
                          if keys[page.path] in listing}
        result.unknown_members = {page.path: built.unknown_members[keys[page.path]]
                                  for page in pages if keys[page.path] in built.unknown_members}
    return result


def _distinct(found: list[Known]) -> list[Known]:
    if len(found) < 2:
        return found
    return list({os.path.realpath(k.source): k for k in found}.values())


class _Listing:
    """Whether a file exists under ``root``: one ``listdir`` per directory that exists,
    none for a directory its parent's listing does not hold (no stat per candidate)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.names: dict[str, frozenset[str]] = {}

    def __call__(self, rel: str) -> bool:
        folder, _, name = rel.rpartition("/")
        return name in self._list(folder)

    def _list(self, folder: str) -> frozenset[str]:
        names = self.names.get(folder)
        if names is None:
            parent, _, name = folder.rpartition("/")
            names = frozenset()
            if not folder or name in self._list(parent):
                try:
                    names = frozenset(os.listdir(self.root + "/" + folder if folder
                                                 else self.root))
                except OSError:
                    pass
            self.names[folder] = names
        return names


def _by_edit_links(result: Sources, out: Path, root: Path | None, base: str,
                   pages: list[BuiltPage]) -> None:
    """Pages still without a source (and without two): their own edit links."""
    conflicted = {c.split(": ", 1)[0] for c in result.conflicts}
    todo = [p for p in pages if not result.files.get(p.path) and p.path not in conflicted
            and p.path not in result.not_pages]
    top = repository_top(root)
    if not todo or top is None:
        return
    tracked = _Tracked(top)
    languages = frozenset(p.name for p in out.iterdir() if p.is_dir() and
                          LANGUAGE.fullmatch(p.name))
    large: list[str] = []
    try:
        for page in todo:
            try:
                link = edit_link_source(out / page.path, tracked, page_key(page, base),
                                        languages)
            except PageTooLarge:
                large.append(page.path)
                continue
            if link:
                result.files[page.path] = str(top / link)
                result.by_edit_link += 1
    except _NoListing as exc:
        result.warnings.append(f"git ls-files failed in {top} ({exc}): {len(todo):,} "
                               "pages without a source are not mapped by their edit links")
    if large:
        result.notes.append(f"{count(len(large), 'page')} larger than "
                            f"{PAGE_READ_LIMIT >> 20} MiB not read for an edit link, so "
                            f"without a source (e.g. {large[0]})")


class _NoListing(Exception):
    """git could not list the tracked files."""


class _Tracked:
    """The repository's tracked files, listed when a page's link first needs them
    (pages without a source often have no repository link at all)."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.files: set[str] | None = None

    def __contains__(self, path: object) -> bool:
        if self.files is None:
            files, failure = _tracked(self.top)
            if failure:
                raise _NoListing(failure)
            self.files = files
        return path in self.files


def repository_top(root: Path | None) -> Path | None:
    """The repository's top directory above ``root``."""
    while root is not None:
        if (root / ".git").exists():
            return root
        root = root.parent if root.parent != root else None
    return None


def _tracked(top: Path) -> tuple[set[str], str]:
    """(tracked files, git's error: '' when it worked)."""
    try:
        done = subprocess.run(["git", "-c", "core.quotepath=false", "ls-files", "-z"],
                              cwd=top, capture_output=True, check=False)
    except OSError as exc:  # no git on PATH
        return set(), str(exc.strerror or exc)
    if done.returncode != 0:
        words = done.stderr.decode(errors="replace").strip().splitlines()
        return set(), words[-1] if words else f"exit {done.returncode}"
    return set(os.fsdecode(done.stdout).split("\0")) - {""}, ""  # one decode, not one a path
