"""Every entry rule: one failing case each with its message, and normalisation."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sitemap_check import read_set

from conftest import BASE, snapshot
from sitemapkit import RULES, EntryError, NoUrlsError, UrlEntry
from sitemapkit.hreflang import cluster

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)

BAD = [
    # (entry, rule, text that must appear in the message)
    (42, "entry-type", "int"),
    ({"loc": BASE + "a", "color": "red"}, "entry-type", "unknown keys ['color']"),
    ({"lastmod": "2024-01-01"}, "entry-type", "no loc"),
    (UrlEntry(None), "loc-type", "loc None"),  # type: ignore[arg-type]
    ("docs/page.html", "loc-absolute", "'docs/page.html'"),
    ("/docs/page.html", "loc-absolute", "absolute"),
    ("//example.com/docs/a", "loc-absolute", "absolute"),
    ("https:///docs/a", "loc-absolute", "no host"),
    ("ftp://example.com/docs/a", "loc-scheme", "scheme 'ftp'"),
    ("https://user:pw@example.com/docs/a", "loc-userinfo", "credentials"),
    ("https://exa mple.com/docs/a", "loc-host", "host"),
    ("https://example.com:99999/docs/a", "loc-port", "99999"),
    (BASE + "a\x00b", "loc-control-char", "U+0000"),
    (BASE + "a\nb", "loc-control-char", "U+000A"),
    (BASE + "a\x85b", "loc-control-char", "U+0085"),
    (BASE + "a\ud800b", "loc-unicode", "lone surrogate U+D800"),
    (BASE + "100%", "loc-percent", "malformed %-escape"),
    (BASE + "%G1", "loc-percent", "two hex digits"),
    ("https://example.com/other/a", "loc-outside-site", "base URL 'https://example.com/docs/'"),
    ("https://example.org/docs/a", "loc-outside-site", "scheme and host"),
    ("http://example.com/docs/a", "loc-outside-site", "at or below"),
    (BASE + "../etc/passwd", "loc-outside-site", "at or below its path"),
    (BASE + "a" * 2100, "loc-too-long", "2047"),
    (BASE + "ü" * 400, "loc-too-long", "once percent-encoded"),
    (UrlEntry(BASE + "a", 20240101), "lastmod-type", "W3C Datetime"),
    (UrlEntry(BASE + "a", "2024"), "lastmod-format", "YYYY-MM-DD"),
    (UrlEntry(BASE + "a", "2024-01"), "lastmod-format", "'2024-01'"),
    (UrlEntry(BASE + "a", "2024-01-02T10:00+00:00"), "lastmod-format", "hh:mm:ss"),
    (UrlEntry(BASE + "a", "2024-01-02Z"), "lastmod-format", "'2024-01-02Z'"),
    (UrlEntry(BASE + "a", "2024/01/02"), "lastmod-format", "2024/01/02"),
    (UrlEntry(BASE + "a", "2024-02-30"), "lastmod-format", "day is out of range"),
    (UrlEntry(BASE + "a", "2024-01-02T25:00:00Z"), "lastmod-format", "out of range"),
    (UrlEntry(BASE + "a", "2024-01-02T10:00:00+15:00"), "lastmod-format", "offset"),
    (UrlEntry(BASE + "a", "2024-01-02T10:00:00"), "lastmod-timezone", "no UTC offset"),
    (UrlEntry(BASE + "a", datetime(2024, 1, 2)), "lastmod-timezone", "naive datetime"),
    (UrlEntry(BASE + "a", NOW + timedelta(days=2)), "lastmod-future", "24 hours"),
    (UrlEntry(BASE + "a", None, "Daily"), "changefreq", "'Daily'"),
    (UrlEntry(BASE + "a", None, "sometimes"), "changefreq", "lower case"),
    (UrlEntry(BASE + "a", None, None, 1.5), "priority", "0.0 to 1.0"),
    (UrlEntry(BASE + "a", None, None, "high"), "priority", "'high'"),
    (UrlEntry(BASE + "a", None, None, True), "priority", "True"),
    (UrlEntry(BASE + "a", None, None, "0.12345"), "priority", "more than 3 decimals"),
    (UrlEntry(BASE + "a", alternates=(("english", BASE + "a"),)), "alternate", "'english'"),
    (UrlEntry(BASE + "a", alternates=(("de", "/de/a"),)), "loc-absolute", "alternate href"),
    (UrlEntry(BASE + "a", alternates=("de",)), "alternate", "'de'"),
    (UrlEntry(BASE + "a", alternates=(("de", BASE + "de/a"),)), "alternate-self", "own URL"),
    (BASE + "a?x=1&amp;y=2", "loc-escaped-twice", "&amp;"),
    (UrlEntry(BASE + "a", alternates=(("en", BASE + "a"), ("de", BASE + "b?q&lt;"))),
     "loc-escaped-twice", "alternate href"),
    (UrlEntry(BASE + "a", alternates=(("en", BASE + "a"), ("EN", BASE + "b"))),
     "alternate-repeat", "'EN'"),
    (UrlEntry(BASE + "a", alternates=(("en", BASE + "a"), ("x-default", BASE + "a"),
                                      ("x-default", BASE + "b"))), "alternate-repeat",
     "more than once"),
]


def test_every_rule_has_a_failing_case():
    cross_entry = {"entry-too-large", "alternate-cluster"}  # tested on their own
    assert {rule for _, rule, _ in BAD} | cross_entry == set(RULES)


@pytest.mark.parametrize(("entry", "rule", "text"), BAD, ids=[f"{r}-{i}" for i, (_, r, _) in
                                                              enumerate(BAD)])
def test_bad_entry_fails_naming_position_value_and_rule(impl, out, entry, rule, text):
    impl.write([BASE + "good"], out, BASE, now=NOW)
    before = snapshot(out)
    with pytest.raises(EntryError) as info:
        impl.write([BASE + "first", BASE + "second", entry, BASE + "after"], out, BASE, now=NOW)
    message = str(info.value)
    assert info.value.rule == rule and info.value.position == 3
    assert message.startswith("entry 3: ")
    body, ref, number = RULES[rule].rpartition(" (sitemapkit rules ")
    assert f"breaks rule '{rule}'" in message and (body or number) in message
    assert not ref or message.endswith(ref + number)  # the value's detail comes before it
    assert text in message
    assert snapshot(out) == before  # the failed run changed nothing, left no temp files


def test_skip_mode_reports_everything_it_skipped(impl, out):
    entries = [BASE + "a", "relative", UrlEntry(BASE + "b", "2024-13-01"), BASE + "c", "x y"]
    result = impl.write(entries, out, BASE, on_invalid="skip")
    assert result.url_count == 2 and result.skipped_count == 3
    assert result.skipped_by_rule == {"loc-absolute": 2, "lastmod-format": 1}
    assert [e.position for e in result.skipped] == [2, 3, 5]
    assert read_set(out, BASE).locs == [BASE + "a", BASE + "c"]


def test_all_invalid_refuses_to_write_an_empty_sitemap(impl, out):
    with pytest.raises(NoUrlsError, match="2 entries skipped"):
        impl.write(["a", "b"], out, BASE, on_invalid="skip")
    with pytest.raises(NoUrlsError, match="empty sitemap"):
        impl.write([], out, BASE)
    assert list(out.iterdir()) == []


@pytest.mark.parametrize(
    ("loc", "canonical"),
    [
        (BASE + "über uns.html", BASE + "%C3%BCber%20uns.html"),
        (BASE + "a&b.html", BASE + "a&b.html"),
        (BASE + "😀", BASE + "%F0%9F%98%80"),
        (BASE + "%c3%bc", BASE + "%C3%BC"),
        (BASE + "page#section-2", BASE + "page"),
        (BASE + "a/./b/../c", BASE + "a/c"),
        (BASE + "q?x={1}|2", BASE + "q?x=%7B1%7D%7C2"),
        ("HTTPS://EXAMPLE.COM:443/docs/Case", BASE + "Case"),
        ("https://example.com/docs/.well-known/x", BASE + ".well-known/x"),
        (BASE + "\ufffe\uffff", BASE + "%EF%BF%BE%EF%BF%BF"),
    ],
)
def test_loc_normalisation(impl, out, loc, canonical):
    impl.write([loc], out, BASE)
    assert read_set(out, BASE).locs == [canonical]


def test_idna_host_and_port(impl, out):
    base = "https://bücher.example:8443/"
    impl.write(["https://BÜCHER.example:8443/a b"], out, base)
    assert read_set(out, "https://xn--bcher-kva.example:8443/").locs == [
        "https://xn--bcher-kva.example:8443/a%20b"]


@pytest.mark.parametrize(
    ("value", "emitted"),
    [
        ("2024-01-02T03:04:05Z", "2024-01-02T03:04:05+00:00"),
        ("2024-01-02T03:04:05.123456-00:00", "2024-01-02T03:04:05+00:00"),
        (" 2024-01-02\t", "2024-01-02"),
        (date(2024, 1, 2), "2024-01-02"),
        (datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=5, minutes=30))),
         "2024-01-02T03:04:05+05:30"),
    ],
)
def test_lastmod_normalisation(impl, out, value, emitted):
    impl.write([UrlEntry(BASE + "a", value)], out, BASE)
    assert read_set(out, BASE).urls[0].lastmod == emitted


@pytest.mark.parametrize(("value", "emitted"), [(0.5, "0.5"), (1, "1.0"), (0, "0.0"),
                                                ("0.80", "0.8"), (Decimal("0.125"), "0.125")])
def test_priority_normalisation(impl, out, value, emitted):
    impl.write([UrlEntry(BASE + "a", priority=value, changefreq="never")], out, BASE)
    url = read_set(out, BASE).urls[0]
    assert (url.priority, url.changefreq) == (emitted, "never")


def test_mappings_and_alternates(impl, out):
    entries = [{"loc": BASE + "en/a", "alternates": [["en", BASE + "en/a"], ["de", BASE + "de/a"],
                                                     ["x-default", BASE + "en/a"]]}]
    impl.write(entries, out, BASE)
    url = read_set(out, BASE).urls[0]
    assert url.alternates == [("en", BASE + "en/a"), ("de", BASE + "de/a"),
                              ("x-default", BASE + "en/a")]


def test_cluster_members_must_agree(impl, out):
    en, de, fr = BASE + "en/a", BASE + "de/a", BASE + "fr/a"
    first = cluster({"en": en, "de": de}, x_default="en")
    assert first == (("en", en), ("de", de), ("x-default", en))
    disagreeing = cluster({"de": de, "en": en, "fr": fr})
    with pytest.raises(EntryError) as caught:
        impl.write([UrlEntry(en, alternates=first), UrlEntry(de, alternates=disagreeing)],
                   out, BASE)
    assert caught.value.rule == "alternate-cluster" and caught.value.position == 2
    assert "fr " + fr in str(caught.value)
    assert not (out / "sitemap.xml").exists()


def test_cluster_written_on_every_member_and_half_clusters_warned(impl, out):
    en, de = BASE + "en/a", BASE + "de/a"
    alts = cluster({"en": en, "de": de}, x_default="en")
    result = impl.write([UrlEntry(en, alternates=alts), UrlEntry(de, alternates=alts)],
                        out, BASE)
    assert result.warnings == []
    urls = read_set(out, BASE).urls
    assert [u.alternates for u in urls] == [list(alts), list(alts)]
    result = impl.write([UrlEntry(en, alternates=alts), BASE + "b"], out, BASE)
    assert len(result.warnings) == 1 and de in result.warnings[0]


def _slow(fn, *args):
    """What a URL rule answers with the already-canonical shortcut switched off."""
    from unittest import mock

    from sitemapkit.rules import urls

    with mock.patch.object(urls, "already_canonical", lambda url: False):
        try:
            return fn(*args)
        except EntryError as exc:
            return ("error", exc.rule)


CANONICAL_PIECES = ["a", "B", "0", "-", ".", "/", "..", "./", "%41", "?", "=", "&", "'", ":",
                    "@", "~", "_", "!", "$", "(", "*", "+", ",", ";"]
URL_PIECES = CANONICAL_PIECES + ["%4a", "%zz", "%", "&amp;", "&lt;", "é", " ", "#f", "\t"]
TAILS = (st.lists(st.sampled_from(CANONICAL_PIECES), max_size=8)
         | st.lists(st.sampled_from(URL_PIECES), max_size=12)).map("".join)


@settings(max_examples=500, deadline=None)
@given(scheme=st.sampled_from(["https://"] * 4 + ["http://", "HTTPS://", "ftp://", "https:/"]),
       host=st.sampled_from(["example.com"] * 6 + ["EXAMPLE.com", "a..b", "-x.org",
                             "ex-ample.de", "example.com:443", "example.com:8080", "bücher.de",
                             ""]),
       tail=TAILS, long=st.integers(0, 9).map(lambda n: n == 0))
def test_the_canonical_shortcut_answers_as_the_rules_do(scheme, host, tail, long):
    """A URL already canonical skips split_url's work per character: href and loc come
    out exactly as the full rules make them, and anything else still goes through
    them (dot segments, entities, hosts, ports, case, length)."""
    from sitemapkit.rules.urls import already_canonical, normalize_href, normalize_loc

    url = scheme + host + "/" + tail + ("x" * 2100 if long else "")
    for fn, args in ((normalize_href, (url,)), (normalize_loc, (url, "https://example.com/"))):
        try:
            fast = fn(*args)
        except EntryError as exc:
            fast = ("error", exc.rule)
        assert fast == _slow(fn, *args), url
    if already_canonical(url):
        assert normalize_href(url) == url


def test_alternates_are_checked_again_whenever_they_change():
    """Members of a cluster reuse the last answer; any change, a bad value after a good
    one, and a generator (read once) are all answered afresh."""
    from sitemapkit.rules.hreflang import normalize_alternates

    pairs = [["en", BASE + "a"], ["de", BASE + "de/a"]]
    first = normalize_alternates(pairs)
    assert normalize_alternates([tuple(p) for p in pairs]) is first
    assert normalize_alternates([["en", BASE + "a"], ["de", BASE + "de/b"]])[1][1] == BASE + "de/b"
    with pytest.raises(EntryError, match="alternate"):
        normalize_alternates([["en", BASE + "a"], ["english", BASE + "de/a"]])
    with pytest.raises(EntryError):
        normalize_alternates([["en", BASE + "a"], ["de", "/relative"]])
    assert normalize_alternates(iter(pairs)) == first == normalize_alternates(iter(pairs))


def test_a_cluster_check_shortcut_still_catches_disagreement(impl):
    """Members carrying the very same alternates object skip the per-href work; a member
    that disagrees is still caught, before and after, and a loc that is not among the
    alternates it carries takes the full check."""
    from sitemapkit.rules.hreflang import ClusterCheck

    en, de, fr, x = BASE + "en", BASE + "de", BASE + "fr", BASE + "x"
    pair = (("en", en), ("de", de))
    check = ClusterCheck(impl.module.LocSet(values=True), BASE)
    check.add(x, (("en", x), ("fr", fr)))  # fr is in another cluster
    check.add(en, pair)
    check.add(de, pair)  # the same object: the shortcut
    with pytest.raises(EntryError, match="already in a cluster"):
        check.add(en, (("en", en), ("de", de), ("fr", fr)))
    check.add(de, pair)
    with pytest.raises(EntryError, match="already in a cluster"):
        check.add(fr, pair)  # the same object, but fr is not among its hrefs
    assert check.missing_members() == (1, fr)


class _ClusterOracle:
    """The cluster check as it was written first, with every href's set kept whole
    (~400 bytes a URL): the reference the compact check must agree with."""

    def __init__(self) -> None:
        self.cluster_of: dict[str, frozenset[tuple[str, str]]] = {}
        self.members: set[str] = set()

    def add(self, loc: str, alternates: tuple[tuple[str, str], ...]) -> bool:
        key = frozenset((lang.lower(), href) for lang, href in alternates)
        if any(self.cluster_of.get(h, key) != key for h in (loc, *(h for _, h in alternates))):
            return False
        for _, href in alternates:
            self.cluster_of[href] = key
        self.members.add(loc)
        return True

    def missing(self) -> list[str]:
        return sorted(h for h in self.cluster_of if h.startswith(BASE) and h not in self.members)


_PAGES = [BASE + p for p in ("a", "b", "c", "d", "e")] + ["https://other.example/x"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PAGES[:5]),
                          st.lists(st.tuples(st.sampled_from(["en", "EN", "de", "fr", "x-default"]),
                                             st.sampled_from(_PAGES)),
                                   min_size=1, max_size=4, unique_by=lambda p: p[0].lower()),
                          st.booleans()), max_size=25),
       st.integers(1, 3))
def test_the_compact_cluster_check_agrees_with_whole_sets(impl, members, recent):
    """The writer's check keeps a hash and a digest per href (the hot unit's value
    table), strings only for hrefs still waiting for their member and for a few recent
    clusters. On random members (each lists itself, as the per-entry rule makes sure),
    repeats and shared alternates objects, it refuses exactly the members the whole-set
    check refuses and counts the same missing hrefs, also when the cluster it disagrees
    with has left the recent ones and when older waiting hrefs are only a bit."""
    from sitemapkit.rules import hreflang

    check = hreflang.ClusterCheck(impl.module.LocSet(values=True), BASE)
    oracle = _ClusterOracle()
    last: tuple[tuple[str, str], ...] = ()
    old, hreflang.RECENT_CLUSTERS = hreflang.RECENT_CLUSTERS, recent
    kept = hreflang.WAITING_KEPT
    hreflang.WAITING_KEPT = recent if recent < 3 else kept  # 1 or 2: waits become bits
    try:
        for loc, pairs, reuse in members:
            if all(href != loc for _, href in pairs):
                pairs[0] = (pairs[0][0], loc)
            alternates = last if reuse and loc in dict(last).values() else tuple(pairs)
            expected = oracle.add(loc, alternates)
            try:
                check.add(loc, alternates)
            except EntryError as exc:
                assert not expected, exc
                assert exc.rule == "alternate-cluster" and "already in a cluster" in str(exc)
            else:
                assert expected
            last = alternates
    finally:
        hreflang.RECENT_CLUSTERS, hreflang.WAITING_KEPT = old, kept
    count, example = check.missing_members()
    missing = oracle.missing()
    assert count == len(missing)
    if recent == 3:  # every waiting href kept as a string: the smallest is the example
        assert example == (min(missing) if missing else None)
    else:
        assert example is None or example in missing


def test_a_disagreeing_member_names_what_differs_or_who_listed_it(impl):
    from sitemapkit.rules import hreflang

    en, de, fr = BASE + "en", BASE + "de", BASE + "fr"
    check = hreflang.ClusterCheck(impl.module.LocSet(values=True), BASE)
    check.add(en, (("en", en), ("de", de)))
    with pytest.raises(EntryError, match=r"they differ in \['fr https://example.com/docs/fr'\]"):
        check.add(de, (("en", en), ("de", de), ("fr", fr)))
    old, hreflang.RECENT_CLUSTERS = hreflang.RECENT_CLUSTERS, 1
    try:
        check.add(BASE + "x", (("en", BASE + "x"),))  # the en/de cluster leaves the recent ones
        with pytest.raises(EntryError, match="listed by an earlier entry; this entry lists"):
            check.add(de, (("de", de),))
    finally:
        hreflang.RECENT_CLUSTERS = old


def test_one_language_after_another_keeps_no_strings_per_waiting_href(impl, monkeypatch):
    """A multilingual export often writes every English page, then every German one:
    each English member waits for its German twin. Past WAITING_KEPT strings, a wait is
    a bit in the table; the count and an example still come out."""
    from sitemapkit.rules import hreflang

    monkeypatch.setattr(hreflang, "WAITING_KEPT", 64)
    check = hreflang.ClusterCheck(impl.module.LocSet(values=True), BASE)
    clusters = [(("en", f"{BASE}en/{i}"), ("de", f"{BASE}de/{i}"), ("fr", f"https://fr.example/{i}"))
                for i in range(1_000)]
    for alternates in clusters:
        check.add(alternates[0][1], alternates)
    assert check.missing_members()[0] == 1_000 and len(check._waiting) == 64
    for alternates in clusters[1:]:  # every German page but the first (fr is elsewhere)
        check.add(alternates[1][1], alternates)
    assert check.missing_members() == (1, None)  # de/0 waits as a bit: no string left
    check.add(clusters[5][1][1], clusters[5])  # a German page again: counted once
    assert check.missing_members() == (1, None)
    check.add(clusters[0][1][1], clusters[0])
    assert check.missing_members() == (0, None)
    check.add(BASE + "x", (("en", BASE + "x"), ("de", BASE + "de/x")))
    assert check.missing_members() == (1, BASE + "de/x")
