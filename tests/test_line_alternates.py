"""JSON Lines rows with ``alternates`` on the byte path: the rules check a cluster's
alternates once (the row answered SLOW), the hot unit remembers their input bytes, and
the cluster's other rows with the same bytes are added straight from the line.

The reference is the Python ``Reader`` feeding entries as objects, which never takes
that path: shards, duplicates, skips, errors with their input lines, and the cluster
check's verdict must be the same for both twins and any block size."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit._urlset import _urlset_py
from sitemapkit.errors import SitemapkitError
from sitemapkit.rules.urls import normalize_loc
from sitemapkit.sources.inputs.lines import LineReader
from sitemapkit.sources.inputs.readers import Reader
from sitemapkit.write.options import resolve
from sitemapkit.write.stream import MemoryShards

BASE = "https://example.com/"
JSONL = (2, 0, (0, -1, -1, -1), 1)  # feed_lines' layout arguments for JSON Lines
HREFS = [f"{BASE}en/1", f"{BASE}de/1", f"{BASE}fr/1", f"{BASE}en/2", f"{BASE}de/2",
         f"{BASE}über/1", f"{BASE}sp ace", "https://other.example/x", "ftp://example.com/f",
         f"{BASE}en/1?q=a&b=c"]
LANGS = ["en", "de", "fr", "x-default", "EN", "de-AT", "not a lang"]
LASTMODS = [None, "2024-05-01", "2024-05-01T10:20:30Z", "2099-01-01", "2024-5-1"]
STYLES = ["plain", "compact", "ascii", "null", "twice", "first", "objects", "spaced"]


def line_for(loc: str, lastmod: str | None, pairs: list[list[str]], style: str) -> str:
    """One input line: the same entry written the ways exporters write it."""
    fields: dict[str, object] = {"loc": loc}
    if lastmod is not None:
        fields["lastmod"] = lastmod
    if style == "null":
        return json.dumps({**fields, "alternates": None}, ensure_ascii=False)
    if style == "objects":
        return json.dumps({**fields, "alternates": [{"hreflang": lang, "href": href}
                                                     for lang, href in pairs]})
    if style == "first":
        return json.dumps({"alternates": pairs, **fields}, ensure_ascii=False)
    if style == "twice":  # json keeps the last value; the byte path must not remember either
        head = json.dumps(fields, ensure_ascii=False)[:-1]
        return f'{head}, "alternates": {json.dumps(pairs[:1])}, "alternates": {json.dumps(pairs)}}}'
    if style == "spaced":
        head = json.dumps(fields, ensure_ascii=False)[:-1]
        inner = " ,  ".join(f'[ "{lang}" ,"{href}" ]' for lang, href in pairs)
        return f'{head}, "alternates":\t[ {inner} ]}}'
    separators = (",", ":") if style == "compact" else (", ", ": ")
    return json.dumps({**fields, "alternates": pairs}, ensure_ascii=style == "ascii",
                      separators=separators)


def outcome(entries, impl, skip: bool, max_urls: int, fmt: str = "xml") -> tuple:
    opts, prefix = resolve(None, {"on_invalid": "skip" if skip else "error",
                                  "max_urls": max_urls, "format": fmt}, BASE)
    run = MemoryShards(prefix, opts, impl)
    try:
        run.stream(entries)
    except SitemapkitError as exc:
        return ("error", str(exc))
    r = run.result
    # a repeat is named as its line gives it on the byte path, as the rules give it
    # (percent-encoded) on the object path: plain rows have always done the same
    repeats = [(at, normalize_loc(loc, BASE)) for at, loc in r.duplicates]
    return ("ok", run.data, r.duplicate_count, repeats, r.skipped_count,
            [str(e) for e in r.skipped], run.settled_clusters().missing_members(),
            run.buf.unused_fields)


cluster = st.lists(st.tuples(st.sampled_from(LANGS), st.sampled_from(HREFS)), min_size=1,
                   max_size=4)
row = st.tuples(st.integers(0, 3), st.integers(-1, 3), st.sampled_from(LASTMODS),
                st.sampled_from(STYLES))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters=st.lists(cluster, min_size=1, max_size=4), rows=st.lists(row, max_size=24),
       skip=st.booleans(), max_urls=st.sampled_from([2, 5, 50_000]),
       block=st.sampled_from([7, 200, 1 << 20]), fmt=st.sampled_from(["xml", "xml", "text"]))
def test_rows_with_alternates_match_the_reference_reader(both_impls, clusters, rows, skip,
                                                         max_urls, block, fmt):
    lines = []
    for which, member, lastmod, style in rows:
        pairs = [list(p) for p in clusters[which % len(clusters)]]
        loc = pairs[member % len(pairs)][1] if member >= 0 else f"{BASE}alone"
        lines.append(line_for(loc, lastmod, pairs, style))
    data = ("\n".join(lines) + "\n").encode("utf-8")
    reader = Reader(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=""), "jsonl")
    expected = outcome(reader, _urlset_py, skip, max_urls, fmt), reader.line
    for impl in both_impls:
        lines_reader = LineReader(io.BytesIO(data), "jsonl", block_size=block)
        got = outcome(lines_reader, impl.module, skip, max_urls, fmt), lines_reader.line
        assert got[0] == expected[0], (impl, data)
        if expected[0][0] == "error":
            assert got[1] == expected[1], (impl, data)


def _buffer(m, max_urls: int = 50_000, record: bool = False):
    return m.UrlsetBuffer(BASE, max_urls, 10_485_760, m.LocSet(), 2_000_000_000,  # 2033
                          False, record)


PAIRS = [["en", f"{BASE}en/1"], ["de", f"{BASE}de/1"], ["x-default", f"{BASE}en/1"]]
RAW = json.dumps(PAIRS).encode()
ALTS = tuple((lang, href) for lang, href in PAIRS)


def _line(loc: str, raw: bytes = RAW) -> bytes:
    return b'{"loc": "' + loc.encode() + b'", "alternates": ' + raw + b"}\n"


def test_remembered_alternates_take_the_byte_path_in_both_twins(both_impls):
    """The first row is SLOW and names its alternates' bytes; once remembered, the
    cluster's other rows are ADDED from bytes and reported as arrivals, once each."""
    for impl in both_impls:
        m = impl.module
        buf = _buffer(m, record=True)
        first = _line(f"{BASE}en/1")
        assert buf.feed_lines(first, 0, *JSONL)[0] == m.SLOW
        assert buf.slow_alternates == RAW
        buf.remember_alternates(buf.slow_alternates, ALTS)
        rest = _line(f"{BASE}de/1") + _line(f"{BASE}de/1")
        assert buf.feed_lines(rest, 0, *JSONL) == (m.DUPLICATE, len(rest) // 2, len(rest))
        assert buf.count == 1 and buf.take_arrivals() == [f"{BASE}de/1"]
        assert buf.pairs() == [(f"{BASE}de/1", "")]  # the change record hears of it too
        assert buf.take_arrivals() == []
        assert b'hreflang="x-default" href="https://example.com/en/1"/></url>' in buf.getvalue()
        assert buf.getvalue().startswith(m.HEAD_XHTML)


@pytest.mark.parametrize("line", [
    _line(f"{BASE}fr/1"),                                    # not one of its alternates
    _line(f"{BASE}de/1", RAW.replace(b", ", b",")),          # other bytes, same meaning
    _line(f"{BASE}de/1").replace(b"}\n", b', "lastmod": "2099-01-01"}\n'),  # the future
    _line(f"{BASE}de/1").replace(b"de/1", b"de/%7e1", 1),     # a loc the rules rewrite
])
def test_rows_the_remembered_cluster_leaves_to_the_rules(both_impls, line):
    for impl in both_impls:
        m = impl.module
        buf = _buffer(m)
        buf.remember_alternates(RAW, ALTS)
        assert buf.feed_lines(line, 0, *JSONL)[0] == m.SLOW, (impl, line)
        assert buf.take_arrivals() == [] and buf.count == 0


@pytest.mark.parametrize("line, raw", [
    (_line(f"{BASE}de/1"), RAW),
    (b'{"alternates": [["en","https://example.com/en/1"]], "loc": "ftp://x"}\n',
     b'[["en","https://example.com/en/1"]]'),
    (b'{"loc": "https://example.com/a", "alternates": []}\n', b"[]"),
    (b'{"loc": "https://example.com/a", "alternates": null}\n', None),  # added: absent
    (b'{"loc": "https://example.com/a", "alternates": [["en", "a\\/b"]]}\n', None),
    (b'{"loc": "https://example.com/a", "alternates": [[["en", "a"]]]}\n', None),
    (b'{"loc": "https://example.com/a", "alternates": [{"en": "a"}]}\n', None),
    (b'{"loc": "https://example.com/a", "alternates": [["en", 1]]}\n', None),
    (b'{"loc": "https://example.com/a", "alternates": [["en", "a"]]\n', None),
    (b'{"loc": "https://example.com/a", "alternates": "x"}\n', None),
    (b'{"loc": "https://example.com/a", "alternates": [], "alternates": []}\n', None),
    (b'{"loc": "https://example.com/a", "alternates": [["en", "a"]], "x": 1}\n', None),
    (b'{"loc": "https://example.com/\\u00fc", "alternates": [["en", "a"]]}\n',
     b'[["en", "a"]]'),
])
def test_which_alternates_bytes_a_slow_line_names(both_impls, line, raw):
    """Only a line read whole names its alternates: a key given twice, an escape or a
    value of another shape leaves nothing to remember."""
    for impl in both_impls:
        m = impl.module
        buf = _buffer(m)
        status = buf.feed_lines(line, 0, *JSONL)[0]
        if b"null" in line:
            assert status == m.EXHAUSTED and buf.count == 1
            continue
        assert status == m.SLOW and buf.slow_alternates == raw, (impl, line)


def test_what_the_buffer_will_not_remember(both_impls):
    many = tuple(("en" if i == 0 else f"x{i:02d}", f"{BASE}p/{i}") for i in range(65))
    for impl in both_impls:
        m = impl.module
        buf = _buffer(m)
        for raw, alts in [(RAW.decode(), ALTS), (RAW, list(ALTS)), (RAW, None)]:
            with pytest.raises(TypeError):
                buf.remember_alternates(raw, alts)  # type: ignore[arg-type]
        for raw, alts in [(None, ALTS), (RAW, ()), (RAW, many),
                          (RAW, (("en", f"{BASE}é"),))]:
            buf.remember_alternates(raw, alts)
            assert buf.feed_lines(_line(f"{BASE}de/1"), 0, *JSONL)[0] == m.SLOW, (impl, alts)
        buf.remember_alternates(RAW, many[:64])
        line = _line(f"{BASE}p/63")
        assert buf.feed_lines(line, 0, *JSONL)[0] == m.EXHAUSTED
        assert buf.take_arrivals() == [f"{BASE}p/63"]


def test_a_full_shard_is_not_an_arrival_until_the_row_is_added(both_impls):
    for impl in both_impls:
        m = impl.module
        buf = _buffer(m, max_urls=1)
        buf.remember_alternates(RAW, ALTS)
        data = _line(f"{BASE}en/1") + _line(f"{BASE}de/1")
        status, start, _ = buf.feed_lines(data, 0, *JSONL)
        assert status == m.FULL and buf.take_arrivals() == [f"{BASE}en/1"]
        buf.reset()  # a new shard: the remembered cluster carries on
        assert buf.feed_lines(data, start, *JSONL)[0] == m.EXHAUSTED
        assert buf.take_arrivals() == [f"{BASE}de/1"]
