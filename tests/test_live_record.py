"""The earlier set as the record when no local one is there, as in CI from a fresh
checkout: the live site (a real HTTP server on 127.0.0.1 serving the set deployed
before), or a folder or file named with --changes-from. IndexNow (a 127.0.0.1 stand-in
that records what it is sent) gets exactly the URLs new, re-dated and removed against
it, through `sitemapkit write`, a real `mkdocs build` with the plugin and `mkdocs build`
followed by `sitemapkit site`; the change report says the same as `sitemapkit diff`."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from docs_projects import mkdocs_build, mkdocs_project
from fake_engine import FakeEngine
from gitrepo import Repo

KEY = "a1b2c3d4e5f6a7b8"


def sitemapkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def submitted(engine: FakeEngine) -> list[str]:
    return sorted(url for seen in engine.seen for url in seen.json()["urlList"])


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def csv(path: Path, base: str, **lastmods: str) -> Path:
    path.write_text("loc,lastmod\n" + "".join(f"{base}{name},{lastmod}\n"
                                              for name, lastmod in lastmods.items()))
    return path


EARLIER = {"a": "2024-01-01", "b": "2024-01-01", "c": "2024-01-01", "gone": "2024-01-01"}
NOW = {"a": "2024-01-01", "b": "2024-05-05", "c": "2024-01-01", "new": "2024-06-01"}


def deploy_earlier(served: tuple[Path, str], tmp_path: Path) -> str:
    """The set deployed before, written by sitemapkit itself, served at the base URL."""
    www, url = served
    done = sitemapkit("write", str(csv(tmp_path / "earlier.csv", url, **EARLIER)), "-o",
                      str(www), "--base-url", url, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return url


def test_write_in_a_fresh_checkout_submits_what_moved_against_the_live_site(
        served, engine, tmp_path):
    url = deploy_earlier(served, tmp_path)
    ci = tmp_path / "ci"  # a fresh working folder: no .cache, no record
    ci.mkdir()
    done = sitemapkit("write", str(csv(ci / "urls.csv", url, **NOW)), "-o", "out",
                      "--base-url", url, "--indexnow-key", KEY, "--indexnow-endpoint",
                      engine.url + "/indexnow", "--changes-report", "changes.json", cwd=ci)
    assert done.returncode == 0, done.stderr
    assert submitted(engine) == [url + "b", url + "gone", url + "new"]
    assert len(engine.seen) == 1 and engine.seen[0].json()["host"] == url.split("/")[2]
    assert f"changes: compared with {url}sitemap.xml (4 URLs)" in done.stderr
    assert "IndexNow: 3 URLs accepted in 1 request (2 changed, 1 removed)" in done.stderr
    report = json.loads((ci / "changes.json").read_text())
    assert (report["added"], report["removed"], report["redated"]) == (
        [url + "new"], [url + "gone"], [url + "b"])
    # the report says what `sitemapkit diff` says of the same two sets
    diff = sitemapkit("diff", url, str(ci / "out"), "--format", "json", cwd=ci)
    assert diff.returncode == 0, diff.stderr
    theirs = json.loads(diff.stdout)
    assert {k: theirs[k] for k in ("added", "removed", "redated", "lastmods")} == \
        {k: report[k] for k in ("added", "removed", "redated", "lastmods")}


def test_an_unreachable_live_site_is_a_note_and_nothing_is_submitted(engine, tmp_path):
    base = f"http://127.0.0.1:{closed_port()}/"
    args = ["write", str(csv(tmp_path / "urls.csv", base, **NOW)), "-o", "out", "--base-url",
            base, "--indexnow-key", KEY, "--indexnow-endpoint", engine.url,
            "--changes-report", "changes.md"]
    done = sitemapkit(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert engine.seen == []
    note = (f"IndexNow: nothing submitted: no earlier set: cannot fetch {base}sitemap.xml: "
            "Connection refused")
    assert note in done.stderr.replace("[Errno 111] ", "")
    assert "warning" not in done.stderr  # a note, not a failure: the build goes on
    report = (tmp_path / "changes.md").read_text()
    assert "(nothing: no earlier set: cannot fetch" in report and "| 4 |" in report
    # the first run started a local record, which a later run takes; `live` says no
    failing = sitemapkit(*args, "--changes-from", "live", "--fail-on-notify-error",
                         cwd=tmp_path)  # asked to fail on a notification failure: it does
    assert failing.returncode == 1 and "cannot fetch" in failing.stderr
    assert (tmp_path / "out/sitemap.xml").is_file()


def test_a_first_deploy_is_no_failure(served, engine, tmp_path):
    _www, url = served  # nothing published yet: HTTP 404
    done = sitemapkit("write", str(csv(tmp_path / "urls.csv", url, **NOW)), "-o", "out",
                      "--base-url", url, "--indexnow-key", KEY, "--indexnow-endpoint",
                      engine.url, "--fail-on-notify-error", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert engine.seen == [] and "nothing published there yet: a first deploy" in done.stderr


@pytest.mark.parametrize("given", ["folder", "file", "the output itself"])
def test_changes_from_a_folder_or_file(engine, tmp_path, given):
    base = "https://docs.example.com/"  # never fetched: the record is named
    previous = tmp_path / ("out" if given == "the output itself" else "gh-pages")
    done = sitemapkit("write", str(csv(tmp_path / "earlier.csv", base, **EARLIER)), "-o",
                      str(previous), "--base-url", base, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    record = previous / "sitemap.xml" if given == "file" else previous
    done = sitemapkit("write", str(csv(tmp_path / "urls.csv", base, **NOW)), "-o", "out",
                      "--base-url", base, "--indexnow-key", KEY, "--indexnow-endpoint",
                      engine.url, "--changes-from", str(record), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert submitted(engine) == [base + "b", base + "gone", base + "new"]


def test_mkdocs_plugin_in_a_fresh_clone_submits_what_moved(served, engine, tmp_path):
    www, url = served
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n", "a.md": "# A\n",
                                           "b.md": "# B\n", "c.md": "# C\n"},
                          {"site_url": url}, when="2024-03-03T10:00:00+00:00")
    mkdocs_build(repo.root)
    shutil.copytree(repo.root / "site", www, dirs_exist_ok=True)  # the deploy
    (repo.root / "docs/b.md").unlink()
    repo.commit("2024-04-04T10:00:00+00:00", {"docs/a.md": "# A\n\nchanged\n",
                                              "docs/new.md": "# New\n"})
    repo.write("mkdocs.yml", repo.root.joinpath("mkdocs.yml").read_text().replace(
        "- sitemapkit\n", f"- sitemapkit:\n    indexnow: {{key: {KEY}, endpoint: "
        f"'{engine.url}'}}\n    changes_report: changes.md\n    human_view: true\n"))
    repo.commit("2024-04-05T10:00:00+00:00")
    ci = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", str(repo.root), str(ci)], check=True)
    done = mkdocs_build(ci)
    assert submitted(engine) == [url + "a/", url + "b/", url + "new/"], done.stderr
    assert f"compared with {url}sitemap.xml (4 URLs)" in done.stderr
    report = (ci / "changes.md").read_text()
    assert "| 1 | 1 | 1 | 0 | 4 → 4 |" in report, report
    view = (ci / "site/sitemap.html").read_text()
    assert f'href="{url}new/"' in view and "re-dated (was 2024-03-03" in view
    assert "sitemap.html" not in (ci / "site/sitemap.xml").read_text()


def test_site_in_a_fresh_clone_submits_what_moved(served, engine, tmp_path):
    www, url = served
    repo = Repo(tmp_path / "p")
    repo.write("mkdocs.yml", f"site_name: T\nsite_url: {url}\n")
    repo.write(".gitignore", "site/\n.cache/\n")
    repo.commit("2024-03-03T10:00:00+00:00", {"docs/index.md": "# Home\n",
                                              "docs/a.md": "# A\n", "docs/b.md": "# B\n"})
    build = [sys.executable, "-m", "mkdocs", "build", "-q"]
    subprocess.run(build, cwd=repo.root, check=True)
    done = sitemapkit("site", "site", "--source", ".", "--human-view", cwd=repo.root)
    assert done.returncode == 0, done.stderr
    shutil.copytree(repo.root / "site", www, dirs_exist_ok=True)  # the deploy
    repo.commit("2024-04-04T10:00:00+00:00", {"docs/a.md": "# A\n\nchanged\n",
                                              "docs/new.md": "# New\n"})
    ci = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", str(repo.root), str(ci)], check=True)
    subprocess.run(build, cwd=ci, check=True)
    args = ["site", "site", "--source", ".", "--indexnow-key", KEY, "--indexnow-endpoint",
            engine.url, "--changes-report", "changes.json", "--human-view"]
    done = sitemapkit(*args, cwd=ci)
    assert done.returncode == 0, done.stderr
    assert submitted(engine) == [url + "a/", url + "new/"]
    report = json.loads((ci / "changes.json").read_text())
    assert (report["added"], report["redated"], report["removed"]) == (
        [url + "new/"], [url + "a/"], [])
    # a later run on the same output takes the human view for no page of the site
    again = sitemapkit("site", "site", "--source", ".", "--human-view", "--validate",
                       "strict", cwd=ci)
    assert again.returncode == 0, again.stderr
    listed = (ci / "site/sitemap.xml").read_text()
    assert "sitemap.html" not in listed
    # the view is no page
    assert "5 pages found: 4 to list, 1 left out (1 404 page)\n" in again.stderr
