"""``sitemapkit site``: git-dated, sharded sitemaps for any static site generator, from
its built output. A host like the plugins: it makes page rows from the output
directory (``sources.built.scan``) and what the generator knows of each page
(``sources.built``, one module per family), dates them in one git pass, and hands them
to the same pipeline. The generator's own sitemaps are the floor: every URL they
listed that is left out is named with its reason.

    from sitemapkit.site import site_sitemaps
    outcome = site_sitemaps("public", "https://example.com/", source=".")
"""

from __future__ import annotations

import functools
import gc
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from .._display import count
from ..errors import ConfigError
from ..heads.meta import page_identity
from ..options import SITE, for_host
from ..protocol import DEFAULT_FILENAME
from ..publish.dating import Dated, page_dates
from ..publish.gitpass import PassAhead, dates_ahead, row_dates, unstaged
from ..publish.pipeline import Outcome, publish_pages
from ..publish.settings import (
    cache_folder,
    default_record,
    page_rules,
    publish_settings,
    writer_options,
)
from ..rules.urls import normalize_base_url
from ..sources.built import detect, generator_meta, read_site
from ..sources.built.compare import (
    EXCLUDED,
    UNSOURCED,
    possessive,
)
from ..sources.built.family import Layout
from ..sources.built.floor import (
    OldSitemap,
    generator_entry,
    load_exclusions,
    read_base,
    save_exclusions,
)
from ..sources.built.languages import page_clusters
from ..sources.built.listed import with_lists, with_members
from ..sources.built.mapping import Sources, find_sources
from ..sources.built.scan import (
    SINGULAR,
    BuiltPage,
    Scan,
    link_notes,
    require_dir,
    unknown_canonicals,
    unread_warnings,
    version_canonicals,
)
from ..sources.git.model import GitDates
from ..sources.git.reftrees import RefTrees
from ..sources.pages import PageRow
from ..write.output import remove_owned, removed_note
from .audit import audit, undated_with_sources
from .report import SiteReport, Stage
from .run import Run

HUGO_TEMPLATE = Path(__file__).parent.parent / "data" / "hugo"  # home.sitemapkit.json, hugo.toml
GENERATOR_NAMES = {"hugo": "Hugo", "zensical": "Zensical", "docusaurus": "Docusaurus",
                   "jekyll": "Jekyll", "mkdocs": "MkDocs", "sphinx": "Sphinx",
                   "astro": "Astro", "pelican": "Pelican", "gatsby": "Gatsby",
                   "vitepress": "VitePress", "rspress": "Rspress"}


def defaults() -> dict[str, Any]:
    return {option.name: option.default_for(SITE) for option in for_host(SITE)}


def _collector_paused(run: Callable[..., Outcome]) -> Callable[..., Outcome]:
    """Run with the cycle collector off. A site run makes ~10 objects per page, keeps
    them all to the end and frees none in a cycle, so each collection only walks the
    live pages again: ~20% of a 100,000-page run. Cycles left meanwhile are freed by
    the next collection after it."""
    @functools.wraps(run)
    def paused(*args: Any, **kwargs: Any) -> Outcome:
        was = gc.isenabled()
        gc.disable()
        try:
            return run(*args, **kwargs)
        finally:
            if was:
                gc.enable()
    return paused


@_collector_paused
def site_sitemaps(out_dir: str | os.PathLike[str], base_url: str | None = None, *,
                  source: str | os.PathLike[str] | None = None,
                  map_file: str | os.PathLike[str] | None = None,
                  indexnow: Mapping[str, Any] | None = None,
                  version_root: str | None = None,
                  rebase: tuple[str, str] | None = None, through_link: bool = False,
                  **values: Any) -> Outcome:
    """Write sitemaps for the built site in ``out_dir`` (see ``_site``). The work trees
    of commits the generator read without checking them out (Antora's branches) live
    for the run, and are removed after it, whatever happens. ``through_link``:
    ``out_dir`` is a symbolic link the caller vouches for (mike's alias folder inside
    the same output), written through."""
    with RefTrees() as trees:
        return _site(out_dir, base_url, source=source, map_file=map_file, indexnow=indexnow,
                     version_root=version_root, rebase=rebase, trees=trees,
                     through_link=through_link, **values)


