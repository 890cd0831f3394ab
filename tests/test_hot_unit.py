"""The hot unit itself, on both twins: fast-path acceptance, escaping, limits."""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
import zlib
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit import UrlEntry
from sitemapkit._urlset._rows_py import TABLE
from sitemapkit._urlset._urlset_py import HEAD, HEAD_XHTML, TAIL

P = "https://example.com/docs/"
NO_FUTURE = 2**40


def buffer(impl, max_urls=50_000, max_bytes=10_485_760, text=False, seen=None):
    m = impl.module
    return m.UrlsetBuffer(P, max_urls, max_bytes, seen or m.LocSet(), NO_FUTURE, text)


def body(buf) -> bytes:
    value = buf.getvalue()
    head = HEAD_XHTML if value.startswith(HEAD_XHTML) else HEAD
    return value[len(head):-len(TAIL)]


# markupsafe-style: each special at the start, middle and end of the path.
@pytest.mark.parametrize(
    ("path", "xml"),
    [
        ("plain", "plain"),
        ("&start", "&amp;start"),
        ("mid&dle", "mid&amp;dle"),
        ("end&", "end&amp;"),
        ("'start", "&apos;start"),
        ("mi'd", "mi&apos;d"),
        ("end'", "end&apos;"),
        ("a&b'c&&d''", "a&amp;b&apos;c&amp;&amp;d&apos;&apos;"),
        ("q?x=1&y=2", "q?x=1&amp;y=2"),
        ("%C3%BC&%F0%9F%98%80", "%C3%BC&amp;%F0%9F%98%80"),
    ],
)
def test_fast_path_escapes_exactly_once(impl, path, xml):
    buf = buffer(impl)
    assert buf.offer(P + path) == impl.module.ADDED
    assert body(buf) == f"<url><loc>{P}{xml}</loc></url>\n".encode()


@pytest.mark.parametrize(
    "loc",
    [
        P + "ü#frag",  # fragments are stripped by the slow path
        P + "ü\x85",  # C1 control inside a non-ASCII loc
        P + "ü\ud800",  # lone surrogate
        P + "ü" * 700,  # over 2,047 once encoded
        "https://example.com/dücs/a",  # non-ASCII, not under the prefix
        P + "a#frag",  # fragment is stripped by the slow path
        P + "%c3%bc",  # lower-case hex is normalised
        P + "%zz",  # malformed escape
        P + "%4",  # truncated escape
        P + "./x",  # dot segments
        P + "a/../b",
        P + "a/.",
        "https://EXAMPLE.com/docs/a",  # not the canonical prefix
        "https://example.com/doc",
        "http://example.com/docs/a",
        "docs/a",
        P + "x" * (2048 - len(P)),  # 2,048 characters
        P + "\x00",
        P + "\x7f",
    ],
)
def test_non_canonical_locs_take_the_slow_path(impl, loc):
    buf = buffer(impl)
    assert buf.offer(loc) == impl.module.SLOW
    assert buf.count == 0


