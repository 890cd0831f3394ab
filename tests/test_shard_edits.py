"""Editing written shards (``drop_urls``, ``sort_keys``) on both twins, against the
reference that matters: the shard the buffer writes when it is told to leave those
URLs out as it meets them."""

from __future__ import annotations

import hashlib
from array import array
from html import unescape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit._urlset._urlset_py import HEAD_XHTML

P = "https://example.com/docs/"
NO_FUTURE = 2**40
NAMES = ["a", "b", "c&d", "ü", "a/b", "x?y=1&z='2'", "e", "f", "g"]
LASTMODS = [None, "2024-01-01", "2024-01-01T00:00:00+00:00", "2023-12-31T23:30:00-01:00",
            "2024-06-01T12:00:00+05:30", "2024-06-01T06:30:00+00:00"]  # equal instants too


def key(loc: bytes) -> bytes:
    """A loc's partition key bytes: hashlib's BLAKE2b-128, the first word shifted."""
    digest = hashlib.blake2b(loc, digest_size=16).digest()
    first = int.from_bytes(digest[:8], "little") or 1
    return array("q", [first >> 1, int.from_bytes(digest[8:], "little", signed=True)]).tobytes()


def split(keys: bytes) -> list[bytes]:
    return [keys[i:i + 16] for i in range(0, len(keys), 16)]


def write(impl, rows, text, drop=None):
    """The shard a keyed buffer writes for ``rows`` ((name, lastmod) pairs), leaving out
    the keys in ``drop`` as it meets them; its bytes, keys in order and newest lastmod."""
    m = impl.module
    buf = m.UrlsetBuffer(P, 50_000, 10_485_760, m.LocSet(), NO_FUTURE, text)
    buf.key_locs(b"" if drop is None else drop)
    for name, lastmod in rows:
        status = buf.offer({"loc": P + name, "lastmod": lastmod} if lastmod else P + name)
        assert status in (m.ADDED, m.DUPLICATE)
    return buf.getvalue(), buf.take_keys(), buf.count, buf.newest_lastmod


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(LASTMODS)),
                     max_size=25),
       dropped=st.sets(st.sampled_from(NAMES)), text=st.booleans())
def test_drop_urls_gives_the_shard_a_write_that_left_them_out_gives(both_impls, rows,
                                                                    dropped, text):
    answers = []
    for impl in both_impls:
        data, keys, _, _ = write(impl, rows, text)
        order = split(keys)
        written = _written_locs(data, text)
        assert len(written) == len(order)
        assert order == [key(loc if text else unescape(loc.decode()).encode())
                         for loc in written]  # hashlib's keys, one per URL in order
        drop = impl.module.sort_keys(b"".join(k for k, loc in zip(order, written, strict=True)
                                             if _name(loc) in dropped))
        expected_data, _, expected_count, expected_newest = write(impl, rows, text, drop)
        got = impl.module.drop_urls(data, keys, drop, text, 3)
        assert got[:3] == (expected_data, expected_count, None if text else expected_newest)
        out = bytearray(b"\xff" * (len(data) + 5))  # leftovers past the cut stay unread
        into = impl.module.drop_urls(data, keys, drop, text, 3, out)
        assert into[1:] == got[1:] and bytes(into[0]) == expected_data
        assert into[0] is data if not drop else into[0].obj is out  # a view of out's start
        assert len(got[3]) == min(3, len(drop) // 16)
        for offset in got[3]:  # each is where a URL left out starts
            assert _name(_written_locs(data[offset:], text)[0] if text else
                         _written_locs(data[offset - 1:], text)[0]) in dropped
        answers.append(got)
    assert answers.count(answers[0]) == len(answers)


def _written_locs(data: bytes, text: bool) -> list[bytes]:
    if text:
        return data.splitlines()
    return [part.split(b"</loc>")[0] for part in data.split(b"<url><loc>")[1:]]


def _name(written: bytes) -> str:
    """The NAMES entry a written loc came from (escaped and percent-encoded)."""
    from html import unescape
    from urllib.parse import unquote
    return unquote(unescape(written.decode())[len(P):])


def test_a_shard_with_alternates_keeps_its_head_and_loses_whole_blocks(both_impls):
    for impl in both_impls:
        m = impl.module
        buf = m.UrlsetBuffer(P, 10, 10_485_760, m.LocSet(), NO_FUTURE, False)
        buf.key_locs()
        alternates = ((("en", P + "a"), ("de", P + "b")))
        assert buf.add(P + "a", "2024-05-01", None, None, alternates) == m.ADDED
        assert buf.add(P + "b", "2024-01-01", "daily", "0.5", alternates) == m.ADDED
        data, keys = buf.getvalue(), buf.take_keys()
        drop = key((P + "a").encode())
        shard, kept, newest, found = m.drop_urls(data, keys, drop, False, 10)
        assert shard.startswith(HEAD_XHTML) and kept == 1 and newest == "2024-01-01"
        assert shard.count(b"<url>") == 1 and b"<loc>" + (P + "b").encode() in shard
        assert found == [len(HEAD_XHTML)]
        assert m.drop_urls(data, keys, b"", False, 10) == (data, 2, "2024-05-01", [])


@pytest.mark.parametrize(("data", "keys", "drop", "message"), [
    (b"<url><loc>x</loc></url>\n", bytes(16), b"", "not a whole shard"),
    ("whole", bytes(16) * 2, b"", "fewer URLs than keys"),
    ("whole", b"", b"", "more URLs than keys"),
    ("whole", bytes(8), b"", r"keys are key bytes \(16 bytes a key\)"),
    ("whole", bytes(16), bytes(24), r"drop is key bytes \(16 bytes a key\)"),
    ("whole", bytes(16), bytes(32), "ascending and distinct"),
])
def test_drop_urls_refuses_keys_that_do_not_match_the_shard(impl, data, keys, drop, message):
    if data == "whole":
        data, _, _, _ = write(impl, [("a", None)], False)
    with pytest.raises(ValueError, match="drop_urls: .*" + message):
        impl.module.drop_urls(data, keys, drop, False, 1)


def test_drop_urls_refuses_an_out_that_could_not_hold_the_shard(impl):
    data, keys, _, _ = write(impl, [("a", None), ("b", None)], False)
    drop = keys[:16]
    with pytest.raises(ValueError, match="drop_urls: out is a bytearray at least as long"):
        impl.module.drop_urls(data, keys, drop, False, 1, bytearray(len(data) - 1))
    with pytest.raises(TypeError, match="out"):
        impl.module.drop_urls(data, keys, drop, False, 1, memoryview(bytearray(len(data))))
    with pytest.raises(ValueError, match="drop keys must be ascending"):  # as the C twin
        impl.module.drop_urls(data, keys, drop * 2, False, 1, bytearray(1))  # checks
    out = bytearray(len(data))
    cut = impl.module.drop_urls(data, keys, drop, False, 1, out)[0]
    assert bytes(cut).count(b"<url>") == 1 and bytes(cut).endswith(b"</urlset>\n")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**63 - 1) | st.integers(0, 50),
                          st.integers(-2**63, 2**63 - 1) | st.integers(-3, 3)), max_size=3000))
def test_sort_keys_sorts_every_key_once(both_impls, keys):
    data = array("q", [w for k in keys for w in k]).tobytes()
    expected = array("q", [w for k in sorted(set(keys)) for w in k]).tobytes()
    assert [impl.module.sort_keys(data) for impl in both_impls] == [expected] * len(both_impls)
    from sitemapkit.write.prepared import sorted_keys  # the driver's step: the same bytes

    assert sorted_keys(data, both_impls[0].module) == expected
