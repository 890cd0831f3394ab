"""What the engine adapters share: which columns a table may have, the key of a URL,
and one partition's rows as entries.

The key is a 127-bit hash of the *normalized* loc (16 bytes), so ``HTTPS://Example.com/a`` and
``https://example.com/a`` have one key: the first pass of a partitioned write
collects each partition's keys, and the driver finds the URLs an earlier partition
already has (``write.partition.repeated_keys``). The hot unit computes the same key
itself for every URL it writes.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence

from ..._urlset import loc_key
from ...errors import ConfigError
from ...protocol import URL_KEPT
from ...rules.model import EntryError, UrlEntry
from ...rules.urls import normalize_loc

COLUMNS = ("loc", "lastmod", "changefreq", "priority")
KEY_BYTES = 16  # a partition key: two native 64-bit words (the hot unit's key bytes)
_KEY = struct.Struct("=qq")
_SEGMENT = re.escape(URL_KEPT.replace("/", ""))
CANONICAL_PATTERN = (r"https?://[a-z0-9.\-]+(?:/(?:[" + _SEGMENT.replace(r"\.", "")
                     + "][" + _SEGMENT + "]*)?)+")
"""A loc that is already canonical: lower-case scheme and host, no port, no userinfo,
no fragment, nothing to percent-encode, no segment that starts with a dot. For these,
``normalize_loc`` is the identity, so a key is made from the text as it stands."""
_CANONICAL = re.compile(CANONICAL_PATTERN)


def table_columns(columns: Sequence[str], what: str) -> list[str]:
    """The sitemap columns of a table, in protocol order; anything else is an error."""
    names = [str(c) for c in columns]
    if "loc" not in names:
        raise ConfigError(f"{what} has no 'loc' column (columns: {', '.join(names) or 'none'}); "
                          f"the columns sitemapkit reads are {', '.join(COLUMNS)}")
    extra = [c for c in names if c not in COLUMNS]
    if extra:
        raise ConfigError(f"{what} has columns sitemapkit does not read: {', '.join(extra)}; "
                          f"select {', '.join(c for c in COLUMNS if c in names)} first")
    return [c for c in COLUMNS if c in names]


def canonical_loc(loc: object, prefix: str) -> str:
    """The loc as the writer will emit it, or the raw text when it breaks a rule (the
    partition writer then reports it, with its partition and offset)."""
    text = loc if isinstance(loc, str) else str(loc)
    return writer_loc(text, prefix) or text


def writer_loc(text: str, prefix: str) -> str | None:
    """The loc as the writer will emit it, or None when it breaks a rule."""
    if _CANONICAL.fullmatch(text):
        return text
    try:
        return normalize_loc(text, prefix)
    except EntryError:
        return None


def partition_key(loc: object, prefix: str) -> bytes:
    """The canonical loc's key as a keyed buffer hands it on (16 bytes; the same in
    every process and run, unlike ``hash()``): the hot unit's ``loc_key``, which a keyed
    buffer takes for every URL it writes from the hash its duplicate check computes."""
    first, second = loc_key(canonical_loc(loc, prefix).encode("utf-8", "surrogatepass"))
    return _KEY.pack(first, second)


def entries_from_rows(rows: Iterable[Sequence[object]], columns: Sequence[str]
                      ) -> Iterator[UrlEntry]:
    """Rows of a table's sitemap columns as entries; missing values (None, NaN, NaT)
    become absent fields."""
    where = [COLUMNS.index(c) for c in columns]
    for row in rows:
        fields: list[object] = [None, None, None, None]
        for i, value in zip(where, row, strict=True):
            fields[i] = None if _missing(value) else value
        yield UrlEntry(*fields)  # type: ignore[arg-type]


def _missing(value: object) -> bool:
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, float) and value != value  # NaN


def entry_loc(entry: object) -> object:
    """The loc of any entry shape a Bag or RDD may hold (str, mapping, UrlEntry)."""
    if isinstance(entry, str):
        return entry
    if isinstance(entry, Mapping):
        return entry.get("loc")
    return getattr(entry, "loc", entry)
