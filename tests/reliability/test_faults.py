"""Disk full and I/O errors, injected at every write and every rename of a run: a clear
error, the old set intact, no temporary files left; or, once the new entry point is in
place, success with a warning. Concurrent writers into one directory."""

from __future__ import annotations

import errno
import gzip
import os
import subprocess
import sys
import threading

import pytest
from figures import FIGURES
from sitemap_check import read_set

from sitemapkit import UrlEntry
from sitemapkit.write import output as _output
from sitemapkit.write.output import TMP_PREFIX, OutputError

BASE = "https://example.com/docs/"
FAULTS = [(errno.ENOSPC, "No space left on device"), (errno.EIO, "Input/output error")]


def generation(tag: str, count: int) -> list[UrlEntry]:
    day = {"old": "2024-01-01", "new": "2025-02-02"}[tag]
    return [UrlEntry(f"{BASE}{tag}/p{i}", day) for i in range(count)]


def visible(out) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in out.iterdir() if not p.name.startswith(".")}


def assert_one_complete_set(out, max_urls: int = 50) -> str:
    """Whatever is on disk is exactly one generation, read through its entry point."""
    sset = read_set(out, BASE, max_urls=max_urls)
    tags = {loc.removeprefix(BASE).split("/")[0] for loc in sset.locs}
    assert len(tags) == 1, tags
    tag = tags.pop()
    assert len(sset.locs) == {"old": 120, "new": 130}[tag]
    if (out / "sitemap.xml.gz").exists() and sset.kind == "urlset":
        assert gzip.decompress((out / "sitemap.xml.gz").read_bytes()) == \
            (out / "sitemap.xml").read_bytes()
    return tag


class Faulty:
    """Fails the n-th call of one operation with an OSError, as a full disk would."""

    def __init__(self, real, n: int, code: int) -> None:
        self.real, self.n, self.code, self.calls = real, n, code, 0
        self.lock = threading.Lock()

    def __call__(self, *args, **kwargs):
        with self.lock:
            self.calls += 1
            fire = self.calls == self.n
        if fire:
            raise OSError(self.code, os.strerror(self.code), str(args[0]))
        return self.real(*args, **kwargs)


@pytest.mark.parametrize("max_urls", [50, 50_000], ids=["sharded", "single"])
@pytest.mark.parametrize("code,text", FAULTS, ids=["ENOSPC", "EIO"])
@pytest.mark.parametrize("operation", ["write", "rename"])
def test_fault_at_every_step(impl, tmp_path, monkeypatch, operation, code, text, max_urls):
    outcomes = []
    for n in range(1, 12):
        out = tmp_path / f"{n}"
        impl.write(generation("old", 120), out, BASE, max_urls=max_urls)
        before = visible(out)
        if operation == "write":
            fault = Faulty(_output.write_file, n, code)
            monkeypatch.setattr(_output, "write_file", fault)
        else:
            fault = Faulty(os.replace, n, code)
            monkeypatch.setattr(os, "replace", fault)
        try:
            result = impl.write(generation("new", 130), out, BASE, max_urls=max_urls)
        except OutputError as exc:
            assert text in str(exc) and "previous sitemaps there are unchanged" in str(exc)
            assert visible(out) == before
            outcomes.append("error, old set kept")
        else:
            if fault.calls < n:
                monkeypatch.undo()
                break  # the run had fewer steps than n: every step was covered
            assert result.warnings and text in " ".join(result.warnings)
            assert assert_one_complete_set(out, max_urls) == "new"
            outcomes.append("new set live, warning")
        finally:
            monkeypatch.undo()
        assert not [p for p in out.iterdir() if p.name.startswith(TMP_PREFIX)]
        assert_one_complete_set(out, max_urls)
    assert "error, old set kept" in outcomes
    shape = "sharded" if max_urls == 50 else "single file"
    key = f"faults injected ({operation}, {os.strerror(code)}, {shape})"
    FIGURES[key] = f"{len(outcomes)} steps per run: " + ", ".join(
        f"{outcomes.count(o)} {o}" for o in sorted(set(outcomes)))


WRITER = """
import sys
from sitemapkit import UrlEntry, write_sitemaps
tag, out = sys.argv[1], sys.argv[2]
day = {"old": "2024-01-01", "new": "2025-02-02"}[tag]
count = {"old": 120, "new": 130}[tag]
entries = (UrlEntry(f"https://example.com/docs/{tag}/p{i}", day) for i in range(count))
write_sitemaps(entries, out, "https://example.com/docs/", max_urls=50)
"""


def test_concurrent_writers_leave_one_complete_set(tmp_path):
    out = tmp_path / "site"
    tags = []
    for attempt in range(6):
        procs = [subprocess.Popen([sys.executable, "-c", WRITER, tag, str(out)])
                 for tag in (("old", "new") if attempt % 2 else ("new", "old"))]
        assert [p.wait(timeout=60) for p in procs] == [0, 0]
        tags.append(assert_one_complete_set(out))
        assert not [p for p in out.iterdir() if p.name.startswith(TMP_PREFIX)]
    FIGURES["concurrent writer pairs"] = (f"{len(tags)} pairs, every time one complete set "
                                          f"({tags.count('old')} old last, "
                                          f"{tags.count('new')} new last)")


def test_a_writer_that_waited_for_the_lock_says_so(tmp_path):
    """Another writer holds the output folder (here: this process) until the CLI says,
    as it starts to wait, that it waits: an event, never a time."""
    import fcntl
    import os

    out = tmp_path / "site"
    out.mkdir()
    (tmp_path / "urls.txt").write_text("https://example.com/a\n")
    fd = os.open(out, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", "write", "urls.txt", "-o",
                             "site", "--base-url", "https://example.com/"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()  # blocks until the writer says it waits
        assert first.startswith("sitemapkit: waiting for another sitemapkit writer to finish "
                                "in site (at most 600 s)"), first
    finally:
        os.close(fd)  # closing releases it
    out_text, rest = proc.communicate(timeout=60)
    assert proc.returncode == 0, rest
    assert "waited " in rest and "for another sitemapkit writer to finish in" in rest
    assert "1 URL in 1 shard" in out_text
