"""A versioned site through the CLI: ``sitemapkit site`` over a mike-style output of
120 versions x 80 pages, built from 120 tags of a 3,000-commit history (a deploy
branch naming each version's commit), against the baseline of one ``git log -1``
per page per version (what a per-page dater does), in the same run. Cold: the first
run on a fresh copy of the output (the versions' own sitemaps are replaced); warm:
the run again on its own output. Scale with SITEMAPKIT_BENCH_VERSIONS,
SITEMAPKIT_BENCH_VERSION_PAGES, SITEMAPKIT_BENCH_VERSION_COMMITS; the baseline runs
over SITEMAPKIT_BENCH_VERSION_BASELINE versions and is scaled to all of them."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import NOTES, RATIOS, TIMES

VERSIONS = int(os.environ.get("SITEMAPKIT_BENCH_VERSIONS", "120"))
PAGES = int(os.environ.get("SITEMAPKIT_BENCH_VERSION_PAGES", "80"))
COMMITS = int(os.environ.get("SITEMAPKIT_BENCH_VERSION_COMMITS", "3000"))
SAMPLE = min(VERSIONS, int(os.environ.get("SITEMAPKIT_BENCH_VERSION_BASELINE", "10")))
SITE = "https://docs.example.com/"
RATIOS += [("versions: per-page git log / sitemapkit site (cold)", "versions-per-page-git",
            "versions-site-cold", None)]


def _history(root: Path) -> list[str]:
    """The project: mkdocs.yml and PAGES pages, COMMITS commits each editing a few pages
    (a page is added every so often), a tag per version, and a gh-pages branch with
    one mike deploy commit per version. Returns the version names."""
    rng = random.Random(3)
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    out: list[bytes] = []
    every = max(1, COMMITS // VERSIONS)
    versions = []
    for c in range(COMMITS):
        when = f"{1_500_000_000 + c * 7200} +0100"
        msg = f"commit {c}".encode()
        out += [b"commit refs/heads/main\n", b"mark :%d\n" % (c + 1),
                f"committer Bench <b@example.invalid> {when}\n".encode(),
                b"data %d\n%s\n" % (len(msg), msg)]
        live = max(2, min(PAGES, PAGES * (c + 1) // COMMITS + PAGES // 2))
        changed = [f"docs/p{i}.md" for i in range(live)] if c == 0 else \
            [f"docs/p{rng.randrange(live)}.md" for _ in range(3)] + [f"docs/p{live - 1}.md"]
        if c == 0:
            config = b"site_name: Bench\nsite_url: " + SITE.encode() + b"\n"
            out.append(b"M 100644 inline mkdocs.yml\ndata %d\n%s\n" % (len(config), config))
        for name in dict.fromkeys(changed):
            data = f"# {name}\n\nrevision {c}\n".encode()
            out.append(b"M 100644 inline %s\ndata %d\n%s\n" % (name.encode(), len(data), data))
        if (c + 1) % every == 0 and len(versions) < VERSIONS:
            versions.append(f"{len(versions) // 10 + 1}.{len(versions) % 10}")
            out.append(b"reset refs/tags/v%s\nfrom :%d\n\n" % (versions[-1].encode(), c + 1))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(out), check=True)
    deploys: list[bytes] = []  # naming each tag's short commit id, as mike writes them
    for i, version in enumerate(versions):
        sha = subprocess.run(["git", "rev-parse", "--short", f"v{version}"], cwd=root,
                             check=True, capture_output=True, text=True).stdout.strip()
        msg = f"Deployed {sha} to {version} with MkDocs 1.6.1 and mike 2.2.0".encode()
        deploys += [b"commit refs/heads/gh-pages\n",
                    f"committer Bench <b@example.invalid> {1_600_000_000 + i} +0000\n".encode(),
                    b"data %d\n%s\n" % (len(msg), msg)]
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(deploys),
                   check=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True)
    return versions


def _output(root: Path, project: Path, versions: list[str]) -> None:
    """mike's output: a folder per version with each page the tag holds, a latest alias."""
    root.mkdir()
    for version in versions:
        listed = subprocess.run(["git", "ls-tree", "--name-only", f"v{version}", "docs/"],
                                cwd=project, check=True, capture_output=True,
                                text=True).stdout.split()
        for name in listed:
            stem = Path(name).stem
            page = root / version / ("" if stem == "index" else stem) / "index.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(f"<!doctype html><html><head><title>{stem}</title>"
                            f'<meta name="generator" content="mkdocs-1.6.1"></head>'
                            f"<body><h1>{stem}</h1></body></html>")
        (root / version / "index.html").write_text("<!doctype html><title>home</title>")
    shutil.copytree(root / versions[-1], root / "latest")
    listing = [{"version": v, "title": v, "aliases": ["latest"] if v == versions[-1] else []}
               for v in reversed(versions)]
    (root / "versions.json").write_text(json.dumps(listing))


@pytest.fixture(scope="module")
def versioned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    base = tmp_path_factory.mktemp("bench-versions")
    versions = _history(base / "project")
    _output(base / "template", base / "project", versions)
    return base / "project", base / "template", versions


def _site(project: Path, out: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--base-url",
                           SITE, "--source", str(project), "-q"], cwd=project,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return time.perf_counter() - started


def test_bench_versions_site(versioned: tuple[Path, Path, list[str]], tmp_path: Path) -> None:
    project, template, versions = versioned
    cold, warm = [], []
    for round_ in range(3):
        out = tmp_path / f"out{round_}"
        shutil.copytree(template, out)
        cold.append(_site(project, out))
        warm.append(_site(project, out))
    index = (out / "sitemap.xml").read_text()
    assert index.count("<sitemap>") == len(versions)
    started = time.perf_counter()
    for version in versions[:SAMPLE]:
        for page in sorted((template / version).rglob("index.html")):
            rel = page.relative_to(template / version).parent.as_posix()
            name = "docs/index.md" if rel == "." else f"docs/{rel}.md"
            subprocess.run(["git", "log", "-1", "--format=%cI", f"v{version}", "--", name],
                           cwd=project, check=True, capture_output=True)
    per_page = (time.perf_counter() - started) * len(versions) / SAMPLE
    TIMES["versions-site-cold"] = min(cold)
    TIMES["versions-site-warm"] = min(warm)
    TIMES["versions-per-page-git"] = per_page
    pages = sum(1 for _ in template.glob("*/**/index.html")) - sum(
        1 for _ in (template / "latest").rglob("index.html"))
    NOTES.append(f"versions: {len(versions)} versions, {pages:,} pages, {COMMITS:,} commits: "
                 f"cold {min(cold):.2f} s (runs {', '.join(f'{t:.2f}' for t in cold)}), warm "
                 f"{min(warm):.2f} s; one git log per page {per_page:.1f} s (from "
                 f"{SAMPLE} versions); ratio {per_page / min(cold):.1f}x")
