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
from ..rules.model import UrlEntry

FORMATS = ("text", "csv", "tsv", "jsonl")
COLUMNS = ("loc", "lastmod", "changefreq", "priority")
_SUFFIXES = {".txt": "text", ".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
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
    """UTF-8 text; a byte-order mark (as Excel writes CSV) is dropped."""
    if path == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", newline="")
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8-sig", newline="")
    return open(path, encoding="utf-8-sig", newline="")


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
            if len(raw) > MAX_LINE:
                raise InputError(f"line {number} is {len(raw):,} characters long, over the "
                                 f"{MAX_LINE // 1024} KiB a line may have (a URL has at most "
                                 f"{MAX_LOC_LENGTH:,} characters): the wrong file or format?")
            yield raw

    def _text(self) -> Iterator[object]:
        for raw in self._lines():
            url = raw.strip()
            if url.startswith("{"):
                raise InputError(f"line {self.line} looks like JSON Lines: add --format jsonl")
            if url:
                yield url

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
        reader = csv.reader(self._lines(), delimiter="\t" if self.fmt == "tsv" else ",")
        header = next(reader, None)
        self.line = 1
        if header is None:
            return
        header = [h.strip().lower() for h in header]
        unknown = [h for h in header if h not in COLUMNS]
        if "loc" not in header or unknown:
            raise InputError(f"line 1: the header must name 'loc' and only {COLUMNS}; "
                             f"got {header}")
        index = [header.index(c) if c in header else None for c in COLUMNS]
        for row in reader:
            self.line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(f"line {self.line}: {len(row)} fields, the header has "
                                 f"{len(header)}")
            values = [row[i].strip() or None if i is not None else None for i in index]
            yield UrlEntry(values[0] or "", values[1], values[2], values[3])
