"""``sitemapkit site``: git-dated, sharded sitemaps for any static site generator, from
its built output. A host like the plugins: it makes page rows from the output
directory (``sources.builtsite``) and the generator's layout (``sources.generators``),
dates them in one git pass, and hands them to the same pipeline.

    from sitemapkit.site import site_sitemaps
    outcome = site_sitemaps("public", "https://example.com/", source=".")
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._display import count
from .errors import ConfigError
from .options import DEFAULT_CACHE, SITE, for_host
from .publish.pipeline import Outcome, publish_pages
from .publish.settings import git_options, page_rules, publish_settings, writer_options
from .rules.urls import normalize_base_url
from .sources.builtsite import BuiltPage, Scan, scan
from .sources.generators import Layout, detect, edit_link_source, read_map
from .sources.gitdates import GitDates, git_dates
from .sources.htmlmeta import url_identity
from .sources.oldsitemap import OldSitemap, read_old
from .sources.pages import PageRow
from .write.output import remove_owned

HUGO_TEMPLATE = Path(__file__).parent / "data" / "hugo"  # home.sitemapkit.json, hugo.toml
FAMILY = {"mkdocs": "MkDocs'", "properdocs": "ProperDocs'", "zensical": "Zensical's",
          "hugo": "Hugo's", "sphinx": "Sphinx's", "jekyll": "Jekyll's", "pelican": "Pelican's"}


@dataclass
class Sources:
    """Each page's source file, and how it was found."""

    files: dict[str, str]  # page path -> absolute source ("" when none)
    conflicts: list[str]
    by_edit_link: int = 0
    by_map: int = 0


def defaults() -> dict[str, Any]:
    return {option.name: option.default_for(SITE) for option in for_host(SITE)}


def site_sitemaps(out_dir: str | os.PathLike[str], base_url: str, *,
                  source: str | os.PathLike[str] | None = None,
                  map_file: str | os.PathLike[str] | None = None,
                  indexnow: Mapping[str, Any] | None = None, **values: Any) -> Outcome:
    """Write sitemaps for the built site in ``out_dir``; ``source`` is the generator's
    project directory (its config file there says which generator built it)."""
    started = time.perf_counter()
    unknown = set(values) - {o.name for o in for_host(SITE)}
    if unknown:
        raise ConfigError(f"unknown options {sorted(unknown)} for sitemapkit site")
    settings_values = {**defaults(), **values}
    try:
        base = normalize_base_url(base_url)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    out = Path(out_dir)
    settings = publish_settings(settings_values, indexnow)
    writer = writer_options(settings_values)
    rules = page_rules(settings_values)
    found = scan(out, base)
    layout = detect(Path(source)) if source is not None else None
    notes, warnings = _scan_notes(found, base)
    pages = [p for p in found.pages if not rules.excluded(p.path)]
    sources = _sources(pages, out, layout, source, map_file, warnings)
    rows, unsourced = _rows(pages, sources, rules, settings_values)
    dates = _dates(rows, settings_values, source, warnings)
    old = read_old(out, str(writer.resolved().filename), base)
    _compare(old, pages, warnings)
    rows = _with_alternates(rows, old)
    outcome = publish_pages(rows, dates, settings_values["lastmod"], out, base, writer,
                            settings, started)
    notes += _unsourced_note(unsourced, settings_values) + _mapped_note(sources) + dates.notes
    notes += _replaced(old, out, layout) + _map_artifacts(map_file, out)
    outcome.infos[1:1] = notes
    outcome.warnings[:0] = warnings + dates.warnings
    return outcome


def _scan_notes(found: Scan, base: str) -> tuple[list[str], list[str]]:
    left = ", ".join(f"{n:,} {kind}" for kind, n in found.left_out.items() if n)
    notes = [f"{count(len(found.pages), 'page')} found" + (f"; left out: {left}" if left else "")]
    warnings = []
    if found.other_base:
        page, canonical = found.other_base[0]
        warnings.append(f"the base URL {base} disagrees with {len(found.other_base):,} pages' "
                        f"canonical URLs, e.g. {page} says {canonical}; check --base-url")
    return notes, warnings


def _sources(pages: list[BuiltPage], out: Path, layout: Layout | None,
             source: str | os.PathLike[str] | None, map_file: str | os.PathLike[str] | None,
             warnings: list[str]) -> Sources:
    """Each page's source: the map file, else the layout's one existing candidate, else
    the page's edit link. Two existing candidates are reported, never guessed."""
    root = Path(source or ".").resolve() if source is not None or map_file is not None \
        else None  # a map's relative paths are read from --source, else from here
    mapped = read_map(Path(map_file)) if map_file is not None else {}
    result = Sources({}, [])
    exists = _Listing(os.path.realpath(layout.content)) if layout else None
    for page in pages:
        given = mapped.get(page.url) or mapped.get(page.path)
        if given is not None and root is not None:
            result.files[page.path] = os.path.join(root, given)
            result.by_map += 1
        elif layout is None or exists is None or page.path in layout.generated:
            result.files[page.path] = ""
        else:
            found = [c for c in layout.candidates(page.path) if exists(c)]
            if len(found) > 1:
                result.conflicts.append(f"{page.path}: {' and '.join(found)}")
            result.files[page.path] = exists.root + "/" + found[0] if len(found) == 1 else ""
    _by_edit_links(result, out, root)
    if result.conflicts:
        warnings.append(f"{count(len(result.conflicts), 'page')} could come from two source "
                        f"files, so they get no lastmod (give --map to choose), e.g. "
                        f"{result.conflicts[0]}")
    if source is not None and layout is None:
        warnings.append(f"no generator config (mkdocs.yml, hugo.toml, conf.py, ...) in "
                        f"{source}: pages are dated only through --map and edit links")
    return result


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


