"""A URL is dropped as a repeat only when it is one. The duplicate check's key is 128
bits of BLAKE2b (a slot word and a check word, the same in every process); under
SITEMAPKIT_TEST_KEY_BITS=8 the slot words of 1,000 URLs collide hundreds of times, and
the writer and the validator, on each twin, still lose nothing, with the bytes of a
full-key run whatever PYTHONHASHSEED is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit._urlset import _locset_py

BASE = "https://example.com/"
URLS = [f"{BASE}p/{i}" for i in range(1000)]


def cli(*args: str, cwd: Path, twin_env: dict[str, str], bits: str = "",
        seed: str = "0") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **twin_env, "PYTHONHASHSEED": seed,
           "SITEMAPKIT_TEST_KEY_BITS": bits}
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_narrowed_slot_words_do_collide():
    """The switch is not a no-op: at 8 bits, 1,000 URLs share at most 256 slot words."""
    mask = (1 << 64) - 1 ^ ((1 << 56) - 1)
    words = {int.from_bytes(_locset_py.blake2b(u.encode(), digest_size=16).digest()[:8],
                            "little") & mask for u in URLS}
    assert len(words) <= 256


def test_the_writer_loses_nothing_under_8_bit_keys(tmp_path, twin_env):
    source = tmp_path / "urls.txt"
    source.write_text("".join(u + "\n" for u in URLS + URLS[::10]))  # 100 true repeats
    runs = {}
    for label, bits, seed in (("full", "", "0"), ("8 bits", "8", "0"),
                              ("8 bits, seed 1", "8", "1"), ("full, seed 2", "", "2")):
        out = tmp_path / label.replace(" ", "_").replace(",", "")
        done = cli("write", str(source), "-o", str(out), "--base-url", BASE,
                   "--max-urls", "300", cwd=tmp_path, twin_env=twin_env, bits=bits, seed=seed)
        assert done.returncode == 0, done.stderr
        assert "1,000 URLs in 4 shards, 0 skipped, 100 duplicates" in done.stdout
        assert ("SITEMAPKIT_TEST_KEY_BITS=8: duplicate keys narrowed to 8 bits"
                in done.stderr) == bool(bits)
        runs[label] = files(out)
    assert runs["8 bits"] == runs["full"] == runs["8 bits, seed 1"] == runs["full, seed 2"]


@pytest.mark.parametrize("repeat", [False, True])
def test_the_validator_loses_nothing_under_8_bit_keys(tmp_path, twin_env, repeat):
    source = tmp_path / "urls.txt"
    source.write_text("".join(u + "\n" for u in URLS))
    done = cli("write", str(source), "-o", "out", "--base-url", BASE, "--max-urls", "300",
               cwd=tmp_path, twin_env=twin_env)
    assert done.returncode == 0, done.stderr
    if repeat:  # one real repeat across two shards: found, and only it
        shard = sorted((tmp_path / "out").glob("sitemap-00004-*.xml.gz"))[0]
        import gzip

        text = gzip.decompress(shard.read_bytes()).decode()
        text = text.replace("</urlset>", f"<url><loc>{URLS[5]}</loc></url></urlset>")
        shard.write_bytes(gzip.compress(text.encode()))
    checked = cli("validate", "out", "--base-url", BASE, cwd=tmp_path, twin_env=twin_env,
                  bits="8")
    duplicates = [line for line in checked.stdout.splitlines() + checked.stderr.splitlines()
                  if "[rule 15 duplicate]" in line]
    if repeat:
        assert len(duplicates) == 1 and URLS[5] in duplicates[0], checked.stdout
    else:
        assert checked.returncode == 0 and not duplicates, checked.stdout + checked.stderr


def parts_folder(folder: Path) -> Path:
    """1,000 distinct URLs over 4 part files, with 100 of them repeated in a later
    part (the folder mode keeps the first copy in file order)."""
    folder.mkdir()
    for part in range(4):
        own = URLS[part * 250:(part + 1) * 250]
        repeats = URLS[(part - 1) * 250:(part - 1) * 250 + 34] if part else []
        (folder / f"part-{part:05d}.txt").write_text("".join(u + "\n" for u in own + repeats))
    return folder


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_folder_mode_loses_nothing_under_8_bit_keys(tmp_path, twin_env, jobs):
    """Across part files the keys are 127 bits: under 8-bit first words, which collide
    for nearly every pair of parts, the second word still tells the URLs apart."""
    parts = parts_folder(tmp_path / "parts")
    runs = {}
    for label, bits, seed in (("full", "", "0"), ("8 bits", "8", "1")):
        out = tmp_path / label.replace(" ", "_")
        done = cli("write", str(parts), "-o", str(out), "--base-url", BASE, "--jobs", jobs,
                   cwd=tmp_path, twin_env=twin_env, bits=bits, seed=seed)
        assert done.returncode == 0, done.stderr
        assert "1,000 URLs in 4 shards" in done.stdout and "102 duplicates" in done.stdout, \
            done.stdout
        runs[label] = files(out)
    assert runs["8 bits"] == runs["full"]


ENGINE_RUN = """
import os, sys
from pathlib import Path