# A value already XML-escaped would be escaped again: both twins must hand every named
# entity to the slow path (which rejects it), at the end and in the middle, while
# near misses stay on the fast path.
@pytest.mark.parametrize("entity", ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"])
@pytest.mark.parametrize("where", ["end", "middle"])
def test_pre_escaped_entities_take_the_slow_path(impl, entity, where):
    path = "a" + entity + ("b" if where == "middle" else "")
    assert buffer(impl).offer(P + path) == impl.module.SLOW


@pytest.mark.parametrize("path", ["a&am", "a&ampx", "a&lt", "a&quo;", "a&gtx;"])
def test_near_entities_stay_on_the_fast_path(impl, path):
    assert buffer(impl).offer(P + path) == impl.module.ADDED



# One case per branch of the encoder: 2-, 3- and 4-byte UTF-8, unsafe ASCII, at the
# start, middle and end, mixed with characters that need XML escaping.
@pytest.mark.parametrize(
    ("path", "xml"),
    [
        ("ü", "%C3%BC"),
        ("€uro", "%E2%82%ACuro"),
        ("emoji-😀-mid", "emoji-%F0%9F%98%80-mid"),
        ("a b", "a%20b"),
        ('<a>"b"', "%3Ca%3E%22b%22"),
        ("a[b]{c}|d\\e^f`g", "a%5Bb%5D%7Bc%7D%7Cd%5Ce%5Ef%60g"),
        ("ü&'", "%C3%BC&amp;&apos;"),
        ("&ü ", "&amp;%C3%BC%20"),
        ("\ufeffbom", "%EF%BB%BFbom"),
        ("\uffff", "%EF%BF%BF"),
        ("ü/%C3%BC", "%C3%BC/%C3%BC"),
    ],
)
def test_fast_path_percent_encodes(impl, path, xml):
    buf = buffer(impl)
    assert buf.offer(P + path) == impl.module.ADDED
    assert body(buf) == f"<url><loc>{P}{xml}</loc></url>\n".encode()


@pytest.mark.parametrize("path", ["ü%c3", "ü/./x", "ü%zz", "ü/../x"])
def test_encoded_locs_are_still_checked(impl, path):
    assert buffer(impl).offer(P + path) == impl.module.SLOW


def test_longest_canonical_loc_is_accepted(impl):
    buf = buffer(impl)
    loc = P + "x" * (2047 - len(P))
    assert buf.offer(loc) == impl.module.ADDED


@pytest.mark.parametrize(
    ("lastmod", "emitted"),
    [
        ("2024-02-29", "2024-02-29"),
        ("2024-01-02T03:04:05+05:30", "2024-01-02T03:04:05+05:30"),
        ("2024-01-02T03:04:05-05:00", "2024-01-02T03:04:05-05:00"),
        ("2024-01-02T03:04:05+14:00", "2024-01-02T03:04:05+14:00"),
        (date(2023, 12, 31), "2023-12-31"),
        (datetime(2024, 1, 2, 3, 4, 5, 999, tzinfo=timezone.utc), "2024-01-02T03:04:05+00:00"),
        (datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
         "2024-01-02T03:04:05-05:30"),
        (datetime(9, 1, 2, tzinfo=timezone(timedelta(hours=14))), "0009-01-02T00:00:00+14:00"),
    ],
)
def test_canonical_lastmods(impl, lastmod, emitted):
    buf = buffer(impl)
    assert buf.offer(UrlEntry(P + "a", lastmod)) == impl.module.ADDED
    assert f"<lastmod>{emitted}</lastmod>".encode() in body(buf)
    assert buf.newest_lastmod == emitted


@pytest.mark.parametrize(
    "lastmod",
    [
        "2023-02-29",  # not a leap year
        "2024-13-01",
        "0000-01-01",
        "2024-01-02T03:04:05Z",  # canonical form is +00:00
        "2024-01-02T03:04:05-00:00",
        "2024-01-02T03:04:05.5+00:00",
        "2024-01-02T24:00:00+00:00",
        "2024-01-02T03:04:05+14:01",
        "2024-01-02T03:04:05+05:60",
        " 2024-01-02",
        "2024-01-02T03:04+00:00",
        "2024/01/02",
        "٢٠٢٤-٠١-٠٢",  # non-ASCII digits
        datetime(2024, 1, 2),  # naive
        datetime(2024, 1, 2, tzinfo=timezone(timedelta(seconds=30))),
        datetime(2024, 1, 2, tzinfo=timezone(timedelta(hours=15))),
        1704153600,
    ],
)
def test_non_canonical_lastmods_take_the_slow_path(impl, lastmod):
    assert buffer(impl).offer(UrlEntry(P + "a", lastmod)) == impl.module.SLOW


def test_future_lastmod_takes_the_slow_path(impl):
    m = impl.module
    limit = 1_700_000_000
    buf = m.UrlsetBuffer(P, 10, 10_000, m.LocSet(), limit)
    ok = datetime.fromtimestamp(limit, timezone.utc)
    assert buf.offer(UrlEntry(P + "a", ok)) == m.ADDED
    assert buf.offer(UrlEntry(P + "b", ok + timedelta(seconds=1))) == m.SLOW


@pytest.mark.parametrize(
    "entry",
    [
        UrlEntry(P + "a", None, "Daily"),
        UrlEntry(P + "a", None, None, "0.50"),  # not canonical: the rules write 0.5
        UrlEntry(P + "a", None, None, None, (("en", P + "a"),)),
        (P + "a", None, None, None, ()),  # a plain tuple is not a UrlEntry
        {"loc": P + "a", "extra": 1},  # an unknown key: the rules name it
        {"lastmod": "2024-01-01"},
        b"https://example.com/docs/a",
        None,
    ],
)
def test_other_shapes_take_the_slow_path(impl, entry):
    assert buffer(impl).offer(entry) == impl.module.SLOW


@pytest.mark.parametrize("changefreq, priority", [("daily\0weekly", None), ("weekly\0", None),
                                                 (None, "0.5\x000.6"), (None, "0.5\0")])
def test_two_listed_words_joined_by_a_nul_are_not_one(impl, changefreq, priority):
    """The C twin's word lists are NUL-separated: a NUL in the value must not let it
    match two neighbouring words (the fuzzer's lines_tsv find: the C twin wrote the NUL
    into the shard). Offered as an entry and as a TSV line."""
    entry = UrlEntry(P + "a", "2024-01-01", changefreq, priority)
    assert buffer(impl).offer(entry) == impl.module.SLOW
    line = "\t".join((P + "a", "2024-01-01", changefreq or "", priority or "")) + "\n"
    status, start, end = buffer(impl).feed_lines(line.encode(), 0, TABLE, 9, (0, 1, 2, 3), 4)
    assert (status, start, end) == (impl.module.SLOW, 0, len(line))


def test_changefreq_fast_path(impl):
    buf = buffer(impl)
    assert buf.offer(UrlEntry(P + "a", "2024-01-01", "weekly")) == impl.module.ADDED
    assert body(buf) == (f"<url><loc>{P}a</loc><lastmod>2024-01-01</lastmod>"
                         "<changefreq>weekly</changefreq></url>\n").encode()


def test_add_writes_every_field_and_switches_head_for_alternates(impl):
    buf = buffer(impl)
    assert buf.add(P + "a&b", "2024-01-01", "daily", "0.8", ()) == impl.module.ADDED
    before = buf.nbytes
    assert buf.getvalue().startswith(HEAD)
    alts = (("en", P + "a&b"), ("de-CH", P + "de/a'b"))
    assert buf.add(P + "c", None, None, None, alts) == impl.module.ADDED
    value = buf.getvalue()
    assert value.startswith(HEAD_XHTML) and value.endswith(TAIL)
    assert buf.nbytes == len(value) > before
    assert (f'<xhtml:link rel="alternate" hreflang="de-CH" href="{P}de/a&apos;b"/>'
            .encode() in value)


def test_add_rejects_non_canonical_values(impl):
    buf = buffer(impl)
    with pytest.raises(ValueError, match="not ASCII"):
        buf.add(P + "ü", None, None, None, ())
    with pytest.raises(ValueError, match="lastmod"):
        buf.add(P + "a", "2024-01-02Z", None, None, ())


def test_url_limit_and_full_does_not_consume(impl):
    m = impl.module
    buf = buffer(impl, max_urls=2)
    assert [buf.offer(P + x) for x in "abc"] == [m.ADDED, m.ADDED, m.FULL]
    assert buf.count == 2
    buf.reset()
    assert buf.offer(P + "c") == m.ADDED  # the refused entry was not marked as seen


def test_byte_cap_counts_the_whole_file(impl):
    m = impl.module
    entry = f"<url><loc>{P}a</loc></url>\n"
    exact = len(HEAD) + 2 * len(entry) + len(TAIL)
    fits = buffer(impl, max_bytes=exact)
    assert [fits.offer(P + x) for x in "ab"] == [m.ADDED, m.ADDED]
    assert fits.nbytes == len(fits.getvalue()) == exact
    short = buffer(impl, max_bytes=exact - 1)
    assert [short.offer(P + x) for x in "ab"] == [m.ADDED, m.FULL]


def test_duplicates_across_resets(impl):
    m = impl.module
    buf = buffer(impl)
    assert buf.offer(P + "a") == m.ADDED
    buf.reset()
    assert buf.offer(P + "a") == m.DUPLICATE
    assert buf.add(P + "a", None, None, None, ()) == m.DUPLICATE


def test_a_repeated_url_leaves_no_trace(impl):
    """The C twin writes an entry before its duplicate check (the set's slot loads
    meanwhile): a repeat must leave bytes, counts and the head as they were."""
    m = impl.module
    buf = buffer(impl)
    assert buf.offer(P + "a") == m.ADDED
    before = (buf.getvalue(), buf.nbytes, buf.count)
    alts = (("en", P + "a"), ("de", P + "de/a"))
    assert buf.add(P + "a", "2024-01-01", "daily", "0.5", alts) == m.DUPLICATE
    assert buf.offer(UrlEntry(P + "a", "2024-01-02", "weekly")) == m.DUPLICATE
    assert (buf.getvalue(), buf.nbytes, buf.count) == before
    assert buf.newest_lastmod is None
    assert buf.offer(P + "b") == m.ADDED
    assert body(buf) == f"<url><loc>{P}a</loc></url>\n<url><loc>{P}b</loc></url>\n".encode()


def test_feed_stops_at_each_non_added_entry(impl):
    m = impl.module
    buf = buffer(impl)
    it = iter([P + "a", P + "b", P + "x#y", P + "c", P + "a", P + "d"])
    assert buf.feed(it) == (m.SLOW, P + "x#y")
    assert buf.consumed == 3
    assert buf.feed(it) == (m.DUPLICATE, P + "a")
    assert buf.feed(it) == (m.EXHAUSTED, None)
    assert buf.consumed == 6 and buf.count == 4


def test_text_mode(impl):
    buf = buffer(impl, text=True)
    assert buf.offer(UrlEntry(P + "a&b", "2024-01-01")) == impl.module.ADDED
    assert buf.getvalue() == f"{P}a&b\n".encode()
    assert buf.nbytes == len(buf.getvalue())
    assert buf.unused_fields == 1


def test_newest_lastmod_compares_instants_not_strings(impl):
    buf = buffer(impl)
    buf.offer(UrlEntry(P + "a", "2024-03-01T00:00:00+05:30"))  # 2024-02-29T18:30Z
    buf.offer(UrlEntry(P + "b", "2024-02-29T20:00:00-01:00"))  # 2024-02-29T21:00Z: newest
    buf.offer(UrlEntry(P + "c", "2024-02-29"))
    assert buf.newest_lastmod == "2024-02-29T20:00:00-01:00"
    buf.reset()
    assert buf.newest_lastmod is None


def test_locset_grows_and_stays_exact(impl):
    seen = impl.module.LocSet()
    locs = [f"{P}page-{i}" for i in range(100_000)]
    assert all(seen.add(loc) for loc in locs)
    assert not any(seen.add(loc) for loc in locs[::997])
    assert len(seen) == 100_000


@pytest.mark.parametrize("entry,emitted", [
    (UrlEntry(P + "a", None, None, 0.5), b"<priority>0.5</priority>"),
    (UrlEntry(P + "a", None, None, "0.125"), b"<priority>0.125</priority>"),
    (UrlEntry(P + "a", None, None, 1), b"<priority>1.0</priority>"),
    ({"loc": P + "a"}, b"<loc>" + P.encode() + b"a</loc></url>"),
    ({"loc": P + "a", "lastmod": "2024-01-01", "changefreq": "daily", "priority": 0.8,
      "alternates": []}, b"<lastmod>2024-01-01</lastmod><changefreq>daily</changefreq>"
                         b"<priority>0.8</priority>"),
])
def test_priorities_and_mappings_take_the_fast_path(impl, entry, emitted):
    buf = buffer(impl)
    assert buf.offer(entry) == impl.module.ADDED
    assert emitted in buf.getvalue()


@given(st.lists(st.tuples(st.sampled_from([f"https://example.com/{c}" for c in "abcdefgh"]),
                          st.integers(0, 70_000)), max_size=60))
def test_tagged_locset_twins_answer_alike(both_impls, calls):
    """The validator's duplicate table: -1 for a new key, else the tag (file number) it
    was first seen with, saturating at 65,535 (the C twin keeps 16 bits a slot)."""
    sets = [impl.module.LocSet(tagged=True) for impl in both_impls]
    first: dict[str, int] = {}
    for key, tag in calls:
        answers = {s.first(key, tag) for s in sets}
        expected = first.get(key, -1)
        assert answers == {expected}
        first.setdefault(key, min(tag, 65_535))
        assert all(key in s for s in sets)
    assert {len(s) for s in sets} == {len(first)}
    assert "https://example.com/none" not in sets[0]


@given(st.lists(st.tuples(st.sampled_from([f"https://example.com/{c}" for c in "abcdefgh"]),
                          st.one_of(st.none(), st.integers(0, 2**63 - 1))), max_size=60))
def test_value_locset_twins_answer_alike(both_impls, calls):
    """The hreflang check's table: ``put`` stores or replaces a 63-bit value, ``get``
    answers it or -1; ``None`` here asks without storing."""
    tables = [impl.module.LocSet(values=True) for impl in both_impls]
    stored: dict[str, int] = {}
    for key, value in calls:
        if value is None:
            assert {t.get(key) for t in tables} == {stored.get(key, -1)}
        else:
            for t in tables:
                t.put(key, value)
            stored[key] = value
    assert {len(t) for t in tables} == {len(stored)}


@given(st.dictionaries(st.integers(0, 2**64 - 1), st.integers(0, 2**63 - 1), max_size=40))
def test_int_keyed_value_locsets_list_alike(both_impls, stored):
    """The validator's per-set table is keyed by digests (ints taken as their own hash,
    0 as 1, as a str hash of 0 is): both twins answer and list the same entries."""
    tables = [impl.module.LocSet(values=True) for impl in both_impls]
    for key, value in stored.items():
        for t in tables:
            t.put(key, value)
    expected = {key or 1: value for key, value in stored.items()}
    if 0 in stored and 1 in stored:  # one slot: the later put wins
        expected[1] = stored[1] if list(stored).index(1) > list(stored).index(0) else stored[0]
    for t in tables:
        assert dict(t.items()) == expected
        assert all(t.get(key) == expected[key or 1] for key in stored)
    with pytest.raises(OverflowError):
        tables[-1].put(-1, 0)


def test_value_locset_grows_keeps_values_and_refuses_misuse(impl):
    table = impl.module.LocSet(values=True)
    for i in range(60_000):
        table.put(f"{P}page-{i}", i * 7 + (1 << 62))
    table.put(f"{P}page-5", 1)
    assert table.get(f"{P}page-5") == 1 and table.get(f"{P}page-59999") == 59999 * 7 + (1 << 62)
    assert table.get(f"{P}none") == -1 and len(table) == 60_000
    with pytest.raises(ValueError, match="0 to 2"):
        table.put(P, -1)
    with pytest.raises(OverflowError):
        table.put(P, 1 << 63)
    with pytest.raises(TypeError, match="values=True"):
        impl.module.LocSet().get(P)
    with pytest.raises(ValueError, match="not both"):
        impl.module.LocSet(tagged=True, values=True)


@pytest.mark.c_extension
def test_value_locset_stays_small():
    from sitemapkit._urlset._urlset_c import LocSet as CLocSet

    table = CLocSet(values=True)
    for i in range(200_000):
        table.put(f"https://example.com/p/{i}", i)
    assert table.nbytes / 200_000 <= 24  # hash and value: the hreflang check's cost a URL


@pytest.mark.c_extension
def test_tagged_locset_stays_small():
    from sitemapkit._urlset._urlset_c import LocSet as CLocSet

    seen = CLocSet(tagged=True)
    for i in range(200_000):
        assert seen.first(f"https://example.com/p/{i}", i % 80) == -1
    assert seen.first("https://example.com/p/7", 3) == 7
    # the validator's budget per URL: a 128-bit key (slot word, check word) and a tag,
    # 18 bytes a slot at 67% to 85% load
    assert seen.nbytes / 200_000 <= 27


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=600), value=st.integers(0, 2**32 - 1), wide=st.booleans())
def test_crc32_is_zlibs(impl, data, value, wide):
    """The gzip trailer's CRC: the C twin folds 64 bytes at a time with carry-less
    multiplication (when the CPU has it) or uses slice-by-8 tables; both are zlib's."""
    assert impl.module.crc32(data, value, wide) == zlib.crc32(data, value)


