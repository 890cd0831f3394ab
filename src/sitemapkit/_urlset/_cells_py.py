"""Reference twin of the hot unit's Arrow reader: ``UrlsetBuffer.feed_cells`` reads
rows of Arrow text columns straight from each column's 64-bit offsets and values, with
no Python object per row.

A value is whole, so there is no quoting or splitting to decide: each row's cells get
the checks a TSV line's cells get (``_rows_py``), and the fast path takes the row or
answers SLOW, as ``feed_lines`` does for a line. ``ext/_cells.pxi`` makes the same
decisions in C, reading the same buffers, so both refuse offsets that point outside
them.
"""

from __future__ import annotations

from typing import Any

from ._rows_py import ADDED, DUPLICATE, EXHAUSTED, SLOW, Fields, _padded

# One Arrow text column as feed_cells reads it: (64-bit offsets, values, first offset).
Cells = tuple[object, object, int]


def cell_views(cells: tuple[Cells | None, ...], rows: int) -> list[Any]:
    """Each column's (offsets as 64-bit integers, values as bytes, first offset); a
    column with fewer offsets than ``rows`` needs is refused before any row is read."""
    views: list[Any] = []
    for column in cells:
        if column is None:
            views.append(None)
            continue
        offsets = memoryview(column[0]).cast("B")  # type: ignore[arg-type]
        if len(offsets) % 8:
            raise ValueError("feed_cells: offsets are 64-bit integers")
        ends, base = offsets.cast("q"), column[2]
        if base < 0 or base + rows >= len(ends):
            raise ValueError("feed_cells: more rows than offsets")
        views.append((ends, memoryview(column[1]).cast("B"), base))  # type: ignore[arg-type]
    return views


def cell_fields(views: list[Any], row: int) -> Fields | None:
    """Row ``row`` of up to four Arrow text columns (loc, lastmod, changefreq, priority;
    None: no such column) as fields, or None for SLOW. Offsets outside a column's
    values are refused (ValueError): the C twin would read there."""
    out: list[bytes | None] = []
    for k, view in enumerate(views):
        if view is None:
            out.append(None)
            continue
        ends, data, base = view
        a, b = ends[base + row], ends[base + row + 1]
        if not 0 <= a <= b <= len(data):
            raise ValueError("feed_cells: offsets outside the values")
        cell = bytes(data[a:b])
        if _padded(cell) or (cell and k and not cell.isascii()):
            return None
        out.append(cell or None)
    if out[0] is None:
        return None
    return out[0], out[1], out[2], out[3], None


def feed_cells(buf: Any, cells: tuple[Cells | None, ...], start: int,
               rows: int) -> tuple[int, int, int]:
    """``UrlsetBuffer.feed_cells`` of this twin: as ``feed_lines``, a row at a time,
    positions being row numbers (a SLOW row is read from the columns in Python)."""
    if len(cells) != 4 or not 0 <= start <= rows:
        raise ValueError("feed_cells: four columns (or None) and 0 <= start <= rows")
    views = cell_views(cells, rows)
    for row in range(start, rows):
        fields = cell_fields(views, row)
        status = SLOW if fields is None else buf._offer_fields(*fields[:4], None)
        if status == ADDED:
            buf._consumed += 1
            continue
        if status == DUPLICATE:
            buf._consumed += 1
        elif status == SLOW:
            buf.slow_alternates = None
        return status, row, row + 1
    return EXHAUSTED, rows, rows
