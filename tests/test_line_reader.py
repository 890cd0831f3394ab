"""The byte-level line reader (``feed_lines`` in both twins + ``sources.lines``) against
the reference: the Python ``Reader`` over a text stream. Hypothesis writes whole input
files (random rows, quoting, a BOM, CRLF, blank lines, padding, JSON escapes, bad rows
at random positions), and for every format, both twins and small or large blocks the
shard bytes, the skips and the errors (message and input line) are the same."""

from __future__ import annotations

import io
import json
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from twin_drivers import drive_lines, outcome, shards_and_counts, via_lines

from sitemapkit._compat import quick_handoffs
from sitemapkit._urlset import _urlset_py
from sitemapkit.errors import InputError, SitemapkitError
from sitemapkit.sources.inputs.lines import LineReader
from sitemapkit.sources.inputs.readers import Reader
from sitemapkit.write import shard_bytes

BASE = "https://example.com/"
LOCS = [f"{BASE}p/1", f"{BASE}esc\\/aped", f"{BASE}\U0001F600/emoji", f"{BASE}nul\x00",
        f"{BASE}a?x=1&y=2", f"{BASE}o'neil", f"{BASE}über/straße",
        f"{BASE}sp ace", f"{BASE}%7Efine", f"{BASE}%zz", "https://other.example/x",
        f"{BASE}a,b", f"{BASE}{'x' * 30}", "HTTPS://EXAMPLE.com/Up", f"{BASE}q#frag",
        f"{BASE}./dot", "", "not a url", f'{BASE}"quoted"', f"{BASE}tab\there",
        f"{BASE}two\nlines"]
LASTMODS = [None, "", "2024-05-01", "2024-05-01T10:20:30+02:00", "2024-05-01T10:20:30Z",
            "2024-13-01", "2099-01-01", " 2024-05-02", "2024-5-1"]
CHANGEFREQS = [None, "", "daily", "Weekly", "never", "sometimes"]
PRIORITIES = [None, "", "0.5", "0.50", "1.0", "1", ".5", "0.123", 0.5, 1, 0, 0.25, -0.0, 2]
row = st.tuples(st.sampled_from(LOCS), st.sampled_from(LASTMODS),
                st.sampled_from(CHANGEFREQS), st.sampled_from(PRIORITIES),
                st.sampled_from(["", "", "", " ", "\t"]))  # padding


def _cell(value: object, sep: str) -> str:
    text = "" if value is None else str(value)
    if sep in text or '"' in text or "\n" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


def render(fmt: str, rows: list, columns: list[str], crlf: bool, bom: bool,
           blanks: list[int], escape_json: bool) -> bytes:
    end = "\r\n" if crlf else "\n"
    out: list[str] = []
    sep = "\t" if fmt == "tsv" else ","
    if fmt in ("csv", "tsv"):
        out.append(sep.join(columns))
    for number, (loc, lastmod, changefreq, priority, pad) in enumerate(rows):
        values = {"loc": loc, "lastmod": lastmod, "changefreq": changefreq,
                  "priority": priority}
        if fmt == "text":
            out.append(pad + loc + pad)
        elif fmt == "jsonl":
            if number % 5 == 4:
                out.append(json.dumps(loc, ensure_ascii=escape_json))
            else:
                obj = {k: v for k, v in values.items() if k in columns}
                out.append(pad + json.dumps(obj, ensure_ascii=escape_json))
        else:
            out.append(sep.join(_cell((pad + values[c] + pad) if c == "loc"
                                      else values[c], sep) for c in columns))
        if number in blanks:
            out.append("" if number % 2 else "   ")
    text = end.join(out) + (end if rows and len(rows) % 3 else "")
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")


def via_reader(data: bytes, fmt: str, impl, skip: bool):
    reader = Reader(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=""), fmt)
    got = outcome(lambda: shards_and_counts(reader, impl, _mode(skip)))
    return got, reader.line if got[0] != "ok" else None


def _mode(skip: bool) -> str:
    return "skip" if skip else "error"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fmt=st.sampled_from(["text", "csv", "tsv", "jsonl"]),
       rows=st.lists(row, max_size=25),
       columns=st.permutations(["loc", "lastmod", "changefreq", "priority"]).flatmap(
           lambda cols: st.integers(1, 4).map(lambda n: sorted(cols[:n], key=lambda c: c != "loc")
                                              if "loc" in cols[:n] else ["loc", *cols[:n - 1]])),
       crlf=st.booleans(), bom=st.booleans(), escape_json=st.booleans(),
       blanks=st.lists(st.integers(0, 25), max_size=3), skip=st.booleans(),
       block=st.sampled_from([7, 64, 1 << 20]))
