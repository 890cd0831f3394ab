"""write_partition() + commit(): partitions written anywhere, committed once, on both
twins. Retries are harmless, manifests are checked against the files, a failed commit
leaves the previous set live, and bad rows name their partition and offset."""

from __future__ import annotations

import errno
import gzip
import os
import pickle
import re
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sitemap_check import read_set

from sitemapkit import (
    EntryError,
    NoUrlsError,
    PartitionManifest,
    UrlEntry,
    commit,
    write_partition,
)
from sitemapkit._urlset import sort_keys
from sitemapkit.errors import ConfigError, OutputError
from sitemapkit.rules.urls import normalize_loc
from sitemapkit.sources.inputs.partitions import canonical_loc, partition_key
from sitemapkit.write import output
from sitemapkit.write import storage as storage_module
from sitemapkit.write.storage import staged

BASE = "https://example.com/shop/"


def rows(tag: str, part: int, n: int) -> list[object]:
    """Entries of every shape the fast path takes, with escaping and non-ASCII."""
    out: list[object] = []
    for i in range(n):
        loc = f"{BASE}{tag}/p{part}/item-{i}?a=1&b='{i}'" if i % 7 == 0 else \
            f"{BASE}{tag}/p{part}/café-{i}" if i % 11 == 0 else f"{BASE}{tag}/p{part}/{i}"
        if i % 3 == 0:
            out.append({"loc": loc, "lastmod": "2024-05-06", "priority": "0.5"})
        elif i % 3 == 1:
            out.append(loc)
        else:
            out.append(UrlEntry(loc, "2025-01-02T03:04:05+02:00", "daily"))
    return out


def write_all(impl, out, parts: dict[int, list[object]], **options):
    options.setdefault("fsync", False)
    manifests = [write_partition(entries, out, BASE, pid, _impl=impl.module, **options)
                 for pid, entries in parts.items()]
    return manifests, commit(out, manifests, BASE, **options)


def files(out) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_partitions_commit_as_one_valid_set(impl, tmp_path):
    out = tmp_path / "site"
    parts = {pid: rows("a", pid, 260) for pid in range(4)}
    manifests, result = write_all(impl, out, parts, max_urls=100)
    sset = read_set(out, BASE, max_urls=100)
    assert len(sset.locs) == result.url_count == 4 * 260
    assert sorted(sset.shards) == sorted(result.shard_files)
    on_disk = sorted(n for n in os.listdir(out) if n != "sitemap.xml")
    assert on_disk == sorted(result.shard_files)  # exactly the shards the index lists
    for m in manifests:
        assert [s.urls for s in m.shards] == [100, 100, 60]
        for s in m.shards:
            assert s.name.startswith(f"sitemap-p{m.partition:05d}-")
            assert (out / s.name).stat().st_size == s.gz_bytes
            assert len(gzip.decompress((out / s.name).read_bytes())) == s.raw_bytes
    assert sset.index_lastmods[manifests[0].shards[0].name] == "2025-01-02T03:04:05+02:00"


def test_same_partition_twice_gives_same_names_and_bytes(both_impls, tmp_path):
    """A retried or speculative task: both twins, any number of attempts, one result."""
    runs = []
    for n, impl in enumerate([*both_impls, *both_impls]):
        out = tmp_path / f"run{n}"
        manifests, _ = write_all(impl, out, {3: rows("r", 3, 250)}, max_urls=90)
        again = write_partition(rows("r", 3, 250), out, BASE, 3, _impl=impl.module,
                                max_urls=90, fsync=False)
        assert again == manifests[0]
        result = commit(out, [manifests[0].to_dict(), again], BASE, max_urls=90, fsync=False)
        assert result.shard_count == 3  # each shard listed once
        runs.append(files(out))
    assert all(r == runs[0] for r in runs)


def test_two_answers_for_one_partition_commit_nothing(impl, tmp_path):
    out = tmp_path / "site"
    a = write_partition(rows("a", 0, 10), out, BASE, 0, _impl=impl.module, fsync=False)
    b = write_partition(rows("b", 0, 10), out, BASE, 0, _impl=impl.module, fsync=False)
    with pytest.raises(ConfigError, match="partition 0 was reported twice"):
        commit(out, [a, b], BASE, fsync=False)
    assert not (out / "sitemap.xml").exists()


