"""`validate` of a sitemap URL reports everything it can, over a server on 127.0.0.1:
a listed sitemap that cannot be fetched (404, a server that never answers) is one
finding with its reason and the rest is still checked; a sitemap listed in another
folder breaks rule 28 and is not fetched (a note says so); no message names the
local copy; the fetched URL is the base of the loop check. And the size limit is the
protocol's: above 10,485,760 bytes a note, above 52,428,800 an error."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

DEADLINE = 3  # --fetch-deadline: the hanging child's share ends there
SLACK = 20  # the process start on a busy machine, and the 5 s the issue allows
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def urlset(*locs: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n'
            + "".join(f"<url><loc>{loc}</loc></url>\n" for loc in locs) + "</urlset>\n")


def index(*locs: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex {NS}>\n'
            + "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
            + "</sitemapindex>\n")


@pytest.fixture
def site(tmp_path) -> Iterator[tuple[Path, str]]:
    """A folder served on 127.0.0.1; any path under /hang/ answers nothing until the
    test ends (the handler waits on an event, never on a clock)."""
    folder = tmp_path / "www"
    folder.mkdir()
    ended = threading.Event()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(folder), **kwargs)

        def log_message(self, *args):
            pass

        def do_GET(self):
            if "/hang/" in self.path:
                ended.wait(120)
                return
            super().do_GET()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield folder, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        ended.set()
        server.shutdown()
        server.server_close()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], capture_output=True,
                          text=True, timeout=DEADLINE + SLACK,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})


def test_an_index_over_children_that_fail_in_four_ways_reports_all_four(site):
    www, url = site
    docs = url + "docs/"
    (www / "docs").mkdir()
    (www / "other").mkdir()
    (www / "docs" / "good.xml").write_text(urlset(docs + "a", docs + "b"))
    (www / "docs" / "bad.xml").write_text(urlset(docs + "c", "relative/d", docs + "e"))
    (www / "other" / "s.xml").write_text(urlset(url + "other/x"))
    (www / "docs" / "sitemap.xml").write_text(index(
        docs + "missing.xml", docs + "hang/x.xml", docs + "bad.xml", url + "other/s.xml",
        docs + "good.xml"))
    done = cli("validate", docs + "sitemap.xml", "--fetch-deadline", str(DEADLINE))
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "Traceback" not in out and "sitemapkit-validate-" not in out  # no local copy named
    assert (f"{docs}sitemap.xml:3: error [rule 27 index-target] {docs}missing.xml is listed, "
            "but could not be fetched: HTTP 404") in out
    assert (f"{docs}sitemap.xml:4: error [rule 27 index-target] {docs}hang/x.xml is listed, "
            "but could not be fetched: no whole answer within") in out
    assert f"{docs}bad.xml:4: error [rule 9 loc-absolute]" in out  # the child's own finding
    assert (f"{docs}sitemap.xml:5: error [rule 27 index-target] {docs}bad.xml is not a valid "
            "sitemap") in out
    # the sitemap in another folder breaks rule 28 (the fetched URL is the base), and is
    # never fetched nor checked: said in a note
    assert (f"{docs}sitemap.xml:6: error [rule 28 index-scope] index loc '{url}other/s.xml' "
            f"is not at or below {docs}") in out
    assert "other/x" not in out
    assert (f"1 sitemaps the index lists lie outside {docs} and were not fetched or checked, "
            f"e.g. {url}other/s.xml") in out
    assert (f"{docs}sitemap.xml: fetched, with 2 of the 5 sitemaps it lists fetched, 2 could "
            f"not be, 1 outside {docs} not fetched") in out
    assert "INVALID: 3 files, 5 URLs, 5 errors" in out, out


def test_an_index_that_lists_itself_is_a_loop_without_a_base_url(site):
    www, url = site
    (www / "sitemap.xml").write_text(index(url + "sitemap.xml", url + "a.xml"))
    (www / "a.xml").write_text(urlset(url + "a"))
    done = cli("validate", url + "sitemap.xml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert (f"{url}sitemap.xml:3: error [rule 27 nested-index] {url}sitemap.xml is itself a "
            "sitemap index") in done.stdout, done.stdout
    # an index listing another index
    (www / "sitemap.xml").write_text(index(url + "inner.xml"))
    (www / "inner.xml").write_text(index(url + "a.xml"))
    nested = cli("validate", url + "sitemap.xml")
    assert nested.returncode == 1 and "[rule 27 nested-index]" in nested.stdout, nested.stdout


def long_urlset(path: Path, urls: int, loc_length: int) -> int:
    """A sitemap of ``urls`` URLs, each loc ``loc_length`` characters long; its size."""
    stem = "https://example.com/"
    with open(path, "w") as fh:
        fh.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n')
        for i in range(urls):
            number = f"{i:06d}/"
            fh.write(f"<url><loc>{stem}{number}{'p' * (loc_length - len(stem) - 7)}</loc>"
                     "<lastmod>2024-01-01</lastmod></url>\n")
        fh.write("</urlset>\n")
    return path.stat().st_size


def test_the_size_limit_is_the_protocols(tmp_path):
    twelve = tmp_path / "twelve" / "sitemap.xml"
    twelve.parent.mkdir()
    size = long_urlset(twelve, 40_000, 240)
    assert 10_485_760 < size < 52_428_800
    done = cli("validate", str(twelve))
    assert done.returncode == 0, done.stdout
    assert "valid: 1 file, 40,000 URLs, 0 errors" in done.stdout
    assert (f"sitemap.xml: {size:,} bytes uncompressed: within the protocol's 52,428,800 "
            "(since 2016), above the older 10,485,760") in done.stdout, done.stdout
    # the user's own cap still holds
    capped = cli("validate", str(twelve), "--max-bytes", "10485760")
    assert capped.returncode == 1 and "[rule 23 too-large] more than 10,485,760" in capped.stdout

    big = tmp_path / "big" / "sitemap.xml"
    big.parent.mkdir()
    assert long_urlset(big, 27_000, 2_000) > 52_428_800
    over = cli("validate", str(big))
    assert over.returncode == 1, over.stdout
    assert "[rule 23 too-large] more than 52,428,800 bytes uncompressed" in over.stdout
