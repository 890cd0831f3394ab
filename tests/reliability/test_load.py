"""Load: millions of URLs through the CLI from a streamed generator. Peak RSS stays
within the writer core's budget (flat, plus at most 24 bytes per URL for the duplicate
check), every shard validates, and the index lists all of them.

Defaults to 1,000,000 URLs; SITEMAPKIT_LOAD_URLS=20000000 runs the full-size check."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from figures import FIGURES
from lxml import etree
from peak_rss import launcher_argv
from sitemap_check import NS, PARSER, parse_urlset, read_bytes, schema

BASE = "https://example.com/"
URLS = int(os.environ.get("SITEMAPKIT_LOAD_URLS", "2000000"))
STEADY = 500_000  # shard buffers and in-flight gzip work are at full size from here on
NOISE = 8_000_000  # peak RSS of two separate processes differs by a few MB (allocator)
GENERATOR = """
import sys
out = sys.stdout
out.write("loc,lastmod\\n")
for i in range(int(sys.argv[1])):
    out.write(f"https://example.com/section-{i % 997}/page-{i}.html,2024-05-{i % 28 + 1:02d}\\n")
"""


# The CLI's own peak RSS comes from a launcher process (see peak_rss.py).


def write_through_cli(count: int, out) -> tuple[float, int, str]:
    """(seconds, peak RSS of the sitemapkit process in bytes, its summary line)."""
    started = time.perf_counter()
    gen = subprocess.Popen([sys.executable, "-c", GENERATOR, str(count)],
                           stdout=subprocess.PIPE)
    cli = subprocess.Popen(launcher_argv(sys.executable, "-m", "sitemapkit",
                                         "write", "-", "--format", "csv", "-o", str(out),
                                         "--base-url", BASE, "--no-fsync"),
                           stdin=gen.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    assert gen.stdout is not None
    gen.stdout.close()
    summary, peak = cli.communicate()
    assert gen.wait() == 0 and cli.returncode == 0, summary + peak
    return time.perf_counter() - started, int(peak.split()[-1]), summary.strip()


def check_streamed(out) -> tuple[int, int]:
    """Validate the index and every shard one at a time (a whole set of 20M URLs in
    memory would need gigabytes); the index must list exactly the shards on disk."""
    index = etree.fromstring(read_bytes(out / "sitemap.xml"), PARSER)
    schema("siteindex.xsd").assertValid(index)
    names = [el.findtext(f"{{{NS}}}loc").removeprefix(BASE) for el in index]
    assert sorted(names) == sorted(p.name for p in out.glob("sitemap-*.xml.gz"))
    return len(names), sum(len(parse_urlset(read_bytes(out / n))) for n in names)


@pytest.mark.slow
@pytest.mark.c_extension  # the budget is the default (C) build's; the pure twin uses a set
def test_millions_of_urls_stream_within_the_memory_budget(tmp_path):
    _, small_rss, _ = write_through_cli(STEADY, tmp_path / "small")
    seconds, rss, summary = write_through_cli(URLS, tmp_path / "big")
    # 16 bytes a slot (the 128-bit key of the duplicate check) at 67-85% load: at most
    # 24 per extra URL (it was 16 with the 64-bit hash)
    budget = small_rss + 24 * (URLS - STEADY) + NOISE
    assert rss <= budget, f"peak RSS {rss / 1e6:.0f} MB over budget {budget / 1e6:.0f} MB"
    shards, urls = check_streamed(tmp_path / "big")
    assert shards == -(-URLS // 50_000) and urls == URLS
    FIGURES[f"load, {URLS:,} URLs through the CLI"] = (
        f"{seconds:.1f} s, {shards} shards, peak RSS {rss / 1e6:.0f} MB "
        f"({STEADY:,} URLs: {small_rss / 1e6:.0f} MB, so "
        f"{(rss - small_rss) / (URLS - STEADY):.1f} bytes per extra URL; budget "
        f"{budget / 1e6:.0f} MB) - {summary}")