def test_line_reader_matches_the_reference_reader(both_impls, fmt, rows, columns, crlf, bom,
                                                   escape_json, blanks, skip, block):
    data = render(fmt, rows, columns, crlf, bom, blanks, escape_json)
    expected, line = via_reader(data, fmt, _urlset_py, skip)
    for impl in both_impls:
        got, got_line = via_lines(data, fmt, impl.module, _mode(skip), block)
        assert got == expected, (impl, data)
        assert got_line == line, (impl, data)


def test_plain_rows_take_the_byte_path_in_both_twins(both_impls):
    """No Python entry for a plain row: the line reader answers ADDED for all of them."""
    data = "".join(f"{BASE}p/{i}\t2024-05-0{1 + i % 9}\tdaily\t0.5\n" for i in range(500))
    for impl in both_impls:
        m = impl.module
        buf = m.UrlsetBuffer(BASE, 50_000, 10_485_760, m.LocSet(), 2**40)
        status = buf.feed_lines(data.encode(), 0, 1, 9, (0, 1, 2, 3), 4)
        assert status == (m.EXHAUSTED, len(data), len(data)) and buf.count == 500


@pytest.mark.parametrize("line, slow", [
    (b'{"loc": "https://example.com/a", "priority": 0.5}', False),
    (b'"https://example.com/a"', False),
    (b'{"loc": "https://example.com/a\\u00fc\\/b"}', False),  # escapes decoded in C too
    (b'{"loc": "https://example.com/a\\x"}', True),          # not JSON: json says so
    (b'{"lo\\u0063": "https://example.com/a"}', True),       # an escaped key
    (b'{"loc": "https://example.com/a", "loc": "https://example.com/b"}', True),
    (b'{"loc": "https://example.com/a", "title": "x"}', True),
    (b'{"loc": "https://example.com/a", "priority": 1e-1}', True),
    (b'{"loc": "https://example.com/a", "lastmod": null}', False),
    (b'{"loc": "https://example.com/a",}', True),
])
def test_json_lines_the_byte_path_takes(both_impls, line, slow):
    for impl in both_impls:
        m = impl.module
        buf = m.UrlsetBuffer(BASE, 50_000, 10_485_760, m.LocSet(), 2**40)
        status = buf.feed_lines(line + b"\n", 0, 2, 0, (0, -1, -1, -1), 1)[0]
        assert (status == m.SLOW) is slow, (impl, line)


@pytest.mark.parametrize("at", range(19))
@pytest.mark.parametrize("inner, plain", [
    (b"\\/", True), (b'\\"', False), (b"\\\\", False), (b"\x01", False),
    (b"\t", False), (b"\x1f", False), (b"\xc3\xbc", True), (b"\x7f", False), (b"", True),
])
def test_a_json_string_is_read_whatever_its_bytes_alignment(both_impls, at, inner, plain):
    """The C twin reads a string body 8 bytes at a time: a backslash, an escaped quote,
    a control character or a UTF-8 byte at every offset gives the pure twin's answer."""
    body = b"x" * at + inner + b"/tail-of-the-path"
    line = b'{"loc": "https://example.com/' + body + b'", "lastmod": "2024-05-01"}\n'
    seen = []
    for impl in both_impls:
        m = impl.module
        buf = m.UrlsetBuffer(BASE, 50_000, 10_485_760, m.LocSet(), 2**40)
        status = buf.feed_lines(line, 0, 2, 0, (0, -1, -1, -1), 1)
        seen.append((status[0] == m.EXHAUSTED, status[1:], buf.count, buf.getvalue()))
        if plain:  # one URL written from the bytes, its escapes decoded
            assert status[0] == m.EXHAUSTED and buf.count == 1, (impl, line)
    assert seen[0] == seen[-1], line


def test_quoted_field_over_block_boundaries_and_line_numbers():
    """A quoted field spanning lines and blocks; errors name the line a row starts on."""
    data = (f'loc,lastmod\r\n"{BASE}a,b",2024-01-01\r\n"{BASE}multi\nline",2024-01-01\r\n'
            f"{BASE}ok,2024-01-02\r\n{BASE}bad,2024-99-01\r\n").encode()
    for block in (16, 1 << 20):
        reader = LineReader(io.BytesIO(data), "csv", block_size=block)
        with pytest.raises(SitemapkitError, match="loc-control-char"):
            shard_bytes(reader, BASE)
        assert reader.line == 3
        skipped = shard_bytes(LineReader(io.BytesIO(data), "csv", block_size=block), BASE,
                              on_invalid="skip")
        assert skipped[0].count(b"<url>") == 2
        plain = data.replace(b"multi\nline", b"multi")
        reader = LineReader(io.BytesIO(plain), "csv", block_size=block)
        with pytest.raises(SitemapkitError, match="lastmod '2024-99-01'"):
            shard_bytes(reader, BASE)
        assert reader.line == 5