def _site(out_dir: str | os.PathLike[str], base_url: str | None, *,
          source: str | os.PathLike[str] | None, map_file: str | os.PathLike[str] | None,
          indexnow: Mapping[str, Any] | None, version_root: str | None,
          rebase: tuple[str, str] | None, trees: RefTrees, through_link: bool,
          **values: Any) -> Outcome:
    """Write sitemaps for the built site in ``out_dir``; ``source`` is the generator's
    project directory (its config file there says which generator built it). Without
    ``base_url``, the site's URL is the one the generator's config names, else the one
    its own sitemap's locs give. ``version_root``: ``out_dir`` is one version of a
    versioned site at that URL (``site.versions``), whose canonicals may name another;
    ``rebase`` (old, new): the generator's records name sources under ``old``, which
    stand at ``new`` for this run (the project as of the version's commit). The run
    is a sequence of stages, each saying what it found into one report."""
    started = time.perf_counter()
    run = _settings(Path(out_dir), source, indexnow, through_link, values)
    report = SiteReport()
    _read_output(run, base_url, version_root, report)
    sources, ahead = _map_sources(run, map_file, trees, rebase, report)
    rows, unsourced = _rows(run.pages, sources, run.rules, run.values, run.unlisted)
    rows = _reconcile(run, rows, report)
    rows, dates, dated = _date(run, rows, sources, ahead, report)
    audit(run, rows, dated, dates, sources, unsourced, version_root is not None, report)
    # --validate strict fails on a warning: the audit's hold the set back, so the
    # output's earlier set (and every date it carries) stays as it was
    held = run.settings.validate == "strict" and not run.settings.dry_run and report.warned()
    outcome = publish_pages(rows, dates, run.values["lastmod"], run.out, run.base, run.writer,
                            replace(run.settings, dry_run=True) if held else run.settings,
                            started, lambda: _replaced(run.old, run.out, run.generator), dated)
    if held:  # what the dry run said, as what would have been written
        outcome.infos[:] = [f"not written (--validate strict fails): {outcome.infos[0]}",
                            *(line for line in outcome.infos[1:]
                              if not line.startswith("dry run: "))]
        outcome.errors.append(f"nothing was written: --validate strict fails on the "
                              f"{count(held, 'warning')} above, so {run.out}'s earlier files "
                              "stay as they were")
    if run.settings.dry_run or held:
        if run.settings.dry_run and run.old is not None and not run.old.ours:
            outcome.infos.append(f"would replace {possessive(run.generator)} {run.old.describe()}")
    else:
        outcome.infos += _map_artifacts(map_file, run.out)
    return report.render(outcome, run.settings.validate == "strict")


def _settings(out: Path, source: str | os.PathLike[str] | None,
              indexnow: Mapping[str, Any] | None, through_link: bool,
              values: Mapping[str, Any]) -> Run:
    unknown = set(values) - {o.name for o in for_host(SITE)}
    if unknown:
        raise ConfigError(f"unknown options {sorted(unknown)} for sitemapkit site")
    settings_values = {**defaults(), **values}
    settings = publish_settings(settings_values, indexnow)
    writer = writer_options(settings_values, changes_file=settings_values["changes_file"] or (
        default_record(out) if settings.indexnow else None))
    if through_link:
        writer = replace(writer, follow_symlink=True)
    # absolute once: every source path derives from it, and git dates then take the
    # paths as they are (a relative one costs an abspath per page, three times over)
    project = Path(os.path.abspath(source)) if source is not None else None
    return Run(out, settings_values, settings, writer, page_rules(settings_values), project,
               source)


