"""hreflang clusters across files (rule 36) as the validator keeps them: a hash and a
digest per member, and a second reading of the files only when a set is broken.

The reference is the check as first written, with every member's set of strings kept
whole; on generated multi-file sets the findings must be the same, in the same order,
naming the same file and line, on the scan of either twin and on expat alone.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit.validate import ValidateOptions, validate
from test_validate import NOW, B, cluster_url, make_site, url, urlset

PAGES = [B + p for p in ("en", "de", "fr", "it")]
LANGS = ["en", "EN", "de", "fr", "x-default"]
IDS = ("hreflang-cluster", "hreflang-unlisted")

Entry = tuple[str, list[tuple[str, str]]]  # loc, alternates ([] for none)


def reference(files: list[tuple[str, list[Entry]]]) -> list[tuple[str, int, str, str]]:
    """The cross-file findings as the whole-set check gave them (file order; each
    <url> on its own line from line 3)."""
    clusters: dict[str, frozenset[tuple[str, str]]] = {}
    where: dict[str, tuple[str, int]] = {}
    seen: set[str] = set()
    for name, entries in files:
        for line, (loc, pairs) in enumerate(entries, start=3):
            seen.add(loc)
            if pairs:
                clusters[loc] = frozenset((lang.lower(), href) for lang, href in pairs)
                where[loc] = (name, line)
    found = []
    for member, cluster in clusters.items():
        if all(clusters.get(href) == cluster for _, href in cluster):
            continue
        name, line = where[member]
        for href in dict.fromkeys(href for _, href in cluster):
            if href == member:
                continue
            other = clusters.get(href)
            if other is None and href in seen:
                found.append((name, line, "hreflang-cluster",
                              f"{member} lists {href} as an alternate, but {href} is in the "
                              "sitemaps without alternates; both must point to each other"))
            elif other is None:
                found.append((name, line, "hreflang-unlisted", f"alternate {href} is in no "
                              "sitemap here; reciprocity cannot be checked"))
            elif other != cluster:
                found.append((name, line, "hreflang-cluster", f"{member} and its alternate "
                              f"{href} list different alternates; every member must carry "
                              "the same set"))
    return found


@st.composite
def entries(draw: st.DrawFn) -> Entry:
    loc = draw(st.sampled_from(PAGES + [B + "plain"]))
    if draw(st.integers(0, 3)) == 0:
        return loc, []
    pairs = draw(st.lists(st.tuples(st.sampled_from(LANGS), st.sampled_from(PAGES)),
                          min_size=1, max_size=4, unique_by=lambda p: p[0].lower()))
    if draw(st.integers(0, 5)):  # usually the page lists itself
        pairs[0] = (pairs[0][0], loc)
    return loc, pairs


def write(tmp: Path, files: list[tuple[str, list[Entry]]]) -> Path:
    return make_site(tmp, {name: urlset(*(cluster_url(loc, pairs) if pairs else url(loc)
                                          for loc, pairs in body), xhtml=True)
                           for name, body in files})


def cross_file(report: Any) -> list[tuple[str, int, str, str]]:
    return [(f.file, f.line, f.id, f.message) for f in report.findings if f.id in IDS]


_runs = itertools.count()


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(entries(), min_size=1, max_size=6), min_size=1, max_size=3))
def test_findings_match_the_whole_set_check(tmp_path, bodies):
    files = [(f"sitemap-{n}.xml", body) for n, body in enumerate(bodies)]
    site = write(tmp_path / f"run{next(_runs)}", files)
    expected = reference(files)
    for fast_scan in ("c", "py", "off"):
        report = validate([site], ValidateOptions(now=NOW, fast_scan=fast_scan))
        assert cross_file(report) == expected, fast_scan


def test_a_set_broken_in_a_later_file_names_both_sides(tmp_path):
    """One file per language (a common layout): the German member carries another
    set, so both members are named, each at its own file and line (files are read in
    name order, de before en)."""
    en, de = PAGES[0], PAGES[1]
    files = [("sitemap-de.xml", [(de, [("en", en), ("de", de), ("fr", PAGES[2])])]),
             ("sitemap-en.xml", [(B + "plain", []), (en, [("en", en), ("de", de)])])]
    report = validate([write(tmp_path, files)], ValidateOptions(now=NOW))
    assert [(f.file, f.line) for f in report.findings if f.id == "hreflang-cluster"] == \
        [("sitemap-de.xml", 3), ("sitemap-en.xml", 4)]
    assert cross_file(report) == reference(files)


@pytest.mark.parametrize("fast_scan", ["c", "py", "off"])
def test_whole_sets_need_no_second_reading(tmp_path, monkeypatch, fast_scan):
    """A valid multilingual set is checked from hashes alone: its files are read once."""
    from sitemapkit.validate import sitewide

    reads: list[str] = []
    original = sitewide.XmlCheck

    class Counting(original):  # type: ignore[misc, valid-type]
        def run(self):  # type: ignore[no-untyped-def]
            reads.append(self.name)
            return super().run()

    monkeypatch.setattr(sitewide, "XmlCheck", Counting)
    whole = [(lang, page) for lang, page in zip(("en", "de", "fr"), PAGES, strict=False)]
    files = [("sitemap.xml", [(page, whole) for _, page in whole])]
    report = validate([write(tmp_path, files)], ValidateOptions(now=NOW, fast_scan=fast_scan))
    assert report.ok() and not cross_file(report) and reads == []
    other = [("fr", PAGES[2]), ("en", PAGES[0])]
    files = [("sitemap.xml", [(page, other if page == PAGES[2] else whole)
                              for _, page in whole])]  # fr carries a set of its own
    report = validate([write(tmp_path / "again", files)],
                      ValidateOptions(now=NOW, fast_scan=fast_scan))
    assert cross_file(report) == reference(files) != [] and reads == ["sitemap.xml"]


@pytest.mark.parametrize("fast_scan", ["c", "py", "off"])
def test_a_member_listed_again_with_another_set_leaves_its_first_set_broken(tmp_path,
                                                                          fast_scan):
    """A page's last listing is the one that counts: de carries en+de, then (again, in
    a later file) en+de+fr, so en's set is no longer carried by de."""
    en, de, fr = PAGES[:3]
    first = [("en", en), ("de", de)]
    files = [("sitemap-0.xml", [(en, first), (de, first)]),
             ("sitemap-1.xml", [(de, [*first, ("fr", fr)])])]
    report = validate([write(tmp_path, files)], ValidateOptions(now=NOW, fast_scan=fast_scan))
    expected = reference(files)
    assert cross_file(report) == expected
    assert [(name, line) for name, line, *_ in expected] == \
        [("sitemap-0.xml", 3), ("sitemap-1.xml", 3), ("sitemap-1.xml", 3)]


def test_a_file_that_changes_before_the_second_reading_is_said(tmp_path, monkeypatch):
    """The names of a broken set come from reading its files again: a file that lost a
    URL in between gets a note, so findings missing from it are never a silent gap."""
    from sitemapkit.validate import sitewide

    en, de, fr = PAGES[:3]
    files = [("sitemap.xml", [(en, [("en", en), ("de", de)]), (de, [("de", de), ("fr", fr)])])]
    site = write(tmp_path, files)
    original = sitewide.XmlCheck

    class Changing(original):  # type: ignore[misc, valid-type]
        def run(self):  # type: ignore[no-untyped-def]
            self.path.write_text(urlset(cluster_url(en, files[0][1][0][1]), xhtml=True))
            return super().run()

    monkeypatch.setattr(sitewide, "XmlCheck", Changing)
    report = validate([site], ValidateOptions(now=NOW))
    assert report.notes == ["sitemap.xml changed while it was validated (2 URLs, then 1): "
                            "its hreflang cluster findings (rule 36) may be incomplete; "
                            "validate again"]
    monkeypatch.setattr(sitewide, "XmlCheck", original)
    write(tmp_path / "again", files)
    assert validate([tmp_path / "again" / "site"], ValidateOptions(now=NOW)).notes == []
