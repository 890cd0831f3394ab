"""XML injection: no channel (loc, lastmod, changefreq, priority, alternates, config
values, MkDocs front matter, Sphinx metadata) can add an element, an attribute, a
processing instruction or a DOCTYPE to the output."""

from __future__ import annotations

import pytest
from docs_projects import mkdocs_build, mkdocs_project, sphinx_build, sphinx_project
from lxml import etree
from sitemap_check import NS, PARSER, XHTML, read_bytes, read_set

from sitemapkit import EntryError, UrlEntry

BASE = "https://example.com/docs/"
PAYLOADS = ['"/><x:evil xmlns:x="urn:x"/>', "</loc><priority>1.0</priority><loc>",
            "<?xml-stylesheet href='x'?>", "<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///'>]>",
            "&e;", "]]><evil/>", "' onload='x", "\u2028<evil/>"]
ALLOWED = {"urlset", "url", "loc", "lastmod", "changefreq", "priority", "sitemapindex",
           "sitemap", "link"}
ALLOWED_ATTRS = {"rel", "hreflang", "href"}


def assert_clean(data: bytes) -> None:
    """Only our vocabulary: no extra element, attribute, PI, comment or DOCTYPE."""
    root = etree.fromstring(data, PARSER)
    assert root.getroottree().docinfo.doctype == ""
    assert data.count(b"<?") == 1 and b"<!" not in data
    for node in root.iter():
        assert isinstance(node.tag, str), f"non-element node {node!r}"
        assert etree.QName(node).localname in ALLOWED
        assert etree.QName(node).namespace in (NS, XHTML)
        assert set(node.attrib) <= ALLOWED_ATTRS


def written(out) -> list[bytes]:
    return [read_bytes(p) for p in sorted(out.iterdir())
            if p.name.endswith((".xml", ".xml.gz")) and not p.name.startswith(".")]


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("channel", ["loc", "lastmod", "changefreq", "priority", "hreflang",
                                     "href"])
def test_entry_channels(impl, tmp_path, channel, payload):
    loc, fields = BASE + "page", {}
    if channel == "loc":
        loc = BASE + payload
    elif channel in ("hreflang", "href"):
        pair = (payload, BASE + "de") if channel == "hreflang" else ("de", BASE + payload)
        fields["alternates"] = (("en", loc), pair)  # self-link first (rule 36)
    else:
        fields[channel] = payload
    try:
        impl.write([UrlEntry(loc, **fields)], tmp_path, BASE)
    except EntryError as exc:
        assert "breaks rule" in str(exc)
        return
    assert channel in ("loc", "href")  # the others only take their closed vocabularies
    for data in written(tmp_path):
        assert_clean(data)
    url = read_set(tmp_path, BASE).urls[0]
    assert "<" not in url.loc and '"' not in url.loc


@pytest.mark.parametrize("payload", ["a<b>", 'x"y', "a&b", "p'q"])
@pytest.mark.parametrize("channel", ["base_url", "shard_pattern"])
def test_config_channels(impl, tmp_path, channel, payload):
    """The base URL and shard names end up inside the index's <loc>s: percent-encoded
    like any loc (read_set checks ASCII-only locs), so nothing can break out."""
    base = BASE + payload + "/" if channel == "base_url" else BASE
    options = {"shard_pattern": f"s{payload}-{{number}}-{{digest}}.xml.gz"} \
        if channel == "shard_pattern" else {}
    impl.write([base + f"p{i}" for i in range(3)], tmp_path, base, max_urls=1, **options)
    for data in written(tmp_path):
        assert_clean(data)
    sset = read_set(tmp_path, base.replace("<", "%3C").replace(">", "%3E")
                    .replace('"', "%22"), max_urls=1)
    assert sset.kind == "index" and len(sset.locs) == 3


def test_mkdocs_front_matter(tmp_path):
    repo = mkdocs_project(tmp_path / "m", {
        "index.md": "# Home\n",
        "evil.md": "---\nsitemap:\n  changefreq: 'daily</changefreq><evil/>'\n---\n# Evil\n",
    })
    done = mkdocs_build(repo.root, check=False)
    assert done.returncode != 0
    assert "page evil.md: entry 2: changefreq" in done.stderr
    assert "breaks rule 'changefreq'" in done.stderr
    assert not (repo.root / "site/sitemap.xml").exists()


def test_sphinx_metadata(tmp_path):
    repo = sphinx_project(tmp_path / "s", {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   evil\n",
        "evil.rst": ":sitemap-priority: 1.0</priority><evil/>\n\nEvil\n====\n",
    })
    done = sphinx_build(repo.root, "html", check=False)
    assert "evil.rst: WARNING: sitemapkit: entry" in done.stderr
    assert "breaks rule 'priority'" in done.stderr
    assert not (repo.root / "_build/html/sitemap.xml").exists()
