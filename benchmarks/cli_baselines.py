"""Standalone sitemap writers that read the same TSV file as `sitemapkit write`, run as
their own processes by test_bench_cli.py:

    python cli_baselines.py {naive,etree,lxml,tuned} INPUT.tsv OUT_DIR BASE_URL
    python cli_baselines.py naive-alternates INPUT.jsonl OUT_DIR BASE_URL
    python cli_baselines.py {floor,floor-one-core} XML_DIR OUT_DIR BASE_URL

``floor`` is no writer: it gzips finished shards (every .xml file in XML_DIR) with two
threads, the lower bound of any writer at this level on this machine. ``floor-one-core``
does the same on one core with the backend sitemapkit's default picks (zlib-ng where
installed), so a writer's time can be quoted as a multiple of compressing its own output.

Each is honest about the protocol: shards of at most 50,000 URLs and 50 MB, every
non-ASCII loc percent-encoded as UTF-8, every loc escaped, a loc over 2,047
characters refused, gzip level 6 (zlib), and an index. None validates more than
that (no scheme or host check, no date check, no duplicate check).
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'
HEAD = f'{DECL}<urlset xmlns="{NS}">\n'
HEAD_XHTML = f'{DECL}<urlset xmlns="{NS}" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
TAIL = "</urlset>\n"
MAX_URLS, MAX_BYTES, MAX_LOC = 50_000, 50 * 1024 * 1024, 2047
SAFE = "/:?#[]@!$&'()*+,;=-._~%"
ENTITIES = {"'": "&apos;", '"': "&quot;"}


def canonical(loc: str) -> str:
    if not loc.isascii():
        loc = quote(loc, safe=SAFE)
    if len(loc) > MAX_LOC:
        raise SystemExit(f"loc over {MAX_LOC} characters: {loc[:80]}...")
    return loc


def rows(path: str) -> Iterator[tuple[str, str | None]]:
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        next(reader)
        for row in reader:
            yield canonical(row[0]), (row[1] or None) if len(row) > 1 else None


def index(out: Path, base: str, count: int) -> None:
    body = "".join(f"<sitemap><loc>{base}sitemap-{n}.xml.gz</loc></sitemap>\n"
                   for n in range(1, count + 1))
    (out / "sitemap.xml").write_text(f'{DECL}<sitemapindex xmlns="{NS}">\n{body}'
                                     "</sitemapindex>\n")


def naive(path: str, out: Path, base: str) -> int:
    """String formatting with xml.sax.saxutils.escape and gzip.open, line by line."""
    pieces = ((f"<url><loc>{escape(loc, ENTITIES)}</loc>"
               + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "") + "</url>\n").encode()
              for loc, lastmod in rows(path))
    return _naive_shards(pieces, out, HEAD)


def naive_alternates(path: str, out: Path, base: str) -> int:
    """The same for JSON Lines with hreflang alternates: json.loads per line, one
    xhtml:link per alternate; no cluster check at all."""
    def pieces() -> Iterator[bytes]:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                links = "".join(f'<xhtml:link rel="alternate" hreflang="{escape(lang, ENTITIES)}"'
                                f' href="{escape(canonical(href), ENTITIES)}"/>'
                                for lang, href in row.get("alternates") or ())
                lastmod = row.get("lastmod")
                yield (f"<url><loc>{escape(canonical(row['loc']), ENTITIES)}</loc>"
                       + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "")
                       + links + "</url>\n").encode()
    return _naive_shards(pieces(), out, HEAD_XHTML)


def _naive_shards(pieces: Iterator[bytes], out: Path, head: str) -> int:
    count, shard, urls, size = 0, None, 0, 0
    for piece in pieces:
        if shard is None or urls == MAX_URLS or size + len(piece) + len(TAIL) > MAX_BYTES:
            if shard is not None:
                shard.write(TAIL.encode())
                shard.close()
            count += 1
            shard = gzip.open(out / f"sitemap-{count}.xml.gz", "wb", compresslevel=6)
            shard.write(head.encode())
            urls, size = 0, len(head)
        shard.write(piece)
        urls, size = urls + 1, size + len(piece)
    assert shard is not None
    shard.write(TAIL.encode())
    shard.close()
    return count


def _trees(path: str, make, sub):  # type: ignore[no-untyped-def]
    """Shards as element trees (size checked on the serialized shard)."""
    batch: list[tuple[str, str | None]] = []
    for row in rows(path):
        batch.append(row)
        if len(batch) == MAX_URLS:
            yield _tree(batch, make, sub)
            batch = []
    if batch:
        yield _tree(batch, make, sub)


def _tree(batch, make, sub):  # type: ignore[no-untyped-def]
    root = make()
    for loc, lastmod in batch:
        url = sub(root, "url")
        sub(url, "loc").text = loc
        if lastmod:
            sub(url, "lastmod").text = lastmod
    return root


def etree(path: str, out: Path, base: str) -> int:
    """xml.etree.ElementTree, one tree per shard (the sphinx-sitemap approach)."""
    count = 0
    for count, root in enumerate(_trees(path, lambda: ET.Element("urlset", xmlns=NS),
                                        ET.SubElement), start=1):
        data = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
        assert len(data) <= MAX_BYTES
        (out / f"sitemap-{count}.xml.gz").write_bytes(gzip.compress(data, 6, mtime=0))
    return count


def lxml(path: str, out: Path, base: str) -> int:
    import lxml.etree as LET

    count = 0
    for count, root in enumerate(_trees(path, lambda: LET.Element("urlset", nsmap={None: NS}),
                                        LET.SubElement), start=1):
        data = LET.tostring(root, xml_declaration=True, encoding="UTF-8")
        assert len(data) <= MAX_BYTES
        (out / f"sitemap-{count}.xml.gz").write_bytes(gzip.compress(data, 6, mtime=0))
    return count


def _gzip(data: bytes) -> bytes:
    z = zlib.compressobj(6, zlib.DEFLATED, 31)
    return z.compress(data) + z.flush()


def tuned(path: str, out: Path, base: str) -> int:
    """The best pure Python: large reads, escape only what needs it, one join per
    shard, two compress threads (zlib releases the GIL)."""
    def store(number: int, data: bytes) -> None:
        (out / f"sitemap-{number}.xml.gz").write_bytes(_gzip(data))

    count, parts, size = 0, [HEAD], len(HEAD)
    futures = []
    with ThreadPoolExecutor(2) as pool, open(path, encoding="utf-8", newline="") as fh:
        fh.readline()
        while True:
            lines = fh.readlines(1 << 20)
            if not lines:
                break
            for line in lines:
                loc, _, lastmod = line.rstrip("\r\n").partition("\t")
                loc = canonical(loc)
                if "&" in loc or "'" in loc or "<" in loc or ">" in loc or '"' in loc:
                    loc = escape(loc, ENTITIES)
                piece = (f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod></url>\n"
                         if lastmod else f"<url><loc>{loc}</loc></url>\n")
                if len(parts) - 1 == MAX_URLS or size + len(piece) + len(TAIL) > MAX_BYTES:
                    count += 1
                    futures.append(pool.submit(store, count, "".join(parts + [TAIL]).encode()))
                    parts, size = [HEAD], len(HEAD)
                parts.append(piece)
                size += len(piece)  # characters: equals bytes for ASCII (locs are encoded)
        count += 1
        futures.append(pool.submit(store, count, "".join(parts + [TAIL]).encode()))
        for future in futures:
            future.result()
    return count


def floor(path: str, out: Path, base: str) -> int:
    """Only the gzip of finished shards, two threads: no reading, parsing or escaping."""
    def store(shard: Path) -> None:
        (out / (shard.name + ".gz")).write_bytes(_gzip(shard.read_bytes()))

    shards = sorted(Path(path).glob("*.xml"))
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(store, shards))
    return len(shards)


def floor_one_core(path: str, out: Path, base: str) -> int:
    """The gzip of finished shards on one core, level 6, with zlib-ng where installed
    (sitemapkit's default backend then), else zlib: the writer's compression alone."""
    try:
        from zlib_ng import zlib_ng as backend
    except ImportError:
        backend = zlib
    shards = sorted(Path(path).glob("*.xml"))
    for shard in shards:
        z = backend.compressobj(6, backend.DEFLATED, 31)
        (out / (shard.name + ".gz")).write_bytes(z.compress(shard.read_bytes()) + z.flush())
    return len(shards)


def main() -> None:
    kind, path, out, base = sys.argv[1:5]
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    count = {"naive": naive, "naive-alternates": naive_alternates, "etree": etree, "lxml": lxml,
             "tuned": tuned, "floor": floor, "floor-one-core": floor_one_core}[kind](
                 path, target, base)
    index(target, base, count)


if __name__ == "__main__":
    main()
