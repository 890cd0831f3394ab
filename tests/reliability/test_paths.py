"""Output file names from config cannot leave the output directory; symlinks and a
hostile manifest cannot redirect writes or deletions; git paths cannot inject options."""

from __future__ import annotations

import json
import os

import pytest
from gitrepo import Repo

from sitemapkit import ConfigError
from sitemapkit.gitdates import git_dates
from sitemapkit.write.output import TMP_PREFIX, OutputError

BASE = "https://example.com/docs/"
PAGES = [BASE + f"p{i}" for i in range(5)]
BAD_NAMES = ["../sitemap.xml", "/tmp/sitemap.xml", "a/b.xml", "a\\b.xml", "x\x00.xml", "..",
             ".hidden.xml"]


@pytest.mark.parametrize("name", BAD_NAMES)
@pytest.mark.parametrize("option", ["filename", "index_filename", "shard_pattern"])
def test_names_from_config_stay_inside(impl, tmp_path, option, name):
    value = name.replace(".xml", "-{number}-{digest}.xml.gz") if option == "shard_pattern" \
        else name
    out = tmp_path / "site"
    with pytest.raises(ConfigError, match="plain file name inside the output directory"):
        impl.write(PAGES, out, BASE, max_urls=2, **{option: value})
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == []


def test_symlinked_output_directory_is_refused_unless_allowed(impl, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "site"
    link.symlink_to(elsewhere)
    with pytest.raises(OutputError, match="is a symlink to .*refusing"):
        impl.write(PAGES, link, BASE)
    assert list(elsewhere.iterdir()) == []
    impl.write(PAGES, link, BASE, follow_symlink=True)
    assert (elsewhere / "sitemap.xml").exists()


def test_nul_in_output_directory(impl, tmp_path):
    with pytest.raises(OutputError, match="NUL"):
        impl.write(PAGES, str(tmp_path / "a\x00b"), BASE)


def test_a_symlink_at_a_target_name_is_replaced_not_followed(impl, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "site"
    out.mkdir()
    (out / "sitemap.xml").symlink_to(victim)
    impl.write(PAGES, out, BASE)
    assert victim.read_text() == "precious"
    assert not (out / "sitemap.xml").is_symlink()


def test_hostile_index_or_journal_cannot_delete_other_files(impl, tmp_path):
    """The previous set is read from the live index (and a dead run's journal): neither
    can make sitemapkit delete a page, a file outside, or an absolute path."""
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("page")
    outside = tmp_path / "outside.xml"
    outside.write_text("x")
    locs = "".join(f"<sitemap><loc>{u}</loc></sitemap>" for u in (
        BASE + "index.html", BASE + "..%2Foutside.xml", BASE + "%2Fetc%2Fhostname",
        "https://example.com/../outside.xml"))
    (out / "sitemap.xml").write_text(f"<?xml version='1.0'?><sitemapindex>{locs}</sitemapindex>")
    (out / f"{TMP_PREFIX}1-ab-journal.json").write_text(json.dumps(
        ["index.html", "../outside.xml", "/etc/hostname"]))
    impl.write(PAGES, out, BASE)
    assert (out / "index.html").read_text() == "page" and outside.exists()
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "sitemap.xml",
                                                     "sitemap.xml.gz"]


def test_git_paths_that_look_like_options(tmp_path):
    repo = Repo(tmp_path / "r")
    names = ["--output=pwned.md", "-p.md", "--exec=touch x.md", "-- .md", "--all.md"]
    for name in names:
        repo.write(f"docs/{name}", "x\n")
    repo.commit("2024-03-03T03:03:03+03:00")
    got = git_dates([repo.root / "docs" / n for n in names])
    assert {os.path.basename(p): d.isoformat() for p, d in got.dates.items()} == \
        dict.fromkeys(names, "2024-03-03T03:03:03+03:00")
    assert not (repo.root / "pwned.md").exists() and not (repo.root / "x.md").exists()
    assert not list(repo.root.glob("pwned*"))