def _read_output(run: Run, base_url: str | None, version_root: str | None,
                 report: SiteReport) -> None:
    """Stage one: the output's pages, the entry point's name, the base URL (the one
    the build used wins over a config that names another, where the generator's
    sitemap and every canonical agree), and the generator's old sitemap."""
    out = run.out
    name = str(run.writer.resolved().filename)
    require_dir(out)
    adopted = None if run.values["filename"] or run.writer.format != "xml" else \
        generator_entry(out, name)
    if adopted is not None and adopted != name:  # the name its pages and robots.txt give
        run.writer = replace(run.writer, filename=adopted)
        name = adopted
    early = detect(run.project) if run.project is not None else None
    base_url, whence = _base_url(base_url, early, out, name, run.source)
    try:
        base = normalize_base_url(base_url)
    except ValueError as exc:
        raise ConfigError(f"{exc} ({whence})" if whence else str(exc)) from None
    found, layout, old = read_site(out, base, run.project, name, early)
    if whence and (built_at := _site_by_pages(found)) is not None and built_at != base:
        theirs = read_base(out, name)  # the generator's own sitemap, of this build
        if theirs is not None and normalize_base_url(theirs) == built_at:
            whence = (f"the locs of {possessive(early.family if early else 'the generator')} "
                      f"{name} and every page's canonical URL, which agree; {whence} names "
                      f"{base} (the build was given another URL, as hugo --baseURL does)")
            base = built_at
            found, layout, old = read_site(out, base, run.project, name, early)
    run.name, run.base, run.found, run.layout, run.old = name, base, found, layout, old
    run.generator = layout.family if layout else \
        GENERATOR_NAMES.get(generator_meta(found), "the generator")
    _confirmed(run, whence, report)
    report.warn(Stage.OUTPUT, *_under_url_path(base, layout))
    # before the scan's notes: it takes the pages whose canonical names another version
    unversioned = version_canonicals(found, version_root) if version_root else 0
    back = unknown_canonicals(found, base, lambda url: _in_output(url, base, out))
    if back:
        report.warn(Stage.OUTPUT, f"{count(len(back), 'page')} name a canonical URL on this "
                    f"site that is no page of the output, so they are listed at their own "
                    f"URL, e.g. {back[0].path} names {back[0].detail} (a canonical form "
                    "sitemapkit does not read as the page itself, or a page the build did "
                    "not make: check the canonical links)")
    notes, warnings = _scan_notes(found, base, whence)
    report.note(Stage.OUTPUT, notes[0], *([f"base URL {base} from {whence}"] if whence else []),
                *link_notes(out, found), *notes[1:])
    report.warn(Stage.OUTPUT, *warnings)
    if unversioned:
        report.note(Stage.OUTPUT, f"{count(unversioned, 'page')} name a canonical URL without "
                    f"the version (under {version_root}): listed at their version's URL "
                    "(mike's plugin, or a site_url with the version, makes the canonicals "
                    "agree)")
    if adopted is not None and adopted == name and name != DEFAULT_FILENAME["xml"]:
        report.note(Stage.OUTPUT, f"the sitemaps are written as {name}, the generator's entry "
                    "point, which its robots.txt and pages may name (filename chooses another)")
    run.pages = [p for p in found.pages if not run.rules.excluded(p.path)]
    run.unlisted.update({p.url: (p.path, EXCLUDED) for p in found.pages
                         if run.rules.excluded(p.path)})


def _under_url_path(base: str, layout: Layout | None) -> list[str]:
    """A base URL whose path does not end with the path the config serves every page
    under (``basePath: '/docs'``): each loc would name a URL the site does not serve."""
    if layout is None or not layout.url_path.strip("/"):
        return []
    wanted = "/" + layout.url_path.strip("/")
    if urlsplit(base).path.rstrip("/").endswith(wanted):
        return []
    return [f"the base URL {base} does not end with {wanted}, under which "
            f"{layout.url_path_from} serves every page: each URL would be one the site does "
            f"not serve (pass --base-url {base.rstrip('/')}{wanted}/)"]


