"""Stage five of ``sitemapkit site``, after dating and before anything is published:
the set held against evidence it did not produce. The generator's sitemap of this
build (every URL it listed is written, or left out for a reason the page gives), the
folder's previous set (every lastmod it carried for a URL still listed is written
again), and the pages whose source is in the repository but have no date. A failed
invariant is a warning naming the count, an example and the cause, so ``--validate
strict`` fails, and holds the set back; ``--report`` has a row for each page."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._display import count
from ..publish.dating import Dated
from ..sources.built.compare import (
    NO_SOURCE,
    NOT_LISTED,
    Difference,
    differences,
    possessive,
    summary,
    without_floor,
    write_report,
)
from ..sources.built.family import Layout, is_language
from ..sources.built.floor import OldSitemap
from ..sources.built.mapping import Sources, repository_top
from ..sources.built.scan import Scan
from ..sources.git.model import STATES, GitDates
from ..sources.pages import PageRow
from .report import SiteReport, Stage
from .run import Run


def audit(run: Run, rows: list[PageRow], dated: Dated, dates: GitDates, sources: Sources,
          unsourced: int, versioned: bool, report: SiteReport) -> None:
    """Every invariant of the set about to be written, into ``report``."""
    _compare(run, rows, dated, dates, report)
    _said_undated(run, rows, dated, dates, sources, unsourced, versioned, report)


def _compare(run: Run, rows: list[PageRow], dated: Dated, dates: GitDates,
             report: SiteReport) -> None:
    """The generator's sitemap against the set (both ways), and the ``--report`` rows:
    every page left out and every URL without lastmod, each with its reason, on every
    run."""
    old = run.old
    reasons = _undated_reasons(rows, dated.dates, dates, run.values["lastmod"])
    # URL -> why it goes out undated; asked only when the generator's sitemap gave dates
    undated = {} if old is None or old.ours or not old.dated else \
        {row.loc: "lastmod: none was asked for" if run.values["lastmod"] == "none" else
         reasons[row.loc][1] for row, date in zip(rows, dated.dates, strict=True)
         if run.values["lastmod"] == "none" or date is None}
    path = None if run.settings.dry_run else run.values["report"]  # a dry run writes none
    assert run.found is not None
    notes, warnings, report.rows = _floor(old, rows, undated, run.found, run.base,
                                          run.unlisted, run.generator, path, run.kept,
                                          run.out)
    report.note(Stage.FLOOR, *notes)
    report.warn(Stage.FLOOR, *warnings, *_dates_lost_since(old, rows, dated, dates,
                                                           run.values["lastmod"]))
    if path:
        said = {d.url for d in report.rows}
        # a page the comparison named (left out at the generator's URL for it) is not
        # named again at its file's URL ("X" and "X.html" are one page)
        pages = {d.page for d in report.rows if d.page and d.change == "left out"}
        report.rows += [d for d in without_floor(run.found, run.unlisted, reasons)
                        if d.url not in said
                        and not (d.change == NOT_LISTED and d.page in pages)]
        write_report(path, report.rows)


def _dates_lost_since(old: OldSitemap | None, rows: list[PageRow], dated: Dated,
                      dates: GitDates, lastmod: str) -> list[str]:
    """On a run over sitemapkit's own earlier set: a URL it dated that goes out undated
    now lost its date to something this run lacks (the project not found, a source
    moved): a warning naming the cause, never a silent loss."""
    if old is None or not old.ours or not old.dated or lastmod == "none":
        return []
    lost = [row for row, date in zip(rows, dated.dates, strict=True)
            if date is None and old.locs.get(row.loc)]
    if not lost:
        return []
    why = _undated_reasons(lost[:1], [None], dates, lastmod)[lost[0].loc][1]
    return [f"{count(len(lost), 'URL')} that this folder's previous set dated "
            f"{'goes' if len(lost) == 1 else 'go'} out without lastmod now, e.g. "
            f"{lost[0].label}: {why}" + (" (the project was not found here? run from it, "
                                           "or give --source)" if why == NO_SOURCE else "")]


def _said_undated(run: Run, rows: list[PageRow], dated: Dated, dates: GitDates,
                  sources: Sources, unsourced: int, versioned: bool,
                  report: SiteReport) -> None:
    """The pages without a source, counted by kind with the fix."""
    still = unsourced if run.values["drop_unsourced"] else \
        sum(1 for row, date in zip(rows, dated.dates, strict=True)
            if not row.source and date is None)
    report.note(Stage.SOURCES, *_unsourced_note(
        still, run.values, run.source, run.layout, versioned,
        _unsourced_kinds(rows, dated.dates, sources)))


def _undated_reasons(rows: list[PageRow], dated: list[Any], dates: GitDates, lastmod: str
                     ) -> dict[str, tuple[str, str]]:
    """URL -> (output path, why it has no lastmod) for each row written without one."""
    found = {}
    if lastmod == "none":  # asked for: nothing to say page by page
        return {}
    for row, date in zip(rows, dated, strict=True):
        if date is not None:
            continue
        if row.undated:
            why = row.undated
        elif not row.source:
            why = NO_SOURCE
        else:
            state = dates.state(row.source)
            why = f"its source {not_in_git(row.source)}" if state == "not-in-git" else \
                f"its source {row.source} {STATES[state][0]}" if state else \
                "what it lists has no date" if row.lists else "git gave its source no date"
        found[row.loc] = (row.label, why)
    return found


def not_in_git(path: str) -> str:
    """Why git has no history of ``path``, by what is on the disk: it does not exist,
    it lies outside any repository, or (inside one, not untracked) git ignores it."""
    if not os.path.lexists(path):
        return f"{path} does not exist"
    if repository_top(Path(path).parent) is None:
        return f"{path} is outside any git repository"
    return f"{path} is git-ignored"


SOURCE_UNDATED = ("untracked", "not-in-git")  # a file the page is made from, outside git


def undated_with_sources(rows: list[PageRow], dated: list[Any], dates: GitDates
                          ) -> list[str]:
    """Pages whose source file exists but git gave no date for (untracked, ignored, or
    outside the repository): a warning, as the build may have staged its sources
    (copied them into an ignored folder) or generated them."""
    found: dict[str, list[str]] = {}
    for row, date in zip(rows, dated, strict=True):
        if date is None and row.source and (state := dates.state(row.source)) in SOURCE_UNDATED:
            found.setdefault(state, []).append(row.source)
    return [f"{count(len(paths), 'page')} made from files that {STATES[state][1]}, so "
            f"without lastmod, e.g. "
            f"{paths[0] if state == 'untracked' else not_in_git(paths[0])}: commit it, or, "
            "where the build copies its sources elsewhere first, give --map with the "
            "tracked files (and, as 'parts', what the build adds to them)"
            for state, paths in found.items()]


def _unsourced_note(unsourced: int, values: Mapping[str, Any],
                    source: str | os.PathLike[str] | None, layout: Layout | None,
                    versioned: bool = False, kinds: list[tuple[str, str]] | None = None
                    ) -> list[str]:
    """How many pages have no source, and why: the setup's cause when there is one."""
    if not unsourced:
        return []
    what = "left out (drop_unsourced)" if values["drop_unsourced"] else \
        "listed without lastmod (none lists a page with one)"
    if source is None and versioned:
        why = "no source commit for this version: see the warning"
    elif source is None:
        why = "no --source was given, so no generator config was read; run from the " \
            "project's root or pass --source with the folder that holds its config"
    elif layout is None:
        why = f"no generator config in {source}, and no --map or edit link names them"
    else:
        why = "; ".join(text for _, text in kinds or ()) or "pages no rule maps"
        if not kinds or any(kind != "made" for kind, _ in kinds):  # --map dates no tag page
            what += "; --map FILE names the source of any page"
    return [f"{count(unsourced, 'page')} with no source file ({why}): {what}"]


