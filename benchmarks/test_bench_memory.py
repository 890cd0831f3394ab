"""Peak RSS while streaming N and 5N entries from a generator (target: flat).

Each size runs in a fresh subprocess so peaks don't mix. Growth between the two
runs, divided by the extra URLs, is the per-URL cost (the duplicate check only).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import NOTES, N

SCRIPT = """
import json, resource, sys, tempfile
sys.path.insert(0, {bench!r})
from bench_data import BASE, iter_entries
from sitemapkit import write_sitemaps
n = int(sys.argv[1])
with tempfile.TemporaryDirectory() as out:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = write_sitemaps(iter_entries(n), out, BASE, fsync=False)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"n": n, "urls": r.url_count, "shards": r.shard_count,
                  "baseline_kb": before, "peak_kb": peak}}))
"""


def peak(n: int, tag: str) -> dict[str, int]:
    env = {**os.environ, "SITEMAPKIT_NO_EXTENSIONS": "1" if tag == "py" else ""}
    code = SCRIPT.format(bench=str(Path(__file__).parent))
    done = subprocess.run([sys.executable, "-c", code, str(n)], capture_output=True, text=True,
                          env=env, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_peak_rss_is_flat(impl):
    if impl.tag == "py":
        pytest.skip("memory target is for the default (C) build; pure uses a Python set")
    small, large = peak(N, impl.tag), peak(5 * N, impl.tag)
    growth = (large["peak_kb"] - small["peak_kb"]) * 1024 / (large["urls"] - small["urls"])
    NOTES.append(f"peak RSS [{impl.tag}]: {small['urls']:,} URLs {small['peak_kb'] / 1024:.0f} MB, "
                 f"{large['urls']:,} URLs {large['peak_kb'] / 1024:.0f} MB "
                 f"({large['shards']} shards): {growth:.1f} bytes per extra URL (target <= 16)")
    assert large["urls"] == 5 * N
