"""sitemapkit.dask on a real distributed.LocalCluster with 2 worker processes:
320,000 URLs over 16 partitions, 5% of them repeated across partitions. The tests that
kill workers run on a cluster of their own, so the shared one never loses a worker, and
every test first waits (bounded) for both workers: a cluster left without workers fails
that test by name instead of hanging the run."""

from __future__ import annotations

import os

import pytest
import scaleout_data as data
from sitemap_check import read_large_set, read_set

pytest.importorskip("distributed", reason="the test extra installs dask[dataframe] and distributed")
import dask
import dask.bag as db
import dask.dataframe as dd
from distributed import Client, LocalCluster

from sitemapkit import UrlEntry
from sitemapkit.dask import write_sitemaps
from sitemapkit.errors import ConfigError

pytestmark = [pytest.mark.slow,
              pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::UserWarning")]


WORKERS_READY = 120  # seconds a test waits for the cluster's workers before it fails


def _cluster() -> LocalCluster:
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                        dashboard_address=None, silence_logs=50)


@pytest.fixture(scope="module")
def shared_client():
    with _cluster() as cluster, Client(cluster) as c:
        yield c


@pytest.fixture
def client(shared_client):
    shared_client.wait_for_workers(2, timeout=WORKERS_READY)
    with shared_client.as_current():  # the one dask.compute uses, whatever else exists
        yield shared_client


@pytest.fixture
def killable_client():
    """A cluster of its own for a test that kills workers; a task may kill one worker
    at most once before it is called failed (allowed-failures 1)."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), _cluster() as cluster, \
            Client(cluster) as c:
        c.wait_for_workers(2, timeout=WORKERS_READY)
        with c.as_current():
            yield c


def files(out) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_two_million_urls_once_each_identical_across_runs(client, tmp_path):
    ddf = dd.from_map(data.frame, range(data.PARTITIONS))
    first = write_sitemaps(ddf, tmp_path / "a", data.BASE, fsync=False)
    assert first.url_count == data.expected_urls()
    assert first.duplicate_count == data.expected_duplicates()
    locs = read_large_set(tmp_path / "a", data.BASE)  # gzip, XML, validate; no loc twice
    assert len(locs) == data.expected_urls()
    assert sorted(os.listdir(tmp_path / "a")) == sorted([*first.shard_files, "sitemap.xml"])
    second = write_sitemaps(dd.from_map(data.frame, range(data.PARTITIONS)), tmp_path / "b",
                            data.BASE, fsync=False)
    assert files(tmp_path / "a") == files(tmp_path / "b")
    assert second.shard_files == first.shard_files


def test_unique_data_skips_the_shuffle_and_keeps_partitions(client, tmp_path):
    bag = db.from_sequence([f"{data.BASE}u/{i}" for i in range(3000)], npartitions=3)
    result = write_sitemaps(bag, tmp_path, data.BASE, unique=True, max_urls=400,
                            fsync=False)
    assert result.url_count == 3000
    assert [n.split("-")[1] for n in result.shard_files] == \
        ["p00000"] * 3 + ["p00001"] * 3 + ["p00002"] * 3
    read_set(tmp_path, data.BASE, max_urls=400)


def test_bag_of_entries_is_deduplicated_on_normalized_locs(client, tmp_path):
    items = [UrlEntry(f"{data.BASE}b/{i}", "2024-01-01") for i in range(500)]
    items += [f"HTTPS://SHOP.example.com/b/{i}" for i in range(0, 500, 5)]  # same URLs
    items += [{"loc": f"{data.BASE}b/café/{i}", "priority": "0.3"} for i in range(50)]
    result = write_sitemaps(db.from_sequence(items, npartitions=4), tmp_path, data.BASE,
                            fsync=False)
    assert (result.url_count, result.duplicate_count) == (550, 100)
    assert len(read_set(tmp_path, data.BASE).locs) == 550


def test_a_worker_killed_mid_task_ends_in_one_complete_set(killable_client, tmp_path):
    """The retried task rewrites the same names and bytes; the commit lists each once."""
    out, marker = tmp_path / "site", str(tmp_path / "killed")
    items: list[object] = [f"{data.BASE}k/{i}" for i in range(4000)]
    items[2500] = data.KillsItsWorker(f"{data.BASE}k/2500", marker)
    result = write_sitemaps(db.from_sequence(items, npartitions=2), out, data.BASE,
                            unique=True, max_urls=300, fsync=False)
    assert open(marker).read() == "killed\n"  # it did die, once
    assert result.url_count == 4000
    assert len(read_set(out, data.BASE, max_urls=300).locs) == 4000
    assert sorted(os.listdir(out)) == sorted([*result.shard_files, "sitemap.xml"])


def test_a_partition_that_always_fails_leaves_the_old_set_live(killable_client,
                                                               tmp_path):
    out = tmp_path / "site"
    write_sitemaps(db.from_sequence([f"{data.BASE}old/{i}" for i in range(100)]), out,
                   data.BASE, fsync=False)
    before = (out / "sitemap.xml").read_bytes()
    items: list[object] = [f"{data.BASE}new/{i}" for i in range(100)]
    items[60] = data.KillsItsWorker(f"{data.BASE}new/60", str(tmp_path / "m"), always=True)
    with pytest.raises(Exception, match="(?i)killed|worker"):
        write_sitemaps(db.from_sequence(items, npartitions=2), out, data.BASE, unique=True,
                       fsync=False)
    assert (out / "sitemap.xml").read_bytes() == before
    assert {loc.split("/")[3] for loc in read_set(out, data.BASE).locs} == {"old"}


def test_bad_row_names_its_partition_and_offset(client, tmp_path):
    items = [f"{data.BASE}x/{i}" for i in range(50)] + ["ftp://shop.example.com/x"]
    with pytest.raises(Exception, match=r"partition 0, entry 51: loc 'ftp://.*loc-scheme"):
        write_sitemaps(db.from_sequence(items, npartitions=1), tmp_path, data.BASE,
                       unique=True, fsync=False)
    assert not (tmp_path / "sitemap.xml").exists()


def test_partitions_stored_a_prefix_at_a_time_equal_the_local_schedulers_set(client,
                                                                             tmp_path):
    """On the cluster the second pass starts as each prefix of partitions is prepared
    (merged again when the prefix doubles); on a local scheduler it waits for all. Both
    keep each repeat's first copy, so the files are the same bytes. Repeats reach back
    one, two and five partitions, across every merge's edge."""
    parts = 9
    repeats = sum(len(range(d, 300, 37)) for p in range(parts) for d in (1, 2, 5) if p >= d)
    on_cluster = write_sitemaps(repeating_parts(parts), tmp_path / "a", data.BASE,
                                max_urls=130, fsync=False)
    with dask.config.set(scheduler="sync"):
        local = write_sitemaps(repeating_parts(parts), tmp_path / "b", data.BASE,
                               max_urls=130, fsync=False)
    assert (on_cluster.url_count, on_cluster.duplicate_count) == (parts * 300, repeats)
    assert (local.url_count, local.duplicate_count) == (parts * 300, repeats)
    assert files(tmp_path / "a") == files(tmp_path / "b")
    assert len(read_set(tmp_path / "a", data.BASE, max_urls=130).locs) == parts * 300
    assert any("partition 5: " in e and "q/0/" in e for e in on_cluster.examples)