def test_long_line_without_newline_is_named():
    reader = LineReader(io.BytesIO(b"x" * 200_000), "text", block_size=1024)
    with pytest.raises(InputError, match="line 1 is 66,560 characters long"):
        shard_bytes(reader, BASE)


def test_a_lone_carriage_return_is_data_not_a_line_end():
    """Lines end at LF or CRLF. A lone CR (the reference's text stream also splits there)
    stays in the line and is refused as a control character, naming its line."""
    data = f"{BASE}a\n{BASE}b\rc\n".encode()
    reader = LineReader(io.BytesIO(data), "text")
    with pytest.raises(SitemapkitError, match=r"loc-control-char.*U\+000D"):
        shard_bytes(reader, BASE)
    assert reader.line == 2


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=64).flatmap(
    lambda unit: st.integers(0, 300).map(lambda times: unit * times)) | st.binary(max_size=5000))
def test_count_lines_in_both_twins(both_impls, data):
    """The C twin counts 8 bytes at a time in 255-word rounds; every length and byte
    (0x0A among 0x8A, 0x0B, 0xFF ...) counts as ``bytes.count`` does."""
    for impl in both_impls:
        assert impl.module.count_lines(data) == data.count(b"\n"), impl


def test_count_lines_past_a_round_of_all_line_ends(both_impls):
    for impl in both_impls:
        for n in (2039, 2040, 2041, 8 * 255 * 3 + 5):
            assert impl.module.count_lines(b"\n" * n) == n, (impl, n)


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 6) | st.none(), st.sampled_from(
    ["2024-05-01", "2024-06-01", "2023-01-01", "2024-13-01", ""]), st.sampled_from(
    ["\n", "\r\n"])), max_size=30), cuts=st.lists(st.integers(0, 30), max_size=3),
       max_urls=st.integers(1, 8), record=st.booleans(), keyed=st.booleans())
def test_a_repeat_leaves_no_trace_in_either_twin(both_impls, rows, cuts, max_urls, record,
                                                 keyed):
    """feed_lines as the writer drives it, with repeats (next to each other, across blank
    lines and blocks), bad rows and full shards: every status, position and shard state
    (bytes, counts, newest lastmod, change record, and the URLs' keys when keyed) is the
    same in both twins. The C twin checks a row for a repeat only once the next row is
    hashed (the row is taken back out if it repeats): the reference checks at once."""
    lines = [(f"{BASE}p/{n}{'&q' * (n == 6)}\t{lastmod}" if n is not None else "") + end
             for n, lastmod, end in rows]
    bounds = sorted({0, len(lines), *(c for c in cuts if c <= len(lines))})
    blocks = ["".join(lines[a:b]).encode()
              for a, b in zip(bounds, bounds[1:], strict=False)] or [b""]
    traces = [drive_lines(impl.module, blocks, max_urls=max_urls, record=record, keyed=keyed)
              for impl in both_impls]
    assert traces[0] == traces[-1]


@pytest.mark.parametrize("sep", [b"\t", b","])
@pytest.mark.parametrize("line, slow", [
    (b'"https://example.com/a"S"2024-05-01"', False),              # every cell quoted
    (b'"https://example.com/a""b"S2024-05-01', False),             # a doubled quote inside
    (b'"https://example.com/aSb"S2024-05-01', "tsv"),  # the separator inside (a tab: the rules')
    (b'""""S2024-05-01', True),                                    # loc '"': csv's answer
    (b'https://example.com/aS""', False),                          # a quoted empty cell
    (b'"https://example.com/a" S2024-05-01', True),                # text after the quote
    (b'"https://example.com/a"x"S2024-05-01', True),
    (b'https://example.com/a"bS2024-05-01', True),                 # a quote in a bare cell
    (b' "https://example.com/a"S2024-05-01', True),                # quote after a space
    (b'"https://example.com/aS2024-05-01', True),                  # runs on to the next line
    (b'"https://example.com/a"S"2024-05-01"S', True),              # a third cell
    (b'" https://example.com/a"S2024-05-01', True),                # padding inside quotes
    (b'"https://example.com/a\xc2\xa0"S2024-05-01', True),         # a wide space strip() takes
    (b'"https://example.com/\xc3\xbc"S2024-05-01', False),         # non-ASCII loc: fine
    (b'https://example.com/aS"2024-05-01\xc2\xa0"', True),         # non-ASCII date: Python's
])
def test_table_lines_the_byte_path_takes(both_impls, sep, line, slow):
    """Quoting as csv reads it on one line takes the byte path; any other quote, and
    anything strip() would change, is left to the csv reader."""
    line = line.replace(b"S", sep)
    slow = slow is True or (slow == "tsv" and sep == b"\t")
    for impl in both_impls:
        m = impl.module
        buf = m.UrlsetBuffer(BASE, 50_000, 10_485_760, m.LocSet(), 2**40)
        status = buf.feed_lines(line + b"\n", 0, 1, sep[0], (0, 1, -1, -1), 2)[0]
        assert (status == m.SLOW) is slow, (impl, line)


