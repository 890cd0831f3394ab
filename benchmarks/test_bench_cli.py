"""The standalone writer through the front door (issue: the writer, fast from the file
to the gzip): `sitemapkit write FILE` as a subprocess on SITEMAPKIT_BENCH_CLI_N rows
(default 1,000,000) of every input format, interleaved round by round with baseline
scripts that read the same TSV file and write the same shards (cli_baselines.py).
Median of SITEMAPKIT_BENCH_CLI_ROUNDS rounds (default 3); peak RSS through the
launcher. A second test compares peak RSS at 1x and 10x the rows.

SITEMAPKIT_BENCH_CLI_PYTHON names the Python whose sitemapkit is measured (default: this
one): a plain `pip install sitemapkit` in another venv, to quote what users get with no
extras. The baselines always run here.

Nothing is asserted about time: the ratios print at the end, for the note.
"""

from __future__ import annotations

import gzip
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from bench_inputs import BASE, write_inputs
from conftest import NOTES

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "helpers"))
from peak_rss import launcher_argv

N = int(os.environ.get("SITEMAPKIT_BENCH_CLI_N", "1000000"))
ROUNDS = int(os.environ.get("SITEMAPKIT_BENCH_CLI_ROUNDS", "3"))
BIG = int(os.environ.get("SITEMAPKIT_BENCH_CLI_BIG", "10"))  # the RSS test's multiple of N
HERE = Path(__file__).parent
MEASURED = os.environ.get("SITEMAPKIT_BENCH_CLI_PYTHON", sys.executable)  # sitemapkit's Python


