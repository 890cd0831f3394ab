"""The human view of a 60,000-URL set (two shards: 50,000 + 10,000) in headless
Chromium: the time from navigation to the load event of each shard's page (target:
under 1 s each), against the same rows in one table (what a plain HTML list of a
sitemap gives), in the same run. Also the cost of `--human-view` on `sitemapkit write`
through the CLI. Scale with SITEMAPKIT_BENCH_VIEW_URLS."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from docs_projects import need

from conftest import NOTES, RATIOS, TIMES

URLS = int(os.environ.get("SITEMAPKIT_BENCH_VIEW_URLS", "60000"))
ROUNDS = int(os.environ.get("SITEMAPKIT_BENCH_VIEW_ROUNDS", "3"))
BASE = "https://docs.example.com/"
PROBE = ("<script>addEventListener('load',function(){setTimeout(function(){document.body."
         "setAttribute('data-load-ms',String(performance.now()))},0)})</script></body>")
RATIOS += [("human view, 50k-URL page: one table / sitemapkit's chunks",
            "view-one-table", "view-shard-1", None)]


def load_ms(page: Path, profile: Path) -> float:
    """Navigation start to the load event (and one task after it), in ms, best of
    ``ROUNDS`` fresh Chromium processes."""
    probe = page.with_name(f"probe-{page.name}")
    probe.write_text(page.read_text().replace("</body>", PROBE, 1))
    best = float("inf")
    try:
        for _ in range(ROUNDS):
            dom = subprocess.run([need("chromium"), "--headless", "--no-sandbox",
                                  "--disable-gpu", f"--user-data-dir={profile}", "--dump-dom",
                                  probe.as_uri()], capture_output=True, text=True,
                                 timeout=300).stdout
            found = re.search(r'data-load-ms="([0-9.]+)"', dom)
            assert found, "the page did not finish loading"
            best = min(best, float(found[1]))
    finally:
        probe.unlink()
    return best


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, dict[str, float]]:
    """The set written through the CLI, with and without the view (seconds each)."""
    root = tmp_path_factory.mktemp("view")
    source = root / "urls.csv"
    sections = ("guide", "api", "blog", "reference", "tutorials")
    source.write_text("loc,lastmod\n" + "".join(
        f"{BASE}{sections[i % 5]}/page-{i}/a-longer-slug,2024-{1 + i % 12:02d}-"
        f"{1 + i % 28:02d}\n" for i in range(URLS)))
    took = {}
    for label, extra in (("without", []), ("with", ["--human-view"])):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "sitemapkit", "write", str(source), "-o",
                        str(root / label), "--base-url", BASE, "-q", *extra], check=True)
        took[label] = time.perf_counter() - started
    return root / "with", took


def test_human_view_shard_pages_load(written, tmp_path):
    out, took = written
    pages = sorted(out.glob("sitemap-view-*.html")) or [out / "sitemap.html"]
    for number, page in enumerate(pages, 1):
        ms = load_ms(page, tmp_path / "profile")
        TIMES[f"view-shard-{number}"] = ms / 1000
        rows = page.read_text().count("<tr")
        NOTES.append(f"human view: {page.name} ({rows:,} rows, {page.stat().st_size:,} bytes) "
                     f"loads in {ms:,.0f} ms in headless Chromium (target < 1 s)")
    NOTES.append(f"sitemapkit write of {URLS:,} URLs: {took['without']:.2f} s, with "
                 f"--human-view {took['with']:.2f} s")


def test_one_table_baseline(written, tmp_path):
    """The same first page's rows in one table, no chunks: the naive HTML view."""
    out, _ = written
    page = sorted(out.glob("sitemap-view-*.html")) or [out / "sitemap.html"]
    text = page[0].read_text()
    rows = re.findall(r"<tr>.*?(?=<tr>|</tbody>)", text)
    naive = tmp_path / "one-table.html"
    naive.write_text("<!DOCTYPE html><html><head><meta charset=utf-8><style>table{width:100%;"
                     "border-collapse:collapse}td{border-bottom:1px solid #ddd}</style></head>"
                     "<body><table><tbody>" + "".join(rows) + "</tbody></table></body></html>")
    ms = load_ms(naive, tmp_path / "profile")
    TIMES["view-one-table"] = ms / 1000
    NOTES.append(f"human view baseline: the same {len(rows):,} rows in one table load in "
                 f"{ms:,.0f} ms")
