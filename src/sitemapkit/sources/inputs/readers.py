"""Streaming readers for ``sitemapkit write``: text, CSV/TSV with a header, JSON Lines.

Each reader yields entries lazily and remembers the line it is on, so an error
about entry N can name the input line.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sys
import zlib
from collections.abc import Iterator
from typing import IO, Any

from ...errors import InputError
from ...protocol import MAX_LOC_LENGTH
from ...rules.model import EntryError, UrlEntry

FORMATS = ("text", "csv", "tsv", "jsonl")
COLUMNS = ("loc", "lastmod", "changefreq", "priority")
_SUFFIXES = {".txt": "text", ".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
BOM = "\ufeff"
_SPACE_AND_BOM = " \t\r\n\ufeff"
MAX_LINE = 64 * 1024  # far beyond any valid row: a longer line means the wrong file


def detect_format(path: str, explicit: str | None) -> str:
    if explicit:
        return explicit
    name = path.lower().removesuffix(".gz")
    for suffix, fmt in _SUFFIXES.items():
        if name.endswith(suffix):
            return fmt
    return "text"  # stdin and unknown suffixes: one URL per line


# what reading an input's bytes may raise past the reader's own checks: a truncated or
# corrupt gzip stream ("invalid distance too far back", "invalid block type"), bytes
# that are not UTF-8
UNREADABLE = (UnicodeDecodeError, EOFError, gzip.BadGzipFile, zlib.error)


def unreadable(where: str, exc: BaseException) -> str:
    """One clear line for an input whose bytes cannot be read, naming where (the file,
    and the line reached) and what is wrong in a user's words."""
    if isinstance(exc, zlib.error):
        what = f"the gzip data is corrupt ({str(exc).split(': ', 1)[-1]})"
    elif isinstance(exc, EOFError):
        what = "the gzip data ends too soon (a truncated download or copy?)"
    elif isinstance(exc, gzip.BadGzipFile) and str(exc).startswith("Not a gzipped file"):
        what = f"not gzip data ({exc})"
    elif isinstance(exc, gzip.BadGzipFile):  # a wrong check word or length at the end
        what = f"the gzip data is corrupt ({exc})"
    elif isinstance(exc, OSError):
        what = exc.strerror or str(exc)
    else:
        what = str(exc)
    return f"cannot read {where}: {what}"


def open_input(path: str) -> IO[str]:
    """UTF-8 text (the readers drop a byte-order mark, as Excel writes one; plain utf-8
    here keeps TextIOWrapper's fast decoder)."""
    if path == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="")
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")


def open_binary(path: str) -> IO[bytes]:
    """The raw bytes of an input (gunzipped for .gz), for ``sources.lines``."""
    if path == "-":
        return sys.stdin.buffer
    if path.endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


