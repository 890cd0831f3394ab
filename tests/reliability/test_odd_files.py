"""Only regular files are read. A FIFO (whose open blocks until a writer comes), a
socket or a device under the name of a sitemap, an index child or robots.txt is left
as it is and named, in every command; the run ends (each call here has a timeout, so a
hang fails), on both twins (guarantees rule 5)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

from sitemap_check import read_set

from conftest import unreadable_page

BASE = "https://example.com/"


def cli(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60, env={**os.environ, **env})


def test_write_over_a_folder_of_fifos_and_sockets_ends_and_leaves_them(tmp_path, twin_env):
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "urls.txt").write_text("".join(f"{BASE}p{i}\n" for i in range(120)))
    # the last run's index names a shard that is now a FIFO, and one that is a socket
    index = ('<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.'
             'sitemaps.org/schemas/sitemap/0.9">\n<sitemap><loc>' + BASE +
             'sitemap-00001-aaaa.xml.gz</loc></sitemap>\n<sitemap><loc>' + BASE +
             'sitemap-00002-bbbb.xml.gz</loc></sitemap>\n</sitemapindex>\n')
    (out / "sitemap.xml").write_text(index)
    os.mkfifo(out / "sitemap-00001-aaaa.xml.gz")
    unreadable_page(out / "sitemap-00002-bbbb.xml.gz")
    os.mkfifo(out / "robots.txt")
    os.mkfifo(out / "sitemap.xml.gz")
    os.mkfifo(out / ".sitemapkit-tmp-1-ab-journal.json")  # a dead run's journal, a FIFO
    done = cli("write", "urls.txt", "-o", "out", "--base-url", BASE, "--max-urls", "50",
               cwd=tmp_path, env=twin_env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert len(read_set(out, BASE).urls) == 120
    for name in ("sitemap-00001-aaaa.xml.gz", "robots.txt", "sitemap.xml.gz"):
        assert (out / name).is_fifo(), name  # not ours: never opened, never removed
    assert (out / "sitemap-00002-bbbb.xml.gz").is_socket()
    robots = cli("write", "urls.txt", "-o", "out", "--base-url", BASE, "--robots-txt",
                 cwd=tmp_path, env=twin_env)
    assert robots.returncode == 0, robots.stderr
    assert "robots.txt is a FIFO (named pipe), not a file: left as it is; add " \
        f"'Sitemap: {BASE}sitemap.xml'" in robots.stderr


def test_validate_a_folder_names_each_odd_file_and_checks_the_rest(tmp_path, twin_env):
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "urls.txt").write_text("".join(f"{BASE}p{i}\n" for i in range(120)))
    assert cli("write", "urls.txt", "-o", "out", "--base-url", BASE, "--max-urls", "50",
               cwd=tmp_path, env=twin_env).returncode == 0
    shards = sorted(read_set(out, BASE).shards)
    (out / shards[0]).unlink()
    os.mkfifo(out / shards[0])  # an index child
    os.mkfifo(out / "sitemap-extra.xml")  # found by the folder walk
    os.mkfifo(out / "robots.txt")
    (out / "sitemap-a.xml.gz").write_bytes(gzip.compress(b"x"))
    os.mkfifo(out / "sitemap-a.xml")  # the plain twin of a .gz
    done = cli("validate", "out", "--base-url", BASE, cwd=tmp_path, env=twin_env)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr + done.stdout
    text = done.stdout + done.stderr
    assert f"{shards[0]}: error [rule 4 not-a-file] is a FIFO (named pipe), not a file" in text
    assert "sitemap-extra.xml: error [rule 4 not-a-file] is a FIFO (named pipe)" in text
    assert f"{shards[1]}" not in text.split("not-a-file")[0]  # the other shards check clean


def test_a_robots_txt_folder_is_a_warning_and_no_page(tmp_path, twin_env):
    """A folder named robots.txt (a theme's mistake) stops nothing: the sitemaps are
    written, robots.txt is left as it is, and the warning says what to add."""
    out = tmp_path / "public"
    (out / "robots.txt").mkdir(parents=True)
    (out / "robots.txt/keep.txt").write_text("x")
    (out / "index.html").write_text("<!DOCTYPE html><html><head></head><body></body></html>")
    done = cli("site", "public", "--base-url", BASE, cwd=tmp_path, env=twin_env)
    assert done.returncode == 0, done.stderr
    assert "robots.txt is a folder, not a file: left as it is; add " \
        f"'Sitemap: {BASE}sitemap.xml'" in done.stderr
    assert [u.loc for u in read_set(out, BASE).urls] == [BASE]


def test_a_folder_too_deep_to_open_leaves_out_that_folder_and_the_run_goes_on(
        tmp_path, twin_env):
    """A path of 9,000 characters (past PATH_MAX): the folder the walk cannot open is
    left out, named with the system's reason, on both twins; the other pages are
    listed. A top-level folder that cannot be opened likewise."""
    out = tmp_path / "public"
    out.mkdir()
    (out / "index.html").write_text("<!DOCTYPE html><html><head></head><body></body></html>")
    fd = os.open(out, os.O_RDONLY)
    names = ["d" * 200 + str(i) for i in range(45)]
    try:
        for name in names:  # made one level at a time, relative to the open folder
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("index.html", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as fh:
            fh.write("<!DOCTYPE html><html><head></head><body></body></html>")
    finally:
        os.close(fd)
    done = cli("site", "public", "--base-url", BASE, cwd=tmp_path, env=twin_env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "1 page or folder could not be read, so it is not listed: " in done.stderr
    assert "(File name too long)" in done.stderr
    assert [u.loc for u in read_set(out, BASE).urls] == [BASE]
