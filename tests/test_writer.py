"""write_sitemaps() end to end: limits, file sets, index, reproducibility, safety."""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path

import pytest
from sitemap_check import read_set

from conftest import BASE, snapshot
from sitemapkit import ConfigError, UrlEntry
from sitemapkit._urlset._urlset_py import HEAD, TAIL
from sitemapkit.write.output import TMP_PREFIX
from sitemapkit.write.storage import staged


def pages(n: int, start: int = 0) -> list[str]:
    return [f"{BASE}page-{i:06d}.html" for i in range(start, start + n)]


def visible(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if not p.name.startswith("."))


def test_exactly_50000_urls_is_one_file(impl, out):
    result = impl.write(pages(50_000), out, BASE)
    assert (result.url_count, result.shard_count, result.entry_point) == (50_000, 1, "sitemap.xml")
    assert visible(out) == ["sitemap.xml", "sitemap.xml.gz"]
    plain = (out / "sitemap.xml").read_bytes()
    assert gzip.decompress((out / "sitemap.xml.gz").read_bytes()) == plain
    assert read_set(out, BASE).locs == pages(50_000)


def test_50001_urls_make_two_shards_and_an_index(impl, out):
    result = impl.write(pages(50_001), out, BASE)
    assert (result.url_count, result.shard_count) == (50_001, 2)
    assert result.index_files == ["sitemap.xml"] and result.entry_point == "sitemap.xml"
    sset = read_set(out, BASE)
    assert sset.kind == "index"
    assert [len(urls) for urls in sset.shards.values()] == [50_000, 1]
    assert sset.locs == pages(50_001)
    assert list(sset.shards) == result.shard_files
    assert all(name.startswith("sitemap-0000") and name.endswith(".xml.gz")
               for name in result.shard_files)
    assert sorted(result.files) == visible(out)


def entry_size(path: str) -> int:
    return len(f"<url><loc>{BASE}{path}</loc></url>\n")


def test_entry_landing_exactly_on_the_byte_cap_fits(impl, out):
    exact = len(HEAD) + sum(entry_size(p.removeprefix(BASE)) for p in pages(40)) + len(TAIL)
    result = impl.write(pages(40), out, BASE, max_bytes=exact)
    assert result.shard_count == 1
    assert len((out / "sitemap.xml").read_bytes()) == exact


def test_one_byte_over_the_cap_starts_a_new_shard(impl, out):
    exact = len(HEAD) + sum(entry_size(p.removeprefix(BASE)) for p in pages(40)) + len(TAIL)
    result = impl.write(pages(40), out, BASE, max_bytes=exact - 1)
    assert result.shard_count == 2
    sset = read_set(out, BASE, max_bytes=exact - 1)
    assert [len(s) for s in sset.shards.values()] == [39, 1]


def test_entry_larger_than_the_cap_is_an_error(impl, out):
    from sitemapkit import EntryError

    with pytest.raises(EntryError, match="entry-too-large"):
        impl.write([BASE + "a", BASE + "x" * 2000], out, BASE, max_bytes=1024)


def test_many_shards_split_the_index_by_bytes(impl, out):
    result = impl.write(pages(30), out, BASE, max_urls=1, max_bytes=1024)
    assert result.shard_count == 30 and len(result.index_files) > 1
    assert result.index_files[1] == "sitemap-index-00002.xml"
    seen = []
    for name in result.index_files:
        sset = read_set(out, BASE, entry_point=name, max_urls=1, max_bytes=1024)
        assert sset.kind == "index"
        seen += sset.locs
    assert seen == pages(30)


def test_index_lastmod_is_the_newest_in_each_shard(impl, out):
    entries = [UrlEntry(BASE + "a", "2024-01-05"),
               UrlEntry(BASE + "b", "2024-03-01T00:00:00+05:30"),
               UrlEntry(BASE + "c", "2024-02-29T20:00:00-01:00"), UrlEntry(BASE + "d"),
               UrlEntry(BASE + "e")]
    impl.write(entries, out, BASE, max_urls=3)
    sset = read_set(out, BASE)
    assert list(sset.index_lastmods.values()) == ["2024-02-29T20:00:00-01:00", None]


