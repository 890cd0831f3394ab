"""The validator's fast scan (``_scan_py`` / ``UrlScan`` in the C twin): plain ``<url>``
blocks are checked without expat, and every report must be the one expat alone gives.

The reference is ``fast_scan="off"``. Generated files mix plain blocks with every
kind of block the scan must hand over (bad values, extensions, comments, other
whitespace, broken XML), and are read in chunks of random size, so hand-overs land
at every position a real read can give.
"""

from __future__ import annotations

import gzip
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from twin_drivers import validate_outcome

from sitemapkit.validate import ValidateOptions, validate
from sitemapkit.validate import reader as reader_module

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
B = "https://example.com/docs/"
TWINS = [pytest.param("c", marks=pytest.mark.c_extension), "py"]

HEADS = [
    f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">',
    f"<urlset xmlns='{NS}'>",
    f'\ufeff<?xml version="1.0"?>\r\n<urlset\n  xmlns="{NS}"\n  xmlns:xhtml="{XHTML}" >',
    f'<urlset xmlns:xhtml="{XHTML}" xmlns="{NS}">',
    '<urlset xmlns="http://www.google.com/schemas/sitemap/0.84">',
    "<urlset>",
    f'<sm:urlset xmlns:sm="{NS}">',
    f'<!-- made by hand -->\n<urlset xmlns="{NS}">',
    f'<?xml version="1.0" encoding="ISO-8859-1"?><urlset xmlns="{NS}">',
    f'<!DOCTYPE urlset><urlset xmlns="{NS}">',
]
LOCS = [
    B + "a", B + "b?x=1&amp;y=2", B + "it&apos;s", B + "it's", B + "%C3%BC", B + "%c3%bc",
    B + "ü", B + "a b", B + "a#top", B + "a&amp;amp;b", B + "a&lt;b", B + "&#47;x",
    "https://EXAMPLE.com/docs/a", "https://example.com:443/docs/a", "https://example.com:8080/a",
    "https://example.com", "https://other.example/docs/a", "http://example.com/docs/a",
    "ftp://example.com/docs/a", "/docs/a", "http://a.b/", "http://a.bc/", " " + B + "a",
    B + "x" * 2030, B + "x" * 2022, B + "a/../b", B + "a&b", B + "%41", B + "%4",
    B + "q\n", "", B + "a\tb",
]
LASTMODS = [
    "2024-05-01", "2024-05-01T10:20:30+02:00", "2024-05-01T10:20:30Z", "2024-05-02T00:00:00.123Z",
    "2024-05-01T10:20:30-00:00", "2024-05-01T10:20:30+14:00", "2024-05-01T10:20:30+14:01",
    "2024-02-30", "2024-02-29", "2023-02-29", "0000-01-01", "2099-01-01", "2026-01-01T23:00:00Z",
    "2026-01-02T00:00:01Z", "2024-05-01T10:20:30", "2024-05-01T10:20", " 2024-05-01",
    "2024-05-01 ", "2024-05-01T24:00:00Z", "2024-05-01T10:60:00Z", "2024-05-01T10:20:30+05:60",
    "2024", "2024-05", "2024-05-01T10:20:30.Z", "2024-05-01t10:20:30Z", "",
]
CHANGEFREQS = ["daily", "never", "Daily", "sometimes", "", "daily\0weekly"]  # two words, one NUL
PRIORITIES = ["0.5", "1.0", "0", "1", "0.55", "1.5", "-0.1", "abc", "", "1e-1", "0.5\x000.6"]
WS = ["", "", "", "\n", "\n  ", "\r\n", "\t", " ", "\r", "\n\n"]


# hreflang: clusters whose members agree or not, languages with and without findings
CLUSTERS = [
    [("en", B + "c/en"), ("de", B + "c/de")],
    [("en", B + "c/en"), ("de", B + "c/de"), ("x-default", B + "c/en")],
    [("fr", B + "c/fr?a=1&amp;b=2"), ("de-AT", B + "c/de")],
    [("zh-Hant-TW", B + "c/zh"), ("EN", B + "c/en"), ("X-Default", B + "c/zh")],
]
PLAIN_LANGS = ["en", "de", "de-AT", "zh-Hant", "zh-Hant-TW", "x-default", "EN", "X-DEFAULT"]
ODD_LANGS = ["english", "en-UK", "en-uk", "de-EU", "en_US", "e", "", "de-", "1a", "zh-Hant-TWN",
             "zh-Hantx", "en-GB-x", "ü"]