def _confirmed(run: Run, whence: str, report: SiteReport) -> None:
    """Say what confirms the base URL: a page's canonical URL under it, or the locs of
    the generator's sitemap of this build. Where the canonicals are silent and that
    sitemap puts the site elsewhere, it is a warning naming both, and that sitemap is
    no floor (comparing URLs at two sites would call every page left out and added);
    where the output holds neither, a note says nothing confirmed it."""
    found, old, base = run.found, run.old, run.base
    assert found is not None
    if found.canonicals > len(found.other_base) or (old is not None and old.ours):
        return  # a page's canonical agrees; or a re-run, over a set the first run checked
    theirs = old if old is not None and not old.ours else None
    if theirs is not None and any(loc.startswith(base) for loc in theirs.locs):
        return
    elsewhere = read_base(run.out, run.name) if theirs is not None else None
    given = f"from {whence}" if whence else "given"
    check = f"check {whence}, or pass --base-url" if whence else "check --base-url"
    if theirs is None or elsewhere is None or normalize_base_url(elsewhere).startswith(base):
        if theirs is None or not theirs.locs:
            report.note(Stage.OUTPUT, f"nothing in the output confirms the base URL {base} "
                        f"({given}): no page names a canonical URL, and no sitemap "
                        f"{run.generator} wrote in this build lists its pages")
        return
    theirs.elsewhere = elsewhere
    canonicals = "no page names a canonical URL" if not found.canonicals else \
        f"{count(found.canonicals, 'page')} name canonical URLs elsewhere"
    report.warn(Stage.OUTPUT, f"the base URL {base} ({given}) is confirmed by neither "
                f"{possessive(run.generator)} {theirs.name}, whose locs are under {elsewhere}, "
                f"nor the pages ({canonicals}): {check}; that sitemap is not compared with "
                "the set written")


def _map_sources(run: Run, map_file: str | os.PathLike[str] | None, trees: RefTrees,
                 rebase: tuple[str, str] | None, report: SiteReport
                 ) -> tuple[Sources, PassAhead]:
    """Stage two: each page's source, from the generator's own records, ``--map``,
    edit links and the layout's rules; the git pass starts on them meanwhile."""
    layout = run.layout
    if layout is not None and layout.content_from and not layout.content.is_dir():
        raise ConfigError(f"{layout.content_from} names the folder {layout.content}, which "
                          f"does not exist, so no page of {layout.family} could find its "
                          "source; nothing was written (pass --source with the folder of "
                          "the config the build used)")
    sources = find_sources(run.pages, run.out, run.base, layout, run.project,
                           Path(map_file) if map_file else None, trees.at)
    report.warn(Stage.SOURCES, *(
        f"cannot check out commit {commit[:12]} of {gitdir} ({why}): the pages "
        f"{layout.family if layout else 'the generator'} read there go out without lastmod"
        for (gitdir, commit), why in trees.failed.items()))
    if rebase is not None:
        sources.rebase(*rebase)
    if sources.not_pages:
        run.pages = _generator_not_pages(run.pages, sources, run.unlisted, report)
    report.warn(Stage.SOURCES, *sources.warnings, *_source_warnings(sources, run.source, layout))
    report.note(Stage.SOURCES, *sources.notes, *_mapped_note(sources))
    return sources, dates_ahead(run.pages, sources, run.values, run.source)


def _reconcile(run: Run, rows: list[PageRow], report: SiteReport) -> list[PageRow]:
    """Stage three, against the generator's sitemap of this build (the floor): none
    when it is older than the pages; what it leaves out on purpose stays out; each
    page at the URL it lists."""
    run.old, stale = _stale(run.old, rows, run.out, run.generator, run.base)
    rows, served = _served_at(rows, run.old, run.layout)
    rows, unlisted = _unlisted_by_generator(
        rows, run.old, run.out, run.values, run.unlisted, run.generator,
        cache_folder(run.values, run.project), run.kept)
    report.note(Stage.FLOOR, *stale, *unlisted, *served)
    return rows


def _date(run: Run, rows: list[PageRow], sources: Sources, ahead: PassAhead, report: SiteReport
          ) -> tuple[list[PageRow], GitDates, Dated]:
    """Stage four: list pages by their members, hreflang clusters, the git pass
    (staged copies by the tracked files with their bytes), each row's date."""
    values = run.values
    if values["date_lists"] and values["lastmod"] != "none":
        rows = with_members(rows, sources.members, sources.unknown_members) \
            if sources.members is not None else \
            with_lists(rows, run.out, run.layout.lists if run.layout else None,
                       sources.made_lists)
    rows, languages = _with_alternates(rows, run.old, run.pages, sources.clusters)
    report.note(Stage.FLOOR, *languages)
    warnings: list[str] = []
    dates = row_dates(rows, values, run.source, warnings, ahead)
    rows, staged = unstaged(rows, dates, values, run.source)
    dated = page_dates(rows, dates)
    report.warn(Stage.DATES, *warnings, *undated_with_sources(rows, dated.dates, dates),
                *dates.warnings)
    report.note(Stage.DATES, *staged, *dates.notes)
    if dated.declared and values["lastmod"] != "none":
        report.note(Stage.DATES, f"{count(dated.declared, 'page')} dated by their front "
                    f"matter ({run.layout.declares if run.layout else 'a date'}), which "
                    f"{run.generator} takes over git")
    return rows, dates, dated


