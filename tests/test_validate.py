"""``sitemapkit validate``: one broken fixture per finding id, each caught with its
message; good fixtures at the exact limits; exit codes and JSON output."""

from __future__ import annotations

import gzip
import json
import os
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import unreadable_page
from sitemapkit.cli import main
from sitemapkit.validate import RULE_OF, ValidateOptions, validate

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
FIFO = None  # a file's content: a FIFO under its name (whose open would block)
SOCKET = b"\0socket"  # a file's content: a UNIX socket under its name (no one can open it)
B = "https://example.com/docs/"
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def urlset(*urls: str, ns: str = NS, xhtml: bool = False) -> str:
    extra = f' xmlns:xhtml="{XHTML}"' if xhtml else ""
    return f'{HEAD}<urlset xmlns="{ns}"{extra}>\n' + "\n".join(urls) + "\n</urlset>\n"


def url(loc: str = B + "a", *children: str) -> str:
    return f"<url><loc>{loc}</loc>{''.join(children)}</url>"


def index(*locs: str, lastmod: str = "") -> str:
    lm = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
    body = "".join(f"<sitemap><loc>{loc}</loc>{lm}</sitemap>\n" for loc in locs)
    return f'{HEAD}<sitemapindex xmlns="{NS}">\n{body}</sitemapindex>\n'


def link(lang: str, href: str, rel: str = "alternate", extra: str = "") -> str:
    return f'<xhtml:link rel="{rel}" hreflang="{lang}" href="{href}"{extra}/>'


def cluster_url(loc: str, pairs: list[tuple[str, str]]) -> str:
    return url(loc, *(link(lang, href) for lang, href in pairs))


def gz(text: str | bytes) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return gzip.compress(data, mtime=0)


def zipped(text: str) -> bytes:
    path = Path("/tmp") / "sitemapkit-test.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("sitemap.xml", text)
    return path.read_bytes()


EN, DE, FR = B + "en/a", B + "de/a", B + "fr/a"
PAIR = [("en", EN), ("de", DE)]
DAYS = [url(B + f"p{i}", f"<lastmod>2024-03-0{i % 9 + 1}</lastmod>") for i in range(12)]
SAME_DAY = [url(B + f"p{i}", f"<lastmod>2024-03-01T0{i % 9}:00:00Z</lastmod>") for i in range(12)]
CRC_BROKEN = bytearray(gz(urlset(url())))
CRC_BROKEN[-8] ^= 0xFF
HTML = '<html><head>{}</head><body>page</body></html>'