def test_manifest_checked_against_files(impl, tmp_path):
    out = tmp_path / "site"
    _, first = write_all(impl, out, {0: rows("old", 0, 50)})
    before = files(out)
    manifests = [write_partition(rows("new", p, 50), out, BASE, p, _impl=impl.module,
                                 fsync=False) for p in range(2)]
    # staged: until the commit, no file of the new set has a name a deploy publishes
    assert {n for n in os.listdir(out) if not n.startswith(".")} == set(before)
    victim = out / staged(manifests[1].shards[0].name)
    victim.write_bytes(victim.read_bytes()[:-5])  # a truncated upload
    with pytest.raises(OutputError, match=r"partition 1: shard .* has \d+ bytes, not"):
        commit(out, manifests, BASE, fsync=False)
    victim.unlink()
    with pytest.raises(OutputError, match="partition 1: shard .* is missing"):
        commit(out, manifests, BASE, fsync=False)
    assert (out / "sitemap.xml").read_bytes() == before["sitemap.xml"]
    assert len(read_set(out, BASE).locs) == 50  # the old set, whole
    assert {u.split("/")[4] for u in read_set(out, BASE).locs} == {"old"}
    assert first.url_count == 50


def test_commit_keeps_previous_shards_one_commit_and_tidies_strays(impl, tmp_path):
    """The previous set's shards outlive its index by one commit (a reader holding the
    old index still finds them); older generations and failed runs' shards go; files
    that are not sitemapkit's are never touched; a task killed mid-write leaves a temp
    file that the commit removes."""
    out = tmp_path / "site"
    out.mkdir()
    mine = {"index.html", "notes-sitemap.xml", ".htaccess"}
    for name in mine:
        (out / name).write_text("not ours")
    _, first = write_all(impl, out, {p: rows("g1", p, 120) for p in range(3)}, max_urls=50)
    write_partition(rows("dead", 9, 30), out, BASE, 9, _impl=impl.module, fsync=False)
    output.temp_path(out, "sitemap-p00009-00002-0123abcd.xml.gz").write_bytes(b"\x1f\x8b")
    _, second = write_all(impl, out, {0: rows("g2", 0, 40)}, max_urls=50)
    assert second.retained == sorted(first.shard_files)
    assert set(os.listdir(out)) == {*mine, "sitemap.xml", *first.shard_files,
                                    *second.shard_files}  # the failed run's shard is gone
    _, third = write_all(impl, out, {0: rows("g3", 0, 60)}, max_urls=50)
    assert third.retained == second.shard_files
    assert set(os.listdir(out)) == {*mine, "sitemap.xml", *second.shard_files,
                                    *third.shard_files}
    last = commit(out, [write_partition(rows("g3", 0, 60), out, BASE, 0, _impl=impl.module,
                                        max_urls=50, fsync=False)], BASE, max_urls=50,
                  fsync=False, retain_previous=False)
    assert set(os.listdir(out)) == {*mine, "sitemap.xml", *last.shard_files}


def test_partitions_replace_a_write_sitemaps_set(impl, tmp_path):
    out = tmp_path / "site"
    impl.write(rows("w", 0, 30), out, BASE)
    assert (out / "sitemap.xml.gz").exists()
    _, result = write_all(impl, out, {0: rows("p", 0, 30)})
    assert set(os.listdir(out)) == {"sitemap.xml", *result.shard_files}  # the copy went


def test_more_shards_than_one_index_holds(impl, tmp_path):
    """Index files split at their byte cap too: every index is written and reported."""
    out = tmp_path / "site"
    _, result = write_all(impl, out, {p: rows("i", p, 30) for p in range(3)}, max_urls=1,
                          max_bytes=1024)
    assert len(result.index_files) > 2 and result.entry_point == "sitemap.xml"
    listed = []
    for name in result.index_files:
        sset = read_set(out, BASE, entry_point=name, max_urls=1, max_bytes=1024)
        listed += list(sset.shards)
    assert sorted(listed) == sorted(result.shard_files) and len(listed) == 90
    assert any("index files" in w for w in result.warnings)


def test_bad_row_names_partition_offset_and_rule(impl, tmp_path):
    out = tmp_path / "site"
    _, _ = write_all(impl, out, {0: rows("old", 0, 20)})
    before = files(out)
    entries = rows("x", 5, 40)
    entries[27] = "https://elsewhere.example/x"
    with pytest.raises(EntryError, match=r"^partition 5, entry 28: loc .* 'loc-outside-site'"):
        write_partition(entries, out, BASE, 5, _impl=impl.module, fsync=False)
    assert files(out)["sitemap.xml"] == before["sitemap.xml"]