def test_output_is_reproducible_and_identical_across_twins(both_impls, tmp_path):
    entries = [UrlEntry(f"{BASE}p{i}/ü&'", f"2024-01-{i % 28 + 1:02d}") for i in range(2_500)]
    snaps = []
    for impl in both_impls:
        for run in range(2):
            out = tmp_path / f"{impl.tag}-{run}"
            impl.write(entries, out, BASE, max_urls=1_000)
            snaps.append({k: v for k, v in snapshot(out).items() if not k.startswith(".")})
    assert all(s == snaps[0] for s in snaps)
    assert len(snaps[0]) == 4  # three shards and the index


def test_shrinking_set_removes_only_its_own_stale_files(impl, out):
    (out / "notes.txt").write_text("mine")
    (out / "sitemap-00099-deadbeef.xml.gz").write_bytes(b"not ours")
    first = impl.write(pages(120), out, BASE, max_urls=50)
    assert first.shard_count == 3
    impl.write(pages(10), out, BASE)
    assert visible(out) == ["notes.txt", "sitemap-00099-deadbeef.xml.gz", "sitemap.xml",
                            "sitemap.xml.gz"]
    assert sorted(p.name for p in out.iterdir()) == visible(out)  # nothing internal
    assert read_set(out, BASE).locs == pages(10)


def test_growing_set_replaces_the_single_file(impl, out):
    impl.write(pages(10), out, BASE)
    impl.write(pages(120), out, BASE, max_urls=50)
    assert "sitemap.xml.gz" not in visible(out)
    assert read_set(out, BASE).kind == "index"


def test_failed_run_keeps_the_old_set_and_leaves_no_temp_files(impl, out):
    impl.write(pages(120), out, BASE, max_urls=50)
    before = snapshot(out)

    def entries():
        yield from pages(110)
        raise RuntimeError("source died")

    with pytest.raises(RuntimeError):
        impl.write(entries(), out, BASE, max_urls=50)
    assert snapshot(out) == before


def test_text_sitemaps(impl, out):
    entries = [UrlEntry(BASE + "a&b", "2024-01-01"), BASE + "c"]
    result = impl.write(entries, out, BASE, format="text")
    assert result.entry_point == "sitemap.txt"
    assert (out / "sitemap.txt").read_bytes() == f"{BASE}a&b\n{BASE}c\n".encode()
    assert result.warnings == ["1 entries had lastmod, changefreq, priority or alternates, "
                               "which a text sitemap cannot carry"]
    big = impl.write(pages(7), out, BASE, format="text", max_urls=3)
    assert big.entry_point == "sitemap-index.xml" and big.shard_count == 3
    sset = read_set(out, BASE, entry_point="sitemap-index.xml", max_urls=3)
    assert sset.locs == pages(7) and all(".txt.gz" in n for n in sset.shards)
    assert not (out / "sitemap.txt").exists()


def test_duplicates_are_written_once_and_reported(impl, out):
    entries = [BASE + "a", BASE + "b", BASE + "a", BASE + "%7e", BASE + "%7E", BASE + "b#x"]
    result = impl.write(entries, out, BASE)
    assert result.duplicate_count == 3  # '%7e' is normalised and 'b#x' loses its fragment
    assert result.duplicates == [(3, BASE + "a"), (5, BASE + "%7E"), (6, BASE + "b")]
    assert read_set(out, BASE).locs == [BASE + "a", BASE + "b", BASE + "%7E"]


def test_a_repeated_mapping_or_entry_is_named_by_its_loc(impl, out):
    """The fast path's repeats name the loc, whatever the entry's shape (a mapping was
    named by its repr)."""
    entries = [{"loc": BASE + "a"}, {"loc": BASE + "a", "lastmod": "2024-01-01"},
               UrlEntry(BASE + "a"), BASE + "a"]
    result = impl.write(entries, out, BASE)
    assert result.duplicates == [(2, BASE + "a"), (3, BASE + "a"), (4, BASE + "a")]


