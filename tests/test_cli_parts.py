"""`sitemapkit write DIR`: a folder of part files (Parquet, CSV, JSON Lines, text), one
partition per file, optionally in processes, committed once; URLs repeated across
files are written once; errors name the file and line."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from datetime import datetime, timezone

import pytest
from sitemap_check import read_set

pytest.importorskip("pyarrow", reason="the test extra installs pyarrow")
import pandas as pd

BASE = "https://example.com/"


def run(impl, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SITEMAPKIT_NO_EXTENSIONS": "1" if impl.tag == "py" else ""}
    return subprocess.run([sys.executable, "-m", "sitemapkit", "write", *args], env=env,
                          capture_output=True, text=True)


@pytest.fixture
def parts(tmp_path):
    """Four part files of four formats; 100 URLs of each repeat in the next file."""
    folder = tmp_path / "parts"
    folder.mkdir()
    stamp = datetime(2024, 6, 1, 12, tzinfo=timezone.utc)
    pd.DataFrame({"loc": [f"{BASE}a/{i}" for i in range(1000)],
                  "lastmod": [stamp] * 1000,
                  "priority": [0.5] * 1000}).to_parquet(folder / "part-00000.snappy.parquet")
    rows = [f"{BASE}b/{i},2024-05-0{1 + i % 9},weekly" for i in range(1000)]
    rows += [f"{BASE}a/{i},2023-01-01,daily" for i in range(100)]  # repeats of part 0
    (folder / "part-00001.csv").write_text("\ufeffloc,lastmod,changefreq\r\n"
                                           + "\r\n".join(rows) + "\r\n", encoding="utf-8")
    lines = [f'{{"loc": "{BASE}c/{i}", "lastmod": "2024-01-02"}}' for i in range(1000)]
    lines += [f'{{"loc": "{BASE}b/{i}"}}' for i in range(100)]
    (folder / "part-00002.json").write_text("\n".join(lines) + "\n")
    (folder / "part-00003.txt").write_text("".join(f"{BASE}d/é{i}\n" for i in range(1000))
                                           + "".join(f"{BASE}c/{i}\n" for i in range(100)))
    (folder / "_SUCCESS").write_text("")
    (folder / ".part-00000.snappy.parquet.crc").write_bytes(b"x")
    return folder


def test_folder_of_parts_is_one_set_with_each_url_once(impl, parts, tmp_path):
    out = tmp_path / "out"
    proc = run(impl, str(parts), "-o", str(out), "--base-url", BASE)
    assert proc.returncode == 0, proc.stderr
    assert "4,000 URLs in 4 shards, 0 skipped, 300 duplicates" in proc.stdout
    assert "repeats a URL of an earlier part file; the first copy is kept" in proc.stderr
    sset = read_set(out, BASE)
    by_loc = {u.loc: u for u in sset.urls}
    assert len(by_loc) == 4000
    assert by_loc[f"{BASE}a/5"].lastmod == "2024-06-01T12:00:00+00:00"  # part 0's copy won
    assert by_loc[f"{BASE}a/5"].priority == "0.5"
    assert by_loc[f"{BASE}d/%C3%A90"].lastmod is None
    assert sorted(os.listdir(out)) == sorted(["sitemap.xml", *sset.shards])


def test_a_text_sitemap_of_a_folder_has_each_url_once(impl, parts, tmp_path):
    """Text lines keep no lastmod to cut by: each part is read twice (keys, then a
    write that leaves the repeats out), in worker processes too."""
    out = tmp_path / "out"
    proc = run(impl, str(parts), "-o", str(out), "--base-url", BASE, "--format", "text")
    assert proc.returncode == 2 and "--format names one input file's format" in proc.stderr
    proc = run(impl, str(parts), "-o", str(out), "--base-url", BASE, "--text", "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    assert "4,000 URLs in 4 shards, 0 skipped, 300 duplicates" in proc.stdout
    locs = [line for shard in sorted(out.glob("sitemap-*.txt*"))
            for line in gzip.decompress(shard.read_bytes()).decode().splitlines()]
    assert len(locs) == len(set(locs)) == 4000


def test_processes_and_reruns_give_identical_bytes(impl, parts, tmp_path):
    outs = []
    for n, jobs in enumerate(["1", "2", "2"]):
        out = tmp_path / f"out{n}"
        assert run(impl, str(parts), "-o", str(out), "--base-url", BASE, "--jobs", jobs,
                   "--max-urls", "700").returncode == 0
        outs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert outs[0] == outs[1] == outs[2]


def test_unique_skips_the_cross_file_check(impl, parts, tmp_path):
    """The documented contract: with --unique, repeats across files are not looked for."""
    proc = run(impl, str(parts), "-o", str(tmp_path / "out"), "--base-url", BASE, "--unique")
    assert proc.returncode == 0, proc.stderr
    assert "4,300 URLs in 4 shards, 0 skipped, 0 duplicates" in proc.stdout


def test_bad_row_names_file_line_and_rule_and_keeps_the_old_set(impl, parts, tmp_path):
    out = tmp_path / "out"
    assert run(impl, str(parts), "-o", str(out), "--base-url", BASE).returncode == 0
    before = (out / "sitemap.xml").read_bytes()
    with open(parts / "part-00001.csv", "a", encoding="utf-8") as fh:
        fh.write("https://example.com/b/x,2024-13-01,weekly\r\n")
    proc = run(impl, str(parts), "-o", str(out), "--base-url", BASE, "--jobs", "2")
    assert proc.returncode == 1
    assert "part-00001.csv line 1102: lastmod '2024-13-01' breaks rule 'lastmod-format'" \
        in proc.stderr
    assert (out / "sitemap.xml").read_bytes() == before
    assert sorted(os.listdir(out)) == sorted(["sitemap.xml", *read_set(out, BASE).shards])


def test_folder_errors_are_clear(impl, parts, tmp_path):
    (parts / "README.md").write_text("notes")
    proc = run(impl, str(parts), "-o", str(tmp_path / "o"), "--base-url", BASE)
    assert proc.returncode == 1 and "README.md is not a part file" in proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run(impl, str(empty), "-o", str(tmp_path / "o"), "--base-url", BASE)
    assert proc.returncode == 1 and "holds no part files" in proc.stderr
    proc = run(impl, str(parts), "-o", str(tmp_path / "o"), "--base-url", BASE, "--jobs", "0")
    assert proc.returncode == 2 and "--jobs must be at least 1" in proc.stderr
    (parts / "README.md").unlink()
    pd.DataFrame({"loc": [f"{BASE}x"], "title": ["t"]}).to_parquet(parts / "part-9.parquet")
    proc = run(impl, str(parts), "-o", str(tmp_path / "o"), "--base-url", BASE)
    assert proc.returncode == 1
    assert "part-9.parquet has columns sitemapkit does not read: title" in proc.stderr


def stored_names(monkeypatch, impl) -> list[str]:
    """Every shard a partition stores, in order (the folder mode run in this process,
    on ``impl``'s twin): by a write that reads rows, or from a first pass's shards."""
    from sitemapkit.write import partition, prepared
    stored: list[str] = []
    put, store = partition._PartitionStream._put, prepared.PreparedPartition._store

    def counted(self, number, data):
        name, digest = put(self, number, data)
        stored.append(str(name))
        return name, digest

    def counted_prepared(self, *args):
        info = store(self, *args)
        stored.append(info.name)
        return info

    monkeypatch.setattr(partition._PartitionStream, "_put", counted)
    monkeypatch.setattr(prepared.PreparedPartition, "_store", counted_prepared)
    monkeypatch.setattr(partition, "_urlset", impl.module)
    monkeypatch.setattr(prepared, "_urlset", impl.module)
    return stored


def test_each_part_is_written_once_though_every_part_repeats_an_earlier_one(
        impl, parts, tmp_path, monkeypatch):
    """Keys first, then one write each: no shard is stored and then thrown away."""
    from sitemapkit.write.parts import write_part_files
    stored = stored_names(monkeypatch, impl)
    result = write_part_files(parts, tmp_path / "out", BASE, fsync=False)
    assert result.url_count == 4000 and result.duplicate_count == 300
    assert len(stored) == len(set(stored)) == result.shard_count == 4
    assert sorted(stored) == sorted(read_set(tmp_path / "out", BASE).shards)


def test_a_bad_row_in_the_last_part_fails_before_any_shard_is_stored(
        impl, parts, tmp_path, monkeypatch):
    from sitemapkit.errors import InputError
    from sitemapkit.write.parts import write_part_files
    stored = stored_names(monkeypatch, impl)
    with open(parts / "part-00003.txt", "a", encoding="utf-8") as fh:
        fh.write("ftp://example.com/x\n")
    with pytest.raises(InputError, match=r"part-00003\.txt line 1101: .*loc"):
        write_part_files(parts, tmp_path / "out", BASE, fsync=False)
    assert stored == [] and not (tmp_path / "out" / "sitemap.xml").exists()