def _by_edit_links(result: Sources, out: Path, root: Path | None) -> None:
    """Pages the layout left without a source (and without two): their edit links."""
    conflicted = {c.split(": ", 1)[0] for c in result.conflicts}
    todo = [p for p, s in result.files.items() if not s and p not in conflicted]
    top = _top(root)
    if not todo or top is None:
        return
    tracked = _tracked(top)
    for path in todo:
        link = edit_link_source(out / path, tracked)
        if link:
            result.files[path] = str(top / link)
            result.by_edit_link += 1


def _top(root: Path | None) -> Path | None:
    """The repository's top directory above ``root``."""
    while root is not None:
        if (root / ".git").exists():
            return root
        root = root.parent if root.parent != root else None
    return None


def _tracked(top: Path) -> set[str]:
    done = subprocess.run(["git", "-c", "core.quotepath=false", "ls-files", "-z"], cwd=top,
                          capture_output=True, check=False)
    return set(os.fsdecode(p) for p in done.stdout.split(b"\0") if p)


def _rows(pages: list[BuiltPage], sources: Sources, rules: Any,
          values: Mapping[str, Any]) -> tuple[list[PageRow], int]:
    rows, unsourced = [], 0
    for page in pages:
        source = sources.files.get(page.path, "")
        if not source:
            unsourced += 1
            if values["drop_unsourced"]:
                continue
        changefreq, priority = rules.hints(page.path, None)
        rows.append(PageRow(page.url, source, page.path, changefreq, priority))
    return rows, unsourced


def _mapped_note(sources: Sources) -> list[str]:
    """How many sources came from somewhere other than the layout rules."""
    ways = [count(n, "page") + f" mapped by {how}" for n, how in
            ((sources.by_map, "--map"), (sources.by_edit_link, "their edit links")) if n]
    return ["; ".join(ways)] if ways else []


def _unsourced_note(unsourced: int, values: Mapping[str, Any]) -> list[str]:
    if not unsourced:
        return []
    what = "left out (drop_unsourced)" if values["drop_unsourced"] else "listed without lastmod"
    return [f"{count(unsourced, 'page')} with no source file (taxonomies, archives, "
            f"generated pages): {what}"]


def _dates(rows: list[PageRow], values: Mapping[str, Any],
           source: str | os.PathLike[str] | None, warnings: list[str]) -> GitDates:
    paths = [row.source for row in rows if row.source]
    if values["lastmod"] == "none" or not paths:
        return GitDates()
    where = Path(source).resolve() if source is not None else Path(paths[0]).parent
    if _top(where) is None:  # the sources' own repository decides, not the cwd
        warnings.append(f"{where} is not in a git repository: the sitemaps are written "
                        "without lastmod")
        return GitDates()
    setting = values["cache_dir"]
    cache = str(Path(source or ".") / (DEFAULT_CACHE if setting is None else setting)) \
        if setting != "" else None
    return git_dates(paths, git_options(values, cache))


def _compare(old: OldSitemap | None, pages: list[BuiltPage], warnings: list[str]) -> None:
    """Pages in the output that the generator's own sitemap does not list: usually stale
    files an unclean build left behind."""
    if old is None or old.ours or not old.locs:
        return
    unmatched = [p for p in pages if p.url not in old.locs]  # exact first: the usual case
    listed = {url_identity(loc) for loc in old.locs} if unmatched else set()
    extra = [p.path for p in unmatched if url_identity(p.url) not in listed]
    if extra:
        warnings.append(f"{count(len(extra), 'page')} in the output are not in the generator's "
                        f"{old.name}, e.g. {extra[0]}: stale files from an earlier build? "
                        "(they are listed; build into a clean directory to drop them)")


def _with_alternates(rows: list[PageRow], old: OldSitemap | None) -> list[PageRow]:
    """hreflang clusters as the generator's sitemap gave them (Hugo's translations)."""
    if old is None or not old.alternates:  # ours too: a re-run keeps the clusters
        return rows
    by_identity = {url_identity(loc): links for loc, links in old.alternates.items()}
    out = []
    for row in rows:
        links = by_identity.get(url_identity(row.loc), ())
        if links and any(url_identity(href) == url_identity(row.loc) for _, href in links):
            row = PageRow(row.loc, row.source, row.label, row.changefreq, row.priority,
                          tuple(dict.fromkeys(links)), row.parts)
        out.append(row)
    return out


def _replaced(old: OldSitemap | None, out: Path, layout: Layout | None) -> list[str]:
    """Say what was replaced; remove an old index's child files, now listed by nothing."""
    if old is None or old.ours:
        return []
    by = f"{FAMILY.get(layout.family, 'the generator')} " if layout else "the generator's "
    children = [c for c in old.children if c.parent != out.resolve()]
    remove_owned_children(children, out)
    gone = f"; removed its {count(len(children), 'child sitemap')}" if children else ""
    return [f"replaced {by}{old.describe()}{gone}"]


def _map_artifacts(map_file: str | os.PathLike[str] | None, out: Path) -> list[str]:
    """A map the build wrote into the output (Hugo's template does, once per language)
    is for us, not for the site: remove every copy after a successful write."""
    if map_file is None or not Path(map_file).resolve().is_relative_to(out.resolve()):
        return []
    name = Path(map_file).name
    copies = sorted(out.rglob(name))
    for copy in copies:
        copy.unlink(missing_ok=True)
    return [f"removed the page map {name} from the output ({count(len(copies), 'copy', 'copies')})"]


def remove_owned_children(children: list[Path], out: Path) -> None:
    for child in children:
        remove_owned(child.parent, [child.name])