CELL_TEXT = st.text(st.sampled_from(['"', ",", "\t", " ", "a", "/", "\u00a0", "\u2003", "ü",
                                     "\r", "\x0b", "1", "-"]), max_size=8)


@settings(max_examples=500, deadline=None)
@given(cells=st.lists(st.tuples(CELL_TEXT, st.booleans()), min_size=1, max_size=4),
       sep=st.sampled_from(["\t", ","]), width=st.integers(1, 4))
def test_quoted_cells_are_what_csv_reads(both_impls, cells, sep, width):
    """Any row of bare and quoted cells: where the reference's split takes the line, its
    cells are csv.reader's, stripped as the reader strips them; the C twin decides the
    same and writes the same."""
    import csv

    from sitemapkit._urlset import _rows_py
    text = sep.join('"' + c.replace('"', '""') + '"' if quoted else c for c, quoted in cells)
    line = (BASE + "x" + text).encode() if not cells[0][1] else text.encode()
    columns = tuple(range(width)) + (-1,) * (4 - width)
    got = _rows_py.split_line(line, _rows_py.TABLE, ord(sep), columns[:4], width)
    try:
        (row,) = list(csv.reader([line.decode()], delimiter=sep))
    except csv.Error:  # a bare \r: a control character, which the offer leaves to csv
        assert b"\r" in line, line
        row = None
    if got is not None and row is not None:
        assert len(row) == width
        expected = [cell.strip() or None for cell in row]
        assert [None if v is None else v.decode() for v in got[:width]] == expected, line
    traces = [drive_lines(impl.module, line + b"\n", _rows_py.TABLE, ord(sep), columns[:4],
                          width) for impl in both_impls]
    assert all(t == traces[0] for t in traces), (line, traces)


def test_wide_spaces_are_every_space_strip_removes():
    """The spaces above 0x7F a loc may not start or end with on the byte path are
    exactly the ones str.strip() removes, and the C twin's table holds the same."""
    from sitemapkit._urlset import _rows_py, _urlset_c
    every = tuple(chr(c).encode() for c in range(0x80, 0x110000) if chr(c).strip() == "")
    assert _rows_py.WIDE_SPACES == every
    assert _urlset_c._wide_spaces() == every


@pytest.mark.parametrize("fmt", ["text", "tsv", "csv"])
@pytest.mark.parametrize("space", ["\u00a0", "\u2003", "\u3000", "\x85"])
def test_a_loc_padded_with_a_wide_space_is_stripped_as_the_reader_strips_it(both_impls, fmt,
                                                                           space):
    """The reader strips a loc's Unicode spaces; the byte path once kept them, percent-
    encoded (https://example.com/a%C2%A0 where the reader gives https://example.com/a)."""
    sep = {"text": "", "tsv": "\t", "csv": ","}[fmt]
    head = "" if fmt == "text" else f"loc{sep}lastmod\n"
    tail = "" if fmt == "text" else f"{sep}2024-05-01"
    data = f"{head}{space}{BASE}a{space}{tail}\n{BASE}b{space}{tail}\n".encode()
    expected, _ = via_reader(data, fmt, _urlset_py, False)
    assert b"/a</loc>" in expected[1][0][0] and b"%C2" not in expected[1][0][0]
    for impl in both_impls:
        got, _ = via_lines(data, fmt, impl.module, "error", 1 << 20)
        assert got == expected, impl


