"""`sitemapkit site` on a 13-language Zensical site whose build stages each language
(issue 48's shape, 2,015 pages: 7.0-7.5 CPU-s before that issue; target <= 2 CPU-s).

The build script writes ``.build/<lang>/mkdocs.yml`` (git-ignored) for each of 13
languages, copies the English pages there with that language's translations over
them, and builds each language with the real ``zensical`` into one output (English
at the top). Every page links to each language's home with hreflang (Material's and
Zensical's ``extra.alternate``), which makes no cluster. Measured through the front
door, as the README runs it: ``sitemapkit site site`` from the repository's root,
no flags, a subprocess, in CPU seconds (its git children included), cold (no cache)
and warm, beside the generator's own build. SITEMAPKIT_BENCH_LANG_PAGES scales it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import NOTES, TIMES, best_of

PAGES = int(os.environ.get("SITEMAPKIT_BENCH_LANG_PAGES", "2015"))
LANGS = ("en", "de", "fr", "es", "pt", "it", "ja", "ko", "zh", "ru", "tr", "uk", "pl")
BASE = "https://bench.example.com/"
pytestmark = pytest.mark.timeout(max(600, PAGES))
CONFIG = """site_name: Bench
site_url: {url}
docs_dir: docs
repo_url: https://github.com/o/r
theme:
  name: material
  language: {lang}
extra:
  alternate:
{alternates}"""


def _cpu(args: list[str], cwd: Path) -> float:
    """CPU seconds of one child process, with the children it waited for (git)."""
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    with proc.stdout if proc.stdout else open(os.devnull, "rb") as stream:
        output = stream.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, output.decode(errors="replace")
    return usage.ru_utime + usage.ru_stime


def _git(root: Path, *args: str, when: str = "2024-01-10T09:00:00+01:00") -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid",
           "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)


@pytest.fixture(scope="module")
def language_site(tmp_path_factory) -> tuple[Path, float]:
    """The staged 13-language site, built; (its root, the build's CPU seconds)."""
    zensical = shutil.which("zensical", path=str(Path(sys.executable).parent)) or \
        shutil.which("zensical")
    assert zensical, "zensical is in the test extra"
    root = tmp_path_factory.mktemp("languages")
    per = max(PAGES // len(LANGS), 2)
    sections = max(per // 20, 1)
    for n in range(per - 1):
        page = root / "docs/en/docs" / f"s{n % sections:02d}" / f"page-{n:04d}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# Page {n}\n\nEnglish text of page {n}.\n")
    (root / "docs/en/docs/index.md").write_text("# Home\n")
    for lang in LANGS[1:]:  # a third of the pages translated, the rest staged in English
        for n in range(0, per - 1, 3):
            page = root / "docs" / lang / "docs" / f"s{n % sections:02d}" / f"page-{n:04d}.md"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(f"# {lang} {n}\n\nTranslated text of page {n}.\n")
        (root / "docs" / lang / "docs/index.md").write_text(f"# Home ({lang})\n")
    (root / ".gitignore").write_text("site/\n.build/\n.cache/\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "pages")
    for n in range(0, per - 1, 7):  # a later edit to some English pages
        page = root / "docs/en/docs" / f"s{n % sections:02d}" / f"page-{n:04d}.md"
        page.write_text(page.read_text() + "\nEdited.\n")
    _git(root, "commit", "-q", "-am", "edits", when="2024-06-01T10:00:00+02:00")
    alternates = "".join(f"    - name: {lang}\n      link: /{'' if lang == 'en' else lang + '/'}"
                         f"\n      lang: {lang}\n" for lang in LANGS)
    out = root / "site"
    build_cpu = 0.0
    for lang in LANGS:  # what the site's build script does
        stage = root / ".build" / lang
        shutil.copytree(root / "docs/en/docs", stage / "docs")
        shutil.copytree(root / "docs" / lang / "docs", stage / "docs", dirs_exist_ok=True)
        url = BASE if lang == "en" else f"{BASE}{lang}/"
        (stage / "mkdocs.yml").write_text(CONFIG.format(url=url, lang=lang,
                                                        alternates=alternates))
        build_cpu += _cpu([zensical, "build", "-f", "mkdocs.yml"], stage)
        shutil.copytree(stage / "site", out if lang == "en" else out / lang, dirs_exist_ok=True)
    for name in ("sitemap.xml", "sitemap.xml.gz"):
        for found in out.rglob(name):
            shutil.copy(found, found.with_name(found.name + ".zensical"))
    TIMES["languages-zensical-build-cpu"] = build_cpu
    return root, build_cpu


def _restore(out: Path) -> None:
    """The output as the build left it (each run replaces Zensical's sitemaps)."""
    for saved in out.rglob("*.zensical"):
        shutil.copy(saved, saved.with_name(saved.name[: -len(".zensical")]))


def test_site_thirteen_languages_staged(benchmark, language_site):
    root, build_cpu = language_site
    out = root / "site"
    command = [sys.executable, "-m", "sitemapkit", "site", "site", "-q", "--report",
               str(root / "report.jsonl")]
    runs: dict[str, list[float]] = {"cold": [], "warm": []}

    def once() -> float:
        _restore(out)
        shutil.rmtree(root / ".cache", ignore_errors=True)
        runs["cold"].append(_cpu(command, root))
        _restore(out)
        runs["warm"].append(_cpu(command, root))
        return runs["cold"][-1]

    benchmark.group = "site-languages"
    best_of(benchmark, once)
    cold, warm = min(runs["cold"]), min(runs["warm"])
    TIMES["languages-site-cold-cpu"], TIMES["languages-site-warm-cpu"] = cold, warm
    written = (out / "sitemap.xml").read_text()
    urls, dated = written.count("<loc>"), written.count("<lastmod>")
    undated = [line for line in (root / "report.jsonl").read_text().splitlines()
               if '"undated"' in line]
    assert urls > len(LANGS) and dated == urls, (urls, dated, undated[:3])
    NOTES.append(f"sitemapkit site, {len(LANGS)} languages staged by the build: {urls:,} URLs, "
                 f"{dated:,} dated; {cold:.2f} CPU-s cold, {warm:.2f} warm (target <= 2; "
                 f"7.0-7.5 before issue 48); zensical's 13 builds {build_cpu:.1f} CPU-s, so "
                 f"{cold / build_cpu:.0%} of it")
