"""A dry run: the whole write, into a temporary folder outside the output, compared with
what the output holds now; then the temporary folder is removed. Nothing in the output
is written, replaced or removed, and nothing is submitted. What would change is said:
the files written, kept and removed, the URLs added, removed and re-dated, the
robots.txt line, and what IndexNow and the pings would be sent."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from .._display import count
from ..errors import InputError
from ..write import write_sitemaps
from ..write.changes import LastmodRecord
from ..write.commit import previous_set
from ..write.options import WriterOptions, resolve
from ..write.result import WriteResult
from ..write.storage import LocalStorage
from ..write.stream import LineSource
from .baseline import Baseline
from .readback import Record, read_record
from .robots import is_host_root, robots_would_add
from .setdiff import compare
from .settings import PublishSettings

SHOWN = 10  # files and URLs named in each line before the rest are counted


def dry_run(entries: Iterable[object] | LineSource, out_dir: str | Path, base: str,
            writer: WriterOptions, settings: PublishSettings,
            where: Callable[[int], str | None],
            baseline: Baseline | None = None) -> tuple[WriteResult, list[str]]:
    """(the write's result, shown as if in ``out_dir``; the lines saying what would
    change). Raises what a real run raises, before anything would be written."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} is not a folder")
    with tempfile.TemporaryDirectory(prefix="sitemapkit-dry-run-") as tmp:
        result = write_sitemaps(entries, tmp, base, options=replace(writer, changes_file=None),
                                where=where)
        new = sorted(p.name for p in Path(tmp).iterdir())
        same = [n for n in new if (out / n).is_file() and
                (out / n).read_bytes() == (Path(tmp) / n).read_bytes()]
        opts, prefix = resolve(writer, {}, base)
        old = previous_set(LocalStorage(out, False), opts, prefix) if out.is_dir() else []
        gone = [n for n in old if n not in new and (out / n).is_file()]
        now = _listed(out)
        then = read_record(tmp)
    result.out_dir = out
    lines = ["dry run: nothing was written, replaced, removed or submitted"]
    written = [n for n in new if n not in same]
    lines.append(f"would write {count(len(written), 'file')} into {out}" +
                 _names(written) + (f"; {len(same):,} unchanged" if same else ""))
    if gone:
        lines.append(f"would remove {count(len(gone), 'file')} of the previous set" +
                     _names(gone))
    if now is not None:
        diff = compare(now, then)
        lines.append(f"the listed URLs would change: {diff.summary()}")
        lines += [f"  + {loc}" for loc in diff.added[:SHOWN]]
        lines += [f"  - {loc}" for loc in diff.removed[:SHOWN]]
        lines += [f"  ~ {loc} {a or '(none)'} -> {b or '(none)'}"
                  for loc, a, b in diff.redated[:SHOWN]]
    robots = out / "robots.txt"
    if settings.robots_txt and is_host_root(prefix) and \
            robots_would_add(robots, [result.url(result.entry_point)]):
        lines.append(f"would add 'Sitemap: {result.url(result.entry_point)}' to {robots}")
    if baseline is not None and baseline.record is not None and \
            baseline.record.where != str(out):
        diff = compare(baseline.record, then)
        lines.append(f"against {baseline.tried}: {diff.summary()}")
    if settings.indexnow is not None:
        record = LastmodRecord(writer.changes_file, prefix) if writer.changes_file else None
        if record is not None:
            record.lastmods = {loc: listed.lastmod or "" for loc, listed in then.urls.items()}
            changes = record.compare(baseline.lastmods() if baseline is not None and
                                     baseline.record is not None else None)
            changes.record = None  # read only: a dry run keeps the record as it is
            result.changes = changes
            why = baseline.why if baseline is not None and baseline.why else \
                "no record to compare with yet"
            lines.append(f"IndexNow would submit nothing: {why}" if changes.baseline else
                         f"IndexNow would submit {count(len(changes.all), 'URL')}")
    if settings.changes_report:
        lines.append(f"would write the change report {settings.changes_report}")
    if settings.human_view:
        lines.append(f"would write the human view {out / 'sitemap.html'}")
    if settings.pings:
        lines.append(f"would ping {count(len(settings.pings), 'notify URL')}")
    return result, lines


def _listed(out: Path) -> Record | None:
    """What the output lists now, or None when it holds no set."""
    try:
        return read_record(out) if out.is_dir() else None
    except InputError:
        return None


def _names(names: list[str]) -> str:
    if not names:
        return ""
    more = f", ... ({len(names) - SHOWN:,} more)" if len(names) > SHOWN else ""
    return ": " + ", ".join(names[:SHOWN]) + more