def test_crc32_of_a_shard_sized_buffer(impl):
    data = bytes(range(256)) * 20_000 + b"tail"
    for wide in (True, False):
        assert impl.module.crc32(data, 0, wide) == zlib.crc32(data)


# --- the partition key: the duplicate check's BLAKE2b-128 of the emitted loc ----------
def blake2b_key(data: bytes) -> tuple[int, int]:
    """hashlib's answer: the slot word (narrowed as the test switch says, never 0)
    shifted right one bit, then the check word as a signed 64-bit number."""
    import hashlib

    from sitemapkit._urlset._locset_py import KEY_MASK
    digest = hashlib.blake2b(data, digest_size=16).digest()
    first = int.from_bytes(digest[:8], "little") & KEY_MASK or 1
    second = int.from_bytes(digest[8:], "little")
    return first >> 1, second - (1 << 64) if second >> 63 else second


def pack(keys) -> bytes:
    from array import array
    return array("q", [word for key in keys for word in key]).tobytes()


@settings(max_examples=300, deadline=None)
@given(data=st.one_of(st.binary(max_size=400), st.binary(min_size=127, max_size=129),
                      st.binary(min_size=255, max_size=257)))
def test_loc_key_is_hashlibs_blake2b(impl, data):
    """Every length around the 128-byte block edges, and none: the C compression
    function against hashlib's."""
    assert impl.module.loc_key(data) == blake2b_key(data)


