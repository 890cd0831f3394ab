"""The human view (`--human-view`: sitemap.html beside the sitemaps) as a browser shows
it: Debian's headless Chromium renders each page from file://, and the rendered DOM is
read back. It holds every URL of the set with its lastmod and hreflang alternates; its
filter and sort work; a set of several shards gets a page per shard and an index; a
screenshot at 1280x800 is kept as a test artefact (build/test-artifacts, or
$SITEMAPKIT_ARTIFACTS)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

from docs_projects import need
from lxml import html
from sitemap_check import read_set

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(os.environ.get("SITEMAPKIT_ARTIFACTS") or ROOT / "build" / "test-artifacts")
BASE = "https://docs.example.com/"
LANGS = ("en", "de", "fr")


def chromium(tmp_path: Path, *args: str) -> str:
    done = subprocess.run([need("chromium"), "--headless", "--no-sandbox", "--disable-gpu",
                           f"--user-data-dir={tmp_path / 'chromium-profile'}", *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def rendered(page: Path, tmp_path: Path, then: str = "") -> html.HtmlElement:
    """The DOM after load; ``then`` is a script run after the page's own (a user's
    typing and clicking), in a copy of the page."""
    if then:
        copy = page.with_name(f"probe-{page.name}")
        copy.write_text(page.read_text().replace("</body>", f"<script>{then}</script></body>"))
        page = copy
    try:
        return html.fromstring(chromium(tmp_path, "--dump-dom", page.as_uri()))
    finally:
        if then:
            page.unlink()


def rows(dom: html.HtmlElement, visible_only: bool = False) -> dict[str, tuple[str, tuple]]:
    """loc -> (lastmod, alternates) of every row of the page's URL tables."""
    found = {}
    for tr in dom.xpath("//div[contains(@class,'k')]//tbody/tr"):
        if visible_only and tr.get("hidden") is not None:
            continue
        cells = tr.findall("td")
        link = cells[0].find("a")
        langs = tuple(sorted((a.get("hreflang"), a.get("href")) for a in cells[2].findall("a")))
        found[link.get("href")] = (cells[1].text_content(), langs)
    return found


def write(tmp_path: Path, lines: list[str], *args: str, out: str = "out") -> Path:
    source = tmp_path / "urls.jsonl"
    source.write_text("\n".join(lines) + "\n")
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "write", str(source), "-o",
                           out, "--base-url", BASE, "--human-view", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return tmp_path / out


def clustered(n: int) -> list[str]:
    """n clusters of three languages, in three sections, odd ones undated."""
    lines = []
    for i in range(n):
        cluster = [[lang, f"{BASE}{lang}/{('guide', 'api', 'blog')[i % 3]}/p{i}/"]
                   for lang in LANGS]
        for _, loc in cluster:
            row = {"loc": loc, "alternates": cluster}
            if i % 2 == 0:
                row["lastmod"] = f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}"
            lines.append(json.dumps(row))
    return lines


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_the_rendered_page_holds_every_url_with_its_date_and_languages(tmp_path):
    out = write(tmp_path, clustered(40))
    listed = read_set(out, BASE)
    expected = {url.loc: (url.lastmod or "", tuple(sorted(url.alternates)))
                for url in listed.urls}
    dom = rendered(out / "sitemap.html", tmp_path)
    assert rows(dom) == expected and len(expected) == 120
    assert dom.get_element_by_id("shown").text_content() == "120"
    assert "noindex" in dom.xpath("string(//meta[@name='robots']/@content)")
    assert not dom.xpath("//script[@src] | //link[@href] | //img")  # nothing fetched
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "human-view-1280x800.png"
    shot.unlink(missing_ok=True)
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,800",
             (out / "sitemap.html").as_uri())
    assert png_size(shot) == (1280, 800)
    assert "sitemap.html" not in (out / "sitemap.xml").read_text()


