"""Scale-out (issue: Dask/Spark partitions): SITEMAPKIT_BENCH_SCALEOUT_N URLs (default
20,000,000) in 16 TSV part files, written through the front door, each as its own
process, in one run:

- `sitemapkit write all.tsv`: the single-process CLI on the same rows in one file;
- `sitemapkit write parts/ --jobs 2`: the folder mode, 2 processes, cross-file check;
- the same on 8 parts that each repeat 3% of the previous part (keys first: each part
  read and formatted once in a worker process that keeps its shards, then the repeats
  cut out of them there);
- a Dask script on a 2-worker LocalCluster (1 thread each) reading the 16 part files
  with `dd.read_csv`, with the duplicate check (keys first, no rows moved, each
  partition's shards kept on its worker between the passes) and with `unique=True`;
- the 8 repeating parts as Parquet, read by Dask (`dd.read_parquet`, the same cluster)
  and by PySpark `local[2]` (`spark.read.parquet`), duplicates removed, with the
  repeats found on the driver (the default at this size) and in the engine
  (`duplicates="engine"`). Cluster and session start-up are excluded from their
  times; Spark's Python workers are up with pyarrow imported, and Spark writes three
  times in one session: the figure is the better of the second and third (a job
  that has run before, as in a long-lived session), and the first is printed
  beside it (this JVM compiling its Parquet, Arrow and hash paths: about 3 s more).

Dask's workers have imported the engine's own stack (`dask.dataframe`, `pyarrow.parquet`)
before the clock starts, as a cluster has after its first job and as Spark's JVM is up
before its clock; sitemapkit's own import stays inside. That import costs each fresh
worker about a second on this machine, so the Parquet path is also run once on fresh
workers (`-cold-workers`) to show the first job's figure.

Reported: wall time, throughput, the peak RSS of the CLI, of the Dask driver (which
also hosts the scheduler) and of each Dask worker, and the size of the manifests the
driver collected. Nothing is asserted about time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import NOTES, TIMES

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "helpers"))
from peak_rss import launcher_argv

N = int(os.environ.get("SITEMAPKIT_BENCH_SCALEOUT_N", "20000000"))
PARTS = 16
BASE = "https://shop.example.com/"

DASK_SCRIPT = """
import json, sys, time
import dask.dataframe as dd
from distributed import Client, LocalCluster
from sitemapkit.dask import write_sitemaps

def peak_mb():  # VmHWM: ru_maxrss would keep the pages of the big parent this was forked from
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) // 1024 for line in fh if line.startswith("VmHWM"))

if __name__ == "__main__":
    parts, out, check, BASE = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=50) as cluster, Client(cluster) as c:
        if sys.argv[5] == "warm":  # the engine's own stack loaded, as after any first job
            c.run(lambda: [__import__(m) for m in ("dask.dataframe", "pyarrow.parquet")])
        started = time.perf_counter()
        ddf = dd.read_parquet(parts) if parts.endswith("parquet") else \
            dd.read_csv(parts + "/*.tsv", sep="\\t", dtype=str, blocksize=None)
        result = write_sitemaps(ddf, out, BASE, unique=check == "unique", fsync=False,
                                duplicates=check if check == "engine" else "auto")
        took = time.perf_counter() - started
        workers = sorted(c.run(peak_mb).values())
    print(json.dumps({"seconds": took, "urls": result.url_count, "shards": result.shard_count,
                      "workers_mb": workers, "driver_mb": peak_mb()}))
"""


SPARK_SCRIPT = """
import json, os, shutil, statistics, subprocess, sys, time
os.environ["PYSPARK_PYTHON"] = sys.executable  # workers import sitemapkit from this venv
from pyspark.sql import SparkSession
from sitemapkit.spark import write_sitemaps

