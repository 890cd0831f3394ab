"""`sitemapkit site` on a real Hugo build (issue: post-build mode). Figures go in the note.

A Hugo site of SITEMAPKIT_BENCH_SITE_PAGES pages (default 100,000) in 100 sections,
each page about 30 KB with a real <head>, built by the real `hugo` once; then, through
the front door (a subprocess, as users run it): `sitemapkit site public --source .`
(scan, git dates, write), beside the baseline users run today, a post-build script that
splits Hugo's single sitemap into 50,000-URL files (the shape of the pulumi registry's).
Hugo's own sitemap is the correctness anchor: the same URL set must come out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest

from conftest import NOTES, TIMES, best_of

PAGES = int(os.environ.get("SITEMAPKIT_BENCH_SITE_PAGES", "100000"))
# the hugo build in the fixture takes 20 to 45 minutes at 100,000 pages: past the
# project's 600 s per test, which cut it off (and left hugo running) on 2026-11-27
pytestmark = pytest.mark.timeout(max(600, PAGES // 25))
SECTIONS = 100
BASE = "https://bench.example.com/"
NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
HEAD = """<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ .Title }} | Bench</title>
<meta name="description" content="{{ .Summary | plainify | truncate 150 }}">
<meta property="og:title" content="{{ .Title }}"><meta property="og:url" content="{{ .Permalink }}">
<meta property="og:type" content="article"><meta name="twitter:card" content="summary">
<link rel="canonical" href="{{ .Permalink }}">
<link rel="stylesheet" href="/css/main.css"><link rel="icon" href="/favicon.ico">
<script defer src="/js/site.js"></script>
</head>
<body><nav>{{ range .Site.Sections }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}</nav>
<main>{{ block "main" . }}{{ end }}</main>
{{ range seq 150 }}<p>Filler paragraph that stands for the rest of a real documentation page, its
code samples, tables and navigation, so that each page weighs about thirty kilobytes.</p>{{ end }}
</body></html>
"""


def _run(args: list[str], cwd: Path) -> tuple[float, int]:
    """(seconds, peak RSS in MB) of one child process, from its own rusage."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    with proc.stdout if proc.stdout else open(os.devnull, "rb") as stream:
        output = stream.read()
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, output.decode(errors="replace")
    return took, usage.ru_maxrss // 1024