def _base_url(given: str | None, layout: Layout | None, out: Path, name: str,
              source: str | os.PathLike[str] | None) -> tuple[str, str]:
    """(the base URL, where it came from; "" when given). The generator's config names
    the site's URL; its own sitemap's locs say it too. Neither: an error naming what was
    looked at."""
    if given is not None:
        return given, ""
    if layout is not None and layout.base_url:
        return layout.base_url, layout.base_from
    if (found := read_base(out, name)) is not None:
        return found, f"the locs of {possessive(layout.family if layout else 'the generator')} " \
            f"{name}"
    looked = (layout.base_unset or f"{layout.base_from} is not set") if layout is not None \
        else f"no generator config in {source}" if source is not None else "no --source given"
    fix = f"pass {layout.base_missing}" if layout is not None and layout.base_missing else \
        "pass --base-url with the site's URL of that folder"
    sitemap = f"{out / name} names no page of the output" if (out / name).exists() else \
        f"there is no {out / name}"
    raise ConfigError(f"no base URL for {out}: {looked}, and {sitemap}; {fix}")


def _site_by_pages(found: Scan) -> str | None:
    """The site's URL as the pages give it, when not one page's canonical agrees with
    the base URL the scan was given (None: some agree, or none names one)."""
    if not found.other_base or len(found.other_base) != found.canonicals:
        return None
    page, canonical = found.other_base[0]
    path = page[: -len("index.html")] if page.endswith("index.html") else page
    site = canonical[: -len(path)] if path and canonical.endswith(path) else canonical
    try:
        return normalize_base_url(site)
    except ValueError:
        return None


def _scan_notes(found: Scan, base: str, whence: str) -> tuple[list[str], list[str]]:
    left = ", ".join(f"{n:,} {SINGULAR[kind] if n == 1 else kind}"
                     for kind, n in found.left_out.items() if n)
    dropped = sum(found.left_out.values())
    notes = [f"{count(len(found.pages) + dropped, 'page')} found: {len(found.pages):,} to list"
             + (f", {dropped:,} left out ({left})" if left else "")]
    warnings = unread_warnings(found)
    if found.other_base:
        page, canonical = found.other_base[0]
        check = f"check {whence}, or pass --base-url" if whence else "check --base-url"
        if len(found.other_base) == found.canonicals:  # not one page agrees: the setup is off
            path = page[: -len("index.html")] if page.endswith("index.html") else page
            site = canonical[: -len(path)] if path and canonical.endswith(path) else canonical
            raise ConfigError(
                f"the base URL {base} disagrees with every page's canonical URL "
                f"({count(found.canonicals, 'page')}), e.g. {page} says {canonical}: the site "
                f"is at {site}, by its pages; {check}")
        warnings.append(f"the base URL {base} disagrees with {len(found.other_base):,} pages' "
                        f"canonical URLs, e.g. {page} says {canonical}; {check}")
    return notes, warnings


def _generator_not_pages(pages: list[BuiltPage], sources: Sources,
                         unlisted: dict[str, tuple[str, str]], report: SiteReport
                         ) -> list[BuiltPage]:
    """Leave out the output pages the generator's records say are no pages of their
    own (a copy of another page), each with the generator's reason."""
    kept = []
    for page in pages:
        why = sources.not_pages.get(page.path)
        if why is None:
            kept.append(page)
            continue
        unlisted[page.url] = (page.path, why)
        report.note(Stage.OUTPUT, f"left out {page.path}: {why}")
    return kept


def _source_warnings(sources: Sources, source: str | os.PathLike[str] | None,
                     layout: Layout | None) -> list[str]:
    warnings = []
    if sources.conflicts:
        warnings.append(f"{count(len(sources.conflicts), 'page')} could come from two source "
                        f"files, so they get no lastmod (give --map to choose), e.g. "
                        f"{sources.conflicts[0]}")
    if source is not None and layout is None:
        warnings.append(f"no generator config (mkdocs.yml, hugo.toml, docusaurus.config.js, "
                        ".vitepress/config.*, astro.config.*, book.toml, rspress.config.*, "
                        f"conf.py, ...) in {source}: pages are dated only through --map and "
                        "edit links")
    return warnings


