"""sitemapkit removes only files of a sitemap set: named by the index it replaces at
this folder's URL, and sitemaps by their first bytes. A foreign index at the entry
point (a generator's, one copied from static/, a hand-written one) that names feeds,
verification files, ads.txt or llms.txt, here or on another host, costs the user no
file: through `sitemapkit write`, `sitemapkit site` and the MkDocs plugin
(guarantees rules 2, 3 and 4)."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

from docs_projects import mkdocs_build, mkdocs_project

BASE = "https://docs.example.com/"
USER_FILES = {
    "feed.xml": '<?xml version="1.0"?><rss version="2.0"><channel></channel></rss>\n',
    "google123.txt": "google-site-verification: google123.html\n",
    "ads.txt": "google.com, pub-0000000000000000, DIRECT, f08c47fec0942fa0\n",
    "llms.txt": "# Docs\n\n> what this site is about\n",
    "BingSiteAuth.xml": '<?xml version="1.0"?><users><user>ABC</user></users>\n',
    # a user's URL list: its lines are URLs, as a text sitemap's are, but sitemapkit did
    # not write it, so a generator's index naming it never makes it ours to remove
    "urls.txt": f"{BASE}a\n{BASE}b\n",
}
OLD_SHARD = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
             f'schemas/sitemap/0.9"><url><loc>{BASE}old/</loc></url></urlset>\n')


def foreign_index(base: str) -> str:
    """An index naming the user's files (here, in a sub-folder and on another host) and
    one real sitemap of this site."""
    locs = [f"{base}{name}" for name in USER_FILES] + [
        "https://elsewhere.example/x/feed.xml", f"{base}blog/google123.txt",
        f"{base}sitemap-old.xml.gz"]
    body = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.'
            f'sitemaps.org/schemas/sitemap/0.9">{body}</sitemapindex>\n')


def plant(folder: Path, base: str = BASE) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in USER_FILES.items():
        (folder / name).write_text(text)
    (folder / "blog").mkdir(exist_ok=True)
    (folder / "blog/google123.txt").write_text(USER_FILES["google123.txt"])
    (folder / "sitemap.xml").write_text(foreign_index(base))
    (folder / "sitemap-old.xml.gz").write_bytes(gzip.compress(OLD_SHARD.encode()))


def assert_user_files_kept(folder: Path) -> None:
    for name, text in USER_FILES.items():
        assert (folder / name).read_text() == text, name
    assert (folder / "blog/google123.txt").read_text() == USER_FILES["google123.txt"]


def test_write_keeps_every_user_file_a_foreign_index_names(tmp_path):
    out = tmp_path / "out"
    plant(out)
    (tmp_path / "urls.txt").write_text(f"{BASE}a\n{BASE}b\n")
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "write", "urls.txt", "-o", "out",
                           "--base-url", BASE], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert_user_files_kept(out)
    assert not (out / "sitemap-old.xml.gz").exists()  # a sitemap of this site: replaced
    assert "removed 1 file of the set it replaced, or of a killed run: sitemap-old.xml.gz" \
        in done.stderr  # named, and the only file named
    assert done.stderr.count("sitemapkit: removed ") == 1
    assert "listed 1 sitemap of another base URL" in done.stderr
    assert "https://elsewhere.example/x/feed.xml" in done.stderr


def test_site_keeps_every_user_file_a_foreign_index_names(tmp_path):
    out = tmp_path / "public"
    out.mkdir()
    for page in ("index.html", "a/index.html"):
        (out / page).parent.mkdir(parents=True, exist_ok=True)
        (out / page).write_text("<!DOCTYPE html><html><head><title>x</title></head>"
                                "<body>x</body></html>")
    plant(out)
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", "public", "--base-url",
                           BASE], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert_user_files_kept(out)
    assert not (out / "sitemap-old.xml.gz").exists()
    assert "removed 1 file of the set it replaced, or of a killed run: sitemap-old.xml.gz" \
        in done.stderr
    assert done.stderr.count("sitemapkit: removed ") == 1


def test_site_removes_a_language_folders_sitemap_only_when_it_is_that_folders(tmp_path):
    """Multi-language builds write one sitemap per language folder that no index names:
    it is the generator's when every loc lies under that folder's URL, and only then
    replaced. One listing another host is the user's: kept, and said. The summary names
    exactly the files unlinked (a feed the index names is kept and not named)."""
    out = tmp_path / "public"
    pages = ("index.html", "fr/index.html", "fr/a/index.html", "de/index.html")
    for page in pages:
        (out / page).parent.mkdir(parents=True, exist_ok=True)
        (out / page).write_text("<!DOCTYPE html><html><head><title>x</title></head>"
                                "<body>x</body></html>")
    def urlset(*locs: str) -> str:
        body = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps'
                f'.org/schemas/sitemap/0.9">{body}</urlset>\n')
    (out / "blog").mkdir()
    (out / "blog/feed.xml").write_text(USER_FILES["feed.xml"])
    (out / "blog/sitemap-posts.xml").write_text(urlset(f"{BASE}"))
    (out / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/'
        f'schemas/sitemap/0.9"><sitemap><loc>{BASE}blog/feed.xml</loc></sitemap>'
        f'<sitemap><loc>{BASE}blog/sitemap-posts.xml</loc></sitemap></sitemapindex>\n')
    (out / "fr/sitemap.xml").write_text(urlset(f"{BASE}fr/", f"{BASE}fr/a/"))
    (out / "fr/sitemap.xml.gz").write_bytes(gzip.compress(urlset(f"{BASE}fr/").encode()))
    foreign = urlset("https://shop.example.org/de/", "https://shop.example.org/de/x")
    (out / "de/sitemap.xml").write_text(foreign)
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", "public", "--base-url",
                           BASE], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (out / "de/sitemap.xml").read_text() == foreign
    assert (out / "blog/feed.xml").read_text() == USER_FILES["feed.xml"]
    assert not (out / "fr/sitemap.xml").exists() and not (out / "fr/sitemap.xml.gz").exists()
    assert not (out / "blog/sitemap-posts.xml").exists()
    assert ("removed 3 files of the generator's sitemaps: blog/sitemap-posts.xml, "
            "fr/sitemap.xml, fr/sitemap.xml.gz") in done.stderr, done.stderr
    assert "feed.xml" not in done.stderr.split("removed 3 files")[1].split("\n")[0]
    assert "kept 1 sitemap in a language folder" in done.stderr
    assert "de/sitemap.xml (it lists https://shop.example.org/de/" in done.stderr


def test_the_mkdocs_plugin_keeps_every_user_file_a_foreign_index_names(tmp_path):
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n", "a.md": "# A\n"},
                          {"site_url": BASE})
    plant(repo.root / "docs")  # copied into site/ by MkDocs, as static files are
    repo.commit("2024-06-06T10:00:00+00:00")
    mkdocs_build(repo.root)
    site = repo.root / "site"
    assert_user_files_kept(site)
    assert "sitemap-old.xml.gz" not in (site / "sitemap.xml").read_text()