def _importable(module: str) -> bool:
    """Whether the measured Python has ``module`` (a gzip backend an extra brings)."""
    return subprocess.run([MEASURED, "-c", f"import {module}"],
                          capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli-inputs")
    paths = write_inputs(folder, N)
    for name in FLOORS:  # each floor's input: sitemapkit's own shards, uncompressed
        written, xml = folder / f"written-{name}", folder / f"xml-{name}"
        subprocess.run(sitemapkit(paths[name], written), check=True)
        xml.mkdir()
        for shard in written.glob("*.xml.gz"):  # shards, or a one-file set's copy
            (xml / shard.name.removesuffix(".gz")).write_bytes(
                gzip.decompress(shard.read_bytes()))
        paths[f"xml-{name}"] = xml
    return paths


# Outputs whose gzip alone (the floor) is timed: where a ratio target compares two
# outputs of different size, the same ratio of their floors is what deflate alone costs.
FLOORS = ("tsv", "csv", "loc", "changefreq")


def sitemapkit(path: Path, out: Path, *extra: str) -> list[str]:
    return [MEASURED, "-m", "sitemapkit", "write", str(path), "-o", str(out),
            "--base-url", BASE, "--no-fsync", "-q", *extra]


def baseline(kind: str, path: Path, out: Path) -> list[str]:
    return [sys.executable, str(HERE / "cli_baselines.py"), kind, str(path), str(out), BASE]


def run(argv: list[str]) -> tuple[float, int]:
    """(wall seconds, peak RSS in MB) of one process, both as the launcher measured them
    around the child alone."""
    done = subprocess.run(launcher_argv(*argv), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    took, peak = done.stderr.strip().splitlines()[-2:]
    return float(took), int(peak) // 2**20


def gz_size(out: Path) -> int:
    return sum(p.stat().st_size for p in out.glob("*.gz"))


def test_cli_against_baselines(inputs, tmp_path):
    runs = {
        "naive csv+saxutils+gzip (tsv)": lambda o: baseline("naive", inputs["tsv"], o),
        "ElementTree (tsv)": lambda o: baseline("etree", inputs["tsv"], o),
        "lxml (tsv)": lambda o: baseline("lxml", inputs["tsv"], o),
        "tuned pure Python, 2 threads (tsv)": lambda o: baseline("tuned", inputs["tsv"], o),
        "floor: gzip of the same shards only, 2 threads":
            lambda o: baseline("floor", inputs["xml-tsv"], o),
        "floor, one core: gzip of the same shards only":
            lambda o: baseline("floor-one-core", inputs["xml-tsv"], o),
        "floor of the csv output": lambda o: baseline("floor", inputs["xml-csv"], o),
        "floor of the loc-only output": lambda o: baseline("floor", inputs["xml-loc"], o),
        "floor of the loc+changefreq output":
            lambda o: baseline("floor", inputs["xml-changefreq"], o),
        "sitemapkit tsv": lambda o: sitemapkit(inputs["tsv"], o),
        "sitemapkit csv (4 columns)": lambda o: sitemapkit(inputs["csv"], o),
        "sitemapkit jsonl (4 keys)": lambda o: sitemapkit(inputs["jsonl"], o),
        "sitemapkit text": lambda o: sitemapkit(inputs["txt"], o),
        "sitemapkit jsonl (loc, lastmod)": lambda o: sitemapkit(inputs["jsonl-2keys"], o),
        "sitemapkit jsonl with 3 alternates, N/5 rows":
            lambda o: sitemapkit(inputs["alternates"], o),
        "  the same rows one language after another":
            lambda o: sitemapkit(inputs["alternates-by-language"], o),
        "naive json+saxutils+gzip, the same alternates":
            lambda o: baseline("naive-alternates", inputs["alternates"], o),
        "sitemapkit tsv loc only": lambda o: sitemapkit(inputs["loc"], o),
        "sitemapkit tsv loc+priority": lambda o: sitemapkit(inputs["priority"], o),
        "sitemapkit tsv loc+changefreq": lambda o: sitemapkit(inputs["changefreq"], o),
        "sitemapkit tsv, stdlib zlib":
            lambda o: sitemapkit(inputs["tsv"], o, "--gzip-backend", "zlib"),
        "sitemapkit tsv, zlib-ng":
            lambda o: sitemapkit(inputs["tsv"], o, "--gzip-backend", "zlib-ng"),
        "sitemapkit tsv, isal (fast extra)":
            lambda o: sitemapkit(inputs["tsv"], o, "--gzip-backend", "isal"),
    }
    for name, module in (("sitemapkit tsv, zlib-ng", "zlib_ng"),
                         ("sitemapkit tsv, isal (fast extra)", "isal")):
        if not _importable(module):  # a plain install without it: said, not measured
            NOTES.append(f"CLI benchmark: {name} not measured ({module} is not installed "
                         f"for {MEASURED})")
            del runs[name]
    backend = subprocess.run([MEASURED, "-c", "from sitemapkit.write.compress import "
                              "resolve_backend; print(resolve_backend('auto'))"],
                             capture_output=True, text=True).stdout.strip()
    times: dict[str, list[float]] = {name: [] for name in runs}
    rss: dict[str, int] = {}
    sizes: dict[str, int] = {}
    for round_ in range(ROUNDS):  # interleaved: every writer once per round
        for number, (name, argv) in enumerate(runs.items()):
            out = tmp_path / f"r{round_}-{number}"
            took, peak = run(argv(out))
            times[name].append(took)
            rss[name] = max(rss.get(name, 0), peak)
            sizes[name] = gz_size(out)
            if round_ == 0:
                _check_output(out)
    med = {name: statistics.median(t) for name, t in times.items()}
    NOTES.append(f"CLI benchmark: {N:,} rows, median of {ROUNDS} interleaved rounds, "
                 "each writer its own process (wall s, peak RSS MB, gzip bytes); sitemapkit "
                 f"run by {MEASURED} (gzip auto: {backend}):")
    for name in runs:
        NOTES.append(f"  {name:40s} {med[name]:7.2f} s  {rss[name]:5d} MB  "
                     f"{sizes[name]:>12,}")
    tsv = med["sitemapkit tsv"]
    for label, slow, fast, target in [
        ("naive / sitemapkit tsv", "naive csv+saxutils+gzip (tsv)", "sitemapkit tsv", 6),
        ("ElementTree / sitemapkit tsv", "ElementTree (tsv)", "sitemapkit tsv", 9),
        ("lxml / sitemapkit tsv", "lxml (tsv)", "sitemapkit tsv", None),
        ("tuned pure / sitemapkit tsv", "tuned pure Python, 2 threads (tsv)",
         "sitemapkit tsv", 3),
        ("naive / sitemapkit tsv stdlib zlib", "naive csv+saxutils+gzip (tsv)",
         "sitemapkit tsv, stdlib zlib", None),
        ("naive / sitemapkit tsv zlib-ng", "naive csv+saxutils+gzip (tsv)",
         "sitemapkit tsv, zlib-ng", 10),
        ("naive / sitemapkit tsv isal", "naive csv+saxutils+gzip (tsv)",
         "sitemapkit tsv, isal (fast extra)", 10),
    ]:
        if fast not in med:
            continue
        goal = f" (target >= {target}x)" if target else ""
        NOTES.append(f"  {label:44s} {med[slow] / med[fast]:6.2f}x{goal}")
    floor = med["floor: gzip of the same shards only, 2 threads"]
    NOTES.append(f"  {'tuned pure / floor (best any writer can do)':44s} "
                 f"{med['tuned pure Python, 2 threads (tsv)'] / floor:6.2f}x")
    NOTES.append(f"  {'sitemapkit tsv / floor':44s} {tsv / floor:6.2f}x")
    one_core = med["floor, one core: gzip of the same shards only"]
    NOTES.append(f"  {'sitemapkit tsv / its output gzipped, one core':44s} {tsv / one_core:6.2f}x"
                 " (target <= 1.5x)")
    for name in ("sitemapkit csv (4 columns)", "sitemapkit jsonl (4 keys)", "sitemapkit text"):
        NOTES.append(f"  {name + ' / tsv':44s} {med[name] / tsv:6.2f}x (target <= 1.3x)")
    assert sizes["sitemapkit jsonl (loc, lastmod)"] == sizes["sitemapkit tsv"]  # same bytes
    same = med["sitemapkit jsonl (loc, lastmod)"] / tsv
    NOTES.append(f"  {'jsonl (loc, lastmod) / tsv: the same output':44s} {same:6.2f}x "
                 "(target <= 1.1x)")
    NOTES.append(f"  {'jsonl (4 keys) / csv (4 columns): the same':44s} "
                 f"{med['sitemapkit jsonl (4 keys)'] / med['sitemapkit csv (4 columns)']:6.2f}x "
                 "(target <= 1.1x)")
    NOTES.append(f"  {'  gzip alone: csv output / tsv output':44s} "
                 f"{med['floor of the csv output'] / floor:6.2f}x (the same JSON Lines output)")
    rows = max(N // 5, 3) // 3 * 3
    took = med["sitemapkit jsonl with 3 alternates, N/5 rows"]
    by_language = med["  the same rows one language after another"]
    NOTES.append(f"  {'jsonl with alternates: s per million rows':44s} {took * 1e6 / rows:6.2f} s "
                 f"(one language after another: {by_language * 1e6 / rows:.2f} s; plain jsonl: "
                 f"{med['sitemapkit jsonl (4 keys)'] * 1e6 / N:.2f} s)")
    NOTES.append(f"  {'naive (no cluster check) / sitemapkit':44s} "
                 f"{med['naive json+saxutils+gzip, the same alternates'] / took:6.2f}x, "
                 f"one language after another "
                 f"{med['naive json+saxutils+gzip, the same alternates'] / by_language:.2f}x")
    NOTES.append(f"  {'  its peak RSS (plain jsonl at N rows)':44s} "
                 f"{rss['sitemapkit jsonl with 3 alternates, N/5 rows']:6d} MB "
                 f"({rss['sitemapkit jsonl (4 keys)']} MB)")
    alone = med["sitemapkit tsv loc only"]
    for name in ("sitemapkit tsv loc+priority", "sitemapkit tsv loc+changefreq"):
        NOTES.append(f"  {name + ' / loc only':44s} {med[name] / alone:6.2f}x "
                     "(target <= 1.10x)")
    deflate = med["floor of the loc+changefreq output"] / med["floor of the loc-only output"]
    NOTES.append(f"  {'  gzip alone: loc+changefreq / loc only':44s} {deflate:6.2f}x")
    zlib6 = sizes["sitemapkit tsv, stdlib zlib"]
    for name in ("sitemapkit tsv, zlib-ng", "sitemapkit tsv, isal (fast extra)"):
        if name not in sizes:
            continue
        NOTES.append(f"  {name + ' size vs zlib 6':44s} {sizes[name] / zlib6 - 1:+6.1%} "
                     "(target <= +3%)")


def _check_output(out: Path) -> None:
    """Every writer produced an index naming readable gzip shards."""
    index = (out / "sitemap.xml").read_bytes()
    assert index.count(b"<sitemap>") >= 1 or b"<urlset" in index
    for shard in sorted(out.glob("*.gz"))[:1]:
        assert gzip.decompress(shard.read_bytes()).rstrip().endswith(b"</urlset>")


VALIDATE_EXPAT_ONLY = ("import sys\nfrom sitemapkit.validate import ValidateOptions, validate\n"
                      "r = validate([sys.argv[1]], ValidateOptions(fast_scan='off'))\n"
                      "sys.exit(0 if r.ok() else 1)")


def test_cli_peak_rss_is_flat(tmp_path):
    """Peak RSS at N and at BIG x N rows of the same mix: the writer streams, so only the
    duplicate table grows (the issue's budget: at most 16 bytes per URL). Then
    `sitemapkit validate` on each set, beside the validator with expat reading every
    element (its path before the fast scan), on the same files."""
    peaks: dict[int, int] = {}
    checks: dict[tuple[str, int], tuple[float, int]] = {}
    for rows in (N, N * BIG):
        folder = tmp_path / f"in{rows}"
        folder.mkdir()
        path = write_inputs(folder, rows, alternates=False)["tsv"]
        out = tmp_path / f"out{rows}"
        took, peaks[rows] = run(sitemapkit(path, out))
        for other in folder.iterdir():
            other.unlink()
        NOTES.append(f"CLI peak RSS, {rows:,} rows (tsv): {peaks[rows]} MB in {took:.1f} s")
        index = str(out / "sitemap.xml")
        checks["scan", rows] = run([sys.executable, "-m", "sitemapkit", "validate", index])
        checks["expat", rows] = run([sys.executable, "-c", VALIDATE_EXPAT_ONLY, index])
        for how in ("scan", "expat"):
            took, peak = checks[how, rows]
            NOTES.append(f"  validate ({'CLI' if how == 'scan' else 'expat only'}), "
                         f"{rows:,} URLs: {took:.2f} s ({took * 1e6 / rows:.2f} s per million),"
                         f" peak RSS {peak} MB")
    grown = (peaks[N * BIG] - peaks[N]) * 2**20 / (N * BIG - N)
    NOTES.append(f"  growth {grown:.1f} bytes per extra URL (target <= 16)")
    for how in ("scan", "expat"):
        grown = (checks[how, N * BIG][1] - checks[how, N][1]) * 2**20 / (N * BIG - N)
        NOTES.append(f"  validate ({how}) growth {grown:.1f} bytes per extra URL (target <= 16)")
    ratio = checks["expat", N * BIG][0] / checks["scan", N * BIG][0]
    NOTES.append(f"  validate {N * BIG:,} URLs: expat only / CLI = {ratio:.1f}x")