ODD_HREFS = ["/c/en", "https://other.example/c/en", B + "c/é", B + "a&amp;amp;b", B + "c en",
             "https://EXAMPLE.com/docs/c/en", B + "c/&apos;x"]


def link(lang: str, href: str) -> str:
    return f'<xhtml:link rel="alternate" hreflang="{lang}" href="{href}"/>'


PLAIN_LOCS = [B + "b?x=1&amp;y=2", B + "it&apos;s", B + "it's", B + "%C3%BC", "http://a.bc/",
              B + "x" * 2022, B + "a;b=c:d@e!$()*+,~"]
PLAIN_LASTMODS = LASTMODS[:7] + ["2024-02-29", "2026-01-01T23:00:00Z"]
PLAIN_WS = ["", "", "\n", "\r\n", "  ", "\t", "\n\n  "]


@st.composite
def blocks(draw: st.DrawFn, earlier: list[str], odd_rate: int) -> str:
    """One <url> block: plain (what the scan takes) unless drawn odd, at odd_rate %."""
    odd = draw(st.integers(0, 99)) < odd_rate
    ws = st.sampled_from(WS if odd else PLAIN_WS)
    shape = draw(st.sampled_from(["plain", "odd"])) if odd else "plain"
    if earlier and draw(st.integers(0, 9)) == 0:
        loc = draw(st.sampled_from(earlier))  # a duplicate
    elif draw(st.booleans()):
        loc = B + f"p/{draw(st.integers(0, 10_000))}"
    else:
        loc = draw(st.sampled_from(LOCS if odd else PLAIN_LOCS))
    pairs: list[tuple[str, str]] = []
    if draw(st.integers(0, 2)) == 0:  # a member of one of the clusters, listing it
        pairs = list(draw(st.permutations(draw(st.sampled_from(CLUSTERS)))))
        loc = draw(st.sampled_from([href for _, href in pairs]))
    elif draw(st.integers(0, 5)) == 0:  # alternates of its own: itself and others
        pairs = [(draw(st.sampled_from(PLAIN_LANGS[:5])), loc), ("fr", B + "c/fr")]
    earlier.append(loc)
    lastmods = LASTMODS if odd else PLAIN_LASTMODS
    changefreqs = CHANGEFREQS if odd else CHANGEFREQS[:2]
    priorities = PRIORITIES if odd else PRIORITIES[:4]
    parts = [f"<loc>{loc}</loc>"]
    if draw(st.booleans()):
        parts.append(f"<lastmod>{draw(st.sampled_from(lastmods))}</lastmod>")
    if draw(st.integers(0, 3)) == 0:
        parts.append(f"<changefreq>{draw(st.sampled_from(changefreqs))}</changefreq>")
    if draw(st.integers(0, 3)) == 0:
        parts.append(f"<priority>{draw(st.sampled_from(priorities))}</priority>")
    links = [link(lang, href) for lang, href in pairs]
    opening = "<url>"
    if shape == "odd":
        odd = draw(st.sampled_from([
            "order", "twice", "noloc", "link", "ext", "comment", "attr", "cdata", "nested",
            "text", "unclosed", "entity", "bad-utf8", "prefix", "lang", "href", "link-form",
            "link-order", "link-repeat", "link-self", "many-links",
        ]))
        at = draw(st.integers(0, max(len(links) - 1, 0)))
        if odd == "lang" and links:
            links[at] = link(draw(st.sampled_from(ODD_LANGS)), pairs[at][1])
        elif odd == "href" and links:
            links[at] = link(pairs[at][0], draw(st.sampled_from(ODD_HREFS)))
        elif odd == "link-form" and links:
            links[at] = draw(st.sampled_from([
                f'<xhtml:link hreflang="{pairs[at][0]}" rel="alternate" href="{pairs[at][1]}"/>',
                f"<xhtml:link rel='alternate' hreflang='{pairs[at][0]}' href='{pairs[at][1]}'/>",
                links[at].replace('"/>', '" />'), links[at].replace("/>", "></xhtml:link>"),
                links[at].replace("/>", ' title="x"/>'), links[at].replace("rel=", "rel =")]))
        elif odd == "link-order" and links:
            parts.insert(1, links.pop(at))
        elif odd == "link-repeat" and links:
            links.append(links[at])
        elif odd == "link-self" and links:
            links = [link(lang, href) for lang, href in pairs if href != loc] or links[:0]
        elif odd == "many-links":
            links = [link(f"{chr(97 + i // 26)}{chr(97 + i % 26)}", loc if i == 0 else
                          f"{B}l/{i}") for i in range(draw(st.sampled_from([64, 65])))]
        if odd == "order" and len(parts) > 1:
            parts.reverse()
        elif odd == "twice":
            parts.append(parts[0])
        elif odd == "noloc":
            parts.pop(0)
        elif odd == "link":
            parts.append(f'<xhtml:link rel="alternate" hreflang="de" href="{B}de/"/>')
        elif odd == "ext":
            parts.append('<image:image xmlns:image="http://www.google.com/schemas/sitemap-image/'
                         '1.1"><image:loc>https://example.com/i.png</image:loc></image:image>')
        elif odd == "comment":
            parts.insert(1, "<!-- c -->")
        elif odd == "attr":
            opening = '<url id="x">'
        elif odd == "cdata":
            parts[0] = f"<loc><![CDATA[{loc}]]></loc>"
        elif odd == "nested":
            parts.append("<b><c/></b>")
        elif odd == "text":
            parts.insert(0, "stray")
        elif odd == "unclosed":
            parts[0] = f"<loc>{loc}"
        elif odd == "entity":
            parts[0] = f"<loc>{loc}&#x2F;</loc>"
        elif odd == "bad-utf8":
            parts[0] = f"<loc>{loc}\udcff</loc>"
        elif odd == "prefix":
            opening = f'<sm:url xmlns:sm="{NS}">'
    closing = "</sm:url>" if opening.startswith("<sm:") else "</url>"
    inner = "".join(draw(ws) + p for p in parts + links)
    return draw(ws) + opening + inner + draw(ws) + closing