def _unsourced_kinds(rows: list[PageRow], dated: list[Any], sources: Sources
                     ) -> list[tuple[str, str]]:
    """The pages without a source or a date, by kind, in the words of a site: the list
    pages the generator made, pages under language folders (translations whose source
    was not found), and the rest, each with an example."""
    made: list[str] = []
    other: list[str] = []
    languages: dict[str, list[str]] = {}
    for row, date in zip(rows, dated, strict=True):
        if row.source or date is not None:
            continue
        first = row.label.split("/", 1)[0]
        if row.label in sources.made_lists:
            made.append(row.label)
        elif "/" in row.label and is_language(first):
            languages.setdefault(first, []).append(row.label)
        else:
            other.append(row.label)
    kinds: list[tuple[str, str]] = []
    if made:
        kinds.append(("made", f"{count(len(made), 'list page')} the generator made (tags, "
                      f"archives, pagination) that list no dated page, e.g. {made[0]}"))
    if languages:
        folders = sorted(languages)
        shown = ", ".join(f"{f}/" for f in folders[:6]) + (" …" if len(folders) > 6 else "")
        n = sum(len(pages) for pages in languages.values())
        kinds.append(("language", f"{count(n, 'page')} under the language folders {shown}: "
                      "translations whose source was not found (a config per language? pass "
                      f"--source with the folder that holds them), e.g. "
                      f"{languages[folders[0]][0]}"))
    if other:
        kinds.append(("other", f"{count(len(other), 'page')} no rule maps, e.g. {other[0]}"))
    return kinds


def _floor(old: OldSitemap | None, rows: list[PageRow], undated: dict[str, str], found: Scan,
           base: str, unlisted: dict[str, tuple[str, str]], generator: str,
           report: str | None, kept: set[str], out: Path
           ) -> tuple[list[str], list[str], list[Difference]]:
    """The generator's sitemaps against what was written (nothing to compare with
    when there is none, or it is ours from an earlier run): (notes, warnings, the
    differences, for the report)."""
    unread = [f"cannot read {possessive(generator)} sitemap {why}: it is replaced, but what "
              "it listed is not compared" for why in (old.unreadable if old and not old.ours
                                                      else [])]
    odd = [f"{possessive(generator)} {old.name} lists locs that are no URL (e.g. "
           f"{next(iter(old.not_urls))!r}: built without its site URL?); it is replaced, "
           "and those are not compared"] if old is not None and old.not_urls and \
        not old.ours else []
    if old is None or old.ours or not old.locs or old.elsewhere:
        return odd, unread, []
    listed = {row.loc: row.label for row in rows}
    found_differences = differences(old, listed, found, base, unlisted, undated, kept, out)
    notes, warnings = summary(found_differences, old, generator, len(listed), report)
    return odd + notes, unread + warnings, found_differences
