"""Arrow columns into the writer (``sources.arrowcols``): the hot unit reads each row
where Arrow keeps it (``feed_cells``: 64-bit offsets and values), and the rows it leaves
come from the columns as Python values. Hypothesis writes random tables (quotes, tabs
and line breaks in values, nulls and empty cells, bad rows, slices with offsets, small
chunks), and for both twins the shard bytes, duplicates, skips and errors equal those
of the same rows handed over as Python entries; ``feed_cells`` itself gives the same
statuses, rows, shard states and keys in both twins, and both refuse offsets that
point outside their buffers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from twin_drivers import drive_cells, outcome, shards_and_counts

from sitemapkit import UrlEntry
from sitemapkit.errors import ConfigError
from sitemapkit.sources.inputs import arrowcols
from sitemapkit.sources.inputs.arrowcols import ArrowSource
from sitemapkit.write.partition import partition_keys
from test_line_reader import CHANGEFREQS, LASTMODS, LOCS

pa = pytest.importorskip("pyarrow", reason="the test extra installs pyarrow (dask needs it)")

BASE = "https://example.com/"
PRIORITIES = [None, "", "0.5", "0.50", "1.0", "1", ".5", "0.123", "2", "x"]
row = st.tuples(st.sampled_from(LOCS), st.sampled_from(LASTMODS),
                st.sampled_from(CHANGEFREQS), st.sampled_from(PRIORITIES))


def as_entries(rows: list[tuple], columns: list[str]) -> list[UrlEntry]:
    """The reference: the same rows as Python entries (an empty cell is absent)."""
    out = []
    for values in rows:
        cells = dict(zip(("loc", "lastmod", "changefreq", "priority"), values, strict=True))
        fields = [cells[c] if c in columns and cells[c] != "" else None
                  for c in ("loc", "lastmod", "changefreq", "priority")]
        out.append(UrlEntry(*fields))
    return out


def as_table(rows: list[tuple], columns: list[str], skip_first: int) -> object:
    """A table whose batches are slices (offsets not at 0) of a longer array."""
    data = {name: [None] * skip_first + [r[i] for r in rows] for i, name in
            enumerate(("loc", "lastmod", "changefreq", "priority")) if name in columns}
    return pa.table({name: pa.array(values, pa.string()) for name, values in data.items()})\
        .slice(skip_first)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rows=st.lists(row, max_size=30),
       columns=st.sampled_from([["loc"], ["loc", "lastmod"], ["loc", "priority"],
                                ["loc", "lastmod", "changefreq", "priority"]]),
       skip=st.booleans(), chunk=st.sampled_from([1, 3, 7, 1 << 16]),
       skip_first=st.integers(0, 3))
def test_arrow_rows_write_as_the_same_python_entries_do(both_impls, monkeypatch, rows,
                                                        columns, skip, chunk, skip_first):
    monkeypatch.setattr(arrowcols, "CHUNK_ROWS", chunk)
    mode = "skip" if skip else "error"
    for impl in both_impls:
        module = impl.module
        expected = outcome(lambda m=module: shards_and_counts(as_entries(rows, columns), m,
                                                              mode))
        got = outcome(lambda m=module: shards_and_counts(
            ArrowSource(as_table(rows, columns, skip_first)), m, mode))
        assert got == expected, (impl, rows)


def test_plain_rows_take_the_byte_path(impl, tmp_path, monkeypatch):
    """No row of a plain table is parsed in Python (the fast path reads them all)."""
    parsed = []
    original = ArrowSource.parse
    monkeypatch.setattr(ArrowSource, "parse", lambda self, s, e: parsed.append(s) or
                        original(self, s, e))
    table = pa.table({"loc": [f"{BASE}p/{i}" for i in range(5000)],
                      "lastmod": ["2024-05-01"] * 5000})
    result = impl.write(table, tmp_path, BASE)
    assert (result.url_count, parsed) == (5000, [])


def test_times_numbers_and_dictionaries_are_read_as_their_text(impl, tmp_path):
    when = datetime(2024, 3, 4, 5, 6, 7, tzinfo=timezone(timedelta(hours=2)))
    table = pa.table({
        "loc": pa.array([f"{BASE}a", f"{BASE}b"]).dictionary_encode(),
        "lastmod": pa.array([when, None], pa.timestamp("us", "Europe/Berlin")),
        "priority": pa.array([0.25, float("nan")], from_pandas=True)})
    impl.write(table, tmp_path, BASE)
    text = (tmp_path / "sitemap.xml").read_text()
    assert "<lastmod>2024-03-04T03:06:07+00:00</lastmod><priority>0.25</priority>" in text
    assert f"<url><loc>{BASE}b</loc></url>" in text
    naive = pa.table({"loc": [f"{BASE}a"], "lastmod": pa.array([datetime(2024, 1, 1)])})
    with pytest.raises(ConfigError, match="without a UTC offset"):
        impl.write(naive, tmp_path / "n", BASE)
    with pytest.raises(ConfigError, match="no 'loc' column"):
        impl.write(pa.table({"url": [f"{BASE}a"]}), tmp_path / "m", BASE)


def test_a_bad_row_is_named_by_its_position(impl, tmp_path):
    table = pa.table({"loc": [f"{BASE}ok", f"{BASE}ok2", "ftp://example.com/x"]})
    with pytest.raises(Exception, match=r"entry 3: loc 'ftp://example.com/x' breaks rule"):
        impl.write(table, tmp_path, BASE)
    assert not (tmp_path / "sitemap.xml").exists()


def test_keys_from_arrow_equal_keys_from_entries():
    """The engines' first pass reads Arrow; it must name the URLs the write leaves out."""
    locs = [f"{BASE}k/{i}" for i in range(3000)] + [f"HTTPS://EXAMPLE.com/k/{i}"
                                                    for i in range(0, 3000, 7)]
    from_arrow = partition_keys(pa.table({"loc": locs}), BASE, 0)
    assert from_arrow == partition_keys(locs, BASE, 0)
    assert len(from_arrow) == 16 * 3000