@st.composite
def sitemap_files(draw: st.DrawFn) -> list[tuple[str, bytes]]:
    earlier: list[str] = []
    files = []
    for n in range(draw(st.integers(1, 3))):
        head = draw(st.sampled_from(HEADS[:4]) if draw(st.integers(0, 4)) else
                    st.sampled_from(HEADS))
        odd_rate = draw(st.sampled_from([0, 2, 10, 50]))
        body = draw(st.lists(blocks(earlier, odd_rate), min_size=0, max_size=40))
        tail = draw(st.sampled_from(["\n</urlset>\n", "</urlset>", "\n</urlset>\n<!-- end -->",
                                     "\n", "\n</urlset>\n<url/>"]))
        if head.startswith("<sm:"):
            tail = tail.replace("</urlset>", "</sm:urlset>")
        text = head + "".join(body) + tail
        data = text.encode("utf-8", "surrogateescape")
        name = f"sitemap-{n}.xml"
        if draw(st.booleans()):
            name, data = name + ".gz", gzip.compress(data, mtime=0)
        files.append((name, data))
    return files


def outcome(site: Path, fast_scan: str) -> dict[str, Any]:
    return validate_outcome(site, fast_scan, NOW)


def units(request: pytest.FixtureRequest) -> list[str]:
    return ["c", "py"] if request.config.getoption("c_extensions") else ["py"]


@pytest.fixture(scope="module")
def scan_units(request: pytest.FixtureRequest) -> list[str]:
    return units(request)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(files=sitemap_files(), chunk=st.sampled_from([1, 7, 64, 333, 4096, 1 << 20]))
def test_scan_reports_what_expat_alone_reports(tmp_path_factory: pytest.TempPathFactory,
                                               scan_units: list[str],
                                               files: list[tuple[str, bytes]], chunk: int) -> None:
    site = tmp_path_factory.mktemp("site")
    for name, data in files:
        (site / name).write_bytes(data)
    with mock.patch.object(reader_module, "CHUNK", chunk):
        reference = outcome(site, "off")
        for unit in scan_units:
            assert outcome(site, unit) == reference, unit


