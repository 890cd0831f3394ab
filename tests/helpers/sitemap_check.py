"""Read a written sitemap set back: gunzip, parse, validate against our schema.

Checks everything the files can show about the writer's promises: schema
validity, limits, gzip reproducibility headers, index references, one host,
no duplicates, every loc under the base URL.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from urllib.parse import unquote

from lxml import etree

from sitemapkit.validate import ValidateOptions, validate

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
SCHEMAS = Path(__file__).parent / "schemas"
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                         huge_tree=True)


@cache
def schema(name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMAS / name)))


@dataclass
class Url:
    loc: str
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    alternates: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class SitemapSet:
    entry_point: str
    kind: str  # "urlset", "index" or "text"
    shards: dict[str, list[Url]]
    index_lastmods: dict[str, str | None] = field(default_factory=dict)

    @property
    def urls(self) -> list[Url]:
        return [u for shard in self.shards.values() for u in shard]

    @property
    def locs(self) -> list[str]:
        return [u.loc for u in self.urls]


def read_bytes(path: Path) -> bytes:
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        assert raw[:2] == b"\x1f\x8b", f"{path.name}: not gzip"
        assert raw[4:8] == b"\0\0\0\0", f"{path.name}: gzip mtime is not 0"
        assert raw[3] & 0x08 == 0, f"{path.name}: gzip header carries a file name"
        return gzip.decompress(raw)
    return raw


def parse_urlset(data: bytes, max_urls: int = 50_000, max_bytes: int = 10_485_760) -> list[Url]:
    assert len(data) <= max_bytes, f"{len(data)} bytes > cap {max_bytes}"
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n')
    data.decode("utf-8")  # strict UTF-8
    root = etree.fromstring(data, PARSER)
    assert root.getroottree().docinfo.doctype == ""
    assert root.tag == f"{{{NS}}}urlset", root.tag
    schema("sitemap.xsd").assertValid(root)
    urls = []
    for el in root:
        url = Url(el.findtext(f"{{{NS}}}loc"), el.findtext(f"{{{NS}}}lastmod"),
                  el.findtext(f"{{{NS}}}changefreq"), el.findtext(f"{{{NS}}}priority"),
                  [(a.get("hreflang"), a.get("href")) for a in el.iter(f"{{{XHTML}}}link")])
        urls.append(url)
    assert 1 <= len(urls) <= max_urls, len(urls)
    return urls


def parse_text(data: bytes, max_urls: int = 50_000, max_bytes: int = 10_485_760) -> list[Url]:
    assert len(data) <= max_bytes
    lines = data.decode("utf-8").split("\n")
    assert lines[-1] == ""
    assert 1 <= len(lines) - 1 <= max_urls
    return [Url(line) for line in lines[:-1]]


def read_set(out_dir: Path, base_url: str, entry_point: str = "sitemap.xml",
             max_urls: int = 50_000, max_bytes: int = 10_485_760) -> SitemapSet:
    """Read and fully check the set whose entry point is ``entry_point``."""
    data = read_bytes(out_dir / entry_point)
    parse = parse_text if entry_point.endswith((".txt", ".txt.gz")) else parse_urlset
    if parse is parse_text:
        result = SitemapSet(entry_point, "text", {entry_point: parse_text(data, max_urls,
                                                                          max_bytes)})
    else:
        root = etree.fromstring(data, PARSER)
        if root.tag == f"{{{NS}}}urlset":
            result = SitemapSet(entry_point, "urlset",
                                {entry_point: parse_urlset(data, max_urls, max_bytes)})
        else:
            assert root.tag == f"{{{NS}}}sitemapindex", root.tag
            assert len(data) <= max_bytes
            schema("siteindex.xsd").assertValid(root)
            result = SitemapSet(entry_point, "index", {})
            for el in root:
                loc = el.findtext(f"{{{NS}}}loc")
                assert_loc_form(loc)
                assert loc.startswith(base_url), loc
                name = unquote(loc[len(base_url):])
                assert "/" not in name and (out_dir / name).is_file(), f"missing {name}"
                shard = read_bytes(out_dir / name)
                sub = parse_text if ".txt" in name else parse_urlset
                urls = sub(shard, max_urls, max_bytes)
                result.shards[name] = urls
                lastmod = el.findtext(f"{{{NS}}}lastmod")
                result.index_lastmods[name] = lastmod
            assert 1 <= len(result.shards) <= 50_000
    locs = result.locs
    assert len(set(locs)) == len(locs), "duplicate locs across the set"
    for loc in locs:
        assert loc.startswith(base_url), f"{loc} not under {base_url}"
        assert_loc_form(loc)
    assert_validates(out_dir / entry_point, base_url, max_bytes, len(locs))
    return result


def assert_validates(path: Path, base_url: str, max_bytes: int = 10_485_760,
                     urls: int | None = None) -> None:
    """Every set the suites read back also passes ``sitemapkit validate`` (no errors)."""
    options = ValidateOptions(base_url=base_url, max_bytes=max(max_bytes, 1024),
                              check_pages=False)
    report = validate([path], options)
    assert report.ok(), "\n".join(f.text() for f in report.findings)
    assert urls is None or report.urls == urls, (report.urls, urls)


UNSAFE_IN_LOC = set(' <>"{}|\\^`#') | {chr(c) for c in range(33)} | {"\x7f"}


def assert_loc_form(loc: str) -> None:
    """Percent-encoded ASCII (RFC 3986), no fragment, fewer than 2,048 characters."""
    assert loc.isascii() and len(loc) <= 2047, loc
    assert not set(loc) & UNSAFE_IN_LOC, f"{loc!r} is not percent-encoded"


def read_large_set(out_dir: Path, base_url: str, entry_point: str = "sitemap.xml") -> list[str]:
    """Every loc of an indexed set of millions of URLs, checked as ``read_set`` checks a
    small one, except that the XSD is applied to the index and the first shard only:
    gzip headers, XML parse, caps, the index naming exactly stored shards, no loc twice,
    and ``sitemapkit validate`` over the whole set."""
    root = etree.fromstring(read_bytes(out_dir / entry_point), PARSER)
    schema("siteindex.xsd").assertValid(root)
    locs: list[str] = []
    for number, el in enumerate(root):
        loc = el.findtext(f"{{{NS}}}loc")
        assert loc.startswith(base_url), loc
        name = unquote(loc[len(base_url):])
        data = read_bytes(out_dir / name)
        assert len(data) <= 10_485_760
        shard = etree.fromstring(data, PARSER)
        if number == 0:
            schema("sitemap.xsd").assertValid(shard)
        found = [u.findtext(f"{{{NS}}}loc") for u in shard]
        assert 1 <= len(found) <= 50_000
        locs += found
    assert len(set(locs)) == len(locs), "duplicate locs across the set"
    assert_validates(out_dir / entry_point, base_url, urls=len(locs))
    return locs