def raw_cells(columns: list[list[bytes]], base: int = 0) -> tuple[object, ...]:
    """loc, lastmod, changefreq, priority columns as feed_cells takes them: 64-bit
    offsets (``base`` unused ones first) and the values, in plain bytes."""
    from array import array

    out: list[object] = []
    for values in columns:
        if not values:
            out.append(None)
            continue
        ends = array("q", [0] * base)
        at = 0
        for value in values:
            ends.append(at)
            at += len(value)
        ends.append(at)
        out.append((ends.tobytes(), b"".join(values), base))
    return tuple(out + [None] * (4 - len(out)))


cell = st.sampled_from([b"", b" ", b"a\tb", b"\n", b'"', b"\xc3\xbc", b"\xff", b"x" * 3])


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from([p.encode() for p in
                                                 ["p/1", "p/2", "p/1", "q?a=1&b=2", "ü", ""]])
                               | cell, st.sampled_from([v.encode() for v in LASTMODS if v])
                               | cell, st.sampled_from([b"daily", b"never"]) | cell,
                               st.sampled_from([b"0.5", b"1.0"]) | cell), max_size=25),
       width=st.integers(1, 4), base=st.integers(0, 2), max_urls=st.integers(1, 6),
       keyed=st.booleans(), record=st.booleans())
def test_feed_cells_twins_agree_row_by_row(both_impls, rows, width, base, max_urls, keyed,
                                           record):
    """Every status, row, shard state and key of feed_cells alike in both twins, on
    cells with padding, tabs, line ends, quotes, non-ASCII and invalid UTF-8."""
    columns = [[BASE.encode() + r[0] if k == 0 and r[0][:1].isalpha() else r[k]
                for r in rows] for k in range(width)]
    cells = raw_cells(columns, base) if rows else (None,) * 4
    traces = [drive_cells(impl.module, cells, len(rows), max_urls, keyed, record)
              for impl in both_impls]
    assert traces[0] == traces[-1]


@pytest.mark.parametrize(("ends", "rows", "message"), [
    ([0, 5, 99], 2, "offsets outside the values"),  # past the values' end
    ([0, 5, 3], 2, "offsets outside the values"),   # going backwards
    ([-1, 5], 1, "offsets outside the values"),
    ([0, 5], 2, "more rows than offsets"),
    (b"\0" * 12, 1, "offsets are 64-bit integers"),
])
def test_feed_cells_refuses_offsets_outside_its_buffers(both_impls, ends, rows, message):
    from array import array

    values = (BASE + "p/1x").encode()[:10]
    raw = ends if isinstance(ends, bytes) else array("q", ends).tobytes()
    cells = ((raw, values, 0), None, None, None)
    for impl in both_impls:
        trace = drive_cells(impl.module, cells, rows)
        assert trace[-1] == ("ValueError", f"feed_cells: {message}"), impl
