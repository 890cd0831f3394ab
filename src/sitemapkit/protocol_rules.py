"""The protocol rules sitemapkit enforces, numbered as its messages cite them.

``sitemapkit rules`` prints them; ``sitemapkit rules 10`` or ``sitemapkit rules
loc-too-long`` prints one. Every error and finding names its rule number, so a
message like ``(sitemapkit rules 10)`` is one command away from its reason.
"""

from __future__ import annotations

from typing import NamedTuple

from .protocol import (
    CHANGEFREQS,
    DEFAULT_MAX_BYTES,
    MAX_BYTES,
    MAX_LOC_LENGTH,
    MAX_URLS,
    MIN_LOC_LENGTH,
    SITEMAP_NS,
)

SOURCES = {
    "S1": "https://www.sitemaps.org/protocol.html",
    "S2": "https://www.sitemaps.org/faq.html",
    "S3": "https://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd",
    "S4": "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap",
    "S5": "https://developers.google.com/search/docs/crawling-indexing/sitemaps/large-sitemaps",
    "S6": "https://developers.google.com/search/docs/specialty/international/localized-versions",
    "S7": "https://developers.google.com/search/blog/2023/06/sitemaps-lastmod-ping",
    "S8": "https://developers.google.com/search/blog/2013/04/x-default-hreflang-for-"
          "international-pages",
    "S9": "https://blogs.bing.com/webmaster/may-2022/Spring-cleaning-Removed-Bing-anonymous-"
          "sitemap-submission",
    "S10": "https://blogs.bing.com/webmaster/february-2023/The-Importance-of-Setting-the-"
           "lastmod-Tag-in-Your-Sitemap",
    "S11": "https://blogs.bing.com/webmaster/July-2025/Keeping-Content-Discoverable-with-"
           "Sitemaps-in-AI-Powered-Search",
    "S12": "https://www.w3.org/TR/NOTE-datetime",
    "S13": "https://www.rfc-editor.org/rfc/rfc3986",
}


class Rule(NamedTuple):
    title: str
    why: str  # in a sentence or two: what breaks without it
    sources: tuple[str, ...]