@settings(max_examples=300, deadline=None)
@given(data=st.one_of(st.binary(max_size=400), st.binary(min_size=127, max_size=129),
                      st.binary(min_size=255, max_size=257)))
def test_the_duplicate_checks_key_is_hashlibs_blake2b_128(impl, data):
    """The seen set's (slot word, check word): BLAKE2b-128's two little-endian words,
    around the block edges, on both twins (the slot word never 0)."""
    import hashlib
    digest = hashlib.blake2b(data, digest_size=16).digest()
    first = int.from_bytes(digest[:8], "little")
    assert impl.module.loc_hash(data) == (first or 1, int.from_bytes(digest[8:], "little"))


def keys_of(data: bytes) -> list[tuple[int, int]]:
    from array import array
    words = array("q")
    words.frombytes(data)
    return list(zip(words[::2], words[1::2], strict=True))


def test_key_locs_keeps_the_added_urls_keys_and_answers_the_dropped_as_duplicates(impl):
    m = impl.module
    buf = buffer(impl, max_urls=3)
    assert buf.take_keys() == b""  # not keyed yet
    drop = sorted(blake2b_key((P + name).encode()) for name in ("b", "zz"))
    buf.key_locs(pack(drop))
    assert buf.offer(P + "a") == m.ADDED
    assert buf.offer(P + "b") == m.DUPLICATE  # an earlier partition's URL
    assert buf.offer(P + "a") == m.DUPLICATE  # a repeat within this one: no second key
    assert buf.offer(P + "ü") == m.ADDED  # the emitted (encoded) loc is what is keyed
    assert buf.add(P + "c", "2024-01-01", None, None, ()) == m.ADDED
    assert buf.offer(P + "d") == m.FULL  # a full shard keys nothing
    assert keys_of(buf.take_keys()) == [blake2b_key((P + s).encode())
                                        for s in ("a", "%C3%BC", "c")]
    assert buf.take_keys() == b""
    buf.reset()
    assert buf.offer(P + "d") == m.ADDED and keys_of(buf.take_keys()) == [
        blake2b_key((P + "d").encode())]
    assert body(buf) == f"<url><loc>{P}d</loc></url>\n".encode()