def variants() -> list[str]:
    """One block for every value and shape in the pools, each in a plain neighbourhood."""
    out = [f"<url><loc>{loc}</loc></url>" for loc in LOCS + PLAIN_LOCS]
    out += [f"<url><loc>{B}v</loc><lastmod>{v}</lastmod></url>" for v in LASTMODS]
    out += [f"<url><loc>{B}v</loc><changefreq>{v}</changefreq></url>" for v in CHANGEFREQS]
    out += [f"<url><loc>{B}v</loc><priority>{v}</priority></url>" for v in PRIORITIES]
    out += [f"<url>{w}<loc>{B}v</loc>{w}<lastmod>2024-01-01</lastmod>{w}</url>{w}" for w in WS]
    out += [f"<url><loc>{B}v</loc><lastmod>2024-01-01</lastmod><changefreq>daily</changefreq>"
            f"<priority>0.5</priority></url>",
            f"<url><loc>{B}v</loc><priority>0.5</priority><lastmod>2024-01-01</lastmod></url>",
            f"<url><loc>{B}p/1</loc></url>", f"<url><loc>{B}v</loc><loc>{B}w</loc></url>",
            f'<url><loc>{B}v</loc><xhtml:link xmlns:xhtml="{XHTML}" rel="alternate" '
            f'hreflang="de" href="{B}de/"/></url>', "<url/>", "<url></url>", "stray",
            "<!-- c -->", f"<url><loc>{B}v</loc></url></urlset>", "<url><loc>", "<?pi x?>",
            f"<!-- </url><url><loc>{B}hidden</loc></url> -->",
            f"<url><loc><![CDATA[{B}v]]></loc><!-- </url> --></url><url><loc>{B}w</loc></url>"]
    return out


@pytest.mark.parametrize("variant", variants())
def test_every_block_shape_reports_what_expat_alone_reports(
        tmp_path: Path, scan_units: list[str], variant: str) -> None:
    plain = "".join(f"\n<url><loc>{B}p/{i}</loc><lastmod>2024-05-0{i}T10:00:00Z</lastmod></url>"
                    for i in range(1, 4))
    site = tmp_path / "site"
    site.mkdir()
    for n, sep in enumerate(("\n", "")):  # on a line of its own, and after a plain block
        text = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">{plain}{sep}' \
               f'{variant}{plain.replace("p/", "q/")}\n</urlset>\n'
        (site / f"sitemap-{n}.xml").write_bytes(text.encode("utf-8", "surrogateescape"))
    for chunk in (1, 97, 1 << 20):
        with mock.patch.object(reader_module, "CHUNK", chunk):
            reference = outcome(site, "off")
            for unit in scan_units:
                assert outcome(site, unit) == reference, (unit, chunk)


def link_variants() -> list[str]:
    """One block for every hreflang value, href and link form in the pools."""
    def member(*links: str, loc: str = B + "c/en") -> str:
        return f"<url><loc>{loc}</loc><lastmod>2024-01-01</lastmod>{''.join(links)}</url>"

    mine, other = link("en", B + "c/en"), link("de", B + "c/de")
    out = [member(link(lang, B + "c/en"), other) for lang in PLAIN_LANGS + ODD_LANGS]
    out += [member(mine, link("de", href)) for href in ODD_HREFS]
    out += [member(mine, other, loc=B + "c/de"), member(mine), member(other),
            member(mine, other, other), member(mine, mine), member(),
            member(mine, link("x-default", B + "c/en"), link("X-default", B + "c/de")),
            member(*(link(f"{chr(97 + i // 26)}{chr(97 + i % 26)}", B + f"l/{i}")
                     for i in range(1, 64)), mine),
            member(*(link(f"{chr(97 + i // 26)}{chr(97 + i % 26)}", B + f"l/{i}")
                     for i in range(1, 65)), mine),
            member(mine.replace('"/>', '" />'), other), member(mine + "\n  ", other),
            f"<url><loc>{B}c/en</loc>{mine}<lastmod>2024-01-01</lastmod></url>",
            member(f'<xhtml:link rel="alternate" hreflang="en" href="{B}c/en"></xhtml:link>'),
            member(mine.replace("xhtml:", "x:"), other)]
    return out


