"""A folder of part files, the usual shape of an engine's output (``part-00000-….parquet``,
``part-00000.csv``, Spark's ``.json`` lines): one partition per file, in name order.

Markers and metadata an engine leaves beside its parts (``_SUCCESS``, ``.crc``,
hidden files) are skipped; any other file that is not a known format is an error,
so a stray file is never silently read as URLs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path

from ..errors import ConfigError, InputError
from .inputs import Reader, detect_format, open_binary, open_input
from .lines import LineReader
from .partitions import entries_from_rows, table_columns

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
    """One part file's entries; ``where()`` names the file and line (or row) last read."""

    def __init__(self, path: Path) -> None:
        self.path, self.fmt = path, _format(path) or "text"
        self.row = 0
        self._reader: Reader | None = None
        self._lines: LineReader | None = None

    @contextlib.contextmanager
    def opened(self) -> Iterator[Iterable[object] | LineReader]:
        """What the writer reads: a text, CSV, TSV or JSON Lines part as blocks of input
        bytes (the hot unit reads plain rows in C, as ``sitemapkit write FILE`` does), a
        Parquet part as entries."""
        if self.fmt == "parquet":
            yield self
            return
        with open_binary(str(self.path)) as raw:
            self._lines = LineReader(raw, self.fmt)
            yield self._lines

    def __iter__(self) -> Iterator[object]:
        if self.fmt == "parquet":
            yield from self._parquet()
            return
        with open_input(str(self.path)) as stream:
            self._reader = Reader(stream, self.fmt)
            yield from self._reader

    def where(self) -> str:
        if self._lines is not None:
            return f"{self.path.name} line {self._lines.line}"
        if self._reader is not None:
            return f"{self.path.name} line {self._reader.line}"
        return f"{self.path.name} row {self.row}"

    def _parquet(self) -> Iterator[object]:
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise InputError(f"{self.path.name} is Parquet: reading it needs pyarrow "
                             "(pip install 'sitemapkit[parquet]')") from None
        with contextlib.closing(pq.ParquetFile(self.path)) as pf:
            try:
                columns = table_columns(pf.schema_arrow.names, self.path.name)
            except ConfigError as exc:  # the file is the problem, not an option
                raise InputError(str(exc)) from None
            # INT96 timestamps (Spark's and Impala's default) are UTC instants by
            # convention, though Arrow reads them without a zone
            int96 = {pf.schema.column(i).name for i in range(len(pf.schema))
                     if pf.schema.column(i).physical_type == "INT96"}
            for batch in pf.iter_batches(batch_size=65_536, columns=columns):
                values = [_utc(col.to_pylist()) if name in int96 else col.to_pylist()
                          for name, col in zip(columns, batch.columns, strict=True)]
                for entry in entries_from_rows(zip(*values, strict=True), columns):
                    self.row += 1
                    yield entry


def _utc(values: list[object]) -> list[object]:
    return [v.replace(tzinfo=timezone.utc) if isinstance(v, datetime) and v.tzinfo is None
            else v for v in values]
