"""See what you publish: `sitemapkit diff` between two sets (a folder, a file, a URL
served on 127.0.0.1) in its three formats, and `--dry-run` on `write`, `site` and
`index`, which leaves an existing output byte for byte unchanged and says what a real
run would change. Each run is a subprocess, as a user types it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from sitemapkit import UrlEntry, write_sitemaps

SITE = "https://example.com/"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` with its bytes (hidden ones too)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def two_sets(root: Path, base: str = SITE) -> tuple[Path, Path]:
    """An old and a new set, sharded, with one cluster of alternates, where 2 URLs are
    added, 1 removed, 2 re-dated and 1 cluster's alternates changed."""
    pair = (("en", f"{base}en/"), ("de", f"{base}de/"))
    trio = (*pair, ("fr", f"{base}fr/"))
    old = [UrlEntry(f"{base}p{i}", "2024-01-01") for i in range(150)]
    old += [UrlEntry(f"{base}en/", "2024-01-01", alternates=pair),
            UrlEntry(f"{base}de/", "2024-01-01", alternates=pair)]
    new = [e for e in old[:149] if not e.alternates]  # p149 removed
    new[3] = new[3]._replace(lastmod="2024-06-01")
    new[7] = new[7]._replace(lastmod=None)
    new += [UrlEntry(f"{base}new/a"), UrlEntry(f"{base}fr/", "2024-01-01", alternates=trio),
            UrlEntry(f"{base}en/", "2024-01-01", alternates=trio),
            UrlEntry(f"{base}de/", "2024-01-01", alternates=trio)]
    write_sitemaps(old, root / "old", base, max_urls=60)
    write_sitemaps(new, root / "new", base, max_urls=60)
    return root / "old", root / "new"


EXPECTED = {"added": [f"{SITE}new/a", f"{SITE}fr/"], "removed": [f"{SITE}p149"],
            "redated": [f"{SITE}p3", f"{SITE}p7"],
            "alternates_changed": [f"{SITE}en/", f"{SITE}de/"]}


def test_diff_gives_the_same_sets_in_text_markdown_and_json(tmp_path):
    old, new = two_sets(tmp_path)
    as_json = json.loads(cli("diff", str(old), str(new), "--format", "json").stdout)
    assert {k: as_json[k] for k in EXPECTED} == EXPECTED
    assert as_json["lastmods"][f"{SITE}p7"] == ["2024-01-01", None]
    text = cli("diff", str(old), str(new)).stdout.splitlines()
    assert [line[2:].split()[0] for line in text if line[:2] == "+ "] == EXPECTED["added"]
    assert [line[2:] for line in text if line[:2] == "- "] == EXPECTED["removed"]
    assert [line[2:].split()[0] for line in text if line[:2] == "~ "] == EXPECTED["redated"]
    assert [line[2:].split()[0] for line in text if line[:2] == "@ "] == \
        EXPECTED["alternates_changed"]
    assert text[-1].endswith("2 URLs added, 1 removed, 2 re-dated, 2 with changed alternates "
                             "(152 -> 153 URLs)")
    markdown = cli("diff", str(old), str(new), "--format", "markdown").stdout
    assert "| 2 | 1 | 2 | 2 | 152 → 153 |" in markdown
    for title, key in [("Added", "added"), ("Removed", "removed"), ("Re-dated", "redated"),
                       ("Alternates changed", "alternates_changed")]:
        section = re.search(rf"<summary>{title} \((\d+)\)</summary>\n\n(.*?)\n\n</details>",
                            markdown, re.S)
        assert section, title
        assert int(section[1]) == len(EXPECTED[key])
        assert [item[2:].split(": ", 1)[0] for item in section[2].splitlines()] == \
            EXPECTED[key]