@pytest.mark.parametrize("drop", [b"1234567", bytes(24), "text", bytes(32),
                                  pack([(1, 5), (1, 4)])])
def test_key_locs_refuses_what_is_not_ascending_packed_keys(impl, drop):
    with pytest.raises(ValueError, match="key_locs: "):
        buffer(impl).key_locs(drop)


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.sampled_from(["a", "b", "c&d", "ü", "a/b", "x?y=1", "e"]), max_size=30),
       dropped=st.sets(st.sampled_from(["a", "c&d", "ü", "q"])), text=st.booleans())
def test_keyed_twins_answer_and_key_alike(both_impls, rows, dropped, text):
    drop = pack(sorted(blake2b_key(P.encode() + quote_tail(d)) for d in dropped))
    answers, keys, bodies = [], [], []
    for impl in both_impls:
        buf = buffer(impl, max_urls=5, text=text)
        buf.key_locs(drop)
        answers.append([buf.offer(P + r) for r in rows])
        keys.append(buf.take_keys())
        bodies.append(buf.getvalue())
    assert answers.count(answers[0]) == keys.count(keys[0]) == bodies.count(bodies[0]) == \
        len(both_impls)


def quote_tail(tail: str) -> bytes:
    from urllib.parse import quote
    return quote(tail, safe="/?=&").encode()


