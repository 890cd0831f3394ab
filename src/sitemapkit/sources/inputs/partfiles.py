"""A folder of part files, the usual shape of an engine's output (``part-00000-….parquet``,
``part-00000.csv``, Spark's ``.json`` lines): one partition per file, in name order.

Markers and metadata an engine leaves beside its parts (``_SUCCESS``, ``.crc``,
hidden files) are skipped; any other file that is not a known format is an error,
so a stray file is never silently read as URLs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...errors import ConfigError, InputError
from .arrowcols import ArrowSource
from .lines import LineReader
from .partitions import table_columns
from .readers import detect_format, open_binary

_ENGINE_LEFTOVERS = (".crc",)
PARQUET = (".parquet", ".parq")


def part_files(directory: Path) -> list[Path]:
    """Every part file of a folder, in name order (which is the partition order)."""
    parts, unknown = [], []
    for path in sorted(directory.iterdir()):
        name = path.name
        if name.startswith((".", "_")) or name.endswith(_ENGINE_LEFTOVERS) or path.is_dir():
            continue
        if _format(path) is None:
            unknown.append(name)
        else:
            parts.append(path)
    if unknown:
        raise InputError(f"{directory}: {', '.join(unknown[:5])} "
                         f"{'is not a part file' if len(unknown) == 1 else 'are not part files'} "
                         "(.parquet, .csv, .tsv, .jsonl, .json, .txt, optionally .gz); "
                         "move them out or write the parts into their own folder")
    if not parts:
        raise InputError(f"{directory} holds no part files")
    return parts


def _format(path: Path) -> str | None:
    name = path.name.lower()
    if name.endswith(PARQUET):
        return "parquet"
    if name.removesuffix(".gz").endswith(".json"):
        return "jsonl"  # Spark and Dask write JSON Lines with a .json suffix
    for suffix in (".csv", ".tsv", ".jsonl", ".ndjson", ".txt"):
        if name.removesuffix(".gz").endswith(suffix):
            return detect_format(name, None)
    return None


class PartReader:
    """One part file as the writer reads it; ``where()`` names the file and the line
    last read (or the Parquet row in ``row``, set from the error's position)."""

    def __init__(self, path: Path) -> None:
        self.path, self.fmt = path, _format(path) or "text"
        self.row = 0
        self._lines: LineReader | None = None

    @contextlib.contextmanager
    def opened(self) -> Iterator[ArrowSource | LineReader]:
        """What the writer reads: a text, CSV, TSV or JSON Lines part as blocks of input
        bytes (the hot unit reads plain rows in C, as ``sitemapkit write FILE`` does), a
        Parquet part as Arrow columns (``arrowcols``: the same byte path)."""
        if self.fmt == "parquet":
            with contextlib.closing(self._parquet_file()) as pf:
                yield ArrowSource(self._batches(pf), self.path.name)
            return
        with open_binary(str(self.path)) as raw:
            self._lines = LineReader(raw, self.fmt)
            yield self._lines

    def where(self) -> str:
        if self._lines is not None:
            return f"{self.path.name} line {self._lines.line}"
        return f"{self.path.name} row {self.row}"

    def _parquet_file(self) -> Any:
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise InputError(f"{self.path.name} is Parquet: reading it needs pyarrow "
                             "(pip install 'sitemapkit[parquet]')") from None
        return pq.ParquetFile(self.path)

    def _batches(self, pf: Any) -> Any:
        """The part's sitemap columns as a batch reader. INT96 timestamps (Spark's and
        Impala's default) are UTC instants by convention, though Arrow reads them
        without a zone: they are given it."""
        import pyarrow as pa

        try:
            columns = table_columns(pf.schema_arrow.names, self.path.name)
        except ConfigError as exc:  # the file is the problem, not an option
            raise InputError(str(exc)) from None
        int96 = {pf.schema.column(i).name for i in range(len(pf.schema))
                 if pf.schema.column(i).physical_type == "INT96"}
        schema = pa.schema([_utc_field(f) if f.name in int96 else f
                            for f in pf.schema_arrow if f.name in columns])

        def batches() -> Iterator[Any]:
            for batch in pf.iter_batches(batch_size=65_536, columns=columns):
                yield pa.RecordBatch.from_arrays(
                    [col.cast(schema.field(name).type) if name in int96 else col
                     for name, col in zip(columns, batch.columns, strict=True)],
                    schema=schema)

        return pa.RecordBatchReader.from_batches(schema, batches())


def _utc_field(field: Any) -> Any:
    import pyarrow as pa

    return field.with_type(pa.timestamp(field.type.unit, "UTC"))