def test_skips_are_reported_per_partition_and_summed(impl, tmp_path):
    out = tmp_path / "site"
    parts = {p: rows("s", p, 30) + ["ftp://example.com/x", f"{BASE}s/p{p}/1"] for p in range(3)}
    manifests, result = write_all(impl, out, parts, on_invalid="skip")
    assert [m.skipped_count for m in manifests] == [1, 1, 1]
    assert [m.duplicate_count for m in manifests] == [1, 1, 1]
    assert result.skipped_count == 3 and result.duplicate_count == 3
    assert result.skipped_by_rule == {"loc-scheme": 3}
    assert any(e.startswith("partition 2, entry 31: ") for e in result.examples)


def test_empty_and_mismatched_sets(impl, tmp_path):
    out = tmp_path / "site"
    empty = write_partition([], out, BASE, 0, _impl=impl.module, fsync=False)
    with pytest.raises(NoUrlsError):
        commit(out, [empty], BASE, fsync=False)
    other = write_partition(["https://example.com/x"], out, "https://example.com/", 1,
                            _impl=impl.module, fsync=False)
    with pytest.raises(ConfigError, match="written for https://example.com/ "):
        commit(out, [other], BASE, fsync=False)
    with pytest.raises(ConfigError, match="version"):
        PartitionManifest.from_dict({**other.to_dict(), "version": 99})
    with pytest.raises(ConfigError, match="partition_id"):
        write_partition([], out, BASE, -1)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO])
def test_commit_fault_at_every_write_keeps_previous_set(impl, tmp_path, monkeypatch, code):
    """Disk full or an I/O error at each file the commit writes: the entry point keeps
    the old set and every index names only stored shards; once the entry point is in
    place, the new set is complete."""
    out = tmp_path / "site"
    write_all(impl, out, {0: rows("old", 0, 30)}, max_urls=10, max_bytes=1024)
    manifests = [write_partition(rows("new", p, 30), out, BASE, p, _impl=impl.module,
                                 max_urls=1, max_bytes=1024, fsync=False) for p in range(2)]
    real = storage_module.output.atomic_write
    for n in range(1, 60):
        calls = []

        def faulty(path, data, fsync=False, n=n, calls=calls):
            calls.append(path)
            if len(calls) == n:
                raise OSError(code, os.strerror(code), str(path))
            real(path, data, fsync)

        monkeypatch.setattr(storage_module.output, "atomic_write", faulty)
        try:
            commit(out, manifests, BASE, max_urls=1, max_bytes=1024, fsync=False)
            tag = "new"
        except OutputError as exc:
            assert "previous sitemaps there are unchanged" in str(exc)
            tag = "old"
        finally:
            monkeypatch.setattr(storage_module.output, "atomic_write", real)
        sets = {name: read_set(out, BASE, name, max_urls=10, max_bytes=1024).locs
                for name in _indexes(out)}  # every index names only stored shards
        if tag == "old":  # the entry point; extra indexes may already be the new ones
            assert {loc.split("/")[4] for loc in sets["sitemap.xml"]} == {"old"}
            assert len(sets["sitemap.xml"]) == 30
        else:
            locs = [loc for found in sets.values() for loc in found]
            assert {loc.split("/")[4] for loc in locs} == {"new"} and len(locs) == 60
        if tag == "new":
            break
    assert tag == "new" and n > 3  # every write of the commit failed once


def _indexes(out) -> list[str]:
    return ["sitemap.xml"] + sorted(p.name for p in out.iterdir()
                                    if p.name.startswith("sitemap-index-"))


COMMITTER = """
import os, sys, time
from sitemapkit.write import storage
real = storage.output.atomic_write
def slow(path, data, fsync=False):
    time.sleep(0.01)
    real(path, data, fsync)
storage.output.atomic_write = slow
from sitemapkit import commit, write_partition
tag, out = sys.argv[1], sys.argv[2]
ms = [write_partition((f"https://example.com/shop/{tag}/p{p}/{i}" for i in range(400)), out,
      "https://example.com/shop/", p, max_urls=7, fsync=False) for p in range(3)]
commit(out, ms, "https://example.com/shop/", max_urls=7, fsync=False)
"""


