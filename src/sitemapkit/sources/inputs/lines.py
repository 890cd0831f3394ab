"""URL files read as bytes, a large block of complete lines at a time, for the hot
unit's line reader (``UrlsetBuffer.feed_lines``): a plain row never becomes a
Python object other than its loc.

A line the hot unit leaves (SLOW: quoting, padding, escapes, a value to rewrite, a
bad row) is parsed here by ``Reader``'s own per-line code, so every row means what
it meant before, with the same messages and line numbers; the choice is per line,
never per file. The writer drives this through the ``LineSource`` protocol in
``write.stream``.
"""

from __future__ import annotations

import csv
import io
import os
import stat
from collections.abc import Callable, Iterator
from typing import IO, Any

from ..._urlset import count_lines
from ..._urlset._rows_py import JSONL, TABLE, TEXT
from ...errors import InputError
from ...rules.model import EntryError
from .readers import BOM, MAX_LINE, UNREADABLE, Reader, unreadable

BLOCK = 1 << 18  # bytes read at a time; a block ends at a line end. Small enough that the
# hot unit returns (and can hand over the GIL) every ~1 ms: a worker thread needs the GIL
# each time its deflate output buffer grows, and waits while the main thread holds it
_BOM = BOM.encode("utf-8")


class LineReader:
    """One input as blocks of lines; ``line`` is the input line last parsed in Python."""

    def __init__(self, raw: IO[bytes], fmt: str,
                 progress: Callable[[int, int], None] | None = None,
                 block_size: int = BLOCK) -> None:
        self.raw, self.fmt, self.progress, self.block_size = raw, fmt, progress, block_size
        self.parser = Reader(io.StringIO(), fmt)  # checks fmt; parses SLOW lines
        self.layout: tuple[int, int, tuple[int, ...], int] = (
            JSONL if fmt == "jsonl" else TEXT, 0, (0, -1, -1, -1), 1)  # tables: header
        self.block = b""
        self._rest = b""
        self._block_line = 1  # input line of block[0]
        self._cursor = (0, 1)  # (a position in block, its line): counting goes forward
        self._read_bytes = 0
        self._first = True

    @property
    def line(self) -> int:
        return self.parser.line

    def feed(self, buf: Any, pos: int) -> tuple[int, int, int]:
        """The hot unit reads the block's plain lines from ``pos`` itself."""
        return buf.feed_lines(self.block, pos, *self.layout)  # type: ignore[no-any-return]

    def expected_rows(self) -> int | None:
        """About how many rows a plain file holds (its size over the current block's bytes
        per line), so the duplicate table makes room once instead of regrowing on the way
        (measured: 6-16% of the line reader's time at 1M rows); None for a pipe or a
        compressed stream, whose size does not say."""
        if not isinstance(self.raw, io.BufferedReader) or not self.block:
            return None
        try:
            info = os.fstat(self.raw.fileno())
        except (OSError, ValueError):
            return None
        lines = self.block.count(b"\n")
        if not stat.S_ISREG(info.st_mode) or not lines:
            return None
        return info.st_size * lines // len(self.block)

    def blocks(self) -> Iterator[int]:
        """Make each block of complete lines current (``self.block``) and yield the
        position of its first row (after a table's header)."""
        while self._next_block():
            start = 0
            if self._first:
                self._first = False
                if self.block.startswith(_BOM):
                    self.block = self.block[len(_BOM):]
                if self.fmt in ("csv", "tsv"):
                    start = self._header()
                    if start < 0:
                        return
            yield start

    def _read(self, lines_done: int) -> bytes:
        """The next bytes of the input; bytes that cannot be read (a corrupt or cut gzip
        stream) are an input error naming the lines read whole, never an output error."""
        try:
            return self.raw.read(self.block_size)
        except (*UNREADABLE, OSError) as exc:  # OSError: a failing disk (EIO) under the input
            name = getattr(self.raw, "name", None)
            where = name if isinstance(name, str) else "the input"
            raise InputError(unreadable(where + (f" (after input line {lines_done:,})"
                                                 if lines_done else ""), exc)) from None

    def _next_block(self) -> bool:
        self._block_line += count_lines(self.block)
        while True:
            chunk = self._read(self._block_line - 1)
            data = self._rest + chunk
            if not chunk:
                self.block, self._rest = data, b""
                break
            cut = data.rfind(b"\n") + 1
            if cut:
                self.block, self._rest = data[:cut], data[cut:]
                break
            self._rest = data
            if len(data) > MAX_LINE:
                self.parser.line = self._block_line
                raise self.parser._too_long(len(data))
        self._cursor = (0, self._block_line)
        self._read_bytes += len(self.block)
        if self.progress is not None:
            self.progress(self._read_bytes, self._block_line - 1)
        return bool(self.block)

    def _header(self) -> int:
        """Read a table's header line; -1 when the input is empty."""
        end = self.block.find(b"\n") + 1 or len(self.block)
        try:  # a lone carriage return in the header is csv's "new-line character seen"
            rows = list(csv.reader([self._text(0, end)], delimiter=self.parser.delimiter))
        except csv.Error as exc:
            self.parser.line = 1
            raise self.parser.csv_error(exc) from None
        if not self.parser.header(rows[0] if rows else None):
            return -1
        index = tuple(-1 if i is None else i for i in self.parser.index)
        self.layout = (TABLE, ord(self.parser.delimiter), index, self.parser.width)
        return end

    def line_at(self, pos: int) -> int:
        """The input line of ``block[pos]`` (counted forward from the last answer)."""
        at, line = self._cursor
        if pos < at:
            at, line = 0, self._block_line
        line += self.block.count(b"\n", at, pos)
        self._cursor = (pos, line)
        return line

    def _text(self, start: int, end: int) -> str:
        try:
            return self.block[start:end].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"line {self.line_at(start)}: not UTF-8 ({exc.reason} at "
                             f"byte {exc.start + 1})") from None

    def parse(self, start: int, end: int) -> tuple[list[object], int]:
        """The entries of the line at ``start`` (and of any lines a quoted CSV field
        spans), parsed as ``Reader`` parses them; and where the next line starts."""
        parser = self.parser
        parser.line = self.line_at(start)
        text = self._text(start, end)
        if len(text) > MAX_LINE:
            raise parser._too_long(len(text))
        if self.fmt == "text":
            url = text.strip()
            return ([url] if url else []), end
        if self.fmt == "jsonl":
            value = parser.json_entry(text)
            return ([] if value is None else [value]), end
        return self._table_rows(start, end)

    def _table_rows(self, start: int, end: int) -> tuple[list[object], int]:
        lines = self._lines_from(start)
        reader = csv.reader(lines, delimiter=self.parser.delimiter)
        first = self.parser.line
        try:
            row = next(reader, None)
        except csv.Error as exc:
            self.parser.line = first + reader.line_num - 1
            raise self.parser.csv_error(exc) from None
        stop = self._after_lines(start, reader.line_num)
        entry = None if row is None else self.parser.table_entry(row)
        return ([] if entry is None else [entry]), stop

    def _lines_from(self, start: int) -> Iterator[str]:
        """Lines of the block from ``start``, reading further blocks in if a quoted
        field runs past this one."""
        pos = start
        while True:
            nl = self.block.find(b"\n", pos)
            if nl >= 0:
                yield self._text(pos, nl + 1)
                pos = nl + 1
            elif not self._more():
                if pos < len(self.block):
                    yield self._text(pos, len(self.block))
                return

    def _more(self) -> bool:
        """Append the next lines of the input to the current block."""
        while True:
            chunk = self._read(self._block_line + count_lines(self.block) - 1)
            data = self._rest + chunk
            if not chunk:
                self.block, self._rest = self.block + data, b""
                return bool(data)
            cut = data.rfind(b"\n") + 1
            if cut:
                self.block, self._rest = self.block + data[:cut], data[cut:]
                return True
            self._rest = data

    def _after_lines(self, start: int, lines: int) -> int:
        pos = start
        for _ in range(lines):
            nl = self.block.find(b"\n", pos)
            pos = len(self.block) if nl < 0 else nl + 1
        return pos

    def loc_at(self, start: int, end: int) -> str:
        """The loc of a plain line (to name a duplicate)."""
        entries, _ = self.parse(start, end)
        entry = entries[0] if entries else ""
        loc = entry.get("loc") if isinstance(entry, dict) else getattr(entry, "loc", entry)
        return str(loc)

    def explain(self, exc: EntryError) -> InputError | None:
        """As ``Reader.explain``, for the entry last parsed here."""
        self.parser.count = exc.position or 0
        return self.parser.explain(exc)