def test_gzip_options(impl, out):
    impl.write(pages(60), out, BASE, max_urls=50, gzip_level=9)
    assert read_set(out, BASE).locs == pages(60)
    impl.write(pages(60), out, BASE, max_urls=50, gzip_backend="isal", gzip_level=3)
    assert read_set(out, BASE).locs == pages(60)
    first = impl.write(pages(60), out, BASE, max_urls=50, gzip_backend="zlib-ng", gzip_level=5)
    assert read_set(out, BASE).locs == pages(60)
    shard = (out / first.shard_files[0]).read_bytes()
    again = impl.write(pages(60), out, BASE, max_urls=50, gzip_backend="zlib-ng", gzip_level=5)
    assert (out / again.shard_files[0]).read_bytes() == shard  # reproducible, as zlib


def test_a_fast_backend_without_a_level_takes_its_closest_to_zlib_6(tmp_path):
    import subprocess
    import sys
    (tmp_path / "u.txt").write_text("".join(f"{p}\n" for p in pages(100)))
    for backend, level in (("isal", "2"), ("zlib-ng", "6")):
        for out, extra in ((tmp_path / backend, []), (tmp_path / f"{backend}-{level}",
                                                      ["--gzip-level", level])):
            done = subprocess.run([sys.executable, "-m", "sitemapkit", "write",
                                   str(tmp_path / "u.txt"), "-o", str(out), "--base-url", BASE,
                                   "--gzip-backend", backend, *extra],
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
        assert (tmp_path / backend / "sitemap.xml.gz").read_bytes() == \
            (tmp_path / f"{backend}-{level}" / "sitemap.xml.gz").read_bytes()
    bad = subprocess.run([sys.executable, "-m", "sitemapkit", "write", str(tmp_path / "u.txt"),
                          "-o", str(tmp_path / "x"), "--base-url", BASE, "--gzip-backend",
                          "zlib-ng", "--gzip-level", "10"], capture_output=True, text=True)
    assert bad.returncode == 2 and "its levels are 0 to 9 (6 is the one closest to zlib 6" in \
        bad.stderr


def realistic(n: int) -> list[dict[str, str]]:
    """Docs-shaped rows: nested paths, some escaping and non-ASCII, a lastmod each."""
    return [{"loc": f"{BASE}docs/v{i % 7}/section-{i % 97}/page-{i}/?tab=a&lang=über",
             "lastmod": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}"} for i in range(n)]


def test_the_default_gzip_is_zlib_ng_when_installed_within_1_percent_of_zlib_6(impl, tmp_path):
    rows = realistic(20_000)
    auto = impl.write(rows, tmp_path / "auto", BASE, max_urls=10_000)
    zlib6 = impl.write(rows, tmp_path / "zlib", BASE, max_urls=10_000, gzip_backend="zlib")
    impl.write(rows, tmp_path / "ng", BASE, max_urls=10_000, gzip_backend="zlib-ng",
               gzip_level=6)
    assert auto.gzip == "gzip: zlib-ng level 6" and "; gzip: zlib-ng level 6)" in auto.summary()
    assert zlib6.gzip == "gzip: zlib level 6"
    for name in auto.shard_files:  # the resolved backend's own bytes: reproducible
        assert (tmp_path / "auto" / name).read_bytes() == (tmp_path / "ng" / name).read_bytes()
    size = sum((tmp_path / "auto" / n).stat().st_size for n in auto.shard_files)
    reference = sum((tmp_path / "zlib" / n).stat().st_size for n in zlib6.shard_files)
    assert abs(size - reference) <= reference // 100, (size, reference)
    assert read_set(tmp_path / "auto", BASE).locs == read_set(tmp_path / "zlib", BASE).locs


def test_the_default_gzip_without_zlib_ng_is_zlib(impl, tmp_path, monkeypatch):
    import sys

    from sitemapkit.write import compress
    for name in ("zlib_ng", "zlib_ng.zlib_ng"):  # as if the 'fast' extra were absent
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setattr(compress, "_importable", functools.lru_cache(None)(
        compress._importable.__wrapped__))
    rows = realistic(300)
    auto = impl.write(rows, tmp_path / "auto", BASE, max_urls=100)
    zlib6 = impl.write(rows, tmp_path / "zlib", BASE, max_urls=100, gzip_backend="zlib",
                       gzip_level=6)
    assert auto.gzip == "gzip: zlib level 6"
    assert [(tmp_path / "auto" / n).read_bytes() for n in auto.shard_files] == \
        [(tmp_path / "zlib" / n).read_bytes() for n in zlib6.shard_files]
    with pytest.raises(ConfigError, match="needs the 'fast' extra"):
        impl.write(rows, tmp_path / "x", BASE, gzip_backend="zlib-ng")


def test_custom_names(impl, out):
    result = impl.write(pages(5), out, BASE, max_urls=2, filename="map.xml",
                        shard_pattern="part{number}.xml.gz")
    assert result.entry_point == "map.xml"
    assert result.shard_files == ["part1.xml.gz", "part2.xml.gz", "part3.xml.gz"]
    assert read_set(out, BASE, entry_point="map.xml").locs == pages(5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_bytes": 52_428_801}, "at most|protocol maximum"),
        ({"max_bytes": 10}, "max_bytes"),
        ({"max_urls": 50_001}, "max_urls"),
        ({"max_urls": 0}, "max_urls"),
        ({"filename": "../sitemap.xml"}, "plain file name"),
        ({"filename": "/tmp/sitemap.xml"}, "plain file name"),
        ({"filename": "a\x00b.xml"}, "plain file name"),
        ({"index_filename": "sub/index.xml"}, "plain file name"),
        ({"shard_pattern": "../s-{number}.xml.gz"}, "plain file name"),
        ({"shard_pattern": "s.xml.gz"}, "must contain {number}"),
        ({"shard_pattern": "s-{number}.xml"}, "must end in .gz"),
        ({"shard_pattern": "s-{nope}.xml.gz"}, "nope"),
        ({"gzip_level": 10}, "0 to 9"),
        ({"gzip_backend": "isal", "gzip_level": 6}, "0 to 3"),
        ({"gzip_backend": "brotli"}, "unknown gzip_backend"),
        ({"on_invalid": "ignore"}, "on_invalid"),
        ({"format": "html"}, "format"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_options_are_config_errors(impl, out, options, message):
    with pytest.raises(ConfigError, match=message):
        impl.write(pages(1), out, BASE, **options)


@pytest.mark.parametrize("base", ["/docs/", "docs", "ftp://example.com/", "https://example.com/?q=1"])
def test_bad_base_url(impl, out, base):
    with pytest.raises(ConfigError, match="base_url"):
        impl.write(pages(1), out, base)


def test_base_url_gets_its_trailing_slash(impl, out):
    impl.write([BASE + "a"], out, BASE.rstrip("/"))
    assert read_set(out, BASE).locs == [BASE + "a"]


def test_streams_a_generator(impl, out):
    result = impl.write((f"{BASE}g{i}" for i in range(1_234)), out, BASE, max_urls=500)
    assert result.url_count == 1_234 and result.shard_count == 3


def test_shards_of_a_killed_commit_are_removed_by_the_next_run(impl, out):
    """A commit killed after renaming shards in, before its index went live, leaves a
    journal temp file; the next run removes what it lists that the live index does not."""
    impl.write(pages(120), out, BASE, max_urls=50)
    live = visible(out)
    orphan = "sitemap-00001-0123456789abcdef.xml.gz"  # a shard renamed in, then killed
    (out / orphan).write_bytes((out / live[0]).read_bytes())
    users = "sitemap-00002-0123456789abcdef.xml.gz"  # the same shape, but no sitemap
    (out / users).write_bytes(b"a file of the user's that a journal names")
    (out / f"{TMP_PREFIX}999-ab-journal.json").write_text(
        json.dumps({"new": [orphan, live[0]], "old": [users]}))
    impl.write(pages(120), out, BASE, max_urls=50)
    assert sorted(p.name for p in out.iterdir()) == sorted([*live, users])


def test_auto_is_resolved_where_shards_are_compressed_not_on_the_driver(tmp_path, monkeypatch):
    """Options checked on an engine's driver (which has zlib-ng) and shipped to a worker
    without it: the worker takes zlib instead of failing."""
    import pickle
    import sys

    from sitemapkit.write import compress
    from sitemapkit.write.options import resolve
    from sitemapkit.write.partition import write_partition
    opts, prefix = resolve(None, {"fsync": False}, BASE)
    assert opts.gzip_backend == "auto" and opts.backend == "zlib-ng" and opts.level == 6
    shipped = pickle.loads(pickle.dumps(opts))
    for name in ("zlib_ng", "zlib_ng.zlib_ng"):  # the worker's environment
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setattr(compress, "_importable", functools.cache(
        compress._importable.__wrapped__))
    manifest = write_partition(pages(30), tmp_path / "w", prefix, 0, options=shipped)
    shard = (tmp_path / "w" / staged(manifest.shards[0].name)).read_bytes()  # to commit
    assert shipped.backend == "zlib" and gzip.decompress(shard).count(b"<url>") == 30
    assert shard == compress.gzip_bytes(gzip.decompress(shard), 6, "zlib")


@pytest.mark.parametrize("backend", ["zlib", "zlib-ng", "isal"])
def test_a_shard_cut_into_reused_memory_gzips_as_its_bytes_do(backend, monkeypatch):
    """The second pass of a keyed write gzips a view of a scratch buffer (the cut
    shard); every backend, and both CRC-32 routes, give the bytes a copy would."""
    from sitemapkit.write import compress
    data = HEAD + b"<url><loc>https://example.com/a&amp;b</loc></url>\n" * 500 + TAIL
    scratch = bytearray(data + b"left over from the previous shard")
    level = compress.DEFAULT_LEVEL[backend]
    for clmul in (True, False):
        monkeypatch.setattr(compress, "CRC32_CLMUL", clmul)
        gz = compress.gzip_bytes(memoryview(scratch)[:len(data)], level, backend)
        assert gz == compress.gzip_bytes(data, level, backend)
        assert gzip.decompress(gz) == data


def test_quick_handoffs_lower_the_switch_interval_while_any_writer_runs(tmp_path):
    """Writers in several threads share one lowered interval; the process's own comes
    back when the last leaves, and a process already lower than ours keeps its own.
    A write holds it while its gzip workers run."""
    import sys
    import threading

    from sitemapkit._compat import HANDOFF_SECONDS, quick_handoffs

    own = sys.getswitchinterval()
    inside, entered, leave = [], threading.Barrier(2), threading.Event()

    def writer() -> None:
        with quick_handoffs():
            entered.wait()
            leave.wait()

    other = threading.Thread(target=writer)
    other.start()
    with quick_handoffs():
        entered.wait()
        inside.append(sys.getswitchinterval())
        leave.set()
        other.join()  # the other writer left first: still lowered for this one
        inside.append(sys.getswitchinterval())
    assert inside == [HANDOFF_SECONDS, HANDOFF_SECONDS] and sys.getswitchinterval() == own
    try:
        sys.setswitchinterval(HANDOFF_SECONDS / 2)
        with quick_handoffs():
            assert sys.getswitchinterval() == HANDOFF_SECONDS / 2
    finally:
        sys.setswitchinterval(own)

    from sitemapkit import write_sitemaps

    during = []

    def entries():  # type: ignore[no-untyped-def]
        during.append(sys.getswitchinterval())  # read while the write runs
        yield BASE + "a"

    write_sitemaps(entries(), tmp_path / "out", base_url=BASE)
    assert during == [HANDOFF_SECONDS] and sys.getswitchinterval() == own


def test_gzip_threads_follow_the_cores_this_process_may_use():
    """One gzip thread a usable core, at most two: a process held to one core (a
    container's cpuset, taskset) gets one, whatever the host has."""
    import os

    from sitemapkit.write.options import resolve

    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(before)})
        assert resolve(None, {}, BASE)[0].workers == 1
        os.sched_setaffinity(0, before)
        assert resolve(None, {}, BASE)[0].workers == min(2, len(before))
        assert resolve(None, {"workers": 3}, BASE)[0].workers == 3  # asked for: as given
    finally:
        os.sched_setaffinity(0, before)
