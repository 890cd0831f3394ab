"""Arrow columns (a table, record batches: what Dask, Spark's ``mapInArrow``, Polars,
DuckDB and Parquet hand over) as a row source for the hot unit, with no Python object
per row.

Each column is read where Arrow keeps it, as 64-bit offsets and values
(``UrlsetBuffer.feed_cells``, in both twins): every row's cells get the checks a TSV
line's cells get, and the fast path takes the row or answers SLOW. A SLOW row (a value
to rewrite, a bad row) is taken from the columns as Python values, one row at a time,
and written as any Python entry is. Null and empty cells are absent fields, as in a
CSV file.

pyarrow is optional (the ``parquet`` extra); this module imports it on use.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ...errors import ConfigError
from ...rules.model import UrlEntry
from .partitions import COLUMNS, table_columns

CHUNK_ROWS = 1 << 16  # rows per block, so the GIL is handed back often


class ArrowSource:
    """Record batches (or a table) with a ``loc`` column and any of ``lastmod``,
    ``changefreq`` and ``priority``, as ``write.stream.LineSource``: positions are row
    numbers in the current chunk."""

    def __init__(self, data: Any, what: str = "the Arrow data") -> None:
        import pyarrow as pa

        self._total: int | None = None  # rows, where the data says before it is read
        if isinstance(data, pa.Table):
            self.schema, batches, self._total = data.schema, data.to_batches(), data.num_rows
        elif isinstance(data, pa.RecordBatch):
            self.schema, batches, self._total = data.schema, [data], data.num_rows
        elif isinstance(data, pa.RecordBatchReader):
            self.schema, batches = data.schema, data
        else:
            raise ConfigError(f"{what} is not an Arrow table, record batch or reader "
                              f"({type(data).__name__})")
        self.columns = table_columns(self.schema.names, what)
        for name in self.columns[1:]:
            _check_type(name, self.schema.field(name).type)
        self._batches: Iterable[Any] = batches
        self._rows: list[list[Any]] = []  # the text columns as Python values, on demand
        self._cells: list[Any] = []  # the current chunk's columns as text
        self._buffers: tuple[Any, ...] = (None,) * len(COLUMNS)  # feed_cells' view
        self._count = 0

    def blocks(self) -> Iterator[int]:
        """Make each chunk of rows the current block; every block starts at row 0."""
        for batch in self._batches:
            for start in range(0, batch.num_rows, CHUNK_ROWS):
                self._load(batch.slice(start, CHUNK_ROWS).select(self.columns))
                yield 0

    def expected_rows(self) -> int | None:
        """A table's or batch's row count; a reader's is not known ahead."""
        return self._total

    def feed(self, buf: Any, pos: int) -> tuple[int, int, int]:
        return buf.feed_cells(self._buffers, pos, self._count)  # type: ignore[no-any-return]

    def _load(self, chunk: Any) -> None:
        import pyarrow.compute as pc

        self._rows = []
        self._cells = [_as_text(chunk.column(name)) for name in self.columns]
        buffers: list[Any] = [None] * len(COLUMNS)
        for name, cells in zip(self.columns, self._cells, strict=True):
            if cells.null_count:
                cells = pc.fill_null(cells, "")  # null and empty: both absent
            _, offsets, values = cells.buffers()
            buffers[COLUMNS.index(name)] = (offsets, values or b"", cells.offset)
        self._buffers, self._count = tuple(buffers), chunk.num_rows

    def parse(self, start: int, end: int) -> tuple[list[object], int]:
        """The row at ``start``, from the columns themselves (the text the cells were
        read from: both paths read the same values)."""
        if not self._rows:
            self._rows = [cells.to_pylist() for cells in self._cells]
        fields: dict[str, Any] = dict.fromkeys(COLUMNS)
        for name, values in zip(self.columns, self._rows, strict=True):
            value = values[start]
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
