"""``sitemapkit index`` over real per-version sitemaps: a real `mike deploy` history
(versions.json, aliases), and hand-made ReadTheDocs-style /<lang>/<version>/ trees."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from io import BytesIO
from pathlib import Path

import pytest
from docs_projects import mkdocs_project
from sitemap_check import read_bytes

from conftest import BASE
from sitemapkit import write_sitemaps
from sitemapkit.cli import main
from sitemapkit.publish.siteindex import SiteIndexError, build_index
from sitemapkit.validate import ValidateOptions, validate

SITE = "https://example.com/"
BIN = os.path.dirname(sys.executable)


def mike(root: Path, *args: str) -> None:
    env = {**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", ""),
           "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([os.path.join(BIN, "mike"), *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def checkout(root: Path, branch: str, into: Path) -> Path:
    data = subprocess.run(["git", "archive", branch], cwd=root, capture_output=True,
                          check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="tar")
    return into


def index_locs(path: Path) -> list[str]:
    text = read_bytes(path).decode()
    return [part.split("</loc>")[0] for part in text.split("<loc>")[1:]]


@pytest.fixture(scope="module")
def mike_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mike") / "docs-project"
    repo = mkdocs_project(root, {"index.md": "# Home\n", "guide.md": "# Guide v1\n"})
    mike(repo.root, "deploy", "1.0")
    repo.commit("2024-07-07T07:00:00+00:00", {"docs/guide.md": "# Guide v2\n"})
    mike(repo.root, "deploy", "2.0", "latest")
    repo.commit("2024-08-08T08:00:00+00:00", {"docs/guide.md": "# Guide v2.1\n"})
    mike(repo.root, "deploy", "2.1")
    return checkout(repo.root, "gh-pages", root.parent / "gh-pages")


def test_mike_all_versions(mike_site, tmp_path):
    site = checkout_copy(mike_site, tmp_path)
    assert main(["index", str(site), "-o", str(site / "sitemap.xml"), "--base-url", SITE]) == 0
    assert index_locs(site / "sitemap.xml") == [SITE + "2.1/sitemap.xml", SITE + "2.0/sitemap.xml",
                                                SITE + "1.0/sitemap.xml"]
    assert (site / "robots.txt").read_text() == f"Sitemap: {SITE}sitemap.xml\n"
    report = validate([site], ValidateOptions(base_url=SITE))
    assert report.ok(), [f.text() for f in report.findings]
    assert report.urls == 6 and not report.has("unreferenced")
    lastmods = parse_index_lastmods(site / "sitemap.xml")
    assert lastmods[SITE + "2.0/sitemap.xml"] == "2024-07-07T07:00:00+00:00"


def test_mike_alias_and_globs(mike_site, tmp_path):
    site = checkout_copy(mike_site, tmp_path)
    out = site / "sitemap.xml"
    assert main(["index", str(site), "-o", str(out), "--base-url", SITE, "--alias", "latest"]) == 0
    assert index_locs(out) == [SITE + "2.0/sitemap.xml"]
    assert main(["index", str(site), "-o", str(out), "--base-url", SITE,
                 "--versions", "2.*"]) == 0
    assert index_locs(out) == [SITE + "2.1/sitemap.xml", SITE + "2.0/sitemap.xml"]
    assert main(["index", str(site), "-o", str(out), "--base-url", SITE, "--alias", "stable"]) == 1
    assert main(["index", str(site), "-o", str(out), "--base-url", SITE, "--alias", "latest",
                 "--versions", "1.0"]) == 2
    robots = (site / "robots.txt").read_text()
    assert robots.count("Sitemap:") == 1  # re-running never adds a second line


def test_readthedocs_layout_with_sharded_child_is_flattened(tmp_path):
    root = tmp_path / "html"
    for lang, version, count in (("en", "latest", 25), ("en", "stable", 3), ("de", "latest", 2)):
        base = f"{SITE}{lang}/{version}/"
        write_sitemaps([f"{base}p{i}" for i in range(count)], root / lang / version, base,
                       max_urls=10)
    (root / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")
    result = build_index([root / "en/latest", root / "en/stable", root / "de/latest"],
                         root / "sitemap.xml", SITE)
    locs = index_locs(root / "sitemap.xml")
    assert len(locs) == 3 + 1 + 1 and all(loc.startswith(SITE) for loc in locs)
    assert not any(loc.endswith("en/latest/sitemap.xml") for loc in locs)  # never nested
    assert result.summary().startswith("5 sitemaps from 3 directories")
    assert (root / "robots.txt").read_text() == \
        f"User-agent: *\nDisallow: /private/\n\nSitemap: {SITE}sitemap.xml\n"
    report = validate([root], ValidateOptions(base_url=SITE, check_pages=False))
    assert report.ok(strict=False) and report.urls == 30


def test_invalid_or_misplaced_children_are_refused(tmp_path, capsys):
    root = tmp_path / "html"
    (root / "v1").mkdir(parents=True)
    (root / "v1/sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>/relative</loc></url></urlset>\n")
    assert main(["index", str(root / "v1"), "-o", str(root / "sitemap.xml"),
                 "--base-url", BASE]) == 1
    err = capsys.readouterr().err
    assert "[rule 9 loc-absolute]" in err and "fix them first" in err
    assert not (root / "sitemap.xml").exists()
    sub = tmp_path / "sub"
    write_sitemaps([BASE + "v2/a"], sub / "v2", BASE + "v2/")
    assert build_index([sub / "v2"], sub / "sitemap.xml", BASE).notes == [
        f"{BASE} is a sub-path; crawlers read robots.txt only at the host root, so add "
        f"'Sitemap: {BASE}sitemap.xml' there"]
    assert not (sub / "robots.txt").exists()
    with pytest.raises(SiteIndexError, match="not below"):
        build_index([tmp_path], root / "sitemap.xml", BASE)
    (root / "empty").mkdir()
    with pytest.raises(SiteIndexError, match="has no sitemap"):
        build_index([root / "empty"], root / "sitemap.xml", BASE)


def checkout_copy(site: Path, tmp_path: Path) -> Path:
    target = tmp_path / "site"
    subprocess.run(["cp", "-a", str(site), str(target)], check=True)
    return target


def parse_index_lastmods(path: Path) -> dict[str, str]:
    text = read_bytes(path).decode()
    out = {}
    for part in text.split("<sitemap>")[1:]:
        loc = part.split("<loc>")[1].split("</loc>")[0]
        out[loc] = part.split("<lastmod>")[1].split("</lastmod>")[0]
    return out





def test_a_base_url_one_level_off_is_named_not_blamed_on_the_children(tmp_path, capsys):
    """Children written for a site under /docs/, indexed with the host's root as the base
    URL: one error naming the --base-url to pass, read from the children's own locs (an
    output of sitemaps only has no pages to ask), never "fix the children"."""
    root = tmp_path / "html"
    for version in ("1.0", "2.0"):
        base = f"{SITE}docs/{version}/"
        write_sitemaps([f"{base}p{i}" for i in range(30)], root / version, base)  # one file
    assert main(["index", str(root / "1.0"), str(root / "2.0"), "-o", str(root),
                 "--base-url", SITE]) == 1
    err = capsys.readouterr().err
    assert f"pass --base-url {SITE}docs/" in err, err
    assert "fix them first" not in err
    assert main(["index", str(root / "1.0"), str(root / "2.0"), "-o", str(root),
                 "--base-url", SITE + "docs/"]) == 0


def test_the_index_replaces_its_stale_gz_copy(tmp_path, capsys):
    """An old build's sitemap.xml.gz beside the new root index (mike's branch root): a
    second, stale entry point that servers and validate would read. It goes, named
    (guarantees rule 8)."""
    root = tmp_path / "html"
    write_sitemaps([f"{SITE}1.0/p{i}" for i in range(3)], root / "1.0", SITE + "1.0/")
    old = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
           'schemas/sitemap/0.9">' + "<url><loc>None</loc></url>" * 32 + "</urlset>\n")
    (root / "sitemap.xml").write_text(old)
    import gzip
    (root / "sitemap.xml.gz").write_bytes(gzip.compress(old.encode()))
    (root / "notes.xml.gz").write_bytes(gzip.compress(b"<notes/>"))
    assert main(["index", str(root / "1.0"), "-o", str(root), "--base-url", SITE]) == 0
    err = capsys.readouterr().err
    assert not (root / "sitemap.xml.gz").exists() and (root / "notes.xml.gz").exists()
    assert "removed 1 file that stood beside the new index as its copy: sitemap.xml.gz" in err
    report = validate([root], ValidateOptions(base_url=SITE, check_pages=False))
    assert report.ok(), [f.text() for f in report.findings]
