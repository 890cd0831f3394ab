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
from collections.abc import Iterator
from typing import IO, Any

from ..errors import InputError
from ..protocol import MAX_LOC_LENGTH
from ..rules.model import EntryError, UrlEntry

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


def open_input(path: str) -> IO[str]:
    """UTF-8 text (the readers drop a byte-order mark, as Excel writes one; plain utf-8
    here keeps TextIOWrapper's fast decoder)."""
    if path == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="")
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")


class Reader:
    """Iterable of entries; ``line`` is the input line of the entry last yielded."""

    def __init__(self, stream: IO[str], fmt: str) -> None:
        if fmt not in FORMATS:
            raise InputError(f"unknown input format {fmt!r}; choose one of {FORMATS}")
        self.stream, self.fmt = stream, fmt
        self.line = 0
        self.count = 0

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
            url = raw.strip()
            if url:
                yield url if number > 1 else url.lstrip(BOM)

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
            if not raw.strip():
                continue
            try:
                value: Any = json.loads(raw)
            except ValueError as exc:
                raise InputError(f"line {self.line}: not valid JSON ({exc})") from None
            if isinstance(value, str):
                yield value
            elif isinstance(value, dict):
                if value.get("alternates"):
                    value["alternates"] = tuple(tuple(p) for p in value["alternates"])
                yield value  # unknown keys are reported by the writer's entry rules
            else:
                raise InputError(f"line {self.line}: expected a JSON object or string")

    def _table(self) -> Iterator[object]:
        reader = csv.reader(self.stream, delimiter="\t" if self.fmt == "tsv" else ",")
        try:
            header = self._header(next(reader, None))
            if header is None:
                return
            index, width = header
            for row in reader:
                self.line = reader.line_num
                if len(row) != width:
                    if not any(cell.strip() for cell in row):
                        continue
                    raise InputError(f"line {self.line}: {len(row)} fields, the header has "
                                     f"{width}")
                values = [row[i].strip() or None if i is not None else None for i in index]
                yield UrlEntry(values[0] or "", values[1], values[2], values[3])
        except csv.Error as exc:  # e.g. a field over csv's size limit: a runaway line
            self.line = reader.line_num
            raise self._too_long(MAX_LINE + 1) if "field larger" in str(exc) else \
                InputError(f"line {reader.line_num}: {exc}") from None

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