def _rows(pages: list[BuiltPage], sources: Sources, rules: Any, values: Mapping[str, Any],
          unlisted: dict[str, tuple[str, str]]) -> tuple[list[PageRow], int]:
    rows, unsourced = [], 0
    for page in pages:
        source = sources.files.get(page.path, "")
        if not source:
            unsourced += 1
            if values["drop_unsourced"]:
                unlisted[page.url] = (page.path, UNSOURCED)
                continue
        changefreq, priority = rules.hints(page.path, None)
        rows.append(PageRow(page.url, source, page.path, changefreq, priority,
                            parts=sources.parts.get(page.path, ()),
                            declared=sources.declared.get(os.path.realpath(source), "")
                            if source and sources.declared else ""))
    return rows, unsourced


def _served_at(rows: list[PageRow], old: OldSitemap | None, layout: Layout | None
               ) -> tuple[list[PageRow], list[str]]:
    """Each page at the URL it is served at: ``…/x`` for the file ``x.html`` where the
    generator serves clean URLs (VitePress ``cleanUrls``), or where its sitemap lists
    the page so (Docusaurus ``trailingSlash: false``, Astro ``build.format: 'file'``)."""
    clean = layout is not None and layout.clean_urls
    linked = layout is not None and layout.index_links
    floor = old.locs if old is not None and not old.elsewhere else {}
    moved, indexed, out = 0, 0, []
    for row in rows:
        if row.loc.endswith(".html") and row.loc not in floor and (
                clean or row.loc[: -len(".html")] in floor):
            row = replace(row, loc=row.loc[: -len(".html")])
            moved += 1
        elif linked and row.label.endswith("/index.html") and row.loc.endswith("/"):
            row = replace(row, loc=row.loc + "index.html")
            indexed += 1
        out.append(row)
    why = (layout.clean_from or f"{possessive(layout.family)} cleanUrls") \
        if clean and layout else "the generator's sitemap"
    said = [f"{count(moved, 'page')} listed without .html, as {why} serves them"] \
        if moved else []
    if indexed and layout is not None:
        said.append(f"{count(indexed, 'page')} listed at …/index.html, as "
                    f"{possessive(layout.family)} own navigation links them")
    return out, said


CONFIG_EXCLUDED = "not in the generator's sitemap, built in this run: its config leaves it out"
EARLIER_EXCLUDED = ("not built since the generator's sitemap left it out (its config excludes "
                    "it), when an earlier run replaced that sitemap")
SAMPLED = 256  # pages the generator listed whose times say when this build wrote
COARSE = 2  # seconds: file systems with coarse times