def test_reserve_keeps_every_key_and_answers_the_same(both_impls):
    """Room made at once (before, between and after adds) changes no answer."""
    for impl in both_impls:
        seen = impl.module.LocSet()
        locs = [f"{BASE}p/{i}" for i in range(20_000)]
        assert all(seen.add(loc) for loc in locs[:5_000])
        seen.reserve(100_000)
        assert all(seen.add(loc) for loc in locs[5_000:])
        seen.reserve(10)  # smaller than what it holds: nothing moves
        assert not any(seen.add(loc) for loc in locs) and len(seen) == 20_000


@pytest.mark.parametrize("kind", ["plain", "tagged", "values"])
def test_reserve_then_outgrown_keeps_every_answer(both_impls, kind):
    """Room made for 300,000 URLs at once, then 340,000 added: the segments outgrow the
    room and regrow one by one. Every key, tag and value stays, in both twins."""
    n = 340_000
    locs = [f"{BASE}p/{i}" for i in range(n)]
    for impl in both_impls:
        seen = impl.module.LocSet(tagged=kind == "tagged", values=kind == "values")
        seen.reserve(300_000)
        for i, loc in enumerate(locs):
            if kind == "values":
                seen.put(loc, i)
            else:
                assert seen.first(loc, i % 7) == -1, (impl, i)
        assert len(seen) == n
        for i in range(0, n, 97):
            if kind == "values":
                assert seen.get(locs[i]) == i, (impl, i)
            else:
                assert seen.first(locs[i], 0) == (i % 7 if kind == "tagged" else 0), (impl, i)
        assert f"{BASE}p/new" not in seen


def test_the_reader_expects_rows_from_a_plain_files_size(tmp_path):
    """A plain file's size over the first block's bytes per line; nothing for a gzip
    stream or a pipe, whose size does not say."""
    import gzip
    import os
    data = "".join(f"{BASE}p/{i}\n" for i in range(10_000)).encode()
    (tmp_path / "u.txt").write_bytes(data)
    (tmp_path / "u.txt.gz").write_bytes(gzip.compress(data))
    with open(tmp_path / "u.txt", "rb") as raw:
        reader = LineReader(raw, "text", block_size=4096)
        next(reader.blocks())
        assert 9_000 <= reader.expected_rows() <= 11_000
    with gzip.open(tmp_path / "u.txt.gz", "rb") as raw:
        reader = LineReader(raw, "text", block_size=4096)
        next(reader.blocks())
        assert reader.expected_rows() is None
    read, write = os.pipe()
    os.write(write, data[:4096])
    os.close(write)
    with os.fdopen(read, "rb") as raw:
        reader = LineReader(raw, "text", block_size=4096)
        next(reader.blocks())
        assert reader.expected_rows() is None


def test_arrow_data_expects_the_rows_it_holds():
    """A table or batch knows its rows before they are read; a stream does not."""
    import pyarrow as pa

    from sitemapkit.sources.inputs.arrowcols import ArrowSource
    table = pa.table({"loc": [f"{BASE}p/{i}" for i in range(1_234)]})
    assert ArrowSource(table).expected_rows() == 1_234
    assert ArrowSource(table.to_batches()[0]).expected_rows() == 1_234
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    assert ArrowSource(reader).expected_rows() is None


def test_a_waiting_thread_gets_in_during_one_long_row_loop(impl):
    """A gzip worker that wants the GIL gets it inside one feed_lines call (the C loop
    hands it over every few hundred rows once asked), not only when the call returns:
    another thread sees the row count strictly inside a call's range. Without the
    hand-off it never can (the count only moves while the call holds the GIL)."""
    m = impl.module
    shard = 50_000
    data = "loc\tlastmod\n" + "".join(f"{BASE}{i}\t2024-01-01\n" for i in range(20 * shard))
    reader = LineReader(io.BytesIO(data.encode()), "tsv", block_size=len(data) + 1)
    buf = m.UrlsetBuffer(BASE, shard, 10_485_760, m.LocSet(), 2**40, False)
    window, seen = [0, 0], []
    running, done = threading.Event(), threading.Event()

    def watch() -> None:
        running.set()
        while not done.is_set():
            low, high, now = window[0], window[1], buf.consumed
            if low < now < high:
                seen.append(now)
                return

    watcher = threading.Thread(target=watch)
    with quick_handoffs():
        watcher.start()
        running.wait()
        try:
            pos = next(reader.blocks())
            while not seen:
                window[:] = [buf.consumed, buf.consumed + shard]
                status, start, _ = reader.feed(buf, pos)
                assert buf.consumed == window[1] or status == m.EXHAUSTED, status
                if status == m.EXHAUSTED:
                    break
                buf.reset()
                pos = start
        finally:
            done.set()
            watcher.join()
    assert seen, "no other thread ran inside a row loop of 50,000 rows, 20 times over"