def test_a_bad_row_in_a_late_partition_leaves_the_old_set_live(client, tmp_path):
    """The keys-first path on a cluster stores a prefix of partitions while later ones
    are still read: when a later one fails, the old set stays live, and whatever the
    stored prefix left behind goes with the next set's commit."""
    out = tmp_path / "site"
    old = write_sitemaps(db.from_sequence([f"{data.BASE}old/{i}" for i in range(50)]), out,
                         data.BASE, fsync=False)
    items = [f"{data.BASE}y/{i}" for i in range(400)] + ["ftp://shop.example.com/y"]
    with pytest.raises(Exception, match=r"partition 4, entry 1: loc 'ftp://.*loc-scheme"):
        write_sitemaps(db.from_sequence(items, partition_size=100), out, data.BASE,
                       fsync=False)
    assert set(os.listdir(out)) >= {*old.shard_files, "sitemap.xml"}  # the old set whole
    assert {loc.split("/")[3] for loc in read_set(out, data.BASE).locs} == {"old"}
    new = write_sitemaps(db.from_sequence(items[:400], partition_size=100), out, data.BASE,
                         fsync=False)
    assert sorted(os.listdir(out)) == sorted([*new.shard_files, *new.retained, "sitemap.xml"]), (
        sorted(os.listdir(out)), new.shard_files, new.retained)


def test_the_first_pass_reads_partitions_in_order_so_prefixes_fill_early(client, tmp_path):
    """Dask's own ordering breaks ties by key name; the first pass goes in a doubling of
    partitions at a time, earlier ones first, so the 4 Parquet parts the 2 workers take
    first are parts 0-3."""
    import pandas as pd
    from distributed import get_task_stream

    (tmp_path / "parts").mkdir()
    for p in range(16):
        pd.DataFrame({"loc": [f"{data.BASE}o/{p}/{r}" for r in range(3000)]}).to_parquet(
            tmp_path / "parts" / f"part-{p:05d}.parquet")
    ddf = dd.read_parquet(tmp_path / "parts")
    assert ddf.npartitions == 16
    write_sitemaps(ddf, tmp_path / "warm", data.BASE, fsync=False)  # both workers have
    with get_task_stream(client) as stream:  # read Parquet: no slow first task skews it
        write_sitemaps(ddf, tmp_path / "out", data.BASE, fsync=False)
    started = sorted((s["start"], t["key"]) for t in stream.data for s in t["startstops"]
                     if s["action"] == "compute" and isinstance(t["key"], tuple))
    reads = [key[1] for _, key in started]
    assert sorted(reads) == list(range(16))
    assert set(reads[:4]) == {0, 1, 2, 3}, reads


