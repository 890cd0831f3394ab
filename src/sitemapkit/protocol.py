"""Every protocol fact the package uses, once: limits, namespaces, file suffixes,
changefreq values and the URL character classes.

The writer, both hot-unit twins (the C twin builds its byte tables from these
strings at import), the validator and the hosts read them from here; a test greps
the package for any of these values written as a literal elsewhere. The numbers in
comments are the rules of ``sitemapkit rules N`` (``protocol_rules.py``).
"""

from __future__ import annotations

import re
import string
import zlib

# --- namespaces and file framing (rules 1-6) ---------------------------------
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
# Extensions whose schemas Google publishes (rule 8: the <url> wildcard is strict, so an
# extension is accepted where its schema is known). Each: its top element inside <url>,
# and the children that schema requires, "a|b" meaning one of them.
KNOWN_EXTENSIONS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "http://www.google.com/schemas/sitemap-image/1.1": ("image", "image", ("loc",)),
    "http://www.google.com/schemas/sitemap-video/1.1": (
        "video", "video", ("thumbnail_loc", "title", "description", "content_loc|player_loc")),
    "http://www.google.com/schemas/sitemap-news/0.9": (
        "news", "news", ("publication", "publication_date", "title")),
}
LEGACY_NAMESPACES = {
    "http://www.google.com/schemas/sitemap/0.84": "the legacy Google 0.84 namespace",
    "https://www.sitemaps.org/schemas/sitemap/0.9": "https instead of http",
}

# --- limits (rules 10, 12, 21-23, 27) ------------------------------------------
MAX_URLS = 50_000  # per sitemap file, and sitemaps per index file
MAX_BYTES = 52_428_800  # uncompressed, per file: the current protocol maximum
DEFAULT_MAX_BYTES = 10_485_760  # the older, stricter figure every consumer accepts
MIN_MAX_BYTES = 1024  # smallest byte cap we accept: one entry must fit
MAX_LOC_LENGTH = 2047  # fewer than 2,048 characters once percent-encoded
MIN_LOC_LENGTH = 12  # sitemap.xsd minLength

# --- files ---------------------------------------------------------------------
SITEMAP_SUFFIXES = (".xml", ".xml.gz", ".txt", ".txt.gz")
TEXT_SUFFIXES = (".txt", ".txt.gz")  # text sitemaps: one URL a line
DEFAULT_FILENAME = {"xml": "sitemap.xml", "text": "sitemap.txt"}
DEFAULT_SHARD_PATTERN = "sitemap-{number:05d}-{digest}.%s.gz"  # % the format's extension
TEXT_INDEX_FILENAME = "sitemap-index.xml"
# shards of a partitioned write (engines, part files): stable across retried tasks
PARTITION_SHARD_PATTERN = "sitemap-p{partition:05d}-{number:05d}-{digest}.{ext}.gz"
EXTRA_INDEX_PATTERN = "sitemap-index-{number:05d}.xml"

# --- fields (rules 16-20) ------------------------------------------------------
CHANGEFREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
MAX_UTC_OFFSET_MINUTES = 14 * 60  # xsd:dateTime allows -14:00..+14:00
FUTURE_TOLERANCE_SECONDS = 86_400  # a lastmod may lead the clock by a day (rule 18)
PRIORITY_DECIMALS = 3
PLAIN_PRIORITIES = frozenset(f"{i / 10:.1f}" for i in range(11)) | {"0", "1"}
"""priority texts valid without parsing a decimal: what nearly every sitemap holds."""

# --- URLs (rules 9, 11, 13) ----------------------------------------------------
DEFAULT_PORTS = {"http": "80", "https": "443"}
URL_UNRESERVED = string.ascii_letters + string.digits + "-._~"
URL_SUB_DELIMS = "!$&'()*+,;="
URL_KEPT = URL_UNRESERVED + URL_SUB_DELIMS + ":@/?"
"""ASCII kept as it is in a canonical path and query (RFC 3986 pchar, '/', '?');
'%' is kept only as the start of an upper-case %hh."""
URL_ENCODED = ' "<>\\^`{|}[]'
"""Printable ASCII that the writer percent-encodes in a path or query."""
HOST_CANONICAL = string.ascii_lowercase + string.digits + ".-"
"""A host as the writer emits it (IDNA applied, lower case): no decoding needed."""
HEX_UPPER = "0123456789ABCDEF"
HEX_DIGITS = "0123456789abcdefABCDEF"
XML_SPECIALS = {"&": "&amp;", "'": "&apos;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
ENTITY_IN_URL = re.compile(r"&(?:amp|lt|gt|quot|apos);")
"""A loc already XML-escaped before it reached the writer (rule 2)."""

# --- hreflang (rules 36-39) ----------------------------------------------------
X_DEFAULT = "x-default"
HREFLANG = re.compile(r"[A-Za-z]{2}(-[A-Za-z]{4})?(-[A-Za-z]{2})?", re.ASCII)
"""A language, an optional script and an optional region (x-default apart)."""
NO_EFFECT_REGIONS = {"uk": "en-GB", "eu": "a country", "un": "a country"}
"""Regions that look like countries but are not ISO 3166 codes (and what to use instead)."""

# --- IndexNow --------------------------------------------------------------------
INDEXNOW_ENDPOINT = "https://api.indexnow.org/indexnow"
INDEXNOW_MAX_BATCH = 10_000


def canonical_tail_pattern() -> str:
    """Regex body for an already-canonical path and query, built from the classes."""
    return "(?:[" + re.escape(URL_KEPT) + "]|%[" + HEX_UPPER + "]{2})*"


CANONICAL_URL = re.compile("https?://[" + re.escape(HOST_CANONICAL) + "]+(/"
                           + canonical_tail_pattern() + ")")
"""A URL as the writer emits it, group 1 its path and query (dot segments and
entities apart: the rules look at those)."""


SNIFF_BYTES = 4096  # the head read to tell a sitemap from any other file
FETCH_DEADLINE = 60.0  # seconds for one URL fetched whole, retries included


def written_by_sitemapkit(head: bytes) -> bool:
    """The first bytes of an XML sitemap carry sitemapkit's own layout (one ``<url>`` or
    ``<sitemap>`` a line, its loc first): a set an earlier run wrote."""
    return b"\n<url><loc>" in head or b"\n<sitemap><loc>" in head


def looks_like_sitemap(head: bytes, name: str) -> bool:
    """The first bytes of a file are a sitemap's: an XML urlset or sitemap index, or for
    a text sitemap an http(s) URL on the first line; gzipped or not. What sitemapkit
    removes must pass this: a feed, a verification file, ads.txt or llms.txt never does."""
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(31).decompress(head, SNIFF_BYTES)
        except zlib.error:
            return False
    if name.endswith(TEXT_SUFFIXES):
        first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0].strip()
        return first.startswith((b"http://", b"https://")) and b" " not in first
    start = head[:SNIFF_BYTES]
    return b"<urlset" in start or b"<sitemapindex" in start