def test_filter_and_sort_work_in_the_browser(tmp_path):
    out = write(tmp_path, clustered(30))
    typed = ("var q=document.getElementById('q');q.value='/de/api/';"
             "q.dispatchEvent(new Event('input'));")
    dom = rendered(out / "sitemap.html", tmp_path, typed)
    shown = rows(dom, visible_only=True)
    assert shown and all("/de/api/" in loc for loc in shown)
    assert len(shown) == 10 and dom.get_element_by_id("shown").text_content() == "10"
    hidden = [s for s in dom.xpath("//section[contains(@class,'rows')]")
              if s.get("hidden") is not None]
    assert len(hidden) == 2  # /en/ and /fr/: no row left
    clicked = "document.querySelectorAll('section.rows')[0].querySelectorAll('th')[1].click();"
    dom = rendered(out / "sitemap.html", tmp_path, clicked)
    first = dom.xpath("//section[contains(@class,'rows')]")[0]
    dates = [tr.findall("td")[1].text_content() for tr in first.xpath(".//tbody/tr")]
    assert dates == sorted(dates) and dates != [tr.findall("td")[1].text_content() for tr in
                                                html.fromstring((out / "sitemap.html")
                                                .read_text()).xpath(
        "//section[contains(@class,'rows')][1]//tbody/tr")]


def test_a_page_per_shard_and_an_index(tmp_path):
    lines = [json.dumps({"loc": f"{BASE}s{i % 4}/p{i}", "lastmod": "2024-02-02"})
             for i in range(250)]
    out = write(tmp_path, lines, "--max-urls", "100")
    listed = read_set(out, BASE)
    assert len(listed.shards) == 3
    index = rendered(out / "sitemap.html", tmp_path)
    pages = index.xpath("//tbody/tr/td[1]/a/@href")
    assert pages == [f"sitemap-view-0000{n}.html" for n in (1, 2, 3)]
    seen: dict[str, tuple[str, tuple]] = {}
    for page, shard in zip(pages, listed.shards, strict=True):
        got = rows(rendered(out / page, tmp_path))
        assert set(got) == {url.loc for url in listed.shards[shard]}
        seen |= got
    assert set(seen) == set(listed.locs)
    (out / "sitemap-view-00009.html").write_text("<html>a page of the user's</html>")
    write(tmp_path, lines[:150], "--max-urls", "100")  # two shards now
    names = sorted(p.name for p in out.glob("sitemap-view-*.html"))
    assert names == ["sitemap-view-00001.html", "sitemap-view-00002.html",
                     "sitemap-view-00009.html"]  # ours removed, the user's kept


def test_the_view_shows_what_changed_against_the_earlier_set(tmp_path):
    earlier = [json.dumps({"loc": f"{BASE}{n}", "lastmod": "2024-01-01"})
               for n in ("a", "b", "gone")]
    write(tmp_path, earlier, out="gh-pages")
    now = [json.dumps({"loc": f"{BASE}{n}", "lastmod": d})
           for n, d in (("a", "2024-01-01"), ("b", "2024-03-03"), ("new", "2024-04-04"))]
    out = write(tmp_path, now, "--changes-from", "gh-pages")
    dom = rendered(out / "sitemap.html", tmp_path)
    change = {tr.findall("td")[0].find("a").get("href"): tr.findall("td")[3].text_content()
              for tr in dom.xpath("//div[contains(@class,'k')]//tbody/tr")}
    assert change == {BASE + "a": "", BASE + "b": "re-dated (was 2024-01-01)",
                      BASE + "new": "new"}
    assert dom.xpath("//section[contains(@class,'removed')]//li/text()") == ["/gone"]


def test_urls_with_markup_characters_are_shown_as_they_are(tmp_path):
    locs = [f"{BASE}q?a=1&b=2", f"{BASE}%3Cscript%3E", f"{BASE}it's"]
    out = write(tmp_path, [json.dumps({"loc": loc}) for loc in locs])
    dom = rendered(out / "sitemap.html", tmp_path)
    assert set(rows(dom)) == set(read_set(out, BASE).locs)
    assert not dom.xpath("//script[not(normalize-space())]")
