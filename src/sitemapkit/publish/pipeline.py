"""The one pipeline every host calls: page rows -> dates -> entries -> write ->
robots.txt / validate / notify -> outcome.

It raises only ``SitemapkitError`` subclasses (an ``EntryError`` carries ``where``,
the page or input line it came from); each host maps them in one place. What went
well is returned as an ``Outcome`` of info, warning and error lines for the host to
log: warnings fail a strict build, errors fail any build.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .._display import count, shown_path
from .._urlset import USE_EXTENSIONS
from ..errors import OutputError, PublishError, SitemapkitError
from ..rules.model import EntryError, UrlEntry
from ..sources.pages import PageRow, as_lastmod
from ..write import WriteResult, write_sitemaps
from ..write.options import WriterOptions
from ..write.stream import LineSource
from .dating import Dated, page_dates
from .notify import announce, write_key_file
from .robots import is_host_root, robots_sitemap_line
from .settings import PublishSettings

if TYPE_CHECKING:
    from ..sources.git.dates import GitDates


@dataclass
class Outcome:
    result: WriteResult
    infos: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # the host fails the build on these
    notify_failures: list[str] = field(default_factory=list)  # also in warnings or errors


def entries_from_rows(rows: Sequence[PageRow], dated: Dated, kind: str) -> list[UrlEntry]:
    """Each page with the date ``dating`` gave it (see there for the rules)."""
    return [UrlEntry(row.loc, as_lastmod(date, kind), row.changefreq, row.priority,
                     row.alternates) for row, date in zip(rows, dated.dates, strict=True)]


def publish_pages(rows: list[PageRow], dates: GitDates, kind: str, out_dir: str | Path,
                  base: str, writer: WriterOptions, settings: PublishSettings,
                  started: float, live: Callable[[], list[str]] | None = None,
                  dated: Dated | None = None) -> Outcome:
    """The docs hosts' path: date the rows (``dated`` when the host did already),
    write, publish, and say so in one line, then how list pages and parts were dated.
    ``live`` runs once the new set is live, before validation (``site`` removes the
    generator's language-folder sitemaps there); it returns notes."""
    dated = dated or page_dates(rows, dates)
    entries = entries_from_rows(rows, dated, kind)
    outcome = publish(entries, out_dir, base, writer, replace(settings, git_dated=True),
                      lambda position: rows[position - 1].label, live)
    count_dated = sum(e.lastmod is not None for e in entries)
    outcome.infos[:0] = [summary_line(outcome.result, count_dated, started)] + \
        (dated.notes if kind != "none" else [])
    return outcome


def publish(entries: Iterable[object] | LineSource, out_dir: str | Path, base: str,
            writer: WriterOptions, settings: PublishSettings,
            where: Callable[[int], str | None],
            live: Callable[[], list[str]] | None = None) -> Outcome:
    """Write the sitemaps, then robots.txt, validation and notifications; with
    ``settings.dry_run``, none of it: say what would be written, removed and sent."""
    try:
        if settings.dry_run:
            from .dryrun import dry_run

            result, said = dry_run(entries, out_dir, base, writer, settings, where)
        else:
            result = write_sitemaps(entries, out_dir, base, options=writer, where=where)
    except EntryError as exc:
        exc.where = exc.where or (where(exc.position) if exc.position else None)
        raise
    except SitemapkitError:
        raise
    except OSError as exc:
        raise OutputError(f"writing {out_dir} failed: {exc}") from exc
    if settings.dry_run:
        outcome = _outcome(result)
        outcome.infos += said
        return outcome
    return publish_result(result, out_dir, base, settings, live)


def _outcome(result: WriteResult) -> Outcome:
    """What every run says of its result: its warnings, and duplicates written once."""
    outcome = Outcome(result, warnings=list(result.warnings))
    if result.duplicate_count:
        example = (f", e.g. {result.duplicates[0][1]}" if result.duplicates
                   else "".join(f" ({e})" for e in result.examples[:1]))
        outcome.warnings.append(f"{count(result.duplicate_count, 'duplicate URL')} written "
                                f"once{example}")
    return outcome


def publish_result(result: WriteResult, out_dir: str | Path, base: str,
                   settings: PublishSettings,
                   live: Callable[[], list[str]] | None = None) -> Outcome:
    """After a set is live (from ``write_sitemaps`` or a partition commit): robots.txt,
    validation and notifications."""
    outcome = _outcome(result)
    try:
        outcome.infos += live() if live is not None else []
        _after_write(result, Path(out_dir), base, settings, outcome)
    except (SitemapkitError, OSError) as exc:
        raise PublishError(f"the sitemaps are written, but {exc}") from exc
    return outcome


def _after_write(result: WriteResult, out: Path, base: str, settings: PublishSettings,
                 outcome: Outcome) -> None:
    entry_url = result.url(result.entry_point)
    if settings.robots_txt:
        if is_host_root(base):
            robots_sitemap_line(out / "robots.txt",
                                [result.url(n) for n in result.index_files] or [entry_url])
        else:
            outcome.infos.append(f"{base} is a sub-path site; crawlers read robots.txt only at "
                                 f"the host root, so add 'Sitemap: {entry_url}' there")
    if settings.indexnow is not None and settings.write_key_file:
        write_key_file(out, settings.indexnow.key)
    if settings.validate:
        _validate(out, base, settings, outcome)
    notes, failures = announce(result.changes, entry_url, settings.indexnow, settings.pings)
    outcome.infos += notes
    outcome.notify_failures += failures
    (outcome.errors if settings.fail_on_notify_error else outcome.warnings).extend(failures)


def summary_line(result: WriteResult, dated: int, started: float) -> str:
    """The one info line the docs hosts print after a build (the build named if pure)."""
    build = "" if USE_EXTENSIONS else "; pure-Python build (the C accelerator is not active)"
    return (f"{count(result.url_count, 'URL')} in {count(result.shard_count, 'shard')}, "
            f"{dated:,} with lastmod -> {shown_path(result.out_dir / result.entry_point)} "
            f"({time.perf_counter() - started:.2f} s{result.gzip_suffix()}){build}")


def _validate(out: Path, base: str, settings: PublishSettings, outcome: Outcome) -> None:
    """The whole output directory: sitemaps, robots.txt, and that each loc is a built page."""
    from ..validate import ValidateOptions, validate  # on use: a faster CLI start

    report = validate([out], ValidateOptions(base_url=base, max_bytes=settings.max_bytes,
                                             dates_from_git=settings.git_dated))
    strict = settings.validate == "strict"
    for finding in report.findings:
        failing = finding.severity == "error" or strict
        (outcome.errors if failing else outcome.warnings).append(f"validate: {finding.text()}")
    outcome.infos.append(report.summary(strict).removeprefix("sitemapkit "))
