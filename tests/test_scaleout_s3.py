"""Partitions and commits on S3, against moto's S3 server on 127.0.0.1 (a real S3 API over
HTTP, through s3fs): the same invariants as on disk, with no rename to lean on, and a
reader polling the index while a commit replaces the set."""

from __future__ import annotations

import re
import threading
import time

import pytest
import scaleout_data as data
from sitemap_check import read_set

pytest.importorskip("s3fs", reason="the test extra installs s3fs and moto[server]")
from moto_s3 import BUCKET, download, moto_s3

from sitemapkit import commit, write_partition
from sitemapkit.errors import OutputError
from sitemapkit.write.storage import open_storage, staged

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::ResourceWarning")]
BASE = data.BASE


@pytest.fixture(scope="module")
def s3():
    yield from moto_s3()


def gen(tag: str, part: int, n: int) -> list[str]:
    return [f"{BASE}{tag}/{part}/{i}" + ("?a=1&b='2'" if i % 5 == 0 else "") for i in range(n)]


def write(impl, url, options, tag, parts=3, n=400, **kw):
    kw.setdefault("max_urls", 50)
    manifests = [write_partition(gen(tag, p, n), url, BASE, p, storage_options=options,
                                 _impl=impl.module, **kw) for p in range(parts)]
    return manifests, commit(url, manifests, BASE, storage_options=options, **kw)


def test_partitions_commit_on_s3(impl, s3, tmp_path):
    fs, options = s3
    url = f"s3://{BUCKET}/{impl}-a"
    _, result = write(impl, url, options, "one")
    local = download(fs, f"{impl}-a", tmp_path)
    sset = read_set(local, BASE, max_urls=50)
    assert len(sset.locs) == result.url_count == 1200
    assert sorted(p.name for p in local.iterdir()) == sorted([*result.shard_files,
                                                               "sitemap.xml"])
    assert result.summary().endswith(")") and f"{url}/sitemap.xml" in result.summary()
    _, second = write(impl, url, options, "two", parts=2, n=130)
    local = download(fs, f"{impl}-a", tmp_path)
    assert {loc.split("/")[3] for loc in read_set(local, BASE, max_urls=50).locs} == {"two"}
    assert sorted(p.name for p in local.iterdir()) == sorted([*second.shard_files,
                                                               *second.retained, "sitemap.xml"])
    assert second.retained == sorted(result.shard_files)  # the old set, one commit longer


def test_missing_shard_on_s3_commits_nothing(impl, s3, tmp_path):
    fs, options = s3
    url = f"s3://{BUCKET}/{impl}-b"
    write(impl, url, options, "old", parts=1, n=60)
    before = fs.cat_file(f"{BUCKET}/{impl}-b/sitemap.xml")
    manifests = [write_partition(gen("new", p, 60), url, BASE, p, storage_options=options,
                                 _impl=impl.module, max_urls=50) for p in range(2)]
    fs.rm(f"{BUCKET}/{impl}-b/{staged(manifests[1].shards[1].name)}")  # not moved yet
    with pytest.raises(OutputError, match="partition 1: shard .* is missing"):
        commit(url, manifests, BASE, storage_options=options, max_urls=50)
    assert fs.cat_file(f"{BUCKET}/{impl}-b/sitemap.xml") == before


def test_reader_polling_during_commit_never_sees_a_missing_shard(s3, both_impls):
    """A crawler fetching the index and then every shard it names, in a loop, while
    commits replace the set: no shard is ever missing. Each commit waits for one full
    pass that began after the previous commit, so any pass overlaps at most one commit
    (a reader slower than two commits is what retain_previous cannot cover)."""
    fs, options = s3
    impl = both_impls[0]
    url = f"s3://{BUCKET}/poll"
    write(impl, url, options, "gen0", parts=2, n=300, max_urls=20)
    reader = open_storage(url, storage_options=options)
    stop, passes, problems = threading.Event(), [], []
    lock = threading.Condition()

    def poll() -> None:
        while not stop.is_set():
            started = time.monotonic()
            index = reader.get("sitemap.xml")
            names = [loc.decode().rsplit("/", 1)[1]
                     for loc in re.findall(rb"<loc>([^<]+)</loc>", index or b"")]
            missing = [n for n in names if reader.size(n) is None]
            if index is None or missing:
                problems.append(f"index {index is not None}, missing {missing[:3]}")
            with lock:
                passes.append((started, {n.split("-")[1] for n in names}))
                lock.notify_all()

    def one_full_pass_after(moment: float) -> None:
        with lock:
            lock.wait_for(lambda: any(start > moment for start, _ in passes), timeout=60)

    thread = threading.Thread(target=poll)
    thread.start()
    try:
        for generation in range(1, 5):
            write(impl, url, options, f"gen{generation}", parts=2, n=300 + 40 * generation,
                  max_urls=20)
            one_full_pass_after(time.monotonic())
    finally:
        stop.set()
        thread.join()
    assert not problems, problems[:5]
    assert len(passes) >= 4
    fs.invalidate_cache()
    stored = fs.ls(f"{BUCKET}/poll", detail=False)
    assert len(stored) == 1 + 2 * 23 + 2 * 21  # the index, the last two sets (460, 420 URLs)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_dask_cluster_writes_to_s3(s3, tmp_path):
    """Worker processes write their partitions straight to the bucket; the driver
    commits from manifests alone."""
    distributed = pytest.importorskip("distributed")
    import dask.bag as db

    from sitemapkit.dask import write_sitemaps

    fs, options = s3
    items = [f"{BASE}d/{i}" for i in range(5000)] + [f"{BASE}d/{i}" for i in range(0, 5000, 10)]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=50) as cluster, \
            distributed.Client(cluster):
        result = write_sitemaps(db.from_sequence(items, npartitions=4), f"s3://{BUCKET}/dask",
                                BASE, storage_options=options, max_urls=700)
    assert (result.url_count, result.duplicate_count) == (5000, 500)
    local = download(fs, "dask", tmp_path)
    assert len(read_set(local, BASE, max_urls=700).locs) == 5000
    assert sorted(p.name for p in local.iterdir()) == sorted([*result.shard_files, "sitemap.xml"])
