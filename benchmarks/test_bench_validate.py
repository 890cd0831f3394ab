"""``sitemapkit validate`` on one full 50,000-URL shard (target: under 1 s), against
the usual alternatives in the same run: lxml parse + sitemaps.org XSD validation (no
URL, date or cross-file rules at all) and ElementTree parse alone. Also peak memory
for a 10 MB shard, showing the parse streams rather than building a tree."""

from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from peak_rss import measured

from conftest import NOTES, RATIOS, TIMES, best_of

CAP = 52_428_800  # the shard is about 12 MB uncompressed: one file at the protocol maximum
URLS = int(os.environ.get("SITEMAPKIT_BENCH_VALIDATE_URLS", "50000"))
BASE = "https://docs.example.com/"
SCHEMA = Path(__file__).parent.parent / "tests/helpers/schemas/sitemap.xsd"
RATIOS += [
    ("validate 50k shard: lxml+XSD / sitemapkit validate", "validate-lxml-xsd",
     "validate-sitemapkit", None),
    ("validate 50k shard: ElementTree parse only / sitemapkit validate", "validate-etree-parse",
     "validate-sitemapkit", None),
]


@pytest.fixture(scope="module")
def shard(tmp_path_factory) -> Path:
    """A realistic full shard: lastmod, changefreq, priority, and a 3-language cluster on
    one URL in ten, written by sitemapkit itself."""
    from sitemapkit import UrlEntry, write_sitemaps
    from sitemapkit.hreflang import cluster

    entries = []
    for i in range(URLS):
        loc = f"{BASE}en/section-{i % 97}/page-{i}/"
        alternates = ()
        if i % 10 == 0:
            alternates = cluster({"en": loc, "de": loc.replace("/en/", "/de/"),
                                  "fr": loc.replace("/en/", "/fr/")}, x_default="en")
        entries.append(UrlEntry(loc, f"2024-{i % 12 + 1:02d}-{i % 28 + 1:02d}T10:00:00+00:00",
                                "weekly", "0.5", alternates))
    out = tmp_path_factory.mktemp("validate")
    write_sitemaps(entries, out, BASE, gzip_copy=True, max_bytes=CAP)
    return out / "sitemap.xml.gz"


def test_validate_sitemapkit(benchmark, shard):
    from sitemapkit.validate import ValidateOptions, validate

    report, seconds = best_of(benchmark, validate, [shard], ValidateOptions(max_bytes=CAP))
    TIMES["validate-sitemapkit"] = seconds
    assert report.urls == URLS and report.total("error") == 0
    NOTES.append(f"validate: {URLS:,}-URL shard ({shard.stat().st_size:,} bytes gzipped) in "
                 f"{seconds:.3f} s (target < 1 s)")


def test_validate_lxml_xsd(benchmark, shard):
    from lxml import etree

    schema = etree.XMLSchema(etree.parse(str(SCHEMA)))

    def run() -> bool:
        return bool(schema.validate(etree.fromstring(gzip.decompress(shard.read_bytes()))))

    _, TIMES["validate-lxml-xsd"] = best_of(benchmark, run)


def test_validate_etree_parse(benchmark, shard):
    _, TIMES["validate-etree-parse"] = best_of(
        benchmark, lambda: ElementTree.fromstring(gzip.decompress(shard.read_bytes())))


def test_validate_memory_is_flat(shard):
    """Peak RSS of a validate run over the plain 10 MB file, minus a bare import's."""
    plain = shard.with_name("sitemap.xml")
    code = ("import sys\nfrom sitemapkit.validate import ValidateOptions, validate\n"
            f"print(validate([sys.argv[1]], ValidateOptions(max_bytes={CAP})).urls)")
    out, peak = measured(sys.executable, "-c", code, str(plain))
    _, bare = measured(sys.executable, "-c", "import sitemapkit.validate")
    NOTES.append(f"validate memory: {int(out):,} URLs, {plain.stat().st_size / 1e6:.1f} MB "
                 f"file: peak RSS {peak / 1e6:.1f} MB, {(peak - bare) / 1e6:.1f} MB over a bare "
                 "import")
    assert int(out) == URLS


HREFLANG_CLUSTERS = int(os.environ.get("SITEMAPKIT_BENCH_HREFLANG_CLUSTERS", "100000"))
EXPAT_ONLY = ("import sys\nfrom sitemapkit.validate import ValidateOptions, validate\n"
              "sys.exit(0 if validate([sys.argv[1]], ValidateOptions(fast_scan='off')).ok() "
              "else 1)")


def test_validate_a_multilingual_set_through_the_cli(tmp_path):
    """Every page in three languages plus x-default (a docs site with translations),
    written by sitemapkit: `sitemapkit validate` as a subprocess, beside the validator
    with expat reading every element (its path before the scan took alternates), on the
    same files. Wall time and peak RSS as the launcher measures the child."""
    import subprocess

    from peak_rss import launcher_argv

    from sitemapkit import UrlEntry, write_sitemaps
    from sitemapkit.hreflang import cluster

    def entries():
        for i in range(HREFLANG_CLUSTERS):
            urls = {lang: f"{BASE}{lang}/section-{i % 97}/page-{i}/" for lang in ("en", "de", "fr")}
            alternates = cluster(urls, x_default="en")
            for url in urls.values():
                yield UrlEntry(url, f"2024-{i % 12 + 1:02d}-{i % 28 + 1:02d}", None, None,
                               alternates)

    result = write_sitemaps(entries(), tmp_path, BASE)
    index = str(tmp_path / "sitemap.xml")
    seen: dict[str, tuple[float, int]] = {}
    for name, argv in (("CLI", [sys.executable, "-m", "sitemapkit", "validate", index]),
                       ("expat only", [sys.executable, "-c", EXPAT_ONLY, index])):
        done = subprocess.run(launcher_argv(*argv), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]  # the set is valid either way
        took, peak = done.stderr.strip().splitlines()[-2:]
        seen[name] = float(took), int(peak) // 2**20
    urls, (cli, cli_mb), (expat, expat_mb) = result.url_count, seen["CLI"], seen["expat only"]
    NOTES.append(f"validate, {urls:,} URLs with 4 alternates each ({len(result.files)} files): "
                 f"CLI {cli:.2f} s ({cli * 1e6 / urls:.1f} s per million, peak RSS {cli_mb} MB);"
                 f" expat only {expat:.2f} s ({expat_mb} MB): {expat / cli:.1f}x")
