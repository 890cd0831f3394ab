"""The git pass of ``sitemapkit site``'s rows. It is started ahead, in a forked process
on the other core, as soon as the pages' sources are known (``dates_ahead``), and
taken when the rows turn out to name the same paths (``row_dates``); otherwise, or
where no fork is safe, it runs here. Either way the same pass over the same paths."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from .._display import count
from ..sources.built.mapping import Sources, repository_top
from ..sources.built.scan import BuiltPage
from ..sources.git.ahead import Ahead
from ..sources.git.blobs import staged_sources
from ..sources.git.dates import GitDates, git_dates
from ..sources.pages import PageRow
from .settings import cache_folder, git_options

GitPass = tuple[GitDates, list[str]]  # the dates, the warnings of the pass
PassAhead = tuple[frozenset[str], Ahead[GitPass]] | None  # the pass started early


def dates_ahead(pages: list[BuiltPage], sources: Sources, values: Mapping[str, Any],
                 source: str | os.PathLike[str] | None
                 ) -> PassAhead:
    """The git pass started on the other core as soon as the sources are known, over
    the paths the rows will name (their sources and parts; what a list page lists is
    a source too), while the rows are built; ``row_dates`` takes it if they do."""
    if source is None or values["lastmod"] == "none":
        return None
    paths = list(dict.fromkeys(p for page in pages for p in (
        sources.files.get(page.path, ""), *sources.parts.get(page.path, ())) if p))
    return frozenset(paths), Ahead(lambda: _git_pass(paths, values, source))


def row_dates(rows: list[PageRow], values: Mapping[str, Any],
              source: str | os.PathLike[str] | None, warnings: list[str],
              ahead: PassAhead) -> GitDates:
    """The rows' git pass: the one started ahead when they name its paths, else run
    here (as where it was not started, or its child gave nothing)."""
    paths = list(dict.fromkeys(p for row in rows for p in (row.source, *row.parts, *row.lists)
                               if p))
    if ahead is not None:
        expected, child = ahead
        if frozenset(paths) != expected:
            child.cancel()
        elif (done := child.take()) is not None:
            warnings += done[1]
            return done[0]
    dates, more = _git_pass(paths, values, source)
    warnings += more
    return dates


def _git_pass(paths: list[str], values: Mapping[str, Any],
              source: str | os.PathLike[str] | None) -> GitPass:
    if values["lastmod"] == "none" or not paths:
        return GitDates(), []
    where = Path(source).resolve() if source is not None else Path(paths[0]).parent
    # the sources' own repositories decide, not the cwd (a generator may read several)
    if repository_top(where) is None and not any(
            repository_top(Path(p).parent) for p in dict.fromkeys(
                os.path.dirname(p) for p in paths)):
        return GitDates(), [f"{where} is not in a git repository: the sitemaps are written "
                            "without lastmod"]
    return git_dates(paths, git_options(values, cache_folder(values, source))), []


def unstaged(rows: list[PageRow], dates: GitDates, values: Mapping[str, Any],
             source: str | os.PathLike[str] | None) -> tuple[list[PageRow], list[str]]:
    """Rows made from files git does not track (a build's staged copies) made from the
    tracked files with the same bytes instead, those dated into ``dates`` in a second
    pass over them only; (the rows, what was said). Nothing runs when every source is
    tracked: the usual case costs nothing."""
    loose = [p for row in rows for p in (row.source, *row.parts)
             if p and dates.state(p) in ("untracked", "not-in-git")]
    top = repository_top(Path(source).resolve()) if source is not None else None
    if not loose or top is None:
        return rows, []
    staged = staged_sources([os.path.abspath(p) for p in loose], str(top))
    said = []
    if staged.found:
        def tracked(path: str) -> str:
            return staged.found.get(os.path.abspath(path), path) if path else path

        rows = [replace(row, source=tracked(row.source), parts=tuple(map(tracked, row.parts)))
                for row in rows]
        more, warnings = _git_pass(sorted(set(staged.found.values())), values, source)
        dates.update(more)
        dates.warnings += [w for w in warnings if w not in dates.warnings]
        dates.notes = dates.notes_for(row.source for row in rows if row.source)
        copy, original = next(iter(staged.found.items()))
        said.append(f"{count(len(staged.found), 'source file')} the build copied out of git "
                    "(into an ignored or untracked folder) dated as the tracked file with the "
                    f"same bytes, e.g. {os.path.relpath(copy, top)} = "
                    f"{os.path.relpath(original, top)}")
    if staged.ambiguous:
        copy, equals = next(iter(staged.ambiguous.items()))
        shown = " and ".join(os.path.relpath(e, top) for e in equals[:3])
        said.append(f"{count(len(staged.ambiguous), 'source file')} the build copied out of "
                    "git hold the bytes of several tracked files, so they stay undated, e.g. "
                    f"{os.path.relpath(copy, top)} = {shown}")
    return rows, said
