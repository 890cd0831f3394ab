"""Validate sitemapkit output against the published sitemaps.org XSDs.

The project's own tests use its own schema (tests/helpers/schemas); this
cross-check uses the official files from ../shared, which only CI has.
"""

from __future__ import annotations

import gzip
import sys
import tempfile
from pathlib import Path

from lxml import etree

from sitemapkit import UrlEntry, write_sitemaps

XHTML_XSD = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"
 targetNamespace="http://www.w3.org/1999/xhtml" elementFormDefault="qualified">
 <xs:element name="link"><xs:complexType>
  <xs:attribute name="rel" use="required"/><xs:attribute name="href" use="required"/>
  <xs:attribute name="hreflang"/></xs:complexType></xs:element></xs:schema>"""


def main(schema_dir: Path) -> None:
    urlset = etree.XMLSchema(etree.parse(str(schema_dir / "sitemap.xsd")))
    index = etree.XMLSchema(etree.parse(str(schema_dir / "siteindex.xsd")))
    base = "https://example.com/docs/"
    entries = [UrlEntry(f"{base}p{i}/ü a&b'", "2024-01-02T03:04:05Z", "weekly", 0.5)
               for i in range(120)]
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        result = write_sitemaps(entries, out, base, max_urls=50, fsync=False)
        index.assertValid(etree.parse(str(out / result.entry_point)))
        for name in result.shard_files:
            urlset.assertValid(etree.fromstring(gzip.decompress((out / name).read_bytes())))
            checked += 1
        single = out / "single"
        write_sitemaps(entries[:10], single, base, fsync=False)
        urlset.assertValid(etree.parse(str(single / "sitemap.xml")))
        checked += 2
        # Alternates: the official XSD wildcard is strict, so add a schema for xhtml.
        alt = out / "alt"
        write_sitemaps([UrlEntry(base + "en/a", alternates=(("en", base + "en/a"),
                                                            ("de", base + "de/a")))],
                       alt, base, fsync=False)
        doc = etree.parse(str(alt / "sitemap.xml"))
        combined = etree.XMLSchema(etree.fromstring(
            b'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
            b'<xs:import namespace="http://www.sitemaps.org/schemas/sitemap/0.9" '
            b'schemaLocation="' + (schema_dir / "sitemap.xsd").as_uri().encode() + b'"/>'
            b'<xs:import namespace="http://www.w3.org/1999/xhtml" schemaLocation="'
            + _write(out / "xhtml.xsd", XHTML_XSD).as_uri().encode() + b'"/></xs:schema>'))
        combined.assertValid(doc)
        checked += 1
    print(f"ok: {checked} files valid against the published sitemaps.org XSDs")


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
