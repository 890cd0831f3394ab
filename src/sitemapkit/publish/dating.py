"""Each page's lastmod from the git dates of what it shows. A page is as new as its
source and its parts (includes, translation catalogs, the code an API page renders);
a page that lists other pages of the site (a blog index, an archive, a tag page, a
section list) is also as new as the newest page it lists. Search engines trust a
lastmod only while it moves when the page changes, and only then.

A part git cannot date (uncommitted, git-ignored, outside the repository) is named
with a page it belongs to: never a silently older date.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from .._display import count, shown_path
from ..protocol import FUTURE_TOLERANCE_SECONDS
from ..sources.pages import PageRow

if TYPE_CHECKING:
    from ..sources.git.dates import GitDates

PARTS_SHOWN = 5  # undatable parts named one per line; the rest counted


@dataclass
class Dated:
    """Each row's date (None: no lastmod), and what the summary says about them."""

    dates: list[datetime | None]
    by_lists: int = 0  # list pages whose date came from, or moved with, what they list
    notes: list[str] = field(default_factory=list)
    days: set[int] = field(default_factory=set)  # rows whose date is a day (front matter)
    declared: int = 0  # rows dated by their front matter


def newest(dates: GitDates, source: str, parts: Iterable[str]) -> datetime | None:
    """A page's own date: the newest of its source and its parts; None when its source
    has none (a part alone never dates a page: the page's own text may be older news)."""
    own = dates.get(source) if source else None
    if own is None or not parts:
        return own
    return max([own, *(d for d in map(dates.get, parts) if d is not None)])


def _declared(row: PageRow, index: int, result: Dated) -> datetime | None:
    """The date a row's front matter sets (a day as its first instant in UTC, kept as
    a day), unless it is ahead of the clock by more than the protocol allows."""
    if not row.declared or row.undated:
        return None
    day = len(row.declared) == 10
    when = datetime.fromisoformat(row.declared + ("T00:00:00+00:00" if day else ""))
    if when.timestamp() > time.time() + FUTURE_TOLERANCE_SECONDS:
        result.notes.append(f"{row.label}: its front matter's date {row.declared} is in "
                            "the future: dated by git instead")
        return None
    if day:
        result.days.add(index)
    result.declared += 1
    return when


def page_dates(rows: Sequence[PageRow], dates: GitDates) -> Dated:
    """Every row dated: its own date, raised to the newest own date of the pages it
    lists. One level only: a list page listed by another counts with its own source,
    so pagination pages linking each other never pass the newest post around."""
    result = Dated([])
    own = [_declared(row, i, result) or newest(dates, row.source, row.parts)
           for i, row in enumerate(rows)]
    by_source = {row.source: date for row, date in zip(rows, own, strict=True)
                 if row.source and date}
    refused = [row for row in rows if row.undated]
    blind: list[tuple[str, str]] = []  # (list page, a page it lists that has no date)
    for index, (row, date) in enumerate(zip(rows, own, strict=True)):
        if row.undated:
            result.dates.append(None)
            continue
        if row.lists and (date is not None or not row.source):  # an undated source stays so
            listed = {s: by_source.get(s) or newest(dates, s, ()) for s in row.lists}
            unknown = next((s for s, d in listed.items() if d is None), None)
            if unknown is not None:  # as new as what it lists, which is not all known
                blind.append((row.label, unknown))
                result.dates.append(None)
                continue
            latest = max((d for d in listed.values() if d is not None), default=None)
            if latest is not None and (date is None or latest > date):
                date = latest
                result.by_lists += 1
                result.days.discard(index)  # a listed page's time, not its own day
        result.dates.append(date)
    if result.by_lists:
        result.notes.append(f"{count(result.by_lists, 'list page')} dated by the newest page "
                            "they list")
    if blind:
        result.notes.append(f"{count(len(blind), 'list page')} without lastmod: each lists a "
                            f"page with no date, so how new it is cannot be told (e.g. "
                            f"{blind[0][0]} lists {shown_path(blind[0][1])})")
    result.notes += undatable_parts(rows, own, dates)
    if refused:
        result.notes.append(f"{count(len(refused), 'page')} without lastmod: "
                            f"{refused[0].undated} (e.g. {refused[0].label})")
    return result


def undatable_parts(rows: Sequence[PageRow], own: Sequence[datetime | None],
                    dates: GitDates) -> list[str]:
    """One note per part git could not date, naming it and a page that shows it (the
    page is dated without it). Pages without a date of their own have their own note."""
    from ..sources.git.model import STATES  # the wording of each git state, in one place

    pages: dict[str, list[str]] = {}
    for row, date in zip(rows, own, strict=True):
        if date is None:
            continue
        for part in row.parts:
            if dates.get(part) is None:
                pages.setdefault(part, []).append(row.label)
    notes = []
    for part, labels in list(pages.items())[:PARTS_SHOWN]:
        state = dates.state(part)
        why = STATES[state][0] if state in STATES else "could not be dated"
        verb = "is" if len(labels) == 1 else "are"
        notes.append(f"part {shown_path(part)} {why}: {count(len(labels), 'page')} showing "
                     f"it {verb} dated without it (e.g. {labels[0]})")
    if len(pages) > PARTS_SHOWN:
        more = sum(len(labels) for labels in list(pages.values())[PARTS_SHOWN:])
        notes.append(f"{count(len(pages) - PARTS_SHOWN, 'more part')} git cannot date "
                     f"({count(more, 'page')} dated without them)")
    return notes