def test_diff_reads_a_live_set_from_a_url_and_a_single_file(tmp_path, served):
    folder, url = served
    old, new = two_sets(tmp_path, url)
    for path in old.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    done = cli("diff", url + "sitemap.xml", str(new / "sitemap.xml"), "--format", "json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["added"] == [f"{url}new/a", f"{url}fr/"] and found["removed"] == [f"{url}p149"]
    assert found["urls"] == {"old": 152, "new": 153}


def test_diff_exit_code_and_a_report_file(tmp_path):
    old, new = two_sets(tmp_path)
    assert cli("diff", str(old), str(old), "--exit-code").returncode == 0
    report = tmp_path / "changes.md"
    done = cli("diff", str(old), str(new), "--exit-code", "--format", "markdown",
               "-o", str(report))
    assert done.returncode == 1 and done.stdout == ""
    assert report.read_text().startswith("### Sitemap changes")
    missing = cli("diff", str(tmp_path / "nothing"), str(new))
    assert missing.returncode == 1 and "no such file, folder or URL" in missing.stderr


# --- --dry-run ----------------------------------------------------------------------------
def test_write_dry_run_leaves_the_output_unchanged_and_says_what_would_change(tmp_path):
    old, new = two_sets(tmp_path)
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(f"{SITE}p{i}\n" for i in range(140)) + f"{SITE}new/b\n")
    before = tree(old)
    done = cli("write", str(urls), "-o", str(old), "--base-url", SITE, "--max-urls", "60",
               "--robots-txt", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert tree(old) == before
    assert done.stdout.startswith("dry run: 141 URLs in 3 shards")
    assert "nothing was written, replaced, removed or submitted" in done.stderr
    assert "1 URL added, 12 removed, 140 re-dated" in done.stderr  # no lastmod in the text
    assert f"would add 'Sitemap: {SITE}sitemap.xml'" in done.stderr
    # a line naming the set in another spelling: the run adds none, so the dry run says none
    (old / "robots.txt").write_text(f"SITEMAP : {SITE.upper()}sitemap.xml # ours\n")
    again = cli("write", str(urls), "-o", str(old), "--base-url", SITE, "--max-urls", "60",
                "--robots-txt", "--dry-run")
    assert again.returncode == 0 and "would add" not in again.stderr, again.stderr
    fresh = tmp_path / "fresh"
    assert cli("write", str(urls), "-o", str(fresh), "--base-url", SITE,
               "--dry-run").returncode == 0
    assert not fresh.exists()


def test_site_dry_run_keeps_the_generators_sitemap_and_every_file(tmp_path):
    out = tmp_path / "public"
    (out / "a").mkdir(parents=True)
    for path in ("index.html", "a/index.html"):
        (out / path).write_text("<html><head><title>t</title></head></html>")
    (out / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
        f'schemas/sitemap/0.9"><url><loc>{SITE}</loc></url><url><loc>{SITE}a/</loc></url>'
        "</urlset>\n")
    before = tree(out)
    done = cli("site", str(out), "--dry-run", "--report", str(tmp_path / "r.jsonl"),
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert tree(out) == before and not (tmp_path / "r.jsonl").exists()
    assert "would replace the generator's sitemap.xml" in done.stderr
    assert "would write 2 files into" in done.stderr  # sitemap.xml and its .gz copy
    assert done.stdout.startswith("sitemapkit: dry run: 2 URLs in 1 shard")


def test_index_dry_run_writes_no_index_and_no_robots_txt(tmp_path):
    root = tmp_path / "pages"
    for version in ("1.0", "2.0"):
        write_sitemaps([f"{SITE}{version}/"], root / version, f"{SITE}{version}/")
    before = tree(root)
    done = cli("index", str(root / "1.0"), str(root / "2.0"), "-o", str(root),
               "--base-url", SITE, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert tree(root) == before
    assert f"would write {root / 'sitemap.xml'} listing 2 sitemaps" in done.stderr
    assert f"would add 'Sitemap: {SITE}sitemap.xml'" in done.stderr
    (root / "robots.txt").write_text(f"\ufeffSitemap:{SITE}sitemap.xml\n")
    again = cli("index", str(root / "1.0"), str(root / "2.0"), "-o", str(root),
                "--base-url", SITE, "--dry-run")
    assert again.returncode == 0 and "would add" not in again.stderr, again.stderr
