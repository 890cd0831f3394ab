"""The first hour of a user, run as a user types it (a real subprocess each time): `site`
with no --base-url on a real Hugo build, wrong setups named by their cause, every bad
row of a file in one run, one robots flag pair and an example in every --help,
`validate` on a URL served on 127.0.0.1 and on Google's extensions, and Sphinx without
a base URL."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs_projects import need, sphinx_build, sphinx_project
from gitref import reference_date
from gitrepo import Repo
from sitemap_check import read_set

from sitemapkit import UrlEntry, write_sitemaps

SITE = "https://example.com/"
HUGO_BASE = "https://docs.example.org/guide/"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


# --- `site` with no --base-url ----------------------------------------------------------
HUGO_LAYOUT = ('<!DOCTYPE html><html><head><title>{{ .Title }}</title><link rel="canonical" '
               'href="{{ .Permalink }}"></head><body><main>{{ .Content }}'
               '{{ range .Pages }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}'
               '</main></body></html>')


@pytest.fixture(scope="module")
def hugo_site(tmp_path_factory) -> Path:
    """A real Hugo build whose config names the site's URL under a sub-path."""
    hugo = need("hugo")
    repo = Repo(tmp_path_factory.mktemp("hugo") / "site")
    repo.commit("2024-02-01T10:00:00+01:00", {
        "hugo.toml": f'baseURL = "{HUGO_BASE}"\ntitle = "T"\ndisableKinds = ["RSS", '
                     '"taxonomy", "term"]\n',
        ".gitignore": "public/\n.hugo_build.lock\n",
        "layouts/single.html": HUGO_LAYOUT, "layouts/list.html": HUGO_LAYOUT,
        "layouts/home.html": HUGO_LAYOUT,
        "content/_index.md": "---\ntitle: Home\n---\nHome\n",
        "content/install.md": "---\ntitle: Install\n---\nI\n",
        "content/usage.md": "---\ntitle: Usage\n---\nU\n"})
    repo.commit("2024-05-06T07:08:09-04:00", {"content/usage.md": "---\ntitle: Usage\n---\nU2\n"})
    subprocess.run([hugo, "--quiet"], cwd=repo.root, check=True, capture_output=True)
    return repo.root


def copy_of(root: Path, to: Path) -> Path:
    subprocess.run(["cp", "-a", str(root), str(to)], check=True)
    return to


def test_site_takes_hugos_base_url_and_the_source_from_the_folder_it_runs_in(hugo_site,
                                                                            tmp_path):
    root = copy_of(hugo_site, tmp_path / "s")
    done = cli("site", "public", cwd=root)
    assert done.returncode == 0, done.stderr
    assert f"base URL {HUGO_BASE} from Hugo's baseURL" in done.stderr
    dated = {u.loc: u.lastmod for u in read_set(root / "public", HUGO_BASE).urls}
    assert dated[HUGO_BASE + "install/"] == reference_date(root, "content/install.md")
    assert dated[HUGO_BASE + "usage/"] == reference_date(root, "content/usage.md")
    assert dated[HUGO_BASE + "install/"] != dated[HUGO_BASE + "usage/"]


