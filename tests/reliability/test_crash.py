"""SIGKILL at random points of a large write, 50 runs driven from a subprocess: every
time the directory holds the complete old set or the complete new set, and the index
never points at a missing shard."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

from figures import FIGURES
from sitemap_check import read_set

from sitemapkit.write.output import TMP_PREFIX

BASE = "https://example.com/docs/"
RUNS = 50
COUNTS = {"a": 12_000, "b": 10_800}  # different shapes, so a mix cannot hide
# A slow disk: each rename takes 3 ms, so the commit phase (40+ renames) is a large
# target for the random kills rather than a microsecond window.
WRITER = """
import os, sys, time
_replace = os.replace
def slow_replace(src, dst):
    time.sleep(0.003)
    _replace(src, dst)
os.replace = slow_replace
from sitemapkit import UrlEntry, write_sitemaps
tag, out = sys.argv[1], sys.argv[2]
day = {"a": "2024-01-01", "b": "2025-02-02"}[tag]
count = {"a": 12_000, "b": 10_800}[tag]
entries = (UrlEntry(f"https://example.com/docs/{tag}/p{i}", day) for i in range(count))
write_sitemaps(entries, out, "https://example.com/docs/", max_urls=300, fsync=False)
"""


def run_writer(tag: str, out, kill_after: float | None) -> int:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, tag, str(out)])
    if kill_after is not None:
        try:
            proc.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
    return proc.wait(timeout=120)


def which_set(out) -> str:
    sset = read_set(out, BASE, max_urls=300)  # parses every shard the index names
    tags = {loc.removeprefix(BASE).split("/")[0] for loc in sset.locs}
    assert len(tags) == 1, f"a mix of sets: {tags}"
    tag = tags.pop()
    assert len(sset.locs) == COUNTS[tag], "an incomplete set"
    return tag


def test_sigkill_never_leaves_a_mix(tmp_path):
    out = tmp_path / "site"
    assert run_writer("a", out, None) == 0
    started = time.perf_counter()
    assert run_writer("b", out, None) == 0
    full = time.perf_counter() - started
    rng = random.Random(7)
    current, killed, outcomes = "b", 0, {"old set": 0, "new set": 0}
    for _ in range(RUNS):
        attempt = "a" if current == "b" else "b"
        code = run_writer(attempt, out, rng.uniform(0.2, 1.05) * full)
        killed += code == -signal.SIGKILL
        now = which_set(out)  # raises on a mix or a dangling index entry
        assert now in (current, attempt)
        outcomes["new set" if now == attempt else "old set"] += 1
        current = now
    leftovers = [p.name for p in out.iterdir() if p.name.startswith(TMP_PREFIX)]
    assert run_writer(current, out, None) == 0  # the next run clears any dead run's temps
    assert not [p for p in out.iterdir() if p.name.startswith(TMP_PREFIX)]
    FIGURES["SIGKILL runs"] = (f"{RUNS} runs ({killed} killed mid-write, full run "
                               f"{full:.2f} s): {RUNS}/{RUNS} held one complete set "
                               f"({outcomes['old set']} old, {outcomes['new set']} new); "
                               f"{len(leftovers)} dead temp files cleared by the next run")
