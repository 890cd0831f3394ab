"""`site` against evidence it did not produce, as a property (issue 57): for random
outputs (pages whose canonical names themselves, their clean form, another page, or
another site; noindex pages; redirect stubs) and random generator sitemaps of this
build (some of their URLs, some URLs of no page, some dated), no URL the generator
listed disappears without a report row, one that is left out for anything but a
page's own signal is a warning, and a page is left out for its canonical only when
that URL is a page of the site (listed, or left out for its own reason) or lies off
the site."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit.errors import NoUrlsError
from sitemapkit.heads.meta import page_identity
from sitemapkit.site import site_sitemaps

BASE = "https://example.com/"
SIGNALS = {"noindex page", "redirect stub", "page with a canonical URL pointing elsewhere",
           "pages with a canonical URL pointing elsewhere", "noindex pages",
           "redirect stubs", "404 page", "404 pages"}


@st.composite
def sites(draw: st.DrawFn) -> tuple[dict[str, str], list[tuple[str, str | None]]]:
    names = draw(st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f"]), min_size=1,
                          max_size=6, unique=True))
    pages = {}
    for name in names:
        kind = draw(st.sampled_from(["plain", "self", "clean", "other", "offsite",
                                     "nowhere", "noindex", "redirect"]))
        head = ""
        if kind == "self":
            head = f'<link rel="canonical" href="{BASE}{name}.html">'
        elif kind == "clean":
            head = f'<link rel="canonical" href="{BASE}{name}">'
        elif kind == "other":
            head = f'<link rel="canonical" href="{BASE}{draw(st.sampled_from(names))}.html">'
        elif kind == "nowhere":  # a URL of the site that no page of the output is
            head = f'<link rel="canonical" href="{BASE}moved/{name}/">'
        elif kind == "offsite":
            head = f'<link rel="canonical" href="https://elsewhere.example.org/{name}">'
        elif kind == "noindex":
            head = '<meta name="robots" content="noindex">'
        elif kind == "redirect":
            head = f'<meta http-equiv="refresh" content="0; url={BASE}">'
        pages[f"{name}.html"] = f"<!DOCTYPE html><html><head>{head}</head><body>x</body></html>"
    listed = draw(st.lists(st.sampled_from(names + ["gone", "z"]), max_size=8, unique=True))
    urls = [(f"{BASE}{n}" + draw(st.sampled_from([".html", ""])),
             draw(st.sampled_from([None, "2024-01-02"]))) for n in listed]
    return pages, urls


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sites())
def test_no_url_the_generator_listed_is_lost_without_a_row_and_a_warning(site):
    pages, urls = site
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        out.mkdir()
        for name, html in pages.items():
            (out / name).write_text(html)
        (out / "sitemap.xml").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
            'schemas/sitemap/0.9">' + "".join(
                f"<url><loc>{u}</loc>{f'<lastmod>{d}</lastmod>' if d else ''}</url>"
                for u, d in urls) + "</urlset>\n")
        when = os.stat(out / "sitemap.xml").st_mtime  # this build's: not older than pages
        for name in pages:
            os.utime(out / name, (when, when))
        report = Path(tmp) / "r.jsonl"
        try:
            outcome = site_sitemaps(out, BASE, report=str(report), robots_txt=False)
        except NoUrlsError as exc:  # no page to list at all is an error, and said
            assert "no URLs to write" in str(exc), exc
            return
        written = {page_identity(line.split("</loc>")[0]) for line in
                   (out / "sitemap.xml").read_text().split("<loc>")[1:]}
        rows = [json.loads(line) for line in report.read_text().splitlines()]
        left = {page_identity(r["url"]): r for r in rows if r["change"] == "left out"}
        # a page left out for its canonical points at a URL this set lists, or off the site
        for row in rows:
            if row["change"] in ("left out", "not listed") and "canonical" in row["reason"]:
                target = row["detail"]
                forms = {page_identity(f) for f in (target, target + ".html",
                                                    target.removesuffix(".html"))}
                rel = target.removeprefix(BASE).removesuffix(".html")
                a_page = (out / f"{rel}.html").is_file()  # listed or left out itself
                assert not target.startswith(BASE) or forms & written or a_page, (row, written)
        for url, _ in urls:
            key = page_identity(url)
            if key in written or page_identity(url + ".html") in written:
                continue
            assert key in left, (url, rows, outcome.infos)  # named, with its reason
            if left[key]["reason"] not in SIGNALS:
                assert outcome.warnings, (url, left[key], outcome.infos)


def test_a_file_the_generator_listed_that_is_no_page_is_named_not_lost(tmp_path):
    """The generator's sitemap lists its feed (Eleventy's starter does): the file is in
    the output, so its row says what it is, and only a URL with nothing behind it is a
    loss worth a warning."""
    out = tmp_path / "out"
    (out / "feed").mkdir(parents=True)
    (out / "a.html").write_text("<!DOCTYPE html><html><head></head><body>a</body></html>")
    (out / "feed" / "feed.xml").write_text("<feed/>")
    listed = ["a.html", "feed/feed.xml"]

    def run(extra: list[str]) -> tuple[list[dict[str, str]], list[str]]:
        (out / "sitemap.xml").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
            'schemas/sitemap/0.9">' + "".join(f"<url><loc>{BASE}{u}</loc></url>"
                                              for u in listed + extra) + "</urlset>\n")
        report = tmp_path / "r.jsonl"
        outcome = site_sitemaps(out, BASE, report=str(report), robots_txt=False)
        return [json.loads(line) for line in report.read_text().splitlines()], \
            list(outcome.warnings)

    rows, warnings = run([])
    assert [(r["url"], r["reason"], r["page"]) for r in rows if r["change"] == "left out"] == [
        (f"{BASE}feed/feed.xml", "a file of the output that is no HTML page (a feed, a "
         "download)", "feed/feed.xml")]
    assert warnings == []
    rows, warnings = run(["gone.html", "feed/"])
    assert {r["url"]: r["reason"] for r in rows if r["change"] == "left out"} == {
        f"{BASE}feed/feed.xml": "a file of the output that is no HTML page (a feed, a download)",
        f"{BASE}gone.html": "no page in the output at this URL",
        f"{BASE}feed/": "no page in the output at this URL"}
    assert len(warnings) == 1 and "2 no page in the output at this URL" in warnings[0]


def test_a_base_url_outside_the_path_the_config_serves_pages_under_is_a_warning():
    """Next's basePath or Eleventy's pathPrefix is in every URL the site serves: a
    --base-url without it would list URLs the site does not serve."""
    from sitemapkit.site import _under_url_path
    from sitemapkit.sources.built.family import Layout

    layout = Layout("Nextra", Path("."), url_path="/docs", url_path_from="basePath in x")
    assert _under_url_path("https://example.org/docs/", layout) == []
    assert _under_url_path("https://example.org/v2/docs/", layout) == []
    assert _under_url_path("https://example.org/", layout) == [
        "the base URL https://example.org/ does not end with /docs, under which basePath in "
        "x serves every page: each URL would be one the site does not serve (pass --base-url "
        "https://example.org/docs/)"]
    assert _under_url_path("https://example.org/documents/", layout) != []
    assert _under_url_path("https://example.org/", Layout("Hugo", Path("."))) == []
    assert _under_url_path("https://example.org/", None) == []
