"""Arrow columns (a table, record batches: what Dask, Spark's ``mapInArrow``, Polars,
DuckDB and Parquet hand over) as a line source for the hot unit's byte path, with no
Python object per row.

Arrow's own C++ kernels join each row's cells into one tab-separated line (``loc``,
then ``lastmod``, ``changefreq``, ``priority``, then an empty cell, so the line's end
is a fixed ``\\t\\n``), and the values buffer of that joined array is the block the hot
unit reads: ``UrlsetBuffer.feed_lines``, the same code (C and pure twins, the same
fuzzing) that reads TSV files. A row the fast path leaves (SLOW: a quote, a value to
rewrite, a bad row) is taken from the columns themselves, one row at a time, and
written as any Python entry is. A chunk whose values hold a tab or a line break
(which would split or merge lines) is fed row by row from the columns. Null and empty
cells are absent fields, as in a CSV file.

pyarrow is optional (the ``parquet`` extra); this module imports it on use.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from typing import Any

from .._urlset._rows_py import TABLE
from ..errors import ConfigError
from ..rules.model import UrlEntry
from .partitions import COLUMNS, table_columns

CHUNK_ROWS = 1 << 16  # rows per block: ~6 MB of lines, and the GIL handed back often
_SLOW_LINE = b'"\n'  # a line the fast path always leaves (a quote): the row is read here


class ArrowSource:
    """Record batches (or a table) with a ``loc`` column and any of ``lastmod``,
    ``changefreq`` and ``priority``, as ``write.stream.LineSource``."""

    def __init__(self, data: Any, what: str = "the Arrow data") -> None:
        import pyarrow as pa

        if isinstance(data, pa.Table):
            self.schema, batches = data.schema, data.to_batches()
        elif isinstance(data, pa.RecordBatch):
            self.schema, batches = data.schema, [data]
        elif isinstance(data, pa.RecordBatchReader):
            self.schema, batches = data.schema, data
        else:
            raise ConfigError(f"{what} is not an Arrow table, record batch or reader "
                              f"({type(data).__name__})")
        self.columns = table_columns(self.schema.names, what)
        for name in self.columns[1:]:
            _check_type(name, self.schema.field(name).type)
        width = len(self.columns) + 1  # the empty last cell
        index = tuple(self.columns.index(c) if c in self.columns else -1 for c in COLUMNS)
        self.layout: tuple[int, int, tuple[int, ...], int] = (TABLE, 9, index, width)
        self._batches: Iterable[Any] = batches
        self.block = b""
        self._rows: list[list[Any]] = []  # the text columns as Python values, on demand
        self._cells: list[Any] = []  # the current chunk's columns as text
        self._ends: memoryview | None = None  # line starts; None: every line is SLOW

    def blocks(self) -> Iterator[int]:
        """Make each chunk of rows the current block; every block starts at 0."""
        for batch in self._batches:
            for start in range(0, batch.num_rows, CHUNK_ROWS):
                self._load(batch.slice(start, CHUNK_ROWS).select(self.columns))
                yield 0

    def _load(self, chunk: Any) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        self._rows = []
        cells = self._cells = [_as_text(chunk.column(name)) for name in self.columns]
        text = pa.large_string()  # one type for the kernel, 64-bit offsets to read
        lines = pc.binary_join_element_wise(*cells, pa.scalar("\n", text), pa.scalar("\t", text),
                                            null_handling="replace", null_replacement="")
        _, offsets, values = lines.buffers()
        ends = memoryview(offsets).cast("q")[lines.offset:lines.offset + len(lines) + 1]
        first, last = ends[0], ends[-1]
        block = values[first:last].to_pybytes()
        rows = chunk.num_rows  # the join adds exactly these separators: any more is a value's
        if (block.count(b"\n") != rows or block.count(b"\t") != rows * len(self.columns)
                or b"\r" in block):
            self.block, self._ends = _SLOW_LINE * rows, None
            return
        self.block = block
        self._ends = ends if first == 0 else memoryview(array("q", (e - first for e in ends)))

    def _row(self, start: int) -> int:
        if self._ends is None:
            return start // len(_SLOW_LINE)
        return bisect_right(self._ends, start) - 1

    def parse(self, start: int, end: int) -> tuple[list[object], int]:
        """The row whose line starts at ``start``, from the columns themselves (as the
        text the line was joined from: both paths read the same values)."""
        if not self._rows:
            self._rows = [cells.to_pylist() for cells in self._cells]
        row = self._row(start)
        fields: dict[str, Any] = dict.fromkeys(COLUMNS)
        for name, values in zip(self.columns, self._rows, strict=True):
            value = values[row]
            fields[name] = None if value is None or value == "" else value
        return [UrlEntry(fields["loc"], fields["lastmod"], fields["changefreq"],
                         fields["priority"])], end

    def loc_at(self, start: int, end: int) -> str:
        entries, _ = self.parse(start, end)
        return str(getattr(entries[0], "loc", ""))


def _check_type(name: str, kind: Any) -> None:
    import pyarrow as pa

    if pa.types.is_timestamp(kind) and kind.tz is None:
        raise ConfigError(f"column {name} holds times without a UTC offset, so they could be "
                          "any time zone's: give them a zone (or format them) first")


def _as_text(column: Any) -> Any:
    """A column as Arrow strings: times in UTC with their offset, numbers as Arrow
    prints them (the writer checks and normalizes the text)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_timestamp(kind):
        seconds = column.cast(pa.timestamp("s", "UTC"), safe=False)  # as datetimes are
        return pc.strftime(seconds, format="%Y-%m-%dT%H:%M:%S+00:00").cast(pa.large_string())
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = column.type
    return column if pa.types.is_large_string(kind) else column.cast(pa.large_string())