# (finding id, severity, {file: content}, text in the message, options)
CASES: list[tuple[str, str, dict[str, str | bytes], str, dict[str, object]]] = [
    ("encoding", "error", {"sitemap.xml": urlset(url()).encode().replace(b"/a<", b"/\xe9<")},
     "not valid UTF-8", {}),
    ("encoding", "error", {"sitemap.xml": urlset(url()).replace("UTF-8", "ISO-8859-1")},
     "'ISO-8859-1'", {}),
    ("bom", "warning", {"sitemap.xml": "\ufeff" + urlset(url())}, "byte-order mark", {}),
    ("not-well-formed", "error", {"sitemap.xml": urlset(url(B + "a?x=1&y=2"))},
     "unescaped '&'", {}),
    ("double-escaped", "error", {"sitemap.xml": urlset(url(B + "a?x=1&amp;amp;y=2"))},
     "escaped twice", {}),
    ("doctype", "error", {"sitemap.xml": urlset(url()).replace(
        HEAD, HEAD + '<!DOCTYPE urlset [<!ENTITY x "y">]>\n')}, "DOCTYPE", {}),
    ("namespace", "error", {"sitemap.xml": urlset(url(), ns="http://www.google.com/schemas/"
                                                  "sitemap/0.84")}, "legacy Google 0.84", {}),
    ("namespace", "error", {"sitemap.xml": urlset(url(), ns=NS.replace("http:", "https:"))},
     "https instead of http", {}),
    ("not-a-sitemap", "error", {"sitemap.xml": f'{HEAD}<rss version="2.0"><channel/></rss>'},
     "root is <rss>", {}),
    ("element-order", "error", {"sitemap.xml": urlset(
        f"<url><lastmod>2024-01-01</lastmod><loc>{B}a</loc></url>")}, "<loc> after <lastmod>",
     {}),
    ("element-order", "error", {"sitemap.xml": urlset(
        f"<url><loc>{EN}</loc>{link('en', EN)}<lastmod>2024-01-01</lastmod></url>", xhtml=True)},
     "<lastmod> after <xhtml:link>", {}),
    ("element-order", "error", {"sitemap.xml": urlset(url(
        B + "a", "<lastmod>2024-01-01</lastmod>", "<lastmod>2024-01-02</lastmod>"))},
     "<lastmod> appears twice", {}),
    ("loc-count", "error", {"sitemap.xml": urlset(url(B + "a", f"<loc>{B}b</loc>"))},
     "2 <loc> elements", {}),
    ("loc-count", "error", {"sitemap.xml": urlset("<url><lastmod>2024-01-01</lastmod></url>")},
     "0 <loc> elements", {}),
    ("unexpected-element", "error", {"sitemap.xml": urlset(url(B + "a", "<title>x</title>"))},
     "<title> is not allowed in <url>", {}),
    ("unexpected-element", "error", {"sitemap.xml": urlset(f"<page><loc>{B}a</loc></page>")},
     "only <url> is allowed", {}),
    ("empty", "error", {"sitemap.xml": urlset()}, "at least one <url>", {}),
    ("empty", "error", {"sitemap.xml": index()}, "at least one <sitemap>", {}),
    ("extension", "error", {"sitemap.xml": urlset(url(
        B + "a", '<shop:offer xmlns:shop="https://example.com/ns/shop">'
        "<shop:price>3</shop:price></shop:offer>"))},
     "--allow-namespace", {}),
    ("extension", "error", {"sitemap.xml": urlset(url(
        B + "a", '<image:image xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
        "<image:title>t</image:title></image:image>"))},
     "lacks <image:loc>", {}),
    ("extension", "error", {"sitemap.xml": urlset(cluster_url(EN, PAIR).replace(
        "/>", ' onclick="x"/>', 1), xhtml=True)}, "['onclick']", {}),
    ("loc-absolute", "error", {"sitemap.xml": urlset(url("/docs/a"))}, "not an absolute URL",
     {}),
    ("loc-absolute", "error", {"sitemap.xml": urlset(url("ftp://example.com/docs/a"))},
     "http or https", {}),
    ("loc-too-long", "error", {"sitemap.xml": urlset(url(B + "a" * (2048 - len(B))))},
     "2,048 characters", {}),
    ("loc-escaping", "error", {"sitemap.xml": urlset(url(B + "ümlaut page"))},
     f"escaped it is '{B}%C3%BCmlaut%20page'", {}),
    ("loc-escaping", "error", {"sitemap.xml": urlset(url(B + "100%"))}, "malformed %-escape",
     {}),
    ("loc-too-short", "error", {"sitemap.xml": urlset(url("http://a.b/"))}, "under 12", {}),
    ("loc-fragment", "warning", {"sitemap.xml": urlset(url(B + "a#intro"))}, "#fragment", {}),
    ("page-missing", "error", {"sitemap.xml": urlset(url(B + "gone/")),
                               "index.html": HTML.format("")}, "no built file", {"site": True}),
    ("page-noindex", "warning", {"sitemap.xml": urlset(url(B + "hidden/")),
                                 "hidden/index.html": HTML.format(
                                     '<meta name="robots" content="noindex">')},
     "noindex", {"site": True}),
    ("page-redirect", "warning", {"sitemap.xml": urlset(url(B + "old/")),
                                  "old/index.html": HTML.format(
                                      '<meta http-equiv="refresh" content="0; url=../new/">')},
     "redirect stub", {"site": True}),
    ("unreadable", "error", {"sitemap.xml": SOCKET}, "cannot be read after 0 bytes "
     "(No such device or address)", {"file": "sitemap.xml"}),
    ("not-a-file", "error", {"sitemap.xml": index(B + "s1.xml"), "s1.xml": FIFO},
     "is a FIFO (named pipe), not a file", {}),
    ("page-unread", "warning", {"sitemap.xml": urlset(url(B + "p.html")), "p.html": FIFO},
     "maps to p.html, which is a FIFO (named pipe)", {"site": True}),
    ("page-canonical", "warning", {"sitemap.xml": urlset(url(B + "copy.html")),
                                   "copy.html": HTML.format(
                                       f'<link rel="canonical" href="{B}orig.html">')},
     "as canonical", {"site": True}),
    ("duplicate", "error", {"sitemap.xml": urlset(url(B + "a"), url("HTTPS://Example.COM:443"
                                                                    "/docs/a"))},
     "listed twice (earlier in this file)", {}),
    ("duplicate", "error", {"sitemap.xml": index(B + "s1.xml", B + "s2.xml"),
                            "s1.xml": urlset(url(B + "a%2f")), "s2.xml": urlset(url(B + "a%2F"))},
     "also in s1.xml", {}),
    ("lastmod-format", "error", {"sitemap.xml": urlset(url(B + "a", "<lastmod>2024-01"
                                                       "</lastmod>"))}, "'2024-01'", {}),
    ("lastmod-format", "error", {"sitemap.xml": urlset(url(
        B + "a", "<lastmod>2024-01-02T10:00:00</lastmod>"))}, "no UTC offset", {}),
    ("lastmod-format", "error", {"sitemap.xml": urlset(url(B + "a", "<lastmod>2024-02-30"
                                                       "</lastmod>"))}, "day is out of range",
     {}),
    ("lastmod-whitespace", "warning", {"sitemap.xml": urlset(url(
        B + "a", "<lastmod> 2024-01-02 </lastmod>"))}, "surrounding whitespace", {}),
    ("lastmod-build-date", "warning", {"sitemap.xml": urlset(*SAME_DAY)},
     "all 12 lastmods fall on 2024-03-01", {}),
    ("lastmod-future", "warning", {"sitemap.xml": urlset(url(B + "a", "<lastmod>2026-01-03"
                                                         "</lastmod>"))}, "in the future", {}),
    ("changefreq", "error", {"sitemap.xml": urlset(url(B + "a", "<changefreq>Daily"
                                                   "</changefreq>"))}, "'Daily'", {}),
    ("priority", "error", {"sitemap.xml": urlset(url(B + "a", "<priority>1.5</priority>"))},
     "'1.5'", {}),
    ("too-many-urls", "error", {"sitemap.txt": "".join(f"{B}{i}\n" for i in range(50_001))},
     "50,001 URLs", {}),
    ("too-large", "error", {"sitemap.xml": urlset(*(url(B + f"p{i}") for i in range(40)))},
     "more than 1,024 bytes", {"max_bytes": 1024}),
    ("index-format", "error", {"sitemap.xml": index(B + "s.xml").replace(
        "</loc>", "</loc><changefreq>daily</changefreq>"), "s.xml": urlset(url())},
     "only <loc> and <lastmod>", {}),
    ("too-many-sitemaps", "error", {"sitemap.xml": index(*(f"{B}s{i}.xml" for i in
                                                          range(50_001)))},
     "50,001 sitemaps", {}),
    ("index-target", "error", {"sitemap.xml": index(B + "missing.xml")}, "does not exist", {}),
    ("index-target", "error", {"sitemap.xml": index(B + "s.xml"),
                               "s.xml": urlset(url("/relative"))}, "not a valid sitemap", {}),
    ("nested-index", "error", {"sitemap.xml": index(B + "inner-sitemap.xml"),
                               "inner-sitemap.xml": index(B + "s.xml"), "s.xml": urlset(url())},
     "must not be nested", {}),
    ("unreferenced", "warning", {"sitemap.xml": index(B + "s1.xml"), "s1.xml": urlset(url()),
                                 "old-sitemap.xml": urlset(url(B + "b"))},
     "no sitemap index here lists", {}),
    ("index-scope", "error", {"sitemap.xml": index("https://example.com/other/s.xml")},
     "outside this site", {"base": True}),
    ("index-lastmod", "error", {"sitemap.xml": index(B + "s.xml", lastmod="yesterday"),
                                "s.xml": urlset(url())}, "'yesterday'", {}),
    ("gzip", "error", {"sitemap.xml.gz": urlset(url())}, "not gzip data", {}),
    ("gzip", "error", {"sitemap.xml.gz": zipped(urlset(url()))}, "a zip archive", {}),
    ("gzip", "error", {"sitemap.xml": gz(urlset(url()))}, "not named .gz", {}),
    ("gzip", "error", {"sitemap.xml.gz": gz(urlset(url()))[:-10]}, "truncated", {}),
    ("gzip", "error", {"sitemap.xml.gz": bytes(CRC_BROKEN)}, "corrupt gzip", {}),
    ("text-line", "error", {"sitemap.txt": f"{B}a\n {B}b\n"}, "surrounding whitespace", {}),
    ("text-line", "error", {"sitemap.txt": urlset(url())}, "markup", {}),
    ("text-blank-line", "warning", {"sitemap.txt": f"{B}a\n\n{B}b\n"}, "blank line", {}),
    ("one-host", "error", {"sitemap.xml": urlset(url(B + "a"), url("https://other.example/"
                                                                  "docs/b"))},
     "one scheme, host and port", {}),
    ("scope", "error", {"sitemap.xml": urlset(url("https://example.com/blog/a"))},
     "not at or below https://example.com/docs/", {"base": True}),
    ("robots", "error", {"sitemap.xml": urlset(url()), "robots.txt": "Sitemap: /sitemap.xml\n"},
     "not an absolute URL", {}),
    ("robots", "warning", {"sitemap.xml": urlset(url()),
                           "robots.txt": "User-agent: *\nSitemap: https://example.com/old.xml\n"},
     "matches no sitemap", {}),
    ("robots", "warning", {"sitemap.xml": urlset(url()),  # RFC 9309's spelling, a comment
                           "robots.txt": "sitemap : https://example.com/old.xml # gone\n"},
     "Sitemap: https://example.com/old.xml matches no sitemap", {}),
    ("hreflang-link", "error", {"sitemap.xml": urlset(url(EN, link("en", EN, rel="canonical")),
                                                      xhtml=True)}, "not 'alternate'", {}),
    ("hreflang-link", "error", {"sitemap.xml": urlset(url(EN, f'<xhtml:link rel="alternate" '
                                                      f'href="{EN}"/>'), xhtml=True)},
     "no hreflang", {}),
    ("hreflang-self", "error", {"sitemap.xml": urlset(cluster_url(EN, [("de", DE)]),
                                                      cluster_url(DE, [("de", DE)]), xhtml=True)},
     "do not include the page itself", {}),
    ("hreflang-repeat", "error", {"sitemap.xml": urlset(cluster_url(EN, [*PAIR, ("de", FR)]),
                                                        xhtml=True)}, "two different hrefs", {}),
    ("hreflang-repeat", "warning", {"sitemap.xml": urlset(cluster_url(EN, [*PAIR, ("DE", DE)]),
                                                          cluster_url(DE, PAIR), xhtml=True)},
     "same href", {}),
    ("hreflang-cluster", "error", {"sitemap.xml": urlset(cluster_url(EN, PAIR),
                                                         cluster_url(DE, [*PAIR, ("fr", FR)]),
                                                         xhtml=True)},
     "list different alternates", {}),
    ("hreflang-cluster", "error", {"sitemap.xml": urlset(cluster_url(EN, PAIR), url(DE),
                                                         xhtml=True)},
     "without alternates", {}),
    ("hreflang-unlisted", "warning", {"sitemap.xml": urlset(cluster_url(EN, PAIR), xhtml=True)},
     "reciprocity cannot be checked", {}),
    ("hreflang-code", "error", {"sitemap.xml": urlset(cluster_url(EN, [("english", EN)]),
                                                      xhtml=True)}, "'english'", {}),
    ("hreflang-region", "warning", {"sitemap.xml": urlset(cluster_url(EN, [("en-UK", EN)]),
                                                          xhtml=True)}, "use en-GB", {}),
    ("hreflang-href", "error", {"sitemap.xml": urlset(cluster_url(EN, [("en", EN),
                                                                       ("de", "/de/a")]),
                                                      xhtml=True)}, "alternate href", {}),
    ("x-default", "error", {"sitemap.xml": urlset(cluster_url(EN, [*PAIR, ("x-default", EN),
                                                                   ("x-default", DE)]),
                                                  xhtml=True)}, "more than one x-default", {}),
]