def _stale(old: OldSitemap | None, rows: list[PageRow], out: Path, generator: str,
           base: str) -> tuple[OldSitemap | None, list[str]]:
    """The generator's sitemap is the floor only when this build wrote it. What it
    lists says so first: exactly the pages of this output (a generator may write its
    sitemap before its pages: Hugo's deferred templates). Any other is judged by time,
    and said: one older than every page of the output (a sample) was left by an
    earlier build, or put there by hand, and is no floor (it still goes: the new set
    takes its name)."""
    if old is None or old.ours or old.written is None or not rows:
        return old, []
    step = max(1, len(rows) // SAMPLED)
    times = [t for row in rows[::step] if (t := _mtime(out / row.label)) is not None]
    if not times or old.written >= min(times) - COARSE:
        return old, []
    if {page_identity(loc) for loc in old.locs} == {page_identity(r.loc) for r in rows} and \
            all(_in_output(loc, base, out) for loc in old.locs):
        return old, [f"{old.name} in the output is older than its pages, but lists exactly "
                     f"the pages of this output: taken as {possessive(generator)} sitemap of "
                     "this build (written before its pages)"]
    return None, [f"{old.name} in the output is older than every page of this build and "
                  f"lists other pages than it holds: left by an earlier build or by hand, it "
                  f"is not taken as {possessive(generator)} sitemap (nothing is left out or "
                  "compared by it)"]


def _in_output(loc: str, base: str, out: Path) -> bool:
    """A listed URL is a page of the output: its file, as servers map the URL to one
    (``X/`` to ``X/index.html``, ``X`` to ``X.html`` or ``X/index.html``)."""
    if not loc.startswith(base):
        return False
    rel = unquote(loc[len(base):].split("?", 1)[0].split("#", 1)[0])
    names = [rel + "index.html"] if rel.endswith("/") or not rel else \
        [rel, rel + ".html", rel + "/index.html"]
    return any((out / name).is_file() for name in names)


def _unlisted_by_generator(rows: list[PageRow], old: OldSitemap | None, out: Path,
                           values: Mapping[str, Any], unlisted: dict[str, tuple[str, str]],
                           generator: str, cache: str | None, kept: set[str]
                           ) -> tuple[list[PageRow], list[str]]:
    """Leave out what the generator built in this run and left out of its own sitemap
    on purpose (VitePress ``transformItems``, Docusaurus ``ignorePatterns``, Astro's
    ``filter``). "In this run": not older than the pages it did list (a sample of them:
    an error either way lists the page, as before). An older page is a stale file.
    Our own set from an earlier run on this output is never an allow-list: a page it
    does not name is left out again only when the generator's sitemap that run replaced
    left it out (``save_exclusions`` kept which) and its file is older than our set (a
    second run without a new build gives the same set); any other page, one built or
    added since among them, is listed."""
    if old is None or not old.locs or old.elsewhere or (values["keep_unlisted"] and old.ours):
        return rows, []
    floor = {page_identity(loc) for loc in old.locs}
    outside = [i for i, row in enumerate(rows) if page_identity(row.loc) not in floor]
    if not outside:
        return rows, []
    if old.ours:
        excluded = load_exclusions(out, cache) if cache is not None else frozenset()
        if old.written is None or not excluded:
            return rows, []
        gone = {i for i in outside if rows[i].label in excluded and
                (t := _mtime(out / rows[i].label)) is not None and t < old.written + COARSE}
        why = EARLIER_EXCLUDED
    else:
        inside = [row for row in rows if page_identity(row.loc) in floor]
        step = max(1, len(inside) // SAMPLED)
        times = [t for row in inside[::step] if (t := _mtime(out / row.label)) is not None]
        if not times:
            return rows, []
        start = min(times) - COARSE
        gone = {i for i in outside if (t := _mtime(out / rows[i].label)) is not None and
                t >= start}
        why = CONFIG_EXCLUDED
        if not values["dry_run"] and cache is not None:
            save_exclusions(out, [rows[i].label for i in gone], cache)
        if values["keep_unlisted"]:  # listed, and said so: not "stale files"
            kept.update(rows[i].loc for i in gone)
            return rows, [f"{count(len(gone), 'page')} built in this run that "
                          f"{possessive(generator)} sitemap leaves out (its config excludes "
                          f"them) listed all the same (keep_unlisted), e.g. "
                          f"{rows[min(gone)].label}"] if gone else []
    for i in sorted(gone):
        unlisted[rows[i].loc] = (rows[i].label, why)
    if not gone:
        return rows, []
    first = rows[min(gone)]
    said = (f"{count(len(gone), 'page')} that {possessive(generator)} sitemap left out "
            f"(its config excludes them) when an earlier run replaced it, unchanged since, "
            f"left out again, e.g. {first.label} (a page built or added since is listed; "
            "keep_unlisted lists them all)") if old.ours else (
        f"{count(len(gone), 'page')} built in this run that {possessive(generator)} sitemap "
        f"leaves out (its config excludes them) left out too, e.g. {first.label} "
        "(keep_unlisted lists them)")
    return [row for i, row in enumerate(rows) if i not in gone], [said]


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def _mapped_note(sources: Sources) -> list[str]:
    """How many sources came from somewhere other than the layout rules."""
    ways = [count(n, "page") + f" mapped by {how}" for n, how in
            ((sources.by_map, "--map"), (sources.by_generator, "the generator's own records"),
             (sources.by_edit_link, "their edit links")) if n]
    if sources.chosen:
        ways.append(f"{count(sources.chosen, 'page')} with two source files dated by the one "
                    "the generator builds it from (MkDocs writes X/index.md after X.md, "
                    "and the later one is the page)")
    return ["; ".join(ways)] if ways else []


def _with_alternates(rows: list[PageRow], old: OldSitemap | None, pages: list[BuiltPage],
                     recorded: dict[str, tuple[tuple[str, str], ...]] | None = None
                     ) -> tuple[list[PageRow], list[str]]:
    """hreflang clusters as the generator's records give them (mdBook's catalogs), else
    as its sitemap gave them (Hugo's translations), else as the pages' own hreflang
    links give them."""
    notes: list[str] = []
    url_at = {page.path: page.url for page in pages}
    if recorded:
        by_identity = {page_identity(url_at[path]): tuple(
            (lang, url_at[p]) for lang, p in cluster if p in url_at)
            for path, cluster in recorded.items() if path in url_at}
        notes.append(f"hreflang from {len(by_identity):,} pages' translations, as the "
                     "generator's records give them")
    elif old is not None and old.alternates:  # ours too: a re-run keeps the clusters
        by_identity = {page_identity(loc): links for loc, links in old.alternates.items()}
    else:
        clusters, notes = page_clusters(pages)
        by_identity = {page_identity(url): links for url, links in clusters.items()}
    if not by_identity:
        return rows, notes
    # each page at the URL it is listed at: a link may name the file (``x.html``,
    # ``x/index.html``) where the page is listed clean (``x``, ``x/``)
    url_of = {page.path: page.url for page in pages}
    served: dict[object, str] = {}
    for row in rows:
        served[page_identity(row.loc)] = row.loc
        if row.label in url_of:
            served.setdefault(page_identity(url_of[row.label]), row.loc)
    out = []
    for row in rows:
        links = by_identity.get(page_identity(row.loc)) or by_identity.get(
            page_identity(url_of.get(row.label, row.loc)), ())
        links = tuple(dict.fromkeys((lang, served.get(page_identity(href), href))
                                    for lang, href in links))
        if links and any(href == row.loc for _, href in links):
            row = replace(row, alternates=links)
        out.append(row)
    return out, notes


def _replaced(old: OldSitemap | None, out: Path, generator: str) -> list[str]:
    """Say what was replaced; remove an old index's child files and the language
    folders' sitemaps, now listed by nothing, naming exactly the files unlinked."""
    if old is None or old.ours:
        return []
    top = out.resolve()
    children = [c for c in old.children if c.parent != top] + old.languages
    removed: list[str] = []
    for child in children:  # with the .gz twin MkDocs and Zensical write beside it
        folder = child.parent.relative_to(top) if child.parent.is_relative_to(top) else \
            child.parent
        removed += [(folder / name).as_posix() for name in
                    remove_owned(child.parent, [child.name, child.name + ".gz"])]
    kept = [f"kept {count(len(old.kept), 'sitemap')} in a language folder that "
            f"{possessive(generator)} index does not name and that lists other URLs than "
            f"that folder's: " + "; ".join(old.kept)] if old.kept else []
    gone = removed_note(removed, f"of {possessive(generator)} sitemaps")
    return [f"replaced {possessive(generator)} {old.describe()}", *gone, *kept]


def _map_artifacts(map_file: str | os.PathLike[str] | None, out: Path) -> list[str]:
    """A map the build wrote into the output (Hugo's template does, once per language)
    is for us, not for the site: remove every copy after a successful write."""
    if map_file is None or not Path(map_file).resolve().is_relative_to(out.resolve()):
        return []
    name = Path(map_file).name
    copies = [p for p in sorted(out.rglob(name)) if _is_map(p)]
    for copy in copies:
        copy.unlink(missing_ok=True)
    return [f"removed the page map {name} from the output ({count(len(copies), 'copy', 'copies')})"]


def _is_map(path: Path) -> bool:
    """A file of the output that is a page map (empty, or a first line with "url" and
    "source"): only such copies are removed, never a user's file of the same name."""
    if path.is_symlink() or not path.is_file():
        return False
    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
    first = next((line for line in head.splitlines() if line.strip()), b"")
    if not first:
        return True
    try:
        row = json.loads(first)
    except ValueError:
        return False
    return isinstance(row, dict) and "url" in row and "source" in row
