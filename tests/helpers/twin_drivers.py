"""The hot unit driven as sitemapkit drives it, with everything it shows recorded, so
tests and the fuzz harnesses (tests/fuzz) compare the twins on the same terms: the
writer's line reader, its per-entry fast path and the validator's scan."""

from __future__ import annotations

import io
from pathlib import Path
from types import ModuleType
from typing import Any

from sitemapkit.errors import SitemapkitError
from sitemapkit.rules import EntryError, normalize_entry
from sitemapkit.sources.inputs.lines import LineReader
from sitemapkit.validate import ValidateOptions, validate
from sitemapkit.write.options import resolve
from sitemapkit.write.stream import MemoryShards

BASE = "https://example.com/"


def drive_lines(m: ModuleType, data: bytes | list[bytes], layout: int = 1, sep: int = 9,
                columns: tuple[int, ...] = (0, 1, -1, -1), width: int = 2,
                max_urls: int = 50_000, record: bool = False,
                future_limit: int = 2**40, keyed: bool = False) -> list[Any]:
    """``feed_lines`` as the writer drives it (``_drive``), over one block of lines or
    several in turn (the line reader's blocks: a row never spans two)."""
    buf = m.UrlsetBuffer(BASE, max_urls, 10_485_760, m.LocSet(), future_limit, False, record)
    blocks = [data] if isinstance(data, bytes) else data
    return _drive(m, buf, [lambda pos, block=block: buf.feed_lines(block, pos, layout, sep,
                                                                    columns, width)
                           for block in blocks], record, keyed)


def drive_cells(m: ModuleType, cells: tuple[Any, ...], rows: int, max_urls: int = 50_000,
                keyed: bool = False, record: bool = True) -> list[Any]:
    """``feed_cells`` as the writer drives it (``_drive``)."""
    buf = m.UrlsetBuffer(BASE, max_urls, 10_485_760, m.LocSet(), 2**40, False, record)
    return _drive(m, buf, [lambda row: buf.feed_cells(cells, row, rows)], record, keyed)


def _drive(m: ModuleType, buf: Any, feeds: list[Any], record: bool, keyed: bool) -> list[Any]:
    """Every status, position and shard state seen (a SLOW or DUPLICATE row passed
    over, a FULL shard closed), then the error raised if one was. ``keyed``: the buffer
    keeps its URLs' keys, taken after each shard is reset (as late as allowed)."""
    if keyed:
        buf.key_locs()
    trace: list[Any] = []
    for feed in feeds:
        pos = 0
        while True:
            try:
                status, start, end = feed(pos)
            except ValueError as exc:
                return [*trace, ("ValueError", str(exc))]
            trace.append((status, start, end, buf.consumed, buf.count, buf.nbytes,
                          buf.newest_lastmod, buf.pairs() if record else None,
                          buf.slow_alternates if status == m.SLOW else None))
            if status == m.EXHAUSTED:
                break
            if status == m.FULL:
                trace.append(buf.getvalue())
                buf.reset()
                trace.append(buf.take_keys())
                pos = start
            else:
                pos = end
    return [*trace, buf.getvalue(), buf.take_keys()]


def outcome(run: Any) -> tuple[Any, ...]:
    """("ok", what ``run`` returned) or the documented error it raised, by type and text."""
    try:
        return ("ok", run())
    except SitemapkitError as exc:
        return (type(exc).__name__, str(exc))


def shards_and_counts(entries: Any, impl: ModuleType, on_invalid: str = "error",
                      base: str = BASE) -> tuple[Any, ...]:
    """The shards' bytes, and the duplicates and skips with the entry positions named."""
    opts, prefix = resolve(None, {"on_invalid": on_invalid}, base)
    run = MemoryShards(prefix, opts, impl)
    run.stream(entries)
    r = run.result
    return (run.data, r.duplicate_count, r.duplicates, r.skipped_count,
            [str(e) for e in r.skipped])


def via_lines(data: bytes, fmt: str, impl: ModuleType, on_invalid: str = "error",
              block: int = 1 << 20) -> tuple[tuple[Any, ...], int | None]:
    """A whole input through the writer's line reader: its outcome, and the input line
    an error names."""
    reader = LineReader(io.BytesIO(data), fmt, block_size=block)
    got = outcome(lambda: shards_and_counts(reader, impl, on_invalid))
    return got, reader.line if got[0] != "ok" else None


def offer_outcome(m: ModuleType, item: object, future_limit: int, base: str = BASE
                  ) -> tuple[Any, ...]:
    """One entry as the writer takes it: the fast path, else the rules then ``add``.
    ("error", rule, message) or ("ok", fast path taken, shard bytes, recorded pairs)."""
    buf = m.UrlsetBuffer(base, 10, 100_000, m.LocSet(), future_limit, False, True)
    status = buf.offer(item)
    fast = status == m.ADDED
    if status == m.SLOW:
        try:
            normalized = normalize_entry(item, base, future_limit)
        except EntryError as exc:
            return ("error", exc.rule, str(exc))
        status = buf.add(*normalized)
    assert status == m.ADDED, status
    return ("ok", fast, buf.getvalue(), buf.pairs())


def validate_outcome(site: Path, fast_scan: str, now: Any) -> dict[str, Any]:
    """Everything a validation reports, to compare the scan twins with expat alone."""
    report = validate([site], ValidateOptions(now=now, fast_scan=fast_scan))
    results = {p.name: (r.kind, r.urls, r.errors, r.newest_lastmod, r.references)
               for p, r in report.results.items()}
    return {"findings": report.findings, "counts": dict(report.counts), "files": report.files,
            "urls": report.urls, "skipped": report.skipped, "results": results}
