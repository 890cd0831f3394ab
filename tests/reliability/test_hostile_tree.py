"""`sitemapkit site` on a hostile output tree, on each twin: symbolic links out of the
tree, a loop, a dangling loop, a link to a page elsewhere, a file name that is not
UTF-8, pages larger than any list page is read for, and an old sitemap larger than a
sitemap may be. Each gets a named outcome, never a traceback, and memory stays bounded."""

from __future__ import annotations

import os
import subprocess
import sys

from peak_rss import launcher_argv

BASE = "https://h.example/"
PAGE = b"<!DOCTYPE html><html><head><title>x</title></head><body>x</body></html>"
BIG = 20 << 20  # past the 16 MiB a page is read whole for


def build(out) -> None:
    for rel in ("index.html", "docs/index.html", "sub/deep/index.html"):
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(PAGE)
    os.symlink("/usr/share", out / "usr")  # out of the tree
    os.symlink(".", out / "loop")  # round in a loop
    os.symlink("dl2", out / "dl1")  # a dangling loop
    os.symlink("dl1", out / "dl2")
    os.symlink("nowhere", out / "dangling")
    os.symlink("/etc/hostname", out / "docs/host.html")  # a page elsewhere
    os.symlink("../sub", out / "docs/sublink")  # inside, but a second way in
    os.makedirs(os.path.join(os.fsencode(out), b"caf\xe9"))  # not UTF-8
    with open(os.path.join(os.fsencode(out), b"caf\xe9", b"index.html"), "wb") as fh:
        fh.write(PAGE)
    for rel in ("big/a/index.html", "big/b/index.html"):  # no source: read for links
        (out / rel).parent.mkdir(parents=True)
        with open(out / rel, "wb") as fh:
            fh.write(PAGE[:-14])
            fh.write(b"<p>" + b"x" * BIG + b"</p>")
            fh.write(b"</body></html>")
    with open(out / "sitemap.xml", "wb") as fh:  # an old sitemap past 50 MB
        fh.write(b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/'
                 b'sitemap/0.9">')
        row = f"<url><loc>{BASE}p</loc></url>".encode() * 1000
        for _ in range(55_000_000 // len(row)):
            fh.write(row)
        fh.write(b"</urlset>")


def test_a_hostile_tree_gets_named_outcomes_and_bounded_memory(tmp_path, twin_env):
    out = tmp_path / "public"
    out.mkdir()
    build(out)
    done = subprocess.run(launcher_argv(sys.executable, "-m", "sitemapkit", "site", str(out),
                                        "--base-url", BASE),
                          capture_output=True, text=True, env={**os.environ, **twin_env},
                          timeout=300)
    err = done.stderr
    assert done.returncode == 0, err
    assert "Traceback" not in err
    peak = int(err.strip().splitlines()[-1])
    assert peak < 250 << 20, f"peak RSS {peak:,} bytes"
    assert "left out (7 symbolic links, not followed" in err
    assert "docs/host.html -> /etc/hostname (outside the output)" in err
    assert "dl1 -> dl2 (dangling or a loop)" in err and "and 2 more" in err
    listed = (out / "sitemap.xml").read_text()
    assert f"<loc>{BASE}caf%E9/</loc>" in listed
    assert "/usr/" not in listed and "/loop/" not in listed and "sublink" not in listed
    assert listed.count("<loc>") == 6  # /, docs/, sub/deep/, café/, big/a/, big/b/
    assert "larger than 50,000,000 bytes" in err or "larger than 52,428,800 bytes" in err
    for big in ("big/a/", "big/b/"):  # no source, so never read whole for what they list
        assert f"<url><loc>{BASE}{big}</loc></url>" in listed