@pytest.fixture(scope="module")
def hugo_site(tmp_path_factory) -> tuple[Path, float | None]:
    """The site built by ``hugo`` (20 to 45 minutes at 100,000 pages on 2 cores), or
    SITEMAPKIT_BENCH_SITE_DIR: a site this fixture built before (its public/, its
    git history, hugo-sitemap.xml), measured again without building it."""
    given = os.environ.get("SITEMAPKIT_BENCH_SITE_DIR")
    if given:
        root = Path(given)
        assert (root / "hugo-sitemap.xml").is_file() and (root / "public").is_dir() and \
            (root / ".git").is_dir(), f"{root} is not a site this benchmark built"
        assert len(_locs(root / "hugo-sitemap.xml")) == SECTIONS * max(PAGES // SECTIONS, 1) + 1, \
            "built for another SITEMAPKIT_BENCH_SITE_PAGES"
        return root, None
    root = tmp_path_factory.mktemp("hugo-bench")
    (root / "layouts").mkdir()
    (root / "hugo.toml").write_text(f'baseURL = "{BASE}"\ntitle = "Bench"\n'
                                    'disableKinds = ["taxonomy", "term", "RSS"]\n')
    (root / "layouts/baseof.html").write_text(HEAD)
    for name in ("single", "list", "home"):
        (root / f"layouts/{name}.html").write_text('{{ define "main" }}{{ .Content }}{{ end }}')
    per = max(PAGES // SECTIONS, 1)
    for s in range(SECTIONS):
        section = root / "content" / f"s{s:03d}"
        section.mkdir(parents=True)
        (section / "_index.md").write_text(f"---\ntitle: Section {s}\n---\n")
        for p in range(per - 1):
            (section / f"page-{p:05d}.md").write_text(
                f"---\ntitle: Page {s}.{p}\n---\nText of page {p} in section {s}.\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid"}
    (root / ".gitignore").write_text("public/\n.hugo_build.lock\n.cache/\nhugo-sitemap.xml\n"
                                     "split/\n")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    for when, pattern in (("2024-01-01T10:00:00+01:00", "."), ("2024-06-01T10:00:00+02:00",
                                                               "content/s00*")):
        if pattern != ".":
            for path in root.glob(pattern + "/page-0000*.md"):
                path.write_text(path.read_text() + "\nEdited.\n")
        subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
        subprocess.run(["git", "commit", "-q", "-m", "pages"], cwd=root, check=True,
                       env={**env, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when})
    hugo = str(Path(sys.executable).parent / "hugo")
    took, _ = _run([hugo, "--quiet"], root)
    shutil.copy(root / "public/sitemap.xml", root / "hugo-sitemap.xml")
    TIMES["hugo-build"] = took
    return root, took


def test_site_sitemapkit(benchmark, hugo_site):
    root, hugo_seconds = hugo_site
    command = [sys.executable, "-m", "sitemapkit", "site", "public", "--base-url", BASE,
               "--source", ".", "-q"]
    rss: list[int] = []
    took: list[float] = []

    def once() -> float:
        shutil.copy(root / "hugo-sitemap.xml", root / "public/sitemap.xml")
        seconds, peak = _run(command, root)
        rss.append(peak)
        took.append(seconds)
        return seconds

    benchmark.group = "site"
    _, best = best_of(benchmark, once)
    TIMES["site-sitemapkit"] = best
    hugo_urls = _locs(root / "hugo-sitemap.xml")
    ours = _written(root / "public")
    assert ours == hugo_urls, (len(ours), len(hugo_urls))
    build = "the site built before (SITEMAPKIT_BENCH_SITE_DIR)" if hugo_seconds is None \
        else f"hugo build {hugo_seconds:.1f} s, so {best / hugo_seconds:.0%} of it"
    NOTES.append(f"sitemapkit site: {len(ours):,} pages in {best:.2f} s "
                 f"({len(ours) / best:,.0f} pages/s, peak RSS {max(rss)} MB; rounds "
                 f"{', '.join(f'{t:.2f}' for t in took)} s); {build} (targets: <= 5 s at "
                 "100,000 pages, <= 25% of hugo)")


def test_site_baseline_split_script(benchmark, hugo_site):
    """What users do by hand today: split Hugo's one sitemap into 50,000-URL files."""
    root, _ = hugo_site
    out = root / "split"

    def once() -> float:
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        took, _ = _run([sys.executable, "-c", SPLIT, str(root / "hugo-sitemap.xml"), str(out)],
                       root)
        return took

    benchmark.group = "site"
    _, best = best_of(benchmark, once)
    TIMES["site-split-script"] = best
    NOTES.append(f"baseline split script (no dates, no checks): {best:.2f} s")


SPLIT = """
import sys
from xml.etree import ElementTree as ET
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
urls = ET.parse(sys.argv[1]).getroot().findall(f"{{{NS}}}url")
names = []
for n, start in enumerate(range(0, len(urls), 50000), 1):
    root = ET.Element("urlset", xmlns=NS)
    root.extend(urls[start:start + 50000])
    name = f"sitemap-{n}.xml"
    ET.ElementTree(root).write(f"{sys.argv[2]}/{name}", encoding="UTF-8", xml_declaration=True)
    names.append(name)
index = ET.Element("sitemapindex", xmlns=NS)
for name in names:
    ET.SubElement(ET.SubElement(index, "sitemap"), "loc").text = "https://bench.example.com/" + name
ET.ElementTree(index).write(f"{sys.argv[2]}/sitemap-index.xml", encoding="UTF-8",
                            xml_declaration=True)
"""


def _locs(path: Path) -> set[str]:
    return {el.text or "" for el in ElementTree.parse(path).getroot().iter(f"{NS}loc")}


def _written(out: Path) -> set[str]:
    import gzip
    entry = ElementTree.parse(out / "sitemap.xml").getroot()
    if entry.tag == f"{NS}urlset":
        return {el.text or "" for el in entry.iter(f"{NS}loc")}
    found: set[str] = set()
    for loc in entry.iter(f"{NS}loc"):
        with gzip.open(out / (loc.text or "").rsplit("/", 1)[-1]) as fh:
            found |= {el.text or "" for el in ElementTree.parse(fh).getroot().iter(f"{NS}loc")}
    return found