def test_the_cluster_counts_a_kept_partition_at_its_size_so_it_can_spill_it(client):
    """A first pass's shards stay on the worker as the task's result; the scheduler must
    see their size, or it neither spills them nor balances memory by them."""
    from sitemapkit.write.prepared import prepare_partition

    urls = [f"{data.BASE}kept/{i}" for i in range(20_000)]
    kept = client.submit(prepare_partition, urls, data.BASE, 0)
    size = client.submit(lambda k: k.nbytes, kept).result()
    assert size > 20_000 * 40
    assert client.nbytes(summary=False)[kept.key] >= size


def test_tables_need_offsets_and_known_columns(client, tmp_path):
    import pandas as pd

    naive = pd.DataFrame({"loc": [f"{data.BASE}n"], "lastmod": [pd.Timestamp("2024-01-01")]})
    with pytest.raises(ConfigError, match="without a UTC offset"):
        write_sitemaps(dd.from_pandas(naive, npartitions=1), tmp_path, data.BASE)
    extra = pd.DataFrame({"loc": [f"{data.BASE}n"], "title": ["x"]})
    with pytest.raises(ConfigError, match="columns sitemapkit does not read: title"):
        write_sitemaps(dd.from_pandas(extra, npartitions=1), tmp_path, data.BASE)
    with pytest.raises(ConfigError, match="Dask DataFrame or Bag"):
        write_sitemaps([f"{data.BASE}n"], tmp_path, data.BASE)


def repeating_parts(parts: int = 9):
    """Partitions whose rows repeat one, two and five partitions back, a part at a time."""
    import pandas as pd

    def part(p: int) -> pd.DataFrame:
        own = [f"{data.BASE}q/{p}/{r}" for r in range(300)]
        back = [f"{data.BASE}q/{p - d}/{r}" for d in (1, 2, 5) if p >= d
                for r in range(d, 300, 37)]
        return pd.DataFrame({"loc": back[::2] + own + back[1::2],
                             "lastmod": f"2024-01-{1 + p:02d}"})

    return dd.from_map(part, range(parts))


def test_the_engines_check_writes_the_drivers_bytes(client, tmp_path):
    """The repeats found on the workers (keys cut into ranges, one task a range) and on
    the driver: the same partitions keep the same copies, so the same files."""
    driver = write_sitemaps(repeating_parts(), tmp_path / "a", data.BASE, max_urls=130,
                            fsync=False, duplicates="driver")
    engine = write_sitemaps(repeating_parts(), tmp_path / "b", data.BASE, max_urls=130,
                            fsync=False, duplicates="engine")
    assert driver.duplicate_count > 0
    assert (engine.url_count, engine.duplicate_count) == (driver.url_count,
                                                          driver.duplicate_count)
    assert files(tmp_path / "a") == files(tmp_path / "b")
    assert not driver.notes and not engine.notes


def test_text_sitemaps_find_their_repeats_on_the_workers_too(client, tmp_path):
    """Text sitemaps read each partition twice (keys, then the write); the engine's check
    makes their drop lists on the workers as well: the same files as the driver's."""
    driver = write_sitemaps(repeating_parts(), tmp_path / "a", data.BASE, fsync=False,
                            format="text", duplicates="driver")
    engine = write_sitemaps(repeating_parts(), tmp_path / "b", data.BASE, fsync=False,
                            format="text", duplicates="engine")
    assert driver.duplicate_count > 0
    assert (engine.url_count, engine.duplicate_count) == (driver.url_count,
                                                          driver.duplicate_count)
    assert files(tmp_path / "a") == files(tmp_path / "b")


def test_past_the_driver_budget_the_workers_find_the_repeats_and_say_so(client, tmp_path):
    said = write_sitemaps(repeating_parts(), tmp_path / "a", data.BASE, max_urls=130,
                          fsync=False, driver_budget=4096)
    assert said.notes == ["duplicate check in the engine: the keys of about 2,700 URLs would "
                          "take 42 KiB on the driver, past driver_budget (4.0 KiB) (estimated "
                          "from the first of 9 partitions)"]
    write_sitemaps(repeating_parts(), tmp_path / "b", data.BASE, max_urls=130, fsync=False,
                   duplicates="driver")
    assert files(tmp_path / "a") == files(tmp_path / "b")
    with dask.config.set(scheduler="sync"):  # no cluster: the same choice after the keys
        local = write_sitemaps(repeating_parts(), tmp_path / "c", data.BASE, max_urls=130,
                               fsync=False, driver_budget=4096)
    assert local.notes == said.notes
    quiet = write_sitemaps(repeating_parts(), tmp_path / "d", data.BASE, max_urls=130,
                           fsync=False)
    assert quiet.notes == ["duplicate check on the driver: the keys of about 2,700 URLs take "
                           "42 KiB, within driver_budget (2.0 GiB) (estimated from the first "
                           "of 9 partitions)"]
    assert files(tmp_path / "c") == files(tmp_path / "a")
