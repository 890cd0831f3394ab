"""Hypothesis fuzzing of both twins with hostile Unicode: every input ends as a clear
error naming its rule, or as XML that parses, validates and round-trips to the
normalised input. Both twins give identical bytes or the identical error."""

from __future__ import annotations

import os
from collections import Counter
from datetime import datetime, timezone

from figures import FIGURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from sitemap_check import NS, PARSER, XHTML, schema
from twin_drivers import offer_outcome

from sitemapkit import UrlEntry
from sitemapkit.rules import RULES, normalize_entry

BASE = "https://example.com/docs/"
FUTURE_LIMIT = int(datetime(2026, 1, 1, tzinfo=timezone.utc).timestamp()) + 86_400
# 10,000 in every test run; the sanitizer build takes fewer (.ci/sanitize.sh), as its
# atheris harnesses fuzz the same entry points far longer
EXAMPLES = int(os.environ.get("SITEMAPKIT_FUZZ_EXAMPLES", "10000"))
HOSTILE = ["\x00", "\x01", "\x08", "\x0b", "\x1f", "\x7f", "\x80", "\x85", "\x9f", "\ud800",
           "\udfff", "\ufffe", "\uffff", "\ufeff", "]]>", "<", ">", "&", "'", '"', "&amp;",
           "&#x0;", "<![CDATA[", "<!DOCTYPE x>", "<?pi?>", "%", "%zz", "%C3%BC", "#", "?",
           "/../", "/./", "\\", " ", "\t", "\n", "\r", "é", "ß", "€", "😀", "\u202e", "\u0301"]
HOSTS = ["example.com", "EXAMPLE.com:443", "bücher.example", "xn--bcher-kva.example",
         "例え.テスト", "example.com.", "127.0.0.1", "[::1]", "exa mple.com", ""]
anything = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
printable = st.text(st.characters(exclude_categories=("Cc", "Cs")), max_size=12)
piece = st.one_of(st.sampled_from(HOSTILE), anything, printable, printable,
                  st.text("abc-_~/", max_size=10))
path = st.lists(piece, max_size=10).map("".join)
long_path = st.integers(2000, 2100).map(lambda n: "a" * n)
locs = st.one_of(
    path.map(lambda p: BASE + p),
    st.tuples(st.sampled_from(["https://", "http://", "HTTPS://", "ftp://", "//", ""]),
              st.sampled_from(HOSTS), st.sampled_from(["/docs/", "/", "/other/"]), path)
    .map("".join),
    long_path.map(lambda p: BASE + p),
    anything,
    st.lists(st.one_of(printable, st.sampled_from(HOSTILE[15:])), max_size=6)
    .map(lambda p: BASE + "".join(p)),
)
text_field = st.one_of(st.none(), anything, st.sampled_from(HOSTILE),
                       st.sampled_from(["2024-01-01", "2024-01-01T00:00:00Z", "daily", "0.5",
                                        "2024-01-01</lastmod><x/>", "daily<x/>", "1<x/>"]))
hreflangs = st.one_of(st.sampled_from(["en", "de-AT", "x-default", "zh-Hant-TW", "en-", "e n"]),
                      anything, st.sampled_from(HOSTILE))
alternates = st.lists(st.tuples(hreflangs, locs), max_size=3)
# Most clusters list the entry itself first (rule 36), so the other alternate checks run.
clustered = st.tuples(locs, alternates, st.booleans()).map(
    lambda t: UrlEntry(t[0], alternates=((("en", t[0]),) if t[2] else ()) + tuple(t[1])))
entries = st.one_of(locs, st.builds(UrlEntry, locs, text_field, text_field, text_field),
                    clustered)
REJECTED: Counter[str] = Counter()
FIGURES["fuzz examples (both twins), outcome"] = REJECTED
TAGS = {f"{{{NS}}}{t}" for t in ("urlset", "url", "loc", "lastmod", "changefreq", "priority")}
TAGS.add(f"{{{XHTML}}}link")


def twin_outcome(module, item):
    got = offer_outcome(module, item, FUTURE_LIMIT, BASE)
    return got if got[0] == "error" else ("ok", got[2])


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(item=entries)
def test_hostile_input_is_a_clear_error_or_valid_round_tripping_xml(both_impls, item):
    outcomes = [twin_outcome(impl.module, item) for impl in both_impls]
    assert all(o == outcomes[0] for o in outcomes), "the twins disagree"
    outcome = outcomes[0]
    if outcome[0] == "error":
        _, rule, message = outcome
        assert rule in RULES and f"breaks rule '{rule}'" in message
        REJECTED[rule] += 1
        return
    REJECTED["written"] += 1
    xml = outcome[1]
    root = etree.fromstring(xml, PARSER)
    schema("sitemap.xsd").assertValid(root)
    assert xml.count(b"<?") == 1 and b"<!" not in xml  # only the declaration
    assert {el.tag for el in root.iter()} <= TAGS
    expected = normalize_entry(item, BASE, FUTURE_LIMIT)
    url = root[0]
    assert url.findtext(f"{{{NS}}}loc") == expected.loc
    if expected.lastmod is not None:
        assert url.findtext(f"{{{NS}}}lastmod") == str(expected.lastmod)
    links = [(a.get("rel"), a.get("hreflang"), a.get("href"))
             for a in url.iter(f"{{{XHTML}}}link")]
    assert links == [("alternate", lang, href) for lang, href in expected.alternates]