def make_site(tmp_path: Path, files: dict[str, str | bytes | None]) -> Path:
    site = tmp_path / "site"
    for name, content in files.items():
        path = site / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is FIFO:
            os.mkfifo(path)
            continue
        if content == SOCKET:
            unreadable_page(path)
            continue
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return site


def check(site_dir: Path, **options: object) -> tuple[object, list[str]]:
    base = B if options.pop("base", None) or options.get("site") else None
    check_pages = bool(options.pop("site", False))
    given = options.pop("file", None)  # one file given, not the folder
    report = validate([site_dir / str(given) if given else site_dir],
                      ValidateOptions(base_url=base, now=NOW, check_pages=check_pages,
                                      **options))  # type: ignore[arg-type]
    return report, [f.text() for f in report.findings]


def test_every_finding_id_has_a_broken_fixture():
    assert {case[0] for case in CASES} == set(RULE_OF)


@pytest.mark.parametrize(("id_", "severity", "files", "text", "options"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_broken_fixture_is_caught(tmp_path, id_, severity, files, text, options):
    report, lines = check(make_site(tmp_path, files), **options)
    hits = [f for f in report.findings if f.id == id_ and f.severity == severity]
    assert hits, "\n".join(lines)
    assert any(text in f.message for f in hits), "\n".join(lines)
    assert report.ok() is (severity == "warning" and not report.total("error"))
    assert not report.ok(strict=True)


def good_site(tmp_path: Path) -> Path:
    en, de = EN, DE
    pair = [("en", en), ("de", de), ("x-default", en)]
    return make_site(tmp_path, {
        "sitemap.xml": index(B + "s1.xml.gz", B + "s2.txt", lastmod="2024-01-02T10:00:00+05:30"),
        "s1.xml.gz": gz(urlset(*DAYS, cluster_url(en, pair), cluster_url(de, pair), xhtml=True)),
        "s2.txt": f"{B}t1\n{B}t2?x=1&y=%C3%BC\n",
        "robots.txt": f"User-agent: *\nDisallow:\n\nSitemap: {B}sitemap.xml\n",
    })


def test_good_site_has_no_findings(tmp_path):
    report, lines = check(good_site(tmp_path), base=True)
    assert lines == [] and report.ok(strict=True)
    assert (report.files, report.urls) == (3, 16)


def test_limits_exactly_met_are_valid(tmp_path):
    longest = B + "a" * (2047 - len(B))
    files = {
        "sitemap.txt": "".join(f"{B}{i}\n" for i in range(50_000)),
        "long-sitemap.xml": urlset(url(longest)),  # 2,047 characters
        "short-sitemap.xml": urlset(url("http://a.bc/")),  # 12 characters
    }
    report, lines = check(make_site(tmp_path, files))
    assert lines == [], lines
    body = urlset(*(url(f"{B}p{i}") for i in range(40)))
    site = make_site(tmp_path / "cap", {"sitemap.xml": body})
    assert check(site, max_bytes=len(body))[0].ok()
    assert not check(site, max_bytes=len(body) - 1)[0].ok()


def test_index_at_50000_sitemaps_is_not_too_many(tmp_path):
    site = make_site(tmp_path, {"sitemap.xml": index(*(f"{B}s{i}.xml" for i in range(50_000)))})
    report, _ = check(site)
    assert not report.has("too-many-sitemaps") and report.has("index-target")


def test_mkdocs_gz_copy_is_one_sitemap_not_duplicates(tmp_path):
    body = urlset(url(B + "a"), url(B + "b"))
    report, lines = check(make_site(tmp_path, {"sitemap.xml": body, "sitemap.xml.gz": gz(body)}))
    assert lines == [] and report.files == 1
    report, lines = check(make_site(tmp_path / "2", {
        "sitemap.xml": body, "sitemap.xml.gz": gz(urlset(url(B + "a")))}))
    assert report.has("duplicate")


def test_multi_member_gzip_is_fine(tmp_path):
    text = urlset(url(B + "a"), url(B + "b")).encode()
    data = gz(text[:100]) + gz(text[100:])
    report, lines = check(make_site(tmp_path, {"sitemap.xml.gz": data}))
    assert lines == [] and report.urls == 2


def test_gzip_bomb_stops_at_the_protocol_maximum(tmp_path):
    bomb = gz(urlset().encode().replace(b"</urlset>", b" " * 60_000_000 + b"</urlset>"))
    assert len(bomb) < 100_000
    report, lines = check(make_site(tmp_path, {"sitemap.xml.gz": bomb}))
    assert any("reading stopped after 52,428,800" in line for line in lines), lines


def test_other_xml_is_skipped_and_allowed_namespaces_pass(tmp_path):
    image = "https://example.com/ns/shop"  # no schema sitemapkit knows: allowed by name
    with_image = urlset(url(B + "a", "<image:image><image:loc>https://example.com/i.png"
                            "</image:loc></image:image>")).replace(
        "<urlset ", f'<urlset xmlns:image="{image}" ')
    site = make_site(tmp_path, {"feed.xml": f'{HEAD}<rss version="2.0"/>',
                                "sitemap.xml": with_image})
    assert validate([site / "sitemap.xml"]).has("extension")
    report = validate([site / "feed.xml"])
    assert report.ok(strict=True) and report.skipped == [str(site / "feed.xml")]
    allowed = ValidateOptions(allow_namespaces=(image,))
    assert validate([site / "sitemap.xml"], allowed).ok(strict=True)


def test_messages_name_file_line_and_rule(tmp_path):
    site = make_site(tmp_path, {"sitemap.xml": urlset(url(B + "a"), url("/b"))})
    report, lines = check(site)
    assert lines == ["sitemap.xml:4: error [rule 9 loc-absolute] loc '/b' is not an absolute "
                     "URL with scheme and host"]


def test_cli_exit_codes_json_and_summary(tmp_path, capsys):
    good = good_site(tmp_path)
    assert main(["validate", str(good), "--base-url", B]) == 0  # an output dir, not a site
    shown = capsys.readouterr().out
    assert "page-missing" not in shown and "holds no HTML pages" in shown
    assert main(["validate", str(good), "--base-url", B, "--no-page-check"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith(
        "sitemapkit validate: valid: 3 files, 16 URLs, 0 errors, 0 warnings")
    warn = make_site(tmp_path / "w", {"sitemap.xml": urlset(url(B + "a#x"))})
    assert main(["validate", str(warn)]) == 0
    capsys.readouterr()
    assert main(["validate", str(warn), "--strict", "--json"]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["id"] == "loc-fragment" and lines[0]["rule"] == 13
    assert lines[-1]["valid"] is False and lines[-1]["warnings"] == 1
    assert "(strict)" in lines[-1]["summary"]
    bad = make_site(tmp_path / "b", {"sitemap.xml": urlset(url("/b"))})
    assert main(["validate", str(bad)]) == 1
    assert "1 error" in capsys.readouterr().out.splitlines()[-1]
    assert main(["validate", str(tmp_path / "missing")]) == 2
    assert main(["validate", str(good), "--max-bytes", "60000000"]) == 2
    with pytest.raises(SystemExit) as usage:
        main(["validate"])
    assert usage.value.code == 2


def test_fifty_thousand_url_shard_streams(tmp_path):
    """Functional check on a full shard (the < 1 s figure is in benchmarks/)."""
    body = urlset(*(url(f"{B}p{i}", f"<lastmod>2024-01-{i % 28 + 1:02d}</lastmod>")
                    for i in range(50_000)))
    site = make_site(tmp_path, {"sitemap.xml.gz": gz(body)})
    report, lines = check(site)
    assert lines == [] and report.urls == 50_000


def test_an_unlisted_alternate_named_twice_is_reported_once(tmp_path):
    """`en` and `x-default` usually name one URL: one warning for it, not two."""
    pairs = [("en", EN), ("de", DE), ("x-default", DE)]
    report, lines = check(make_site(tmp_path, {"sitemap.xml": urlset(cluster_url(EN, pairs),
                                                                     xhtml=True)}))
    unlisted = [f for f in report.findings if f.id == "hreflang-unlisted"]
    assert len(unlisted) == 1 and DE in unlisted[0].message, "\n".join(lines)


def test_cluster_findings_name_the_file_and_line_of_the_member(tmp_path):
    """Clusters are kept once per distinct set, with each member's file and line packed in
    one int: a mismatch in the second shard names that shard and line; members that agree
    share one set."""
    pair = [("en", EN), ("de", DE), ("fr", FR)]
    other = [("en", EN), ("de", DE)]
    site = make_site(tmp_path, {
        "sitemap.xml": index(B + "s1.xml", B + "s2.xml"),
        "s1.xml": urlset(cluster_url(EN, pair), cluster_url(FR, pair), xhtml=True),
        "s2.xml": urlset(url(B + "x"), url(B + "y"), cluster_url(DE, other), xhtml=True),
    })
    report, lines = check(site)
    found = sorted((f.file, f.line) for f in report.findings if f.id == "hreflang-cluster")
    assert found == [("s1.xml", 3), ("s1.xml", 4), ("s2.xml", 5)], "\n".join(lines)


@pytest.mark.parametrize("canonical", ["guide/index/", "guide/index.html", "guide", "guide/"])
def test_a_canonical_naming_the_same_page_in_another_form_is_no_finding(tmp_path, canonical):
    """Sphinx dirhtml names ``…/guide/index/`` as the canonical of ``…/guide/``: the page
    ``sitemapkit site`` lists, one page as servers serve it (so ``--validate strict``
    passes on a correct build)."""
    site = make_site(tmp_path, {
        "sitemap.xml": urlset(url(B + "guide/")),
        "guide/index.html": HTML.format(f'<link rel="canonical" href="{B}{canonical}">')})
    report, lines = check(site, site=True)
    assert lines == [] and report.ok(strict=True)
