"""A folder-mode driver (`sitemapkit write PARTS_DIR --jobs 2`) killed with SIGKILL
leaves no worker behind: each dies with it (the driver's pipe ends closed in the
worker, and Linux' parent-death signal). The spill folder it left in $TMPDIR is removed
by the next run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BASE = "https://example.com/"


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killing_the_driver_leaves_no_worker_and_the_next_run_removes_its_spill(tmp_path):
    parts = tmp_path / "parts"
    parts.mkdir()
    for n in range(4):
        (parts / f"part-{n:05d}.csv").write_text(
            "loc,lastmod\n" + "".join(f"{BASE}{n}/{i},2024-01-01\n" for i in range(150_000)))
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    args = [sys.executable, "-m", "sitemapkit", "write", str(parts), "-o", str(tmp_path / "out"),
            "--base-url", BASE, "--jobs", "2", "-q"]
    driver = subprocess.Popen(args, env=env, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while len(workers) < 2 and time.monotonic() < deadline and driver.poll() is None:
        workers = children(driver.pid)
        time.sleep(0.01)
    assert len(workers) >= 2, "the workers never started"
    while not list(temp.glob("sitemapkit-parts-*")) and driver.poll() is None:
        time.sleep(0.01)  # the first pass is under way: shards spill here
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    waited = time.monotonic()
    while any(alive(w) for w in workers) and time.monotonic() - waited < 5:
        time.sleep(0.05)
    assert not [w for w in workers if alive(w)], "a worker outlived its driver by 5 s"
    left = list(temp.glob(f"sitemapkit-parts-{driver.pid}-*"))
    assert left, "the killed driver's spill folder is expected in $TMPDIR"
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not list(temp.glob("sitemapkit-parts-*"))  # the dead driver's, and its own
