"""The one pipeline every host calls: page rows -> dates -> entries -> write ->
robots.txt / validate / notify -> outcome.

It raises only ``SitemapkitError`` subclasses (an ``EntryError`` carries ``where``,
the page or input line it came from); each host maps them in one place. What went
well is returned as an ``Outcome`` of info, warning and error lines for the host to
log: warnings fail a strict build, errors fail any build.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .._display import count, shown_path
from .._files import NotRegular, atomic_write
from .._urlset import USE_EXTENSIONS
from ..errors import OutputError, PublishError, SitemapkitError
from ..rules.model import EntryError, UrlEntry
from ..sources.pages import PageRow, as_lastmod
from ..write import WriteResult, write_sitemaps
from ..write.changes import Changes, LastmodRecord
from ..write.options import WriterOptions, resolve
from ..write.stream import LineSource
from .baseline import Baseline, read_baseline, wanted
from .dating import Dated, page_dates
from .notify import announce, write_key_file
from .readback import Record, read_record
from .robots import is_host_root, robots_sitemap_line
from .setdiff import compare, render, report_format
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
    """Each page with the date ``dating`` gave it (see there for the rules); a day
    its front matter gave stays a day."""
    return [UrlEntry(row.loc, as_lastmod(date, "date" if i in dated.days and date is not None
                                         and kind != "none" else kind),
                     row.changefreq, row.priority, row.alternates)
            for i, (row, date) in enumerate(zip(rows, dated.dates, strict=True))]


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
            live: Callable[[], list[str]] | None = None,
            waiting: Callable[[str], None] | None = None) -> Outcome:
    """Write the sitemaps, then robots.txt, validation, the change report, the human
    view and notifications; with ``settings.dry_run``, none of it: say what would be
    written, removed and sent. The earlier set is read first (a folder named for it
    may be the output itself)."""
    baseline = _baseline(writer, base, settings)
    try:
        if settings.dry_run:
            from .dryrun import dry_run

            result, said = dry_run(entries, out_dir, base, writer, settings, where, baseline)
        else:
            result = write_sitemaps(entries, out_dir, base, options=writer, where=where,
                                    waiting=waiting)
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
    return publish_result(result, out_dir, base, settings, live, baseline)


def _baseline(writer: WriterOptions, base: str, settings: PublishSettings) -> Baseline | None:
    """The earlier set this run is compared with (``publish.baseline``), if any is wanted."""
    if not wanted(settings):
        return None
    opts, prefix = resolve(writer, {}, base)
    local = LastmodRecord(writer.changes_file, prefix) if writer.changes_file else None
    return read_baseline(settings, prefix + str(opts.filename), local)


def _outcome(result: WriteResult) -> Outcome:
    """What every run says of its result: its warnings, and duplicates written once."""
    outcome = Outcome(result, infos=list(result.notes), warnings=list(result.warnings))
    if result.duplicate_count:
        example = (f", e.g. {result.duplicates[0][1]}" if result.duplicates
                   else "".join(f" ({e})" for e in result.examples[:1]))
        outcome.warnings.append(f"{count(result.duplicate_count, 'duplicate URL')} written "
                                f"once{example}")
    return outcome


def publish_result(result: WriteResult, out_dir: str | Path, base: str,
                   settings: PublishSettings,
                   live: Callable[[], list[str]] | None = None,
                   baseline: Baseline | None = None) -> Outcome:
    """After a set is live (from ``write_sitemaps`` or a partition commit): robots.txt,
    validation, the change report, the human view and notifications. A partition commit
    reads the earlier set only now, after the new one is live."""
    outcome = _outcome(result)
    if baseline is None and wanted(settings):
        baseline = read_baseline(settings, result.url(result.entry_point), None)
    try:
        outcome.infos += live() if live is not None else []
        _after_write(result, Path(out_dir), base, settings, outcome, baseline)
    except (SitemapkitError, OSError) as exc:
        raise PublishError(f"the sitemaps are written, but {exc}") from exc
    return outcome


def _after_write(result: WriteResult, out: Path, base: str, settings: PublishSettings,
                 outcome: Outcome, baseline: Baseline | None) -> None:
    entry_url = result.url(result.entry_point)
    if settings.robots_txt:
        if is_host_root(base):
            robots = out / "robots.txt"
            created = not os.path.lexists(robots)
            try:
                if robots_sitemap_line(robots, [result.url(n) for n in result.index_files]
                                       or [entry_url]) and created:
                    outcome.infos.append(f"created {robots.name} (the output had none) with "
                                         f"'Sitemap: {entry_url}'")
            except NotRegular as exc:
                outcome.warnings.append(
                    f"{out / 'robots.txt'} {exc.strerror}, not a file: left as it is; add "
                    f"'Sitemap: {entry_url}' to the robots.txt the site serves")
        else:
            outcome.infos.append(f"{base} is a sub-path site; crawlers read robots.txt only at "
                                 f"the host root, so add 'Sitemap: {entry_url}' there")
    if settings.indexnow is not None and settings.write_key_file:
        write_key_file(out, settings.indexnow.key)
    if settings.validate:
        _validate(out, base, settings, outcome)
    if baseline is not None or settings.human_view:
        _compared(result, out, settings, outcome, baseline)
    notes, failures = announce(result.changes, entry_url, settings.indexnow, settings.pings)
    outcome.infos += notes
    outcome.notify_failures += failures
    (outcome.errors if settings.fail_on_notify_error else outcome.warnings).extend(failures)


def _compared(result: WriteResult, out: Path, settings: PublishSettings, outcome: Outcome,
              baseline: Baseline | None) -> None:
    """What moved against the earlier set: IndexNow's changes, the change report and
    the human view. An earlier set that could not be read is a note, or an error when
    notification failures fail the run (a first deploy, with nothing published yet, is
    neither)."""
    record = baseline.record if baseline is not None else None
    if baseline is not None:
        changes = result.changes
        if changes is not None and changes.record is not None and not baseline.local:
            # the writer compared with the local record already; anything else: here
            result.changes = changes.record.compare(baseline.lastmods()) \
                if record is not None else Changes(baseline=True, why=baseline.why)
        if record is None and settings.indexnow is not None and \
                settings.fail_on_notify_error and not baseline.first:
            outcome.errors.append(f"IndexNow: {baseline.why}")
        if record is not None:
            outcome.infos += [f"changes: {note}" for note in [baseline.note(), *record.notes]]
    if not (settings.changes_report or settings.human_view):
        return
    written = read_record(out / result.entry_point)
    diff = None if baseline is None else \
        compare(record or Record(f"(nothing: {baseline.why})"), written)
    if settings.changes_report and diff is not None:  # a report always has a baseline
        report = Path(settings.changes_report)
        atomic_write(report, render(diff, report_format(report)))
        outcome.infos.append(f"change report: {diff.summary()} -> {shown_path(report)}")
    if settings.human_view:
        from .humanview import write_human_view  # html: 3 ms of each start, used here only

        outcome.infos += write_human_view(out, result.url(""), written,
                                          diff if record is not None else None)


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