def _repeats_by_set_walk(partitions: list[set[tuple[int, int]]]) -> list[bytes]:
    seen: set[tuple[int, int]] = set()
    expected = []
    for keys in partitions:
        expected.append(pack(sorted(keys & seen)))
        seen |= keys
    return expected


WORD = st.integers(0, 40) | st.integers(0, 2**63 - 1) | st.sampled_from([-2**63, -1, 2**63 - 1])
# second words from a few values too: keys with one first word and two second words
KEY = st.tuples(WORD, st.integers(-2, 2) | st.integers(-2**63, 2**63 - 1))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sets(KEY, max_size=30), max_size=6), st.none() | WORD, st.none() | WORD)
def test_repeats_name_each_key_an_earlier_partition_holds(both_impls, partitions, lo, hi):
    """The driver's step across partitions, against a plain set walk in partition order
    (any 64-bit words: the whole range at once is one span the C twin slices; a key
    repeats only when both words do), over all keys and over a range
    ``lo <= first word < hi`` alone (what a thread of the step takes)."""
    arrays = [pack(sorted(keys)) for keys in partitions]
    assert [impl.module.repeats(arrays) for impl in both_impls] == \
        [_repeats_by_set_walk(partitions)] * len(both_impls)
    inside = [{k for k in keys if (lo is None or k[0] >= lo) and (hi is None or k[0] < hi)}
              for keys in partitions]
    assert [impl.module.repeats(arrays, lo, hi) for impl in both_impls] == \
        [_repeats_by_set_walk(inside)] * len(both_impls)


