"""Every stop leaves nothing a deploy could publish (guarantees rules 1-3, issue 59).

SIGINT (Ctrl-C) and SIGTERM (what CI runners send on cancel) sent at moments spread
from the first import to the commit of a write, on both twins: one line, exit 130 or
143, no traceback, no temporary file left, and the set in the folder is the old one
or the new one, whole. SIGKILL at moments spread over a partitioned write (a folder
of part files, two jobs): every file under a sitemap's name is listed by the live
index, before any next run; the next run leaves no staged or temporary file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from kills import SIGNALLER
from sitemap_check import read_set

from sitemapkit.protocol import looks_like_sitemap
from sitemapkit.write.output import STAGED_PREFIX, TMP_PREFIX

BASE = "https://example.com/"
MOMENTS = 8  # per signal and twin
URLS = 30_000  # three shards of 10,000


def signalled(sig: int, at: int, *args: str, env: dict[str, str] | None = None,
              cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SIGNALLER, str(sig), str(at), "sitemapkit",
                           *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                          env={**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})})


def events(done: subprocess.CompletedProcess[str]) -> tuple[int, int]:
    assert done.returncode == 0, done.stderr
    words = done.stderr.strip().splitlines()[-1].split()
    assert words[0] == "EVENTS", done.stderr
    return int(words[1]), int(words[2])


def urls_file(path: Path, tag: str, n: int = URLS) -> set[str]:
    urls = [f"{BASE}{tag}/{i}" for i in range(n)]
    path.write_text("\n".join(urls) + "\n")
    return set(urls)


def leftovers(out: Path) -> list[str]:
    return [p.name for p in out.iterdir() if p.name.startswith((TMP_PREFIX, STAGED_PREFIX))]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_at_any_moment_is_one_line_and_leaves_the_old_set(tmp_path, twin_env, sig):
    out = tmp_path / "out"
    old, new = urls_file(tmp_path / "old.txt", "old"), urls_file(tmp_path / "new.txt", "new")
    write = ["write", "-o", str(out), "--base-url", BASE, "--max-urls", "10000"]
    assert signalled(sig, -1, write[0], str(tmp_path / "old.txt"), *write[1:],
                     env=twin_env).returncode == 0
    total, _ = events(signalled(sig, -1, write[0], str(tmp_path / "new.txt"), *write[1:],
                                env=twin_env))
    code, word = {signal.SIGINT: (130, "interrupted"),
                  signal.SIGTERM: (143, "terminated (SIGTERM)")}[sig]
    stopped = 0
    for k in range(MOMENTS):
        source = ("old", "new")[k % 2]  # each stop replaces the set of the last one
        before = read_set(out, BASE, max_urls=10_000).locs
        at = k * (total - 1) // (MOMENTS - 1)
        done = signalled(sig, at, write[0], str(tmp_path / f"{source}.txt"), *write[1:],
                         env=twin_env)
        assert "Traceback" not in done.stderr, (at, done.stderr)
        assert not leftovers(out), (at, leftovers(out))
        after = set(read_set(out, BASE, max_urls=10_000).locs)
        if done.returncode == 0:  # the signal came as the run ended: the new set is whole
            assert after == {"old": old, "new": new}[source], at
            continue
        stopped += 1
        assert done.returncode == code, (at, done.returncode, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"sitemapkit: {word}; "), (at, lines)
        assert after in (old, new) and (after == set(before) or "unchanged" not in lines[0])
        if source == "old":  # keep the alternation: the old set goes back in place
            signalled(sig, -1, write[0], str(tmp_path / "old.txt"), *write[1:], env=twin_env)
    assert stopped >= MOMENTS - 2  # the moments fall inside the runs they stop


def sitemap_named(out: Path) -> set[str]:
    """Files a deploy would publish as sitemaps: not hidden, a sitemap's bytes."""
    return {p.name for p in out.iterdir() if not p.name.startswith(".") and p.is_file()
            and looks_like_sitemap(p.read_bytes()[:4096], p.name)}


def test_sigkill_during_a_partitioned_write_leaves_no_unlisted_sitemap(tmp_path):
    parts, out = tmp_path / "parts", tmp_path / "out"
    parts.mkdir()
    for i in range(4):
        urls_file(parts / f"part-{i}.txt", f"p{i}", 6_000)
    write = ["write", str(parts), "-o", str(out), "--base-url", BASE, "--max-urls", "2000",
             "--jobs", "2"]
    assert signalled(signal.SIGKILL, -1, *write).returncode == 0
    live = read_set(out, BASE, max_urls=2000)
    total, first_move = events(signalled(signal.SIGKILL, -1, *write))
    assert first_move > 0  # the shards were staged, and moved by the commit
    for k in range(20):
        at = k * (first_move * 9 // 10) // 19  # up to the commit's first move
        done = signalled(signal.SIGKILL, at, *write)
        assert done.returncode == -signal.SIGKILL, (at, done.returncode, done.stderr[-2000:])
        listed = {"sitemap.xml", *read_set(out, BASE, max_urls=2000).shards}
        assert sitemap_named(out) <= listed, (at, sorted(sitemap_named(out) - listed))
    finished = signalled(signal.SIGKILL, -1, *write)
    assert finished.returncode == 0, finished.stderr
    assert not leftovers(out), leftovers(out)
    assert sitemap_named(out) <= {"sitemap.xml", *read_set(out, BASE, max_urls=2000).shards}
    assert set(read_set(out, BASE, max_urls=2000).locs) == set(live.locs)
