"""What an engine keeps in the output's storage between its jobs (``Storage.keep``)
and the duplicate check over kept keys one range at a time (``write.kept``): ranged
merges give the whole merge's answer, and only objects that carry the mark are ever
removed, by the run or by the next commit."""

from __future__ import annotations

import os
import random

import pytest
from sitemap_check import read_set

from sitemapkit import commit, write_partition
from sitemapkit.sources.inputs.partitions import KEY_BYTES
from sitemapkit.write import kept
from sitemapkit.write.partition import repeated_keys, sorted_keys
from sitemapkit.write.storage import open_storage

BASE = "https://example.com/"


@pytest.fixture(params=["local", "memory"])
def storage(request, tmp_path):
    if request.param == "local":
        return open_storage(tmp_path / "out", fsync=False)
    pytest.importorskip("fsspec", reason="the test extra installs fsspec")
    return open_storage(f"memory://kept-{os.urandom(4).hex()}")


def test_kept_objects_read_back_in_ranges_and_only_marked_ones_go(storage):
    storage.keep("p00000-00001.xml", [b"<urlset>", b"0123456789"])
    assert storage.read_kept("p00000-00001.xml") == b"<urlset>0123456789"
    assert storage.read_kept("p00000-00001.xml", 8, 12) == b"0123"
    storage.put(".sitemapkit-kept-forged.xml", b"<urlset>not ours</urlset>")
    assert sorted(storage.drop_kept()) == [".sitemapkit-kept-p00000-00001.xml"]
    assert ".sitemapkit-kept-forged.xml" in storage.names()  # no mark: never removed
    assert storage.drop_kept(["p00000-00001.xml"]) == []  # gone already: fine


def _keys(n: int, rng: random.Random) -> bytes:
    words = [(rng.getrandbits(63), rng.getrandbits(64) - (1 << 63)) for _ in range(n)]
    return b"".join(a.to_bytes(8, "little", signed=True) + b.to_bytes(8, "little", signed=True)
                    for a, b in words)


@pytest.mark.parametrize("budget", [16 * 7, 16 * 200, 1 << 30])
def test_merging_range_by_range_finds_what_one_merge_finds(storage, budget, impl):
    """Four partitions that share keys with earlier ones, merged over 1 to 256 ranges:
    each partition's drop list is, byte for byte, what ``repeated_keys`` gives for all
    the keys at once (ascending, so ``drop_urls`` can take it)."""
    rng = random.Random(budget)
    own = [_keys(600, rng) for _ in range(4)]
    parts = [own[0]] + [own[p] + own[p - 1][: 16 * 40] + own[0][16 * 100: 16 * 130]
                        for p in range(1, 4)]
    arrays = [sorted_keys(p, impl.module) for p in parts]
    index = [kept.keep_keys(storage, pid, keys) for pid, keys in enumerate(arrays)]
    assert [i.count for i in index] == [len(a) // KEY_BYTES for a in arrays]
    plan = kept.merge_plan(index, budget)
    assert len(plan) == min(256, -(-sum(len(a) for a in arrays) // budget))
    sections: dict[int, list[tuple[int, int, int]]] = {}
    for number, (lo, hi) in enumerate(plan):
        for pid, where in kept.merge_range(storage, index, number, lo, hi).items():
            sections.setdefault(pid, []).append(where)
    whole = repeated_keys(arrays)
    assert set(whole) == {1, 2, 3}
    for pid in range(4):
        assert kept.drops_of(storage, sections.get(pid, [])) == whole.get(pid, b"")
    names = kept.kept_names(index, len(plan))
    removed = storage.drop_kept(names)
    assert not [n for n in storage.names() if n.startswith(".sitemapkit-kept-")], removed


def test_the_next_commit_removes_what_a_killed_run_kept(tmp_path):
    out = tmp_path / "out"
    manifest = write_partition([f"{BASE}a/{i}" for i in range(10)], out, BASE, 0, fsync=False)
    left = open_storage(out, fsync=False)
    left.keep("p00003-00001.xml", [b"<urlset>", b"\0" * 32])
    left.keep(kept.keys_name(3), [b"\0" * 32])
    (out / ".sitemapkit-kept-mine.txt").write_bytes(b"someone else's")  # no mark
    result = commit(out, [manifest], BASE, fsync=False)
    assert {".sitemapkit-kept-p00003-00001.xml", ".sitemapkit-kept-p00003.keys"} <= \
        set(result.removed)
    assert sorted(n for n in os.listdir(out) if n.startswith(".")) == \
        [".sitemapkit-kept-mine.txt"]
    assert len(read_set(out, BASE).locs) == 10