def test_sigkill_during_partition_commit_leaves_one_complete_set(tmp_path):
    """Killed anywhere in writing partitions or committing them: the entry point names
    exactly one complete generation, and no listed shard is missing."""
    out = tmp_path / "site"
    assert subprocess.run([sys.executable, "-c", COMMITTER, "a", str(out)]).returncode == 0
    seen = set()
    for delay in (0.3, 0.6, 0.9, 1.2, 1.5, 1.8, 2.1, 2.4, 6.0):
        tag = "b" if "a" in seen or len(seen) % 2 else "a"
        proc = subprocess.Popen([sys.executable, "-c", COMMITTER, tag, str(out)])
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        sset = read_set(out, BASE, max_urls=7)
        tags = {loc.split("/")[4] for loc in sset.locs}
        assert len(tags) == 1 and len(sset.locs) == 1200, (tags, len(sset.locs))
        seen |= tags
        time.sleep(0.01)


# --- the partition key: equal URLs, equal keys -------------------------------------

_SEGMENT = st.text(st.sampled_from("abcXYZ019-._~!$&'()*+,;=:@%éü /?#"), max_size=12)


@settings(max_examples=400, deadline=None)
@given(host=st.sampled_from(["example.com", "EXAMPLE.com", "example.com:443", "ex-1.org"]),
       scheme=st.sampled_from(["https", "HTTPS", "http"]),
       path=_SEGMENT, query=st.one_of(st.none(), _SEGMENT))
def test_canonical_loc_is_the_writers_normal_form(host, scheme, path, query):
    loc = f"{scheme}://{host}/{path}" + (f"?{query}" if query is not None else "")
    try:
        expected = normalize_loc(loc, "http")
    except EntryError:
        return
    assert canonical_loc(loc, "http") == expected
    assert partition_key(loc, "http") == partition_key(expected, "http")
    first = int.from_bytes(partition_key(loc, "http")[:8], sys.byteorder, signed=True)
    assert len(partition_key(loc, "http")) == 16 and 0 <= first < 2 ** 63


def test_partition_key_is_stable_across_processes():
    code = ("from sitemapkit.sources.inputs.partitions import partition_key;"
            "print(partition_key('https://Example.com/a b', 'https://example.com/').hex())")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout
            for seed in ("1", "2")}
    assert len(outs) == 1
    assert bytes.fromhex(outs.pop()) == partition_key("https://example.com/a%20b",
                                                      "https://example.com/")


def test_a_keyed_partition_keys_what_it_wrote_and_leaves_out_what_earlier_ones_did(
        impl, tmp_path):
    """The hot unit computes each written URL's partition key as it writes it; URLs an
    earlier partition wrote (their keys given) are counted as repeats and named."""
    from sitemapkit.write.partition import keyed_partition
    entries = [*rows("k", 1, 40), f"{BASE}k/p1/1", "HTTPS://EXAMPLE.com/shop/earlier",
               f"{BASE}k/p1/café-11"]
    drop = partition_key(f"{BASE}earlier", BASE)
    manifest, keys, dropped = keyed_partition(entries, tmp_path / "o", BASE, 7, drop,
                                              fsync=False, _impl=impl.module)
    written = [loc for shard in manifest.shards
               for loc in read_locs(tmp_path / "o" / staged(shard.name))]
    assert len(written) == manifest.url_count == 40
    assert keys == sort_keys(b"".join(partition_key(loc, BASE) for loc in written))
    assert dropped == [f"{BASE}earlier"]  # as the writer names a duplicate: normalized
    assert manifest.duplicate_count == 3  # two repeats within, one of an earlier partition
    assert not any("shop/earlier" in e for e in manifest.examples)  # named once, above


def read_locs(path) -> list[str]:
    import html
    import re
    return [html.unescape(m.decode()) for m in re.findall(rb"<loc>([^<]*)</loc>", gzip.decompress(
        path.read_bytes()))]