@pytest.mark.parametrize("variant", link_variants())
def test_every_link_shape_reports_what_expat_alone_reports(
        tmp_path: Path, scan_units: list[str], variant: str) -> None:
    """Where the root binds xhtml, plain blocks with alternates are the scan's too; the
    clusters they leave for the check across files are the ones expat leaves."""
    plain = "".join(f"\n<url><loc>{B}c/{lang}</loc>{link('en', B + 'c/en')}"
                    f"{link('de', B + 'c/de')}</url>" for lang in ("de", "fr"))
    site = tmp_path / "site"
    site.mkdir()
    for n, sep in enumerate(("\n", "")):
        text = (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" '
                f'xmlns:xhtml="{XHTML}">{plain}{sep}{variant}{plain.replace("c/", "d/")}'
                "\n</urlset>\n")
        (site / f"sitemap-{n}.xml").write_bytes(text.encode())
    for chunk in (1, 97, 1 << 20):
        with mock.patch.object(reader_module, "CHUNK", chunk):
            reference = outcome(site, "off")
            for unit in scan_units:
                assert outcome(site, unit) == reference, (unit, chunk)


def plain_set(n: int, start: int = 0) -> str:
    body = "".join(f"<url><loc>{B}p/{i}</loc><lastmod>2024-05-{1 + i % 28:02d}</lastmod></url>\n"
                   for i in range(start, start + n))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}</urlset>\n'


@pytest.mark.parametrize("unit", TWINS)
def test_a_late_problem_keeps_its_line_and_column(tmp_path: Path, unit: str) -> None:
    text = plain_set(3000).replace(f"<loc>{B}p/2999</loc>", f"<loc>{B}p/2999</lox>")
    found = {}
    for name, body in (("lines", text), ("one-line", text.replace("\n", ""))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "sitemap.xml").write_text(body)
        for choice in ("off", unit):
            report = validate([tmp_path / name], ValidateOptions(now=NOW, fast_scan=choice))
            found[name, choice] = ([(f.line, f.message) for f in report.findings],
                                   report.results[tmp_path / name / "sitemap.xml"].urls)
    why = "(an unescaped '&' or '<' is the usual cause)"
    assert found["lines", unit] == found["lines", "off"] == (
        [(3002, f"not well-formed XML: mismatched tag at line 3002, column 44 {why}")], 2999)
    assert found["one-line", unit] == found["one-line", "off"] == (
        [(1, f"not well-formed XML: mismatched tag at line 1, column 244950 {why}")], 2999)


