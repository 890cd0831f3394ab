"""Differential fuzz harnesses for every C entry point that reads outside bytes (and
the byte kernels the writer runs over them).

Each harness takes one input (bytes), drives the C twin and the pure-Python reference
the way sitemapkit drives them, and fails (AssertionError, or any exception that is not
a documented ``SitemapkitError``) when they differ or when a fast path disagrees with
the rules. The first byte of an input picks the harness's knobs (chunk or block size,
skip or error), the rest is the data, so a seed file is an ordinary input file with one
byte in front.

``tests/fuzz/run.py`` runs one under atheris (coverage-guided, on the sanitizer build:
``.ci/asan_build.sh``); ``tests/test_fuzz_corpus.py`` replays the seed corpus and every
regression input on both twins in the normal test run.
"""

from __future__ import annotations

import atexit
import csv
import gzip
import hashlib
import json
import os
import shutil
import tempfile
import zlib
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

from twin_drivers import BASE, drive_cells, drive_lines, offer_outcome, validate_outcome, via_lines

from sitemapkit import UrlEntry
from sitemapkit._urlset import _locset_py, _rows_py, _urlset_c, _urlset_py
from sitemapkit._urlset._rows_py import JSONL, TABLE, TEXT
from sitemapkit.protocol import FUTURE_TOLERANCE_SECONDS
from sitemapkit.rules import EntryError, normalize_entry
from sitemapkit.validate import reader as reader_module

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
FUTURE_LIMIT = int(NOW.timestamp()) + FUTURE_TOLERANCE_SECONDS
TWINS: tuple[ModuleType, ModuleType] = (_urlset_c, _urlset_py)
CHUNKS = (1, 7, 64, 333, 4096, 1 << 20)  # the validator's read size: hand-overs everywhere
BLOCKS = (7, 64, 4096, 1 << 20)  # the line reader's block size
_WORK = Path(tempfile.mkdtemp(prefix="sitemapkit-fuzz-",
                              dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
atexit.register(shutil.rmtree, _WORK, True)


def _knobs(data: bytes) -> tuple[int, bytes]:
    return (data[0], data[1:]) if data else (0, b"")


def _same(results: list[Any], what: str, data: bytes) -> None:
    if results[0] != results[1]:
        raise AssertionError(f"{what}: the C twin and the reference differ on {data!r}:\n"
                             f"C:  {results[0]!r}\npy: {results[1]!r}")


# --- the validator's scan: plain and gzip ------------------------------------------
def _validate(name: str, body: bytes, chunk: int, data: bytes) -> None:
    """The scan on each twin reports exactly what expat alone reports."""
    site = _WORK / "site"
    site.mkdir(exist_ok=True)
    for old in site.iterdir():
        old.unlink()
    (site / name).write_bytes(body)
    with mock.patch.object(reader_module, "CHUNK", chunk):
        reference = validate_outcome(site, "off", NOW)
        _same([validate_outcome(site, "c", NOW), reference], "scan (c vs expat)", data)
        _same([validate_outcome(site, "py", NOW), reference], "scan (py vs expat)", data)


def scan(data: bytes) -> None:
    knob, body = _knobs(data)
    _validate("sitemap.xml", body, CHUNKS[knob % len(CHUNKS)], data)


def scan_gzip(data: bytes) -> None:
    """A well-formed gzip of the bytes (the scan behind gunzip), or the bytes themselves
    as a .gz (broken streams, trailing garbage), by the knob's top bit."""
    knob, body = _knobs(data)
    raw = body if knob & 0x80 else gzip.compress(body, mtime=0)
    _validate("sitemap.xml.gz", raw, CHUNKS[knob % len(CHUNKS)], data)


# --- the writer's line reader, per input format -----------------------------------------
LAYOUTS = {"text": (TEXT, 0, (0, -1, -1, -1), 1),
           "tsv": (TABLE, 9, (0, 1, 2, 3), 4), "csv": (TABLE, 44, (0, 1, 2, 3), 4),
           "jsonl": (JSONL, 0, (0, -1, -1, -1), 1)}


def _lines(fmt: str) -> Callable[[bytes], None]:
    def harness(data: bytes) -> None:
        """The whole input through LineReader and the writer on each twin (the same
        shards, duplicates, skips or error with its line), and ``feed_lines`` alone on
        the bytes as the writer drives it (the same statuses, positions, shard state,
        and with knob bit 0x40 the same URL keys, the C twin's computed a few at a
        time from the shard it wrote)."""
        knob, body = _knobs(data)
        on_invalid = "skip" if knob & 0x10 else "error"
        block = BLOCKS[knob % len(BLOCKS)]
        _same([via_lines(body, fmt, m, on_invalid, block) for m in TWINS], f"{fmt} input",
              data)
        layout, sep, columns, width = LAYOUTS[fmt]
        max_urls = 1 + knob % 5 if knob & 0x20 else 50_000
        _same([drive_lines(m, body, layout, sep, columns, width, max_urls, True,
                           FUTURE_LIMIT, bool(knob & 0x40)) for m in TWINS],
              f"{fmt} feed_lines", data)

    harness.__name__ = f"lines_{fmt}"
    return harness


# --- the JSON string decoder ------------------------------------------------------------
def json_string(data: bytes) -> None:
    """The bytes as the inside of a JSON string (escapes, quotes, invalid UTF-8 and all),
    in the loc or the lastmod of a row. The twins agree, and a row the byte path adds is
    the row json.loads and the rules give."""
    knob, body = _knobs(data)
    line = (b'{"loc": "' + BASE.encode() + body + b'", "lastmod": "2024-05-01"}' if knob & 1
            else b'{"lastmod": "' + body + b'", "loc": "' + BASE.encode() + b'p"}')
    line = line.replace(b"\n", b"\\n").replace(b"\r", b"\\r") + b"\n"
    traces = [drive_lines(m, line, JSONL, 0, (0, -1, -1, -1), 1, 50_000, True, FUTURE_LIMIT)
              for m in TWINS]
    _same(traces, "json string", data)
    first = traces[1][0]
    if first[0] == _urlset_py.EXHAUSTED and first[4] == 1:  # the byte path added the row
        row = json.loads(line)
        expected = normalize_entry(row, BASE, FUTURE_LIMIT)
        lastmod = None if expected.lastmod is None else str(expected.lastmod)
        assert first[7] == [(expected.loc, lastmod)], (line, first[7], expected)


# --- CSV/TSV quoting on one line ----------------------------------------------------------
def table_quoting(data: bytes) -> None:
    """The bytes as a CSV (knob bit 0: TSV) row of two or three columns, loc first, its
    cells as the bytes give them (any quoting, separators, doubled quotes, padding);
    knob bit 1 puts the base URL in front. The twins agree; where the reference's split
    takes the line, its cells are csv.reader's; a row the byte path adds is the row
    csv.reader and the rules give."""
    knob, body = _knobs(data)
    sep = 9 if knob & 1 else 44
    width = 3 if knob & 4 else 2
    line = (BASE.encode() if knob & 2 else b"") + body.replace(b"\n", b" ")
    columns = (0, 1, 2 if width == 3 else -1, -1)
    traces = [drive_lines(m, line + b"\n", TABLE, sep, columns, width, 50_000, True,
                          FUTURE_LIMIT) for m in TWINS]
    _same(traces, "table row", data)
    cells = _rows_py.split_line(line, TABLE, sep, columns, width)
    try:
        rows = list(csv.reader([line.decode("utf-8")], delimiter=chr(sep)))
    except (UnicodeDecodeError, csv.Error):
        return  # not text, or a bare \r: the offer leaves both to the reader
    if cells is not None:
        assert len(rows) == 1 and len(rows[0]) == width, (line, rows)
        assert [c.decode("utf-8", "surrogateescape") if c else None for c in cells[:width]] \
            == [c.strip() or None for c in rows[0]], (line, cells, rows)
    first = traces[1][0]
    if first[0] == _urlset_py.EXHAUSTED and first[4] == 1:  # the byte path added the row
        row = [c.strip() or None for c in rows[0]]
        expected = normalize_entry(UrlEntry(row[0] or "", row[1], row[2] if width == 3
                                            else None), BASE, FUTURE_LIMIT)
        lastmod = "" if expected.lastmod is None else str(expected.lastmod)  # as pairs()
        assert first[7] == [(expected.loc, lastmod)], (line, first[7], expected)


# --- the per-entry fast paths: dates and URLs ----------------------------------------------
def _rules_bytes(m: ModuleType, item: UrlEntry) -> bytes | None:
    try:
        normalized = normalize_entry(item, BASE, FUTURE_LIMIT)
    except EntryError:
        return None
    buf = m.UrlsetBuffer(BASE, 10, 100_000, m.LocSet(), FUTURE_LIMIT, False, False)
    assert buf.add(*normalized) == m.ADDED
    return bytes(buf.getvalue())


def _entry(item: UrlEntry, data: bytes) -> None:
    """``offer`` on each twin; what the fast path takes, the rules would write the same."""
    got = [offer_outcome(m, item, FUTURE_LIMIT) for m in TWINS]
    _same(got, "offer", data)
    if got[0][0] == "ok" and got[0][1]:
        assert got[0][2] == _rules_bytes(_urlset_py, item), (item, got[0])


def lastmod(data: bytes) -> None:
    knob, body = _knobs(data)
    text = body.decode("utf-8", "surrogateescape")
    _entry(UrlEntry(BASE + "p", text, "daily" if knob & 1 else None,
                    "0.5" if knob & 2 else None), data)
    tsv = (BASE.encode() + b"p\t" + body.replace(b"\n", b" ") + b"\t\t\n") * 2
    _same([drive_lines(m, tsv, TABLE, 9, (0, 1, 2, 3), 4, 50_000, True, FUTURE_LIMIT)
           for m in TWINS], "lastmod cell", data)


def loc(data: bytes) -> None:
    knob, body = _knobs(data)
    text = body.decode("utf-8", "surrogateescape")
    _entry(UrlEntry(BASE + text if knob & 1 else text, "2024-05-01" if knob & 2 else None),
           data)
    row = (BASE.encode() if knob & 1 else b"") + body.replace(b"\n", b" ") + b"\n"
    _same([drive_lines(m, row * 2, TEXT, 0, (0, -1, -1, -1), 1, 50_000, True, FUTURE_LIMIT)
           for m in TWINS], "loc line", data)


# --- the byte kernels: the gzip trailer's CRC-32, the line count, the partition key -------
def crc32_lines(data: bytes) -> None:
    """``crc32`` (folding and tables) from any start value equals zlib's; ``count_lines``
    equals ``bytes.count``; ``loc_key`` (BLAKE2b) equals hashlib's. The first 4 bytes
    are the start value."""
    value, body = int.from_bytes(data[:4].ljust(4, b"\0"), "little"), data[4:]
    expected = zlib.crc32(body, value)
    for wide in (True, False):
        assert _urlset_c.crc32(body, value, wide) == expected, (wide, data)
    assert _urlset_c.count_lines(body) == _urlset_py.count_lines(body) == body.count(b"\n")
    digest = hashlib.blake2b(body, digest_size=16).digest()
    first = int.from_bytes(digest[:8], "little") & _locset_py.KEY_MASK or 1
    second = int.from_bytes(digest[8:], "little", signed=True)
    assert _urlset_c.loc_key(body) == (first >> 1, second), data


def heads(data: bytes) -> None:
    """A page's head: the C tokenizer (where it reads the head itself) and the whole C
    path (with its hand-over) give the reference's signals; the first byte is not
    used, so a seed is ``b"x"`` plus a page."""
    from sitemapkit._urlset import _heads_py

    page = data[1:]
    want = _heads_py.head_signals(page)
    fast = _urlset_c._head_signals_fast(page)
    assert fast is None or fast == want, (fast, want)
    assert _urlset_c.head_signals(page) == want


def _edit(m: ModuleType, shard: bytes, keys: bytes, drop: bytes, text: bool,
          examples: int) -> object:
    """Both ways of cutting (new bytes, or into reused memory) give the same answer."""
    try:
        got = m.drop_urls(shard, keys, drop, text, examples)
    except ValueError as exc:
        return ("ValueError", str(exc))
    into = m.drop_urls(shard, keys, drop, text, examples, bytearray(b"?" * len(shard)))
    assert (bytes(into[0]), *into[1:]) == got, (into, got)
    return got


def shard_edits(data: bytes) -> None:
    """``drop_urls`` on any bytes as a shard (wrapped in the head and tail, or not),
    with one key per line (or one more or fewer) and a subset of them to drop: both
    twins answer alike, and a shard the buffer could have written keeps its envelope.
    ``sort_keys`` sorts the same bytes as keys. Knob bits: 1 text, 2 raw (no head and
    tail), 4 one key fewer, 8 one key more, 16-128 which keys to drop."""

    from sitemapkit._urlset._shards_py import HEAD, TAIL

    knob, body = _knobs(data)
    text, raw = bool(knob & 1), bool(knob & 2)
    shard = body if text or raw else HEAD + body + TAIL
    lines = body.split(b"\n")[:-1] if body.endswith(b"\n") else body.split(b"\n")
    order = [_urlset_c.loc_key(line) for line in lines]
    if knob & 4 and order:
        order.pop()
    if knob & 8:
        order.append(_urlset_c.loc_key(b"extra"))
    chosen = sorted({k for i, k in enumerate(order) if (knob >> 4) & (1 << (i % 4))})
    drop = _pack(chosen)
    results = [_edit(m, shard, _pack(order), drop, text, knob % 5) for m in TWINS]
    _same(results, "drop_urls", data)
    if not isinstance(results[0], tuple) or results[0][0] != "ValueError":
        cut = results[0][0]  # type: ignore[index]
        assert text or raw or (cut.startswith(HEAD) and cut.endswith(TAIL)), results[0]
    keys = body[:len(body) // 16 * 16]  # any words: the sort takes every 64-bit value
    _same([m.sort_keys(keys) for m in TWINS], "sort_keys", data)


def _pack(keys: list[tuple[int, int]]) -> bytes:
    """Keys as key bytes: two native 64-bit words a key."""
    from array import array

    return array("q", [word for key in keys for word in key]).tobytes()


def arrow_cells(data: bytes) -> None:
    """``feed_cells`` on cells cut from the input at NUL bytes, dealt round-robin into
    1 to 4 columns (loc, lastmod, changefreq, priority) of 64-bit offsets and values:
    both twins give the same statuses, rows, shard states and keys, or the same error.
    Knob bits: 1-2 the column count - 1, 4 keyed, 8 a small shard, 16 the loc made
    absolute, 32-64 one offset bent (past the end, backwards, negative), 128 a row more
    than the offsets hold (refused before any row is read)."""
    from array import array

    knob, body = _knobs(data)
    width = 1 + (knob & 3)
    pieces = body.split(b"\0")
    rows = len(pieces) // width
    cells: list[object] = []
    for k in range(width):
        values = pieces[k::width][:rows]
        if k == 0 and knob & 16:
            values = [BASE.encode() + v for v in values]
        ends = array("q", [0])
        for value in values:
            ends.append(ends[-1] + len(value))
        bend = (knob >> 5) & 3
        if bend and k == 0 and len(ends) > 1:
            ends[len(ends) // 2] = (ends[-1] + 1, -1, -5)[bend - 1]
        cells.append((ends.tobytes(), b"".join(values), 0))
    traces = [drive_cells(m, tuple(cells + [None] * (4 - width)), rows + (knob >> 7),
                          2 if knob & 8 else 50_000, bool(knob & 4)) for m in TWINS]
    _same(traces, "feed_cells", data)


def _repeats(m: ModuleType, arrays: list[bytes], lo: int | None,
             hi: int | None) -> object:
    try:
        return m.repeats(arrays, lo, hi)
    except ValueError as exc:
        return ("ValueError", str(exc))


def key_repeats(data: bytes) -> None:
    """``repeats`` (the driver's step across partitions) on 16-byte keys cut from the
    input, dealt round-robin into 1 to 8 partitions: both twins name the same repeats,
    or refuse alike. Knob bits: 1-4 the partition count - 1, 8 keys left as they came
    (mostly refused: not ascending), 16-64 first words narrowed to a range 2^(4n) wide
    and second words to 4 values (0: the whole 64 bits each), so repeats, and keys
    that share only a first word, crowd together and slices of the key range shrink,
    128 only the keys from the first key's first word to the second's (a thread's
    share of the step)."""
    from array import array

    knob, body = _knobs(data)
    parts, raw, narrow = 1 + (knob & 7), bool(knob & 8), (knob >> 4) & 7
    words = array("q", body[:len(body) // 16 * 16])
    keys = list(zip(words[::2], words[1::2], strict=True))
    if narrow:
        keys = [(a & ((1 << (4 * narrow)) - 1), b & 3) for a, b in keys]
    lo = hi = None
    if knob & 128 and len(keys) >= 2:
        lo, hi = keys.pop(0)[0], keys.pop(0)[0]
    arrays = [keys[i::parts] if raw else sorted(set(keys[i::parts])) for i in range(parts)]
    _same([_repeats(m, [_pack(a) for a in arrays], lo, hi) for m in TWINS], "repeats", data)


HARNESSES: dict[str, Callable[[bytes], None]] = {
    "scan": scan, "scan_gzip": scan_gzip,
    **{f"lines_{fmt}": _lines(fmt) for fmt in ("text", "csv", "tsv", "jsonl")},
    "json_string": json_string, "table_quoting": table_quoting, "lastmod": lastmod,
    "loc": loc, "crc32_lines": crc32_lines,
    "heads": heads, "shard_edits": shard_edits, "arrow_cells": arrow_cells,
    "key_repeats": key_repeats,
}