@pytest.mark.parametrize("spill", ["memory", "files", "both"])
def test_a_prepared_partition_stores_what_a_keyed_write_stores(impl, tmp_path, monkeypatch,
                                                              spill):
    """The first pass formats every row once and keeps its shards; the second cuts the
    repeats out of them. The URLs stored, in order, and the counts are a keyed write's;
    each shard's newest lastmod is its own, and a shard left empty is not stored."""
    from sitemapkit.rules.dates import lastmod_key
    from sitemapkit.write import prepared as prepared_module
    from sitemapkit.write.partition import keyed_partition
    from sitemapkit.write.prepared import prepare_partition
    monkeypatch.setattr(prepared_module, "_urlset", impl.module)
    entries = [*rows("k", 1, 300), f"{BASE}k/p1/1", f"{BASE}k/p1/café-11",
               {"loc": f"{BASE}k/p1/newest", "lastmod": "2026-06-01"}]
    options = {"fsync": False, "max_urls": 40, "_impl": impl.module}
    _, everything, _ = keyed_partition(entries, tmp_path / "all", BASE, 3, b"", **options)
    locs = [loc for shard in sorted((tmp_path / "all").iterdir())
            for loc in read_locs(shard)]
    first_shard = locs[:40]  # every URL of the first shard, and the newest one, go
    gone = {*first_shard, *locs[50::17], f"{BASE}k/p1/newest"}
    drop = sort_keys(b"".join(partition_key(loc, BASE) for loc in gone))
    spill_dir = tmp_path / "spill" if spill != "memory" else None
    if spill_dir:
        spill_dir.mkdir()
    kept = prepare_partition(entries, BASE, 3, spill_dir=spill_dir,
                             keep_bytes=20_000 if spill == "both" else 0, **options)
    in_memory, room = [s.spilled is None for s in kept.shards], 20_000
    assert kept.keys == everything and len(in_memory) == 8
    for shard in kept.shards:  # in memory while they fit in keep_bytes
        fits = shard.raw_bytes + 16 * shard.urls <= room
        room -= (shard.raw_bytes + 16 * shard.urls) if fits else 0
        assert shard.spilled is None if spill == "memory" else (
            (shard.spilled is None) == (spill == "both" and fits))
    assert spill != "both" or 0 < sum(in_memory) < 8
    in_shards = sum(len(s.data) + len(s.keys) for s in kept.shards)
    assert in_shards <= (20_000 if spill == "both" else 10**6)
    assert kept.nbytes == in_shards + len(kept.keys)
    # an engine's memory accounting sees all of it (Dask sizes results this way), so it
    # can spill a kept partition, which it does by pickling
    assert sys.getsizeof(kept) >= kept.nbytes
    kept = pickle.loads(pickle.dumps(kept))
    manifest, named = kept.without_keys().write(tmp_path / "cut", drop)
    expected, _, dropped = keyed_partition(entries, tmp_path / "keyed", BASE, 3, drop,
                                           **options)
    stored = [read_locs(tmp_path / "cut" / staged(s.name)) for s in manifest.shards]
    assert [loc for shard in stored for loc in shard] == [loc for loc in locs
                                                          if loc not in gone]
    assert manifest.url_count == expected.url_count == len(locs) - len(gone)
    assert manifest.duplicate_count == expected.duplicate_count == 2 + len(gone)
    assert set(named) <= gone and len(named) == 10 and len(dropped) == 10
    assert [s.name.split("-")[2] for s in manifest.shards] == [
        f"{n:05d}" for n in range(1, len(manifest.shards) + 1)]  # the empty one skipped
    for shard, shard_locs in zip(manifest.shards, stored, strict=True):
        assert shard.urls == len(shard_locs) <= 40
        dates = re.findall(rb"<lastmod>([^<]*)</lastmod>",
                           gzip.decompress((tmp_path / "cut" / staged(shard.name)).read_bytes()))
        assert shard.newest_lastmod == max((d.decode() for d in dates), key=lastmod_key)
    again, _ = prepare_partition(entries, BASE, 3, **options).write(tmp_path / "again", drop)
    assert again == manifest  # the same names and counts, kept in memory or spilled
    threads = prepare_partition(entries, BASE, 3, **options, workers=3)  # cut shards wait
    assert threads.write(tmp_path / "threads", drop)[0] == manifest  # in turn for a buffer
    assert files(tmp_path / "threads") == files(tmp_path / "cut")


def test_a_text_sitemap_cannot_be_prepared(tmp_path):
    from sitemapkit.write.prepared import prepare_partition
    with pytest.raises(ConfigError, match="write_once"):
        prepare_partition([f"{BASE}a"], BASE, 0, format="text")


def test_a_key_twice_in_one_partition_is_taken_once():
    """A key given twice by one partition (unsorted keys from a caller, or two URLs
    whose hashes differ only in the bit the key drops): the driver's step takes it
    once, never a traceback; one first word with two second words is two keys."""
    from array import array

    from sitemapkit.write.partition import repeated_keys

    def pack(*keys: tuple[int, int]) -> bytes:
        return array("q", [w for k in keys for w in k]).tobytes()

    keys = [pack((5, 1), (1, 0), (1, 0), (5, 2)), pack((5, 2), (5, 3), (7, 0))]
    assert repeated_keys(keys) == {1: pack((5, 2))}
