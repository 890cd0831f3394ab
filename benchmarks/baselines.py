"""What sitemapkit is measured against: the usual ways sitemaps get written.

Each produces the same shape of output (50,000-URL gzipped shards plus an index)
but does less: no validation, no percent-encoding, no duplicate check.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

import lxml.etree as LET

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
HEAD = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'


def _lastmod(value) -> str:
    return value if isinstance(value, str) else value.isoformat(timespec="seconds")


def _chunks(entries, size=50_000):
    for i in range(0, len(entries), size):
        yield i // size + 1, entries[i:i + size]


def _index(out: Path, base: str, count: int) -> None:
    body = "".join(f"<sitemap><loc>{base}sitemap-{n}.xml.gz</loc></sitemap>\n"
                   for n in range(1, count + 1))
    (out / "sitemap.xml").write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n'
                                     f'<sitemapindex xmlns="{NS}">\n{body}</sitemapindex>\n')


def naive(entries, out: Path, base: str, level: int = 6) -> None:
    """String formatting with xml.sax.saxutils.escape and the gzip module."""
    count = 0
    for count, chunk in _chunks(entries):
        lines = [HEAD]
        for e in chunk:
            lines.append(f"<url><loc>{escape(e.loc, {chr(39): '&apos;', chr(34): '&quot;'})}"
                         f"</loc><lastmod>{_lastmod(e.lastmod)}</lastmod></url>\n")
        lines.append("</urlset>\n")
        with gzip.open(out / f"sitemap-{count}.xml.gz", "wb", compresslevel=level) as f:
            f.write("".join(lines).encode())
    _index(out, base, count)


def etree(entries, out: Path, base: str, level: int = 6) -> None:
    """xml.etree.ElementTree, the sphinx-sitemap approach."""
    count = 0
    for count, chunk in _chunks(entries):
        root = ET.Element("urlset", xmlns=NS)
        for e in chunk:
            url = ET.SubElement(root, "url")
            ET.SubElement(url, "loc").text = e.loc
            ET.SubElement(url, "lastmod").text = _lastmod(e.lastmod)
        with gzip.open(out / f"sitemap-{count}.xml.gz", "wb", compresslevel=level) as f:
            ET.ElementTree(root).write(f, encoding="UTF-8", xml_declaration=True)
    _index(out, base, count)


def lxml(entries, out: Path, base: str, level: int = 6) -> None:
    count = 0
    for count, chunk in _chunks(entries):
        root = LET.Element("urlset", nsmap={None: NS})
        for e in chunk:
            url = LET.SubElement(root, "url")
            LET.SubElement(url, "loc").text = e.loc
            LET.SubElement(url, "lastmod").text = _lastmod(e.lastmod)
        data = LET.tostring(root, xml_declaration=True, encoding="UTF-8")
        with gzip.open(out / f"sitemap-{count}.xml.gz", "wb", compresslevel=level) as f:
            f.write(data)
    _index(out, base, count)