class Reader:
    """Iterable of entries; ``line`` is the input line of the entry last yielded."""

    def __init__(self, stream: IO[str], fmt: str) -> None:
        if fmt not in FORMATS:
            raise InputError(f"unknown input format {fmt!r}; choose one of {FORMATS}")
        self.stream, self.fmt = stream, fmt
        self.line = 0
        self.count = 0
        self.index: list[int | None] = []  # tables: where each of COLUMNS is, by header
        self.width = 0

    def __iter__(self) -> Iterator[object]:
        rows = {"text": self._text, "jsonl": self._jsonl}.get(self.fmt, self._table)()
        for entry in rows:
            self.count += 1
            yield entry

    def _lines(self) -> Iterator[str]:
        for number, raw in enumerate(self.stream, start=1):
            self.line = number
            if number == 1:
                raw = raw.lstrip(BOM)
            if len(raw) > MAX_LINE:
                raise self._too_long(len(raw))
            yield raw

    def _too_long(self, length: int) -> InputError:
        return InputError(f"line {self.line} is {length:,} characters long, over the "
                          f"{MAX_LINE // 1024} KiB a line may have (a URL has at most "
                          f"{MAX_LOC_LENGTH:,} characters): the wrong file or format?")

    def _text(self) -> Iterator[object]:
        for number, raw in enumerate(self.stream, start=1):  # the hot loop: nothing extra
            self.line = number
            url = raw.strip() if number > 1 else raw.lstrip(BOM).strip()
            if url:
                yield url

    def explain(self, exc: EntryError) -> InputError | None:
        """A clearer message for a loc the rules refused because the input is not what
        its format says (checked here, after the fact, to keep the reading loop lean)."""
        value = exc.value if exc.field == "loc" and exc.position == self.count else None
        if not isinstance(value, str):
            return None
        if len(value) > MAX_LINE:
            return self._too_long(len(value))
        if self.fmt == "text" and value.startswith("{"):
            return InputError(f"line {self.line} looks like JSON Lines: add --format jsonl")
        return None

    def _jsonl(self) -> Iterator[object]:
        for raw in self._lines():
            value = self.json_entry(raw)
            if value is not None:
                yield value

    def json_entry(self, raw: str) -> object | None:
        """One JSON Lines line as an entry (None for a blank line)."""
        if not raw.strip():
            return None
        try:
            value: Any = json.loads(raw)
        except ValueError as exc:
            raise InputError(f"line {self.line}: not valid JSON ({exc})") from None
        if isinstance(value, str):
            return value
        if isinstance(value, dict):
            if value.get("alternates"):
                value["alternates"] = tuple(tuple(p) for p in value["alternates"])
            return value  # unknown keys are reported by the writer's entry rules
        raise InputError(f"line {self.line}: expected a JSON object or string")

    def _table(self) -> Iterator[object]:
        reader = csv.reader(self.stream, delimiter=self.delimiter)
        try:
            if not self.header(next(reader, None)):
                return
            self._row_line = reader.line_num + 1
            for row in reader:
                self.line = self._row_line  # a quoted field may span lines: its first
                self._row_line = reader.line_num + 1
                entry = self.table_entry(row)
                if entry is not None:
                    yield entry
        except csv.Error as exc:  # e.g. a field over csv's size limit: a runaway line
            self.line = reader.line_num
            raise self.csv_error(exc) from None

    @property
    def delimiter(self) -> str:
        return "\t" if self.fmt == "tsv" else ","

    def csv_error(self, exc: csv.Error) -> InputError:
        """csv's complaint about line ``self.line`` as an input error in our words."""
        if "field larger" in str(exc):
            return self._too_long(MAX_LINE + 1)
        if "new-line character" in str(exc):  # csv's hint about file modes misleads here
            return InputError(f"line {self.line}: a carriage return (\\r) inside an unquoted "
                              "field; quote the field, or end lines with \\n or \\r\\n")
        return InputError(f"line {self.line}: {exc}")

    def table_entry(self, row: list[str]) -> UrlEntry | None:
        """One CSV/TSV row as an entry (None for a blank row)."""
        if len(row) != self.width:
            if not any(cell.strip() for cell in row):
                return None
            raise InputError(f"line {self.line}: {len(row)} fields, the header has "
                             f"{self.width}")
        values = [row[i].strip() or None if i is not None else None for i in self.index]
        return UrlEntry(values[0] or "", values[1], values[2], values[3])

    def header(self, header: list[str] | None) -> bool:
        """Read the header row; False when the input has none (it is empty)."""
        found = self._header(header)
        if found is None:
            return False
        self.index, self.width = found
        return True

    def _header(self, header: list[str] | None) -> tuple[list[int | None], int] | None:
        """(column positions of COLUMNS, the header's width), or None for no header."""
        self.line = 1
        if header is None:
            return None
        names = [h.strip(_SPACE_AND_BOM).lower() for h in header]
        unknown = [h for h in names if h not in COLUMNS]
        if "loc" not in names or unknown:
            raise InputError(f"line 1: the header must name 'loc' and only {COLUMNS}; "
                             f"got {names}")
        return [names.index(c) if c in names else None for c in COLUMNS], len(names)