def test_run_from_elsewhere_the_project_is_found_above_the_output(hugo_site, tmp_path):
    """No --source and no config where it runs: the Hugo project the output sits in is
    found (the nearest folder above it with a config), named, and used."""
    root = copy_of(hugo_site, tmp_path / "s")
    done = cli("site", str(root / "public"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "project s (a folder above the output; --source chooses another)" in done.stderr
    assert f"base URL {HUGO_BASE} from Hugo's baseURL" in done.stderr
    dated = {u.loc: u.lastmod for u in read_set(root / "public", HUGO_BASE).urls}
    assert dated[HUGO_BASE + "install/"] == reference_date(root, "content/install.md")


def test_without_a_config_the_generators_own_sitemap_gives_the_base_url(hugo_site, tmp_path):
    """An output outside any project (copied away), no --source: Hugo's sitemap.xml
    locs, matched to the output, give the base URL."""
    root = copy_of(hugo_site, tmp_path / "s")
    away = tmp_path / "away"
    away.mkdir()
    (root / "public").rename(away / "public")
    done = cli("site", str(away / "public"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"base URL {HUGO_BASE} from the locs of the generator's sitemap.xml" in \
        done.stderr
    # and it says why no page is dated: no --source, not "list and taxonomy pages"
    assert "no --source was given" in done.stderr
    assert "list and taxonomy pages" not in done.stderr
    assert {u.loc for u in read_set(away / "public", HUGO_BASE).urls} >= {
        HUGO_BASE, HUGO_BASE + "install/", HUGO_BASE + "usage/"}


def test_a_base_url_no_page_agrees_with_is_an_error_naming_both(hugo_site, tmp_path):
    root = copy_of(hugo_site, tmp_path / "s")
    before = (root / "public" / "sitemap.xml").read_bytes()
    done = cli("site", "public", "--base-url", "https://elsewhere.example.net/", cwd=root)
    assert done.returncode == 2, done.stderr
    assert "https://elsewhere.example.net/ disagrees with every page's canonical URL" in \
        done.stderr
    assert f"the site is at {HUGO_BASE}" in done.stderr
    assert "stale" not in done.stderr and "Traceback" not in done.stderr
    assert (root / "public" / "sitemap.xml").read_bytes() == before  # nothing replaced


def test_no_base_url_anywhere_is_an_error_naming_what_was_looked_at(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").write_text("<html><head><title>x</title></head></html>")
    done = cli("site", str(out), cwd=tmp_path)
    assert done.returncode == 2
    assert "no base URL" in done.stderr and "no --source given" in done.stderr
    assert "pass --base-url" in done.stderr


# --- `index` with the base URL a level off ------------------------------------------------
def test_index_with_the_base_url_a_level_off_names_the_fix_once(tmp_path):
    root = tmp_path / "pages"
    for version in ("1.0", "2.0"):
        for page in ("", "guide/"):
            target = root / version / page / "index.html"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("<html><head></head></html>")
        write_sitemaps([f"{SITE}docs/{version}/", f"{SITE}docs/{version}/guide/"],
                       root / version, f"{SITE}docs/{version}/")
    done = cli("index", str(root / "1.0"), str(root / "2.0"), "-o", str(root),
               "--base-url", SITE)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert f"lists its pages at {SITE}docs/1.0/" in lines[0]
    assert f"pass --base-url {SITE}docs/" in lines[0]
    assert cli("index", str(root / "1.0"), str(root / "2.0"), "-o", str(root),
               "--base-url", f"{SITE}docs/").returncode == 0


# --- every bad row in one run -------------------------------------------------------------
def test_write_names_every_bad_row_by_its_input_line_in_one_run(tmp_path):
    rows = ["loc,lastmod"] + [f"{SITE}p{i},2024-01-01" for i in range(40)]
    rows[5] = f"{SITE}p4,2024-13-01"  # input line 6
    rows[9] = "ftp://example.com/x,2024-01-01"  # input line 10
    rows[30] = "/relative,2024-01-01"  # input line 31
    (tmp_path / "u.csv").write_text("\n".join(rows) + "\n")
    done = cli("write", str(tmp_path / "u.csv"), "-o", str(tmp_path / "out"),
               "--base-url", SITE)
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if "breaks rule" in line]
    assert [re.search(r"input line (\d+)", line)[1] for line in errors] == ["6", "10", "31"]
    assert "3 invalid entries (lastmod-format: 1, loc-absolute: 1, loc-scheme: 1)" in \
        done.stderr
    assert not (tmp_path / "out" / "sitemap.xml").exists()
    skipped = cli("write", str(tmp_path / "u.csv"), "-o", str(tmp_path / "out"),
                  "--base-url", SITE, "--skip-invalid")
    assert skipped.returncode == 0
    assert "skipped entry 5: lastmod '2024-13-01' breaks rule 'lastmod-format'" in \
        skipped.stderr and "(input line 6)" in skipped.stderr


def test_many_bad_rows_are_capped_and_counted_and_a_wrong_host_is_named(tmp_path):
    (tmp_path / "u.txt").write_text("".join(f"https://other.example/p{i}\n" for i in range(500)))
    done = cli("write", str(tmp_path / "u.txt"), "-o", str(tmp_path / "out"),
               "--base-url", SITE)
    assert done.returncode == 1
    assert len([line for line in done.stderr.splitlines() if "breaks rule" in line]) == 20
    assert "500 invalid entries (loc-outside-site: 500) (480 not shown)" in done.stderr
    assert "every invalid row lies outside the base URL: is --base-url right?" in done.stderr


# --- one voice across commands --------------------------------------------------------
@pytest.mark.parametrize("command", ["write", "site", "index", "validate", "diff", "rules",
                                     "doctor"])
def test_every_help_has_examples_and_the_writers_one_robots_pair(command):
    shown = cli(command, "--help").stdout
    assert "\nexamples:\n" in shown, shown
    examples = [line for line in shown.split("\nexamples:\n", 1)[1].splitlines() if line]
    assert examples and all(f"sitemapkit {command}" in line for line in examples), examples
    if command in ("write", "site", "index"):
        assert "--robots-txt, --no-robots-txt" in shown
    assert "turn off:" not in shown
    for help_text in option_helps(shown):
        assert help_text[0].isupper() and help_text.endswith("."), help_text


def option_helps(shown: str) -> list[str]:
    """Each option's help text, as --help renders it over one or more lines."""
    texts = []
    body = shown.split("examples:\n", 1)[0]
    for entry in re.split(r"\n(?=  -)", body.split("\n  -", 1)[-1] if "\n  -" in body else ""):
        lines = entry.splitlines()
        first = re.match(r"\s*-\S*(?:[ ,][^ ]\S*)*?(?:\s{2,}(.*))?$", lines[0])
        words = [first[1]] if first and first[1] else []
        words += [line.strip() for line in lines[1:] if line.startswith(" " * 10)]
        if words:
            texts.append(" ".join(words))
    return texts


def test_index_still_takes_its_old_robots_flag(tmp_path):
    root = tmp_path / "pages"
    write_sitemaps([f"{SITE}1.0/"], root / "1.0", f"{SITE}1.0/")
    done = cli("index", str(root / "1.0"), "-o", str(root), "--base-url", SITE, "--no-robots")
    assert done.returncode == 0, done.stderr
    assert not (root / "robots.txt").exists()
    assert cli("index", str(root / "1.0"), "-o", str(root), "--base-url", SITE,
               "--robots-txt").returncode == 0
    assert (root / "robots.txt").read_text() == f"Sitemap: {SITE}sitemap.xml\n"


# --- validate: a URL, Google's extensions ----------------------------------------------
def test_validate_fetches_a_sitemap_url_with_the_shards_its_index_lists(served):
    folder, url = served
    result = write_sitemaps([f"{url}p{i}" for i in range(250)], folder, url, max_urls=100)
    assert result.shard_count == 3
    done = cli("validate", url + "sitemap.xml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "valid: 4 files, 250 URLs, 0 errors" in done.stdout
    assert f"{url}sitemap.xml: fetched, with 3 of the 3 sitemaps it lists fetched" \
        in done.stdout
    shard = folder / result.shard_files[1]
    shard.write_bytes(shard.read_bytes()[:-40])  # a truncated gzip file, named by its URL
    broken = cli("validate", url + "sitemap.xml")
    assert broken.returncode == 1 and f"{url}{result.shard_files[1]}" in broken.stdout
    missing = cli("validate", url + "nothing.xml")
    assert missing.returncode == 1
    assert f"cannot fetch {url}nothing.xml: HTTP 404" in missing.stderr
    assert "Traceback" not in missing.stderr + broken.stderr


GOOGLE = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset '
          'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
          'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
          'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
          'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
          'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
          '<url><loc>https://example.com/a</loc><lastmod>2024-01-01</lastmod>'
          '<xhtml:link rel="alternate" hreflang="en" href="https://example.com/a"/>'
          '<image:image><image:loc>https://example.com/a.png</image:loc></image:image>'
          '<image:image><image:loc>https://example.com/b.png</image:loc></image:image></url>\n'
          '<url><loc>https://example.com/b</loc><video:video>'
          '<video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc>'
          '<video:title>T</video:title><video:description>D</video:description>'
          '<video:player_loc>https://example.com/p</video:player_loc></video:video></url>\n'
          '<url><loc>https://example.com/c</loc><news:news><news:publication><news:name>N'
          '</news:name><news:language>en</news:language></news:publication>'
          '<news:publication_date>2024-01-01</news:publication_date><news:title>T'
          '</news:title></news:news></url>\n{extra}</urlset>\n')


def test_google_image_video_and_news_extensions_are_valid_as_wordpress_writes_them(tmp_path):
    path = tmp_path / "sitemap.xml"
    path.write_text(GOOGLE.format(extra=""))
    done = cli("validate", str(path))
    assert done.returncode == 0, done.stdout
    assert "valid: 1 file, 3 URLs, 0 errors" in done.stdout


def test_a_google_extension_lacking_what_its_schema_requires_is_named(tmp_path):
    path = tmp_path / "sitemap.xml"
    path.write_text(GOOGLE.format(extra='<url><loc>https://example.com/d</loc><video:video>'
                                        '<video:title>T</video:title></video:video></url>\n'))
    done = cli("validate", str(path))
    assert done.returncode == 1
    assert ("<video:video> lacks <video:thumbnail_loc>, <video:description>, "
            "<video:content_loc> or <video:player_loc>") in done.stdout
    assert "sitemap.xml:6: error [rule 8 extension]" in done.stdout


# --- Sphinx without a base URL ------------------------------------------------------------
def test_sphinx_without_a_base_url_prints_our_message_alone(tmp_path):
    repo = sphinx_project(tmp_path / "p", {"index.rst": "Home\n====\n"}, base="")
    done = sphinx_build(repo.root, "html", "-W", check=False)
    assert done.returncode != 0  # a warning, as sphinx-sitemap gives: -W fails on it
    assert "no base URL: set html_baseurl" in done.stderr
    assert "please open an issue" not in done.stderr and "Traceback" not in done.stderr
    assert "Extension error" not in done.stderr
    assert not (repo.root / "_build/html/sitemap.xml").exists()


# --- the zlib-ng dependency -------------------------------------------------------------
def test_zlib_ng_is_a_core_dependency_only_where_it_ships_wheels():
    import importlib.metadata

    from packaging.markers import Marker
    from packaging.requirements import Requirement

    required = [Requirement(r) for r in importlib.metadata.requires("sitemapkit") or []
                if "extra ==" not in r]
    assert [r.name for r in required] == ["zlib-ng"]
    marker = required[0].marker
    assert isinstance(marker, Marker)
    base = {"platform_python_implementation": "CPython"}
    for machine in ("x86_64", "AMD64", "aarch64", "arm64"):
        assert marker.evaluate({**base, "platform_machine": machine})
    for machine in ("ppc64le", "s390x", "i686", "x86", "armv7l"):  # no wheels there
        assert not marker.evaluate({**base, "platform_machine": machine})
    assert not marker.evaluate({"platform_python_implementation": "PyPy",
                                "platform_machine": "x86_64"})
    doctor = cli("doctor")
    assert "zlib-ng" in doctor.stdout and "auto" in doctor.stdout
    assert os.environ.get("SITEMAPKIT_NO_EXTENSIONS") or "C accelerator" in doctor.stdout


# --- our own docs hosts' validation --------------------------------------------------------
def test_one_day_of_git_dates_is_not_taken_for_a_build_date(tmp_path):
    """A docs site whose pages were all committed on one day (a first commit, a mass
    move) is dated right by git; only a set not dated by sitemapkit gets rule 17's hint."""
    from sitemapkit.validate import ValidateOptions, validate

    write_sitemaps([UrlEntry(f"{SITE}p{i}", "2026-11-27T10:00:00+00:00") for i in range(12)],
                   tmp_path, SITE)
    told = validate([tmp_path], ValidateOptions(base_url=SITE, check_pages=False))
    assert [f.id for f in told.findings] == ["lastmod-build-date"]
    ours = validate([tmp_path], ValidateOptions(base_url=SITE, check_pages=False,
                                                dates_from_git=True))
    assert ours.findings == []


def test_every_writer_reports_all_invalid_entries_and_writes_nothing(impl, tmp_path):
    """on_invalid="report" (what the CLI's write uses) never drops a row in silence,
    whichever writer streams it: each names every invalid entry, then fails."""
    from sitemapkit import write_partition
    from sitemapkit.errors import InvalidEntriesError
    from sitemapkit.write import shard_bytes

    rows = [f"{SITE}a", "ftp://example.com/b", f"{SITE}c", "/relative", f"{SITE}e"]
    writers = {
        "write_sitemaps": lambda out: write_sitemaps(rows, out, SITE, on_invalid="report",
                                                     _impl=impl.module),
        "write_partition": lambda out: write_partition(rows, out, SITE, 0, on_invalid="report",
                                                       _impl=impl.module),
        "shard_bytes": lambda out: shard_bytes(rows, SITE, on_invalid="report",
                                               _impl=impl.module)}
    for name, writer in writers.items():
        out = tmp_path / name
        with pytest.raises(InvalidEntriesError) as caught:
            writer(out)
        assert (caught.value.count, [e.position for e in caught.value.entries]) == (2, [2, 4])
        assert caught.value.by_rule == {"loc-scheme": 1, "loc-absolute": 1}, name
        assert not out.exists() or not [p for p in out.iterdir() if p.is_file()], name