def hwm_mb():  # this program's peak, not the one exec inherits from a big parent's fork
    with open("/proc/self/status") as fh:  # (ru_maxrss keeps the forked parent's pages)
        return next(int(line.split()[1]) // 1024 for line in fh if line.startswith("VmHWM"))

root, BASE, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").getOrCreate())
spark.sparkContext.setLogLevel("FATAL")

def warm(batches):  # Python workers up with the engine's own stack, as after a first job
    import pyarrow
    yield from batches

spark.range(0, 4, 1, 2).mapInArrow(warm, "id long").collect()
took = {"cli": [], "auto": [], "engine": []}
peak = {}
for run in range(rounds):  # interleaved: the machine's drift hits all three alike
    for name in took:
        out = os.path.join(root, "out-" + name)
        shutil.rmtree(out, ignore_errors=True)
        started = time.perf_counter()
        if name == "cli":
            said = subprocess.run([sys.executable, "-m", "sitemapkit", "write",
                                   os.path.join(root, "all.tsv"), "-o", out, "--base-url",
                                   BASE], check=True, capture_output=True, text=True).stdout
        else:  # as a user writes it: no option but the check's
            df = spark.read.parquet(os.path.join(root, "pq"))
            result = (write_sitemaps(df, out, BASE) if name == "auto"
                      else write_sitemaps(df, out, BASE, duplicates="engine"))
            urls = result.url_count
            peak[name] = hwm_mb()
        took[name].append(time.perf_counter() - started)
spark.stop()
files = {}
for name in ("auto", "engine"):  # the two checks: the same partitions, the same bytes
    folder = os.path.join(root, "out-" + name)
    files[name] = {n: open(os.path.join(folder, n), "rb").read() for n in os.listdir(folder)}
assert files["auto"] == files["engine"], "the checks wrote different sets"
print(json.dumps({"took": took, "urls": urls, "driver_mb": peak, "cli_said": said,
                  "median": {k: statistics.median(v) for k, v in took.items()}}))
"""


def _user_table(root: Path, n: int) -> None:
    """A user's table: 8 Parquet files written by pyarrow (one row group each, loc and
    lastmod strings), every file after the first repeating 3% of the previous one's
    rows through it; and the same rows as one TSV file for the single process."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (root / "pq").mkdir(parents=True)
    per, previous = n // 8, []
    with open(root / "all.tsv", "w") as tsv:
        tsv.write("loc\tlastmod\n")
        for p in range(8):
            own = per - (per * 3 // 100 if p else 0)
            rows = [(f"{BASE}item/{p}/{i}" + ("?c=a&d='x'" if i % 20 == 0 else ""),
                     f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}") for i in range(own)]
            repeats = previous[::33][:per - own]
            step = max(own // max(len(repeats), 1), 1)
            mixed = []
            for i, row in enumerate(rows):
                mixed.append(row)
                if i % step == 0 and i // step < len(repeats):
                    mixed.append(repeats[i // step])
            previous = mixed
            pq.write_table(pa.table({"loc": pa.array([r[0] for r in mixed], pa.string()),
                                     "lastmod": pa.array([r[1] for r in mixed], pa.string())}),
                           root / "pq" / f"part-{p:05d}.parquet", row_group_size=len(mixed))
            tsv.write("".join(f"{loc}\t{mod}\n" for loc, mod in mixed))


def test_spark_as_users_run_it(tmp_path):
    """Spark on a user's table (issue 60's shape): `spark.read.parquet` of 8 pyarrow
    files with Spark's defaults (2 partitions on 2 cores), `write_sitemaps(df, out,
    base_url)` with no other option, beside `sitemapkit write` of the same rows as one
    TSV (fsync on, as both default), rounds interleaved in one session (the JVM and
    the Python workers up before the clock), medians; the driver's check and the
    engine's; peak RSS of the Python driver."""
    pytest.importorskip("pyspark")
    _user_table(tmp_path, N // 5)  # 4,000,000 rows at the default N
    rounds = int(os.environ.get("SITEMAPKIT_BENCH_SPARK_ROUNDS", "3"))
    done = subprocess.run([sys.executable, "-c", SPARK_SCRIPT, str(tmp_path), BASE,
                           str(rounds)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert f"{report['urls']:,} URLs in " in report["cli_said"], report["cli_said"]
    median = report["median"]
    for name in ("auto", "engine"):
        TIMES[f"scaleout-spark-user-table-{name}"] = median[name]
        NOTES.append(f"spark, user's table, {report['urls']:,} URLs, duplicates={name!r}: "
                     f"median {median[name]:.2f} s against the CLI's {median['cli']:.2f} s: "
                     f"{median['cli'] / median[name]:.2f}x (rounds "
                     + ", ".join(f"{t:.2f}" for t in report["took"][name])
                     + f"); Python driver peak so far {report['driver_mb'][name]} MB")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """16 TSV part files and the same rows in one file (5% of URLs with & and '); the
    same rows again as 8 parts where every part after the first also repeats 3% of the
    previous one's rows, spread through it (repeats in every part: the common case)."""
    root = tmp_path_factory.mktemp("scaleout")
    parts, repeating = root / "parts", root / "parts8"
    parts.mkdir()
    repeating.mkdir()
    per = N // PARTS
    previous: list[str] = []
    with open(root / "all.tsv", "w") as whole:
        whole.write("loc\tlastmod\n")
        for p in range(PARTS):
            lines = [f"{BASE}item/{p}/{i}" + ("?c=a&d='x'" if i % 20 == 0 else "")
                     + f"\t2024-{1 + i % 12:02d}-{1 + i % 28:02d}\n" for i in range(per)]
            text = "".join(lines)
            (parts / f"part-{p:05d}.tsv").write_text("loc\tlastmod\n" + text)
            whole.write(text)
            if p % 2 == 0:
                pair = lines
                continue
            pair += lines  # two of the 16 parts make one of the 8
            repeats, mixed = previous[::33], []
            for i, row in enumerate(pair):
                mixed.append(row)
                if i % 33 == 0 and i // 33 < len(repeats):
                    mixed.append(repeats[i // 33])
            (repeating / f"part-{p // 2:05d}.tsv").write_text("loc\tlastmod\n" + "".join(mixed))
            previous = pair
    _as_parquet(repeating, root / "parts8.parquet")
    return root, per * PARTS


def _as_parquet(tsv_parts: Path, out: Path) -> None:
    """The same part files as Parquet, one file per part, in the same order."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    out.mkdir()
    for path in sorted(tsv_parts.glob("*.tsv")):
        table = pacsv.read_csv(path, parse_options=pacsv.ParseOptions(delimiter="\t"),
                               convert_options=pacsv.ConvertOptions(
                                   column_types={"loc": "string", "lastmod": "string"}))
        pq.write_table(table, out / (path.stem + ".parquet"))


def _timed(argv: list[str]) -> tuple[float, int, str]:
    """(seconds, peak RSS MB, stdout) of one command run through the RSS launcher."""
    started = time.perf_counter()
    done = subprocess.run(launcher_argv(*argv), capture_output=True, text=True)
    took = time.perf_counter() - started
    assert done.returncode == 0, done.stderr[-2000:]
    return took, int(done.stderr.strip().splitlines()[-1]) // 2**20, done.stdout


def test_scaleout_cli_versus_dask(inputs, tmp_path):
    root, urls = inputs
    cli = [sys.executable, "-m", "sitemapkit", "write"]
    runs = {
        "scaleout-cli-1-process": cli + [str(root / "all.tsv"), "-o", str(tmp_path / "a"),
                                         "--base-url", BASE, "--no-fsync"],
        "scaleout-cli-folder-2-jobs": cli + [str(root / "parts"), "-o", str(tmp_path / "b"),
                                             "--base-url", BASE, "--jobs", "2", "--no-fsync"],
        "scaleout-cli-folder-8-repeating": cli + [str(root / "parts8"), "-o",
                                                  str(tmp_path / "e"), "--base-url", BASE,
                                                  "--jobs", "2", "--no-fsync"],
        "scaleout-dask-2-workers": [sys.executable, "-c", DASK_SCRIPT, str(root / "parts"),
                                    str(tmp_path / "c"), "keys", BASE, "warm"],
        "scaleout-dask-2-workers-unique": [sys.executable, "-c", DASK_SCRIPT,
                                           str(root / "parts"), str(tmp_path / "d"), "unique",
                                           BASE, "warm"],
        "scaleout-dask-parquet-8-repeating": [sys.executable, "-c", DASK_SCRIPT,
                                              str(root / "parts8.parquet"),
                                              str(tmp_path / "f"), "keys", BASE, "warm"],
        "scaleout-dask-parquet-8-repeating-engine-check": [
            sys.executable, "-c", DASK_SCRIPT, str(root / "parts8.parquet"),
            str(tmp_path / "j"), "engine", BASE, "warm"],
        "scaleout-dask-parquet-8-repeating-cold-workers": [
            sys.executable, "-c", DASK_SCRIPT, str(root / "parts8.parquet"),
            str(tmp_path / "h"), "keys", BASE, "cold"],
    }
    for name, argv in runs.items():
        took, rss, stdout = _timed(argv)
        TIMES[name] = took
        line = f"{name:46s} {took:7.1f} s  {urls / took / 1e6:5.2f} M URLs/s  peak RSS {rss} MB"
        if "dask" in name or "spark" in name:
            report = json.loads(stdout.strip().splitlines()[-1])
            assert report["urls"] == urls
            took = TIMES[name] = report["seconds"]  # start-up excluded
            line = f"{name:46s} {took:7.1f} s  {urls / took / 1e6:5.2f} M URLs/s  " + (
                f"driver+scheduler {report['driver_mb']} MB, workers {report['workers_mb']} MB"
                if "dask" in name else f"Python driver {report['driver_mb']} MB, whole tree "
                f"{rss} MB; runs in one session " + ", ".join(f"{t:.1f}" for t in report["all"])
                + " s (the best after the first is the figure)") + f"; {report['shards']} shards"
        NOTES.append(line)
    listing = sorted(os.listdir(tmp_path / "a"))
    NOTES.append(f"scale-out: {urls:,} URLs -> {len(listing) - 1} shards; ratios are "
                 "single-process CLI time / other time (>= 0.8 is the Dask target)")
    for name in runs:
        if name != "scaleout-cli-1-process":
            NOTES.append(f"  {name:46s} "
                         f"{TIMES['scaleout-cli-1-process'] / TIMES[name]:5.2f}x")
