"""`sitemapkit write` on JSON Lines with hreflang alternates, as a user runs it: a real
subprocess on each twin, the shards read back from gzip and checked against the XSD,
the cluster each URL carries, and the bytes the API's object path gives (which sends
every row through the rules)."""

from __future__ import annotations

import gzip
import json

import pytest
from sitemap_check import read_set

from conftest import BASE, run
from sitemapkit.write import shard_bytes

LANGS = ("en", "de", "fr")


def cluster(i: int) -> list[list[str]]:
    urls = [[lang, f"{BASE}{lang}/p/{i}"] for lang in LANGS]
    return urls + [["x-default", urls[0][1]]]


def lines_for(clusters: int, by_language: bool) -> list[str]:
    """Each cluster's rows together, or every en row, then every de row, then fr."""
    rows = [(lang_no, i) for i in range(clusters) for lang_no in range(3)]
    if by_language:
        rows.sort()
    return [json.dumps({"loc": cluster(i)[n][1], "lastmod": f"2024-0{1 + i % 9}-01",
                        "alternates": cluster(i)}) for n, i in rows]


@pytest.mark.parametrize("by_language", [False, True])
def test_alternates_through_the_cli_match_the_object_path(tmp_path, twin_env, by_language):
    lines = lines_for(700, by_language)
    src, out = tmp_path / "in.jsonl", tmp_path / "out"
    src.write_text("\n".join(lines) + "\n")
    done = run("write", str(src), "-o", str(out), "--base-url", BASE, "--max-urls", "500",
               env=twin_env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("2,100 URLs in 5 shards, 0 skipped, 0 duplicates"), done.stdout
    assert "never written" not in done.stdout + done.stderr
    urls = read_set(out, BASE, max_urls=500).urls  # gzip, XSD, index
    assert len(urls) == 2_100
    for url in urls:
        number = int(url.loc.rsplit("/", 1)[1])
        assert sorted(url.alternates) == sorted(map(tuple, cluster(number))), url
    expected = shard_bytes([json.loads(line) for line in lines], BASE, max_urls=500)
    got = [gzip.decompress(p.read_bytes()) for p in sorted(out.glob("sitemap-0*.xml.gz"))]
    assert got == expected


def test_a_member_that_breaks_a_remembered_cluster_is_named_by_line(tmp_path, twin_env):
    """The rows after a cluster's first come from bytes; one that is not among its own
    alternates, or that lists another set, still gets the rule and its input line."""
    good = [json.dumps({"loc": href, "alternates": cluster(1)}) for _, href in cluster(1)[:2]]
    outsider = json.dumps({"loc": f"{BASE}es/p/1", "alternates": cluster(1)})
    other_set = json.dumps({"loc": f"{BASE}fr/p/1", "alternates": cluster(1)[:3]})
    for bad, rule in [(outsider, "alternate-self"), (other_set, "alternate-cluster")]:
        src = tmp_path / "in.jsonl"
        src.write_text("\n".join([*good, bad]) + "\n")
        done = run("write", str(src), "-o", str(tmp_path / "out"), "--base-url", BASE,
                   env=twin_env)
        assert done.returncode == 1, done.stdout
        assert f"breaks rule '{rule}'" in done.stderr and "(input line 3)" in done.stderr, \
            done.stderr
        assert not (tmp_path / "out" / "sitemap.xml").exists()


def test_a_member_never_written_is_reported_after_rows_from_bytes(tmp_path, twin_env):
    rows = [json.dumps({"loc": href, "alternates": cluster(2)}) for _, href in cluster(2)[:2]]
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(rows) + "\n")
    done = run("write", str(src), "-o", str(tmp_path / "out"), "--base-url", BASE,
               env=twin_env)
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "1 alternate URLs on this site were never written with their cluster" in said, said
    assert f"e.g. {BASE}fr/p/2" in said, said