@pytest.mark.parametrize("unit", TWINS)
def test_every_finding_past_a_broken_spot_is_shown_at_once(tmp_path: Path, unit: str) -> None:
    """An unescaped '&' does not hide what follows: each broken spot is said with its
    own line, the check reads on from the next <url>, later findings keep their lines,
    and the URLs read count; the same on the scan and on expat alone; a file cut short
    says so, not the '&' hint."""
    text = plain_set(3000).replace(f"{B}p/100<", f"{B}p/100&x<").replace(
        f"{B}p/2000<", f"{B}p/2000&y<").replace(
        f"<loc>{B}p/2500</loc><lastmod>2024-05-09", f"<loc>{B}p/2500</loc><lastmod>2024-15-09")
    found = {}
    for name, body in (("lines", text), ("one-line", text.replace("\n", "")),
                       ("cut", text[: len(text) * 3 // 4])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "sitemap.xml").write_text(body)
        for choice in ("off", unit):
            report = validate([tmp_path / name], ValidateOptions(now=NOW, fast_scan=choice))
            found[name, choice] = ([(f.line, f.id) for f in report.findings], report.urls)
    amp = "(an unescaped '&' or '<' is the usual cause)"
    assert found["lines", unit] == found["lines", "off"] == (
        [(103, "not-well-formed"), (2003, "not-well-formed"), (2503, "lastmod-format")], 2998)
    assert found["one-line", unit] == found["one-line", "off"]
    assert found["one-line", unit][1] == 2998
    assert [i for _, i in found["one-line", unit][0]] == \
        ["not-well-formed", "not-well-formed", "lastmod-format"]
    one = validate([tmp_path / "one-line"], ValidateOptions(now=NOW, fast_scan=unit))
    flat = text.replace("\n", "")
    columns = [int(f.message.split("column ")[1].split(" ")[0]) for f in one.findings[:2]]
    # each broken spot at the same place past its '&' as expat puts the first one
    assert columns[1] - flat.index("&y") == columns[0] - flat.index("&x")
    assert found["cut", unit] == found["cut", "off"]
    cut = validate([tmp_path / "cut"], ValidateOptions(now=NOW, fast_scan=unit))
    last = [f.message for f in cut.findings][-1]
    assert "cut short?" in last and amp not in last


@pytest.mark.parametrize("unit", TWINS)
def test_duplicates_across_scanned_files_name_the_first_file(tmp_path: Path, unit: str) -> None:
    (tmp_path / "sitemap-1.xml").write_text(plain_set(100))
    (tmp_path / "sitemap-2.xml").write_text(plain_set(100, start=90))
    report = validate([tmp_path], ValidateOptions(now=NOW, fast_scan=unit))
    dups = [f for f in report.findings if f.id == "duplicate"]
    assert len(dups) == report.counts["error", "duplicate"] == 10
    assert dups[0].file.endswith("sitemap-2.xml") and dups[0].line == 3
    assert dups[0].message == f"loc '{B}p/90' is listed twice (also in sitemap-1.xml)"
    assert report.urls == 200


@pytest.mark.c_extension
def test_scan_keys_are_the_set_keys_expat_uses() -> None:
    """The C scan hashes decoded bytes; a key it stored must be found as a str."""
    from sitemapkit._urlset import _urlset_c
    seen = _urlset_c.LocSet(tagged=True)
    scan = _urlset_c.UrlScan(seen, 0, 2**40, None, 1)
    block = f"<url><loc>{B}a&amp;b&apos;c</loc></url>".encode()
    assert scan.scan(block, 0, True) == (len(block), _urlset_c.SCAN_HANDOVER)
    assert f"{B}a&b'c" in seen and seen.first(f"{B}a&b'c", 5) == 0


def test_unknown_fast_scan_choice_is_refused(tmp_path: Path) -> None:
    from sitemapkit.errors import UsageError
    with pytest.raises(UsageError, match="fast_scan must be one of auto, c, py, off"):
        validate([tmp_path], ValidateOptions(fast_scan="fast"))


@pytest.mark.parametrize("chunk", [1, 2, 5, 1 << 20])
def test_a_byte_order_mark_is_seen_however_the_reads_split_it(tmp_path: Path, chunk: int) -> None:
    (tmp_path / "sitemap.xml").write_bytes(b"\xef\xbb\xbf" + plain_set(3).encode())
    with mock.patch.object(reader_module, "CHUNK", chunk):
        report = validate([tmp_path], ValidateOptions(now=NOW))
    assert [(f.id, f.line) for f in report.findings] == [("bom", 1)]


@pytest.mark.parametrize("unit", TWINS)
@pytest.mark.parametrize("gzipped", [False, True])
def test_the_byte_cap_finding_names_the_line_expat_does(tmp_path: Path, unit: str,
                                                        gzipped: bool) -> None:
    """The cap is crossed while the scan holds the bytes: the finding still names the line
    where reading got to, as with expat alone (it named the root's line before)."""
    data = plain_set(3000).encode()
    name = "sitemap.xml.gz" if gzipped else "sitemap.xml"
    (tmp_path / name).write_bytes(gzip.compress(data, mtime=0) if gzipped else data)
    found = {}
    for choice in ("off", unit):
        with mock.patch.object(reader_module, "CHUNK", 4096):
            report = validate([tmp_path], ValidateOptions(now=NOW, fast_scan=choice,
                                                          max_bytes=100_000))
        found[choice] = [(f.id, f.line, f.message) for f in report.findings]
    capped = [f for f in found[unit] if f[0] == "too-large"]
    assert found[unit] == found["off"] and capped and capped[0][1] > 1000, found


@pytest.mark.parametrize("cut", [9, 40])
def test_a_broken_block_before_a_truncated_gzip_end_is_reported_as_expat_reports_it(
        tmp_path: Path, scan_units: list[str], cut: int) -> None:
    """The scan holds a block with no </url> until more bytes come; when the gzip stream
    ends early instead, the held bytes go to expat first, and their error is the finding
    (found by the scan_gzip fuzz harness: the scan reported nothing at all)."""
    text = (f'<urlset xmlns="{NS}">\n<url><loc>{B}a</loc></url>\n'
            f"<url><loc>{B}b</loc><lastmod>2024-05-02</lastmod></u3l>\n<url><loc>{B}c")
    (tmp_path / "sitemap.xml.gz").write_bytes(gzip.compress(text.encode() * 3, mtime=0)[:-cut])
    reference = outcome(tmp_path, "off")
    assert reference["findings"]  # a broken file is never clean
    for unit in scan_units:
        assert outcome(tmp_path, unit) == reference, unit
