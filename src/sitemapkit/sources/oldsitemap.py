"""The generator's own sitemap, read before it is replaced: which URLs it listed, whether
any had a lastmod, the hreflang alternates it gave (Hugo's multilingual sitemaps), and
the child files of an index that live inside the output directory."""

from __future__ import annotations

import gzip
import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree

from ..protocol import SITEMAP_NS, XHTML_NS

_URL, _LOC, _LASTMOD = f"{{{SITEMAP_NS}}}url", f"{{{SITEMAP_NS}}}loc", f"{{{SITEMAP_NS}}}lastmod"
_SITEMAP, _LINK = f"{{{SITEMAP_NS}}}sitemap", f"{{{XHTML_NS}}}link"
_LOC_TEXT = re.compile(rb"<loc>\s*([^<]*?)\s*</loc>")


@dataclass
class OldSitemap:
    name: str
    locs: set[str] = field(default_factory=set)
    dated: int = 0
    alternates: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    children: list[Path] = field(default_factory=list)  # an index's files inside the site
    ours: bool = False  # written by sitemapkit (an earlier run): nothing to compare with

    def describe(self) -> str:
        kind = f"an index of {len(self.children)} sitemaps" if self.children else "a sitemap"
        dates = "no lastmod" if not self.dated else f"{self.dated:,} with lastmod"
        return f"{self.name} ({kind}, {len(self.locs):,} URLs, {dates})"


def read_old(out_dir: Path, name: str, base: str) -> OldSitemap | None:
    """The sitemap at ``out_dir/name``, following an index into files under ``out_dir``.
    None when there is none, or it cannot be parsed (it is replaced all the same)."""
    path = out_dir / name
    if not path.is_file():
        return None
    found = OldSitemap(name)
    try:
        with open(path, "rb") as fh:
            start = fh.read(4096)
        found.ours = b"\n<url><loc>" in start or b"\n<sitemap><loc>" in start
        if b"<sitemapindex" in start:
            for element in _parse(path):
                if element.tag == _SITEMAP:
                    child = _local(element.findtext(_LOC, "").strip(), out_dir, base)
                    if child is not None and child.is_file():
                        found.children.append(child)
        for child in found.children or [path]:
            _read_urls(child, found)
    except (OSError, ElementTree.ParseError, EOFError):
        return None
    return found


def _parse(path: Path) -> list[ElementTree.Element]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        root = ElementTree.parse(fh).getroot()
    return list(root)


def _read_urls(path: Path, found: OldSitemap) -> None:
    """A urlset's locs and lastmod count; the tree only when it has alternates."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        data = fh.read()
    if b"<xhtml:link" in data:
        _urls(list(ElementTree.fromstring(data)), found)
        return
    found.locs.update(html.unescape(m.decode("utf-8", "replace")) for m in _LOC_TEXT.findall(data))
    found.dated += data.count(b"<lastmod>")


def _urls(elements: list[ElementTree.Element], found: OldSitemap) -> None:
    for url in elements:
        if url.tag != _URL:
            continue
        loc = url.findtext(_LOC, "").strip()
        found.locs.add(loc)
        found.dated += url.find(_LASTMOD) is not None
        links = tuple((link.get("hreflang", ""), link.get("href", ""))
                      for link in url.iter(_LINK) if link.get("rel") == "alternate")
        if links:
            found.alternates[loc] = links


def _local(url: str, out_dir: Path, base: str) -> Path | None:
    """The file under ``out_dir`` a URL under ``base`` names."""
    if not url.startswith(base):
        return None
    rel = unquote(url[len(base):])
    target = (out_dir / rel).resolve()
    return target if target.is_relative_to(out_dir.resolve()) else None