@pytest.mark.parametrize(("lo", "hi"), [(None, 7), (7, None), (0, 4), (4, 30)])
def test_ranges_side_by_side_check_every_pair_of_keys(impl, lo, hi):
    """A range reads only its keys (found by bisection, as if sorted) and checks them
    and the pair across its start; ranges that tile the keys check every pair once."""
    unsorted = [pack([(1, 0), (10, 0), (5, 0), (20, 0)])]  # 10 > 5 lies before key 7
    if hi == 7 or (lo, hi) == (4, 30):
        with pytest.raises(ValueError, match="ascending and distinct"):
            impl.module.repeats(unsorted, lo, hi)
    else:
        assert impl.module.repeats(unsorted, lo, hi) == [b""]
    with pytest.raises(OverflowError, match="64-bit keys"):
        impl.module.repeats(unsorted, 2**63)


def test_repeated_keys_in_threads_equal_one_thread(monkeypatch, impl):
    """Past a million keys the driver's step runs in threads over equal ranges of the
    keys' 63-bit first words; joined in range order, each partition's repeats are the
    same bytes."""
    import random

    from sitemapkit.write import partition
    monkeypatch.setattr(partition, "_urlset", impl.module)
    rng = random.Random(5)
    sets: list[set[tuple[int, int]]] = []
    for _ in range(5):
        earlier = [k for q in sets for k in q]
        sets.append({(rng.getrandbits(63), rng.getrandbits(64) - 2**63) for _ in range(3000)}
                    | set(rng.sample(earlier, min(len(earlier), 400))))
    arrays = [pack(sorted(keys)) for keys in sets]
    one = partition.repeated_keys(arrays, threads=1)
    monkeypatch.setattr(partition, "REPEATS_KEYS_A_THREAD", 1000)
    assert partition.repeated_keys(arrays, threads=7) == one
    walked = _repeats_by_set_walk(sets)
    assert one == {pid: keys for pid, keys in enumerate(walked) if keys} and len(one) == 4


