"""SIGKILL in the commit's last window: the new entry point is live and the old set's
shards are being removed. The journal names the old set until every file of it is
gone, so the next complete run leaves only files its entry point names, whichever
file the kill fell after."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sitemap_check import read_set

BASE = "https://example.com/docs/"
# The writer removes k of the old shards, then is killed (the kill lands at each point
# of the removal across the parametrised runs); the same kill in the single-file and
# the partition commit paths.
WRITER = """
import os, signal, sys
from sitemapkit.write import output
from sitemapkit import write_sitemaps
tag, out, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
if k >= 0:
    real = output.remove_owned
    def killed(out_dir, names):
        real(out_dir, names[:k])
        os.kill(os.getpid(), signal.SIGKILL)
    output.remove_owned = killed
count = {"a": 3_000, "b": 2_500}[tag]
write_sitemaps((f"{BASE}{tag}/p{i}" for i in range(count)), out, "{BASE}", max_urls=100,
               fsync=False)
""".replace("{BASE}", BASE)


def run_writer(tag: str, out, kill_after: int = -1) -> int:
    return subprocess.run([sys.executable, "-c", WRITER, tag, str(out), str(kill_after)],
                          timeout=120).returncode


@pytest.mark.parametrize("kill_after", [0, 1, 15, 29])
def test_a_kill_while_old_shards_are_removed_leaves_no_orphan(tmp_path, kill_after):
    out = tmp_path / "site"
    assert run_writer("a", out) == 0  # 30 shards
    assert run_writer("b", out, kill_after) == -9  # killed with 30 - k old shards left
    left = sorted(p.name for p in out.iterdir())
    assert len(left) > len(read_set(out, BASE, max_urls=100).shards) + 1  # orphans now
    assert run_writer("b", out) == 0  # the next complete run
    listed = read_set(out, BASE, max_urls=100)
    assert sorted(p.name for p in out.iterdir()) == sorted([*listed.shards, "sitemap.xml"])
    assert {loc.split("/")[-2] for loc in listed.locs} == {"b"}