def main() -> None:
    base, out, engine = {base!r}, Path(sys.argv[1]), {engine!r}
    urls = [f"{{base}}p/{{i}}" for i in range(1000)]
    rows = [urls[p * 250:(p + 1) * 250] + (urls[(p - 1) * 250:(p - 1) * 250 + 34] if p else [])
            for p in range(4)]
    if engine == "dask":
        import dask.bag as db
        from distributed import Client, LocalCluster
        from sitemapkit.dask import write_sitemaps
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=50) as cluster, \\
                Client(cluster) as client, client.as_current():
            for check in {checks!r}:
                result = write_sitemaps(db.from_sequence(rows, npartitions=4).flatten(),
                                        out / check, base, fsync=False, duplicates=check)
                print(check, result.url_count, result.duplicate_count)
    else:
        os.environ["PYSPARK_PYTHON"] = sys.executable
        from pyspark.sql import SparkSession
        from sitemapkit.spark import write_sitemaps
        spark = (SparkSession.builder.master("local[2]").appName("sitemapkit-key-bits")
                 .config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false").getOrCreate())
        spark.sparkContext.setLogLevel("FATAL")
        given = spark.sparkContext.parallelize([(u,) for part in rows for u in part], 4)
        for check in {checks!r}:  # one session (a JVM start is half a minute) for both
            result = write_sitemaps(spark.createDataFrame(given, "loc string"), out / check,
                                    base, fsync=False, duplicates=check)
            print(check, result.url_count, result.duplicate_count)
        spark.stop()


if __name__ == "__main__":  # worker processes import this file again
    main()
"""


@pytest.mark.slow
@pytest.mark.parametrize(("engine", "twin", "checks"), [
    pytest.param("dask", "c", ("driver",), marks=pytest.mark.c_extension, id="dask-c-driver"),
    pytest.param("dask", "c", ("engine",), marks=pytest.mark.c_extension, id="dask-c-engine"),
    pytest.param("dask", "py", ("driver",), marks=pytest.mark.pure_twin, id="dask-py-driver"),
    pytest.param("dask", "py", ("engine",), marks=pytest.mark.pure_twin, id="dask-py-engine"),
    # Spark on the C twin only, both checks in one session: a JVM start is half a
    # minute on two cores, and the twins' key code is the same whichever engine calls
    # it (Dask runs both)
    pytest.param("spark", "c", ("driver", "engine"), marks=pytest.mark.c_extension,
                 id="spark-c")])
def test_the_engines_lose_nothing_under_8_bit_keys(tmp_path, engine, twin, checks):
    """A real LocalCluster (2 worker processes) and PySpark local[2], each run with full
    keys and again with 8-bit first words and another PYTHONHASHSEED (the switch, and
    the twin, are in the environment every worker inherits), with the repeats found on
    the driver and in the engine: the same URLs, counts and bytes."""
    twin_env = {"SITEMAPKIT_NO_EXTENSIONS": "1" if twin == "py" else ""}
    if engine == "spark":
        pytest.importorskip("pyspark", reason="the test extra installs pyspark")
    else:
        pytest.importorskip("distributed", reason="the test extra installs distributed")
    script = tmp_path / "run.py"
    script.write_text(ENGINE_RUN.format(base=BASE, engine=engine, checks=list(checks)))
    runs, said = {}, {}
    for label, bits, seed in (("full", "", "0"), ("8 bits", "8", "1")):
        out = tmp_path / label.replace(" ", "_")
        env = {**os.environ, **twin_env, "PYTHONHASHSEED": seed,
               "SITEMAPKIT_TEST_KEY_BITS": bits}
        done = subprocess.run([sys.executable, str(script), str(out)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        said[label] = done.stdout.split()[-3 * len(checks):]
        assert ("narrowed to 8 bits" in done.stderr) == bool(bits)
        runs[label] = {check: files(out / check) for check in checks}
    assert said["full"] == said["8 bits"] == [
        word for check in checks for word in (check, "1000", "102")]
    assert runs["8 bits"] == runs["full"]