@pytest.mark.parametrize(("parts", "per", "spread"), [
    (12, 4000, 2**63),  # many slices of the key range, keys spread as hashes spread them
    (300, 40, 2**63),  # more partitions than keys a slice: slices grow with them
    (6, 5000, 3000),  # keys crowded into a narrow range: dense runs, slices of one value
])
def test_repeats_over_many_slices_of_the_key_range(both_impls, parts, per, spread):
    import random
    rng = random.Random(parts * per)
    partitions: list[set[tuple[int, int]]] = []
    for _ in range(parts):
        own = {(rng.randrange(spread), rng.randrange(3)) for _ in range(per)}
        earlier = [k for q in partitions[-3:] for k in q]
        partitions.append(own | set(rng.sample(earlier, min(len(earlier), per // 10))))
    arrays = [pack(sorted(keys)) for keys in partitions]
    expected = _repeats_by_set_walk(partitions)
    assert sum(len(e) for e in expected) > 0
    for impl in both_impls:
        assert impl.module.repeats(arrays) == expected


@pytest.mark.parametrize("arrays", [[b"1234567"], [bytes(24)], ["text"], [bytes(16) * 2],
                                    [b"", pack([(2, 0), (0, 0)])],
                                    [pack([(2, 1), (2, 0)])]])
def test_repeats_refuses_what_is_not_ascending_packed_keys(impl, arrays):
    with pytest.raises(ValueError, match="repeats: "):
        impl.module.repeats(arrays)


def test_take_keys_ascending_sorts_what_it_hands_over(both_impls):
    taken = []
    for impl in both_impls:
        buf = buffer(impl)
        buf.key_locs()
        for name in ("z", "a", "m", "b"):
            assert buf.offer(P + name) == impl.module.ADDED
        taken.append(buf.take_keys(ascending=True))
    expected = sorted(blake2b_key((P + name).encode()) for name in "zamb")
    assert taken == [pack(expected)] * len(both_impls)


@settings(max_examples=200, deadline=None)
@given(st.lists(KEY, max_size=60) | st.lists(st.tuples(st.integers(0, 3), WORD), max_size=300))
def test_sort_keys_orders_by_both_words_and_keeps_each_once(both_impls, keys):
    """The radix sort on the first word, then runs of one first word (long ones too,
    as narrowed test keys make them) by the second; any 64-bit words."""
    assert [impl.module.sort_keys(pack(keys)) for impl in both_impls] == \
        [pack(sorted(set(keys)))] * len(both_impls)


@pytest.mark.parametrize("data", [b"1234567", bytes(24)])
def test_sort_keys_refuses_what_is_not_whole_keys(impl, data):
    with pytest.raises(ValueError, match="sort_keys: keys are key bytes"):
        impl.module.sort_keys(data)


LONG = "l/" + "x" * 140  # over one BLAKE2b block once the prefix is on


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.sampled_from(["a", "b", "c&d", "ü", LONG, "e'f", "g", "h/i", "j"]),
                     max_size=40),
       max_urls=st.integers(1, 7), take_first=st.booleans())
def test_keys_match_the_urls_kept_across_shards(both_impls, rows, max_urls, take_first):
    """Every shard's keys, taken before or after the shard is reset (``take_first``, or
    once at the end, after later shards were written over them), are hashlib's for
    the URLs it kept, in order, in both twins; escaped and long locs too."""
    from urllib.parse import quote

    for impl in both_impls:
        m = impl.module
        buf = buffer(impl, max_urls=max_urls)
        buf.key_locs()
        taken, kept, seen = b"", [], set()
        for row in rows:
            answer = buf.offer(P + row)
            if answer == m.FULL:
                if take_first:
                    taken += buf.take_keys()
                buf.reset()
                answer = buf.offer(P + row)
            assert answer == (m.DUPLICATE if row in seen else m.ADDED)
            if answer == m.ADDED:
                seen.add(row)
                kept.append(row)
        taken += buf.take_keys()
        assert keys_of(taken) == [blake2b_key((P + quote(n, safe="/?=&'")).encode())
                                  for n in kept]


@pytest.mark.skipif(sys.platform != "linux" or platform.machine() != "x86_64",
                    reason="reads x86-64 machine code")
def test_the_row_writer_really_prefetches_the_duplicate_slot():
    """GCC 12 once dropped the prefetch as dead code where ``LocSet._prefetch`` was
    inlined into ``_append`` (see ``sk_prefetch`` in ``ext/_locset.pxi``): each URL's
    duplicate check then waited on memory, about 0.25 s a million rows, and no test
    noticed. ``_append`` must prefetch, inline or by a call."""
    from sitemapkit._urlset import _urlset_c

    objdump = shutil.which("objdump")
    assert objdump, "objdump (binutils) is needed to read the built extension"
    code = subprocess.run([objdump, "-d", "--no-show-raw-insn", _urlset_c.__file__],
                          capture_output=True, text=True, check=True).stdout
    name = "_urlset_c_12UrlsetBuffer__append>:"
    start = code.index(name)
    body = code[start:code.find("\n\n", start)]
    assert "prefetch" in body or "LocSet__prefetch>" in body, body[:2000]
