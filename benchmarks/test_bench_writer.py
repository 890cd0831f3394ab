"""Writer benchmarks (issue: writer core). Figures go in the resolving note."""

from __future__ import annotations

import shutil
import tempfile
import zlib
from pathlib import Path

import pytest

import baselines
from bench_data import BASE
from conftest import NOTES, record
from sitemapkit import write_sitemaps
from sitemapkit.write import shard_bytes
from sitemapkit.write.compress import gzip_bytes


def serialize_all(module, entries) -> list[bytes]:
    """The hot unit plus its slow path, no gzip or files: what 'serialization' costs."""
    return shard_bytes(entries, BASE, _impl=module)


@pytest.fixture
def out_dir():
    path = Path(tempfile.mkdtemp(prefix="skbench-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_serialize(benchmark, impl, entries):
    benchmark.group = "serialization"
    benchmark.name = f"serialize[{impl.tag}]"
    rounds = 3 if impl.tag == "c" else 1
    shards = benchmark.pedantic(serialize_all, args=(impl.module, entries), rounds=rounds)
    record(f"serialize[{impl.tag}]", benchmark)
    assert sum(s.count(b"<url>") for s in shards) == len(entries)


def _fresh(out_dir: Path):
    def setup():
        shutil.rmtree(out_dir, ignore_errors=True)
        out_dir.mkdir()
    return setup


def test_e2e_sitemapkit(benchmark, impl, entries, out_dir):
    benchmark.group = "end-to-end"
    if impl.tag == "py":
        pytest.skip("end-to-end comparisons use the C twin; pure is covered by serialization")
    result = benchmark.pedantic(
        lambda: write_sitemaps(entries, out_dir, BASE, fsync=False, _impl=impl.module),
        setup=_fresh(out_dir), rounds=3)
    record("e2e-sitemapkit[c]", benchmark)
    assert result.url_count == len(entries)


@pytest.mark.parametrize("name", ["naive", "naive-gzip-default", "etree", "lxml"])
def test_e2e_baseline(benchmark, entries, out_dir, name):
    """Baselines at our level 6; "naive-gzip-default" is the naive writer as people write
    it, with the gzip module's default compresslevel=9."""
    benchmark.group = "end-to-end"
    writer = getattr(baselines, name.removesuffix("-gzip-default"))
    level = 9 if name.endswith("-gzip-default") else 6
    benchmark.pedantic(writer, args=(entries, out_dir, BASE, level), setup=_fresh(out_dir),
                       rounds=1 if name == "etree" else 2)
    record(f"e2e-{name}", benchmark)


def test_gzip_only_one_thread(benchmark, entries):
    """Compressing exactly sitemapkit's uncompressed bytes, one thread, same level."""
    from sitemapkit._urlset import _urlset_c

    shards = serialize_all(_urlset_c, entries)
    benchmark.group = "end-to-end"
    benchmark.pedantic(lambda: [gzip_bytes(s, 6) for s in shards], rounds=3)
    record("gzip-only-1-thread", benchmark)
    raw = sum(map(len, shards))
    NOTES.append(f"uncompressed output: {raw / 1e6:.1f} MB in {len(shards)} shards")


def _closest_zlib_level(sample: bytes, isal_level: int) -> tuple[int, float, float]:
    target = len(gzip_bytes(sample, isal_level, "isal"))
    sizes = {lvl: len(zlib.compress(sample, lvl)) for lvl in range(1, 10)}
    level = min(sizes, key=lambda lvl: abs(sizes[lvl] - target))
    return level, len(sample) / target, len(sample) / sizes[level]


def test_fast_extra_against_naive_at_same_ratio(benchmark, entries, out_dir):
    from sitemapkit._urlset import _urlset_c

    sample = serialize_all(_urlset_c, entries[:50_000])[0]
    level, isal_ratio, zlib_ratio = _closest_zlib_level(sample, 1)
    NOTES.append(f"isal level 1 ratio {isal_ratio:.1f}:1 ~ zlib level {level} "
                 f"ratio {zlib_ratio:.1f}:1 (naive baseline run at that level)")
    benchmark.group = "fast-extra"
    benchmark.name = "e2e-sitemapkit-isal"
    benchmark.pedantic(
        lambda: write_sitemaps(entries, out_dir, BASE, fsync=False, gzip_backend="isal",
                               gzip_level=1, _impl=_urlset_c),
        setup=_fresh(out_dir), rounds=3)
    record("e2e-sitemapkit-isal", benchmark)
    benchmark_naive = _time_once(lambda: baselines.naive(entries, out_dir, BASE, level))
    from conftest import TIMES

    TIMES["e2e-naive-same-ratio"] = benchmark_naive


def _time_once(fn) -> float:
    import time

    best = float("inf")
    for _ in range(2):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best