RULES: dict[int, Rule] = {
    1: Rule("UTF-8", "Sitemaps are read as UTF-8; other encodings or a stray byte-order mark "
            "make parsers reject or misread the file.", ("S1", "S2", "S4")),
    2: Rule("well-formed XML, values escaped once", "An unescaped & breaks the parse; a value "
            "escaped twice becomes a different URL (&amp;amp;).", ("S1", "S2", "S4")),
    3: Rule("no DOCTYPE or entity declarations", "They are never needed in a sitemap and are a "
            "classic parser attack; a template accident is the usual cause.", ()),
    4: Rule("the sitemaps.org 0.9 namespace on <urlset> or <sitemapindex>", "Without exactly "
            f"{SITEMAP_NS} the file is not a sitemap to crawlers.", ("S1", "S3")),
    5: Rule("http:// in the namespace is right", "The namespace is an identifier, not a link; "
            "changing it to https makes it a different (unknown) namespace.", ("S7",)),
    6: Rule("one <loc> per <url>, children in schema order", "The schema fixes loc, lastmod, "
            "changefreq, priority, then extensions; other orders fail validation.", ("S3",)),
    7: Rule("never empty", "A urlset needs at least one <url>, an index at least one "
            "<sitemap>.", ("S3",)),
    8: Rule("extension elements in their own declared namespace", "Alternates and other "
            "extensions must use their namespace, declared on the root element.", ("S1", "S6")),
    9: Rule("absolute http(s) URLs", "Crawlers need the scheme and host; a relative URL is not "
            "a location.", ("S1", "S2", "S4")),
    10: Rule(f"at most {MAX_LOC_LENGTH:,} characters", "The protocol says fewer than "
             f"{MAX_LOC_LENGTH + 1:,}; longer URLs are rejected.", ("S1", "S3")),
    11: Rule("percent-encoded URLs", "Non-ASCII is encoded as UTF-8 %XX, spaces and quotes are "
             "escaped, and every % starts a valid escape.", ("S1", "S2", "S13")),
    12: Rule(f"at least {MIN_LOC_LENGTH} characters", "The schema's minimum length for a loc.",
             ("S3",)),
    13: Rule("no #fragment", "Crawlers drop fragments, so heading anchors must not become "
             "entries.", ()),
    14: Rule("only canonical, indexable pages", "List the URL you want in search results: not "
             "a missing page, a noindex page, a redirect stub or a copy whose canonical is "
             "elsewhere.", ("S2", "S4")),
    15: Rule("each URL once", "List one version of a URL, compared after normalising scheme, "
             "host, default port and %XX case.", ("S2", "S4")),
    16: Rule("lastmod is a W3C datetime the schema accepts", "YYYY-MM-DD or "
             "YYYY-MM-DDThh:mm:ss with Z or an offset; a time without an offset is "
             "ambiguous.", ("S1", "S2", "S3", "S12")),
    17: Rule("lastmod is the page's last real change", "Not the build time: engines stop "
             "trusting lastmod that changes on every build.", ("S1", "S4", "S7", "S10", "S11")),
    18: Rule("lastmod is not in the future", "Future timestamps are rejected (a day of clock "
             "skew is tolerated).", ("S11",)),
    19: Rule("changefreq is one of seven words", f"{', '.join(CHANGEFREQS[:-1])} or "
             f"{CHANGEFREQS[-1]}, in lower case.", ("S1", "S3")),
    20: Rule("priority is 0.0 to 1.0", "A decimal number in that range.", ("S1", "S3")),
    21: Rule("changefreq and priority are ignored by Google and Bing", "So sitemapkit leaves "
             "them out unless asked.", ("S4", "S7", "S11")),
    22: Rule(f"at most {MAX_URLS:,} URLs per sitemap", "Larger sets are split into shards under an "
             "index.", ("S1", "S4")),
    23: Rule("a byte cap per file, uncompressed", f"At most {MAX_BYTES:,} bytes by the protocol; "
             f"sitemapkit defaults to the older {DEFAULT_MAX_BYTES:,} every consumer accepts.",
             ("S1", "S4")),
    24: Rule("alternates do not count as URLs", f"Only <url> counts toward {MAX_URLS:,}; "
             "alternates "
             "still count toward bytes.", ("S6",)),
    25: Rule("sitemap index format", "<sitemapindex> of <sitemap> entries with <loc> and an "
             "optional <lastmod>.", ("S1", "S3", "S5")),
    26: Rule(f"at most {MAX_URLS:,} sitemaps per index", "Past that, write more indexes; "
             "never nest "
             "them.", ("S1", "S5", "S11")),
    27: Rule("an index names existing sitemaps, never an index", "Each <loc> of an index must "
             "be a valid sitemap file; indexes of indexes are not followed.", ("S1",)),
    28: Rule("indexed sitemaps sit beside the index or below", "A sitemap outside the index's "
             "directory is not covered by it.", ("S1", "S5")),
    29: Rule("index lastmod is the sitemap's modification time", "The newest lastmod in that "
             "sitemap, in the rule 16 format.", ("S1",)),
    30: Rule("Search Console takes up to 500 index files per site", "Not checked.", ("S5",)),
    31: Rule("gzip, not zip", "A .gz file must be a complete gzip stream (magic bytes, CRC, "
             "not truncated), and gzip data must be named .gz.", ("S1", "S2")),
    32: Rule("text sitemaps: one absolute URL per line", "Nothing else on a line, no blank "
             f"lines, at most {MAX_URLS:,} lines, UTF-8.", ("S1", "S4")),
    33: Rule("one scheme, host and port per sitemap", "All URLs of a sitemap come from one "
             "host.", ("S1",)),
    34: Rule("a sitemap covers its own directory and below", "/docs/sitemap.xml may list "
             "/docs/a but not /blog/b.", ("S1", "S4", "S6")),
    35: Rule("robots.txt names sitemaps by absolute URL", "A Sitemap: line takes a full URL; "
             "crawlers read robots.txt only at the host root.", ("S1", "S4")),
    36: Rule("hreflang clusters are complete and agree", "Each language version lists every "
             "version, itself included, and all members list the same set; otherwise the "
             "cluster is ignored.", ("S6", "S8")),
    37: Rule("hreflang codes are language[-Script][-RE]", "An ISO 639-1 language, optional "
             "script and region, or x-default; a region alone does nothing.", ("S6",)),
    38: Rule("alternate URLs are absolute", "Like every loc: scheme and host included.",
             ("S6",)),
    39: Rule("at most one x-default", "It names the fallback page of a cluster.",
             ("S6", "S8")),
    40: Rule("do not ping", "Google and Bing removed their ping endpoints (2023, 2022); a "
             "robots.txt Sitemap: line is the way.", ("S7", "S9")),
    41: Rule("IndexNow is opt-in", "Bing's push for changed URLs, beside sitemaps; it needs a "
             "key file on the site.", ("S9", "S11")),
    42: Rule("a sitemap is a hint", "Engines crawl on their own schedule.", ("S4", "S9")),
}


def describe(number: int, ids: list[str] | None = None) -> str:
    """One rule as printed by ``sitemapkit rules``: number, ids, title, reason, sources."""
    rule = RULES[number]
    named = f" ({', '.join(ids)})" if ids else ""
    sources = "".join(f"\n    {SOURCES[s]}" for s in rule.sources)
    return f"rule {number}{named}: {rule.title}\n    {rule.why}{sources}"
