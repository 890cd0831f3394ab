"""Reference implementation of the hot unit: fast-path checks, escaping, serialization.

``ext/_urlset_c.pyx`` is its accelerated twin; both must give identical bytes and
identical status codes for every input. The fast path only *accepts* entries that
are already canonical (what ``entries.normalize_entry`` would return unchanged);
everything else is answered with ``SLOW`` and the writer sends it through the
shared Python rules, then calls ``add`` with canonical strings.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..protocol import CHANGEFREQS
from ..rules.dates import lastmod_key
from ..rules.hreflang import Alternates
from ..rules.model import UrlEntry
from ._canonical_py import canonical_lastmod, canonical_loc, canonical_priority, encode_tail
from ._cells_py import feed_cells as _feed_cells
from ._kernels_py import CRC32_CLMUL as CRC32_CLMUL  # the kernels: this twin's too
from ._kernels_py import LocKeys
from ._kernels_py import count_lines as count_lines
from ._kernels_py import crc32 as crc32
from ._kernels_py import loc_key as loc_key
from ._kernels_py import repeats as repeats
from ._locset_py import LocSet as LocSet  # re-exported: part of this twin
from ._locset_py import loc_hash as loc_hash
from ._rows_py import ADDED as ADDED  # what offering a row answers
from ._rows_py import DUPLICATE as DUPLICATE
from ._rows_py import EXHAUSTED as EXHAUSTED
from ._rows_py import FULL as FULL
from ._rows_py import SLOW as SLOW
from ._rows_py import split_line
from ._shards_py import HEAD as HEAD  # a shard's envelope lives with the shard edits
from ._shards_py import HEAD_XHTML as HEAD_XHTML
from ._shards_py import TAIL as TAIL
from ._shards_py import drop_urls as drop_urls
from ._shards_py import sort_keys as sort_keys

# The UrlEntry fields the fast path reads; a test fails when UrlEntry gains another.
FAST_FIELDS = ("loc", "lastmod", "changefreq", "priority", "alternates")

_FAST_KEYS = frozenset(FAST_FIELDS)
MEMO_MEMBERS = 64  # alternates the line reader can add from bytes: one bit per member


def escape(text: str) -> str:
    """XML-escape the five specials exactly once."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "'" in text:
        text = text.replace("'", "&apos;")
    if "<" in text or ">" in text or '"' in text:
        text = text.replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return text


class UrlsetBuffer:
    """One shard being filled: ``<urlset>`` XML or a text sitemap (one URL a line)."""

    def __init__(self, prefix: str, max_urls: int, max_bytes: int, seen: LocSet,
                 future_limit: int, text: bool = False, record: bool = False) -> None:
        self.prefix, self.max_urls, self.max_bytes, self.seen = prefix, max_urls, max_bytes, seen
        self.future_limit, self.text, self.record = future_limit, text, record
        self._consumed = 0
        self.unused_fields = 0
        self._memo_raw: bytes | None = None
        self._memo_alts: Alternates = ()
        self._arrived = 0
        self.slow_alternates: bytes | None = None  # of the last line answered SLOW
        self._keys: LocKeys | None = None  # key_locs(): the added URLs' loc_key
        self.reset()

    @property
    def consumed(self) -> int:
        """Entries ``feed`` has taken so far: the position of the last one returned."""
        return self._consumed

    def reset(self) -> None:
        """Start the next shard (the seen-URL set and ``consumed`` carry on)."""
        self._parts: list[str] = []
        self._pairs: list[tuple[str, str]] = []
        self._xhtml = False
        self.count = 0
        self.nbytes = 0 if self.text else len(HEAD) + len(TAIL)
        self.newest_lastmod: str | None = None
        self._newest_key = -(2**62)

    def remember_alternates(self, raw: bytes | None, alternates: Alternates) -> None:
        """The alternates the rules just checked for a SLOW line (``raw``: its
        ``slow_alternates``; None forgets). Later lines with these same bytes whose loc
        is one of the hrefs are added from bytes. Clears the arrivals (take them first)."""
        if (raw is not None and type(raw) is not bytes) or type(alternates) is not tuple:
            raise TypeError("remember_alternates: raw is bytes or None, alternates a tuple")
        self._arrived = 0
        if (raw is None or not alternates or len(alternates) > MEMO_MEMBERS
                or not all(type(p) is tuple and len(p) == 2 and type(p[1]) is str
                           and p[1].isascii() for p in alternates)):
            self._memo_raw, self._memo_alts = None, ()
            return
        self._memo_raw, self._memo_alts = raw, alternates

    def take_arrivals(self) -> list[str]:
        """The hrefs of the remembered cluster that lines added (or found repeated)
        since the last call, in cluster order: what the cluster check must hear."""
        out = [href for i, (_, href) in enumerate(self._memo_alts) if self._arrived >> i & 1]
        self._arrived = 0
        return out

    def key_locs(self, drop: bytes = b"") -> None:
        """From now on keep the ``loc_key`` of every URL added (``take_keys``), and answer
        DUPLICATE for a new URL whose key is in ``drop`` (key bytes, ascending:
        what earlier partitions wrote), with no Python step per row in the C twin."""
        self._keys = LocKeys(drop)

    def take_keys(self, ascending: bool = False) -> bytes:
        """The keys of the URLs added since the last call, in order or ``ascending``
        (16 bytes a key; empty until ``key_locs``)."""
        return self._keys.take(ascending) if self._keys is not None else b""

    def pairs(self) -> list[tuple[str, str]]:
        """(loc, lastmod or "") of this shard's entries, kept only with ``record=True``:
        what the change record compares between runs."""
        return list(self._pairs)

    def feed(self, entries: Iterator[object]) -> tuple[int, object]:
        """Add entries until one is not ADDED; return (status, that entry)."""
        offer = self._offer
        for entry in entries:
            self._consumed += 1
            status = offer(entry, False)
            if status != ADDED:
                return status, entry
        return EXHAUSTED, None

    def feed_lines(self, data: bytes, start: int, layout: int, sep: int,
                   columns: tuple[int, ...], width: int) -> tuple[int, int, int]:
        """Add the rows of the complete lines in ``data[start:]`` until one is not
        ADDED; return (status, that line's start, its end), or (EXHAUSTED, len, len).

        Blank lines are skipped. ``consumed`` counts ADDED and DUPLICATE rows; a FULL
        or SLOW line is left to the caller (SLOW: parse it with the Python reader).
        """
        n = len(data)
        pos = start
        while pos < n:
            nl = data.find(b"\n", pos)
            end = n if nl < 0 else nl + 1
            stop = n if nl < 0 else nl
            if stop > pos and data[stop - 1] == 13:  # \r
                stop -= 1
            if stop == pos:
                pos = end
                continue
            line = data[pos:stop]
            fields = split_line(line, layout, sep, columns, width)
            span = None if fields is None else fields[4]
            raw = None if span is None else line[span[0]:span[1]]
            status = SLOW if fields is None else self._offer_fields(*fields[:4], raw)
            if status == ADDED:
                self._consumed += 1
                pos = end
                continue
            if status == DUPLICATE:
                self._consumed += 1
            elif status == SLOW:
                self.slow_alternates = raw
            return status, pos, end
        return EXHAUSTED, n, n

    def feed_cells(self, cells: tuple[Any, ...], start: int, rows: int) -> tuple[int, int, int]:
        """``feed_lines`` over rows of Arrow text columns (``_cells_py.feed_cells``)."""
        return _feed_cells(self, cells, start, rows)

    def _offer_fields(self, loc: bytes | None, lastmod: bytes | None,
                      changefreq: bytes | None, priority: object, alternates: bytes | None
                      ) -> int:
        """One line's fields (bytes, a JSON number priority as int/float) to ``offer``;
        alternates only when they are the bytes the rules checked last."""
        if alternates is not None and alternates != self._memo_raw:
            return SLOW
        try:
            text = loc.decode("utf-8") if loc is not None else None
        except UnicodeDecodeError:
            return SLOW
        if text is None:
            return SLOW
        return self._offer(UrlEntry(
            text, lastmod.decode("ascii") if lastmod is not None else None,
            changefreq.decode("ascii") if changefreq is not None else None,
            priority.decode("ascii") if isinstance(priority, bytes)
            else priority), alternates is not None)  # type: ignore[arg-type]  # JSON number

    def offer(self, entry: object) -> int:
        """Fast path for one raw entry; SLOW when it is not already canonical."""
        return self._offer(entry, False)

    def _offer(self, entry: object, member: bool) -> int:
        """``offer``; ``member``: the entry carries the remembered alternates."""
        if type(entry) is str:
            loc, lastmod, changefreq, priority = entry, None, None, None
            alternates: object = ()
        elif isinstance(entry, UrlEntry):
            loc, lastmod, changefreq, priority, alternates = entry
        elif type(entry) is dict:  # a mapping as JSON Lines gives it
            if "loc" not in entry or not entry.keys() <= _FAST_KEYS:
                return SLOW  # the rules name what is missing or unknown
            loc, lastmod, changefreq = entry["loc"], entry.get("lastmod"), entry.get("changefreq")
            priority, alternates = entry.get("priority"), entry.get("alternates")
        else:
            return SLOW
        if alternates:
            return SLOW
        if changefreq is not None and not (type(changefreq) is str and changefreq in CHANGEFREQS):
            return SLOW
        rank = None
        if priority is not None:
            rank = canonical_priority(priority)
            if rank is None:
                return SLOW
        if type(loc) is not str:
            return SLOW
        if not canonical_loc(loc, self.prefix):
            encoded = encode_tail(loc, self.prefix)
            if encoded is None or not canonical_loc(encoded, self.prefix):
                return SLOW
            loc = encoded
        text = None
        if lastmod is not None:
            text = canonical_lastmod(lastmod)
            if text is None or lastmod_key(text) > self.future_limit:
                return SLOW
        if not member:
            return self.add(loc, text, changefreq, rank, ())
        at = next((i for i, (_, href) in enumerate(self._memo_alts) if href == loc), -1)
        if at < 0:
            return SLOW  # not one of its own alternates: the rules say so
        status = self.add(loc, text, changefreq, rank, self._memo_alts)
        if status != FULL:
            self._arrived |= 1 << at
        return status

    def add(
        self,
        loc: str,
        lastmod: str | None,
        changefreq: str | None,
        priority: str | None,
        alternates: tuple[tuple[str, str], ...],
    ) -> int:
        """Append one canonical entry: ADDED, FULL (not added) or DUPLICATE."""
        if lastmod is not None and canonical_lastmod(lastmod) != lastmod:
            raise ValueError(f"non-canonical lastmod: {lastmod!r}")
        extra_head = 0
        if self.text:
            piece = loc + "\n"
        else:
            parts = ["<url><loc>", escape(loc), "</loc>"]
            if lastmod is not None:
                parts += ["<lastmod>", lastmod, "</lastmod>"]
            if changefreq is not None:
                parts += ["<changefreq>", changefreq, "</changefreq>"]
            if priority is not None:
                parts += ["<priority>", priority, "</priority>"]
            for lang, href in alternates:
                parts += ['<xhtml:link rel="alternate" hreflang="', escape(lang), '" href="',
                          escape(href), '"/>']
            parts.append("</url>\n")
            piece = "".join(parts)
            if alternates and not self._xhtml:
                extra_head = len(HEAD_XHTML) - len(HEAD)
        if not piece.isascii():
            raise ValueError(f"non-canonical value (not ASCII): {piece!r}")
        size = len(piece) + extra_head  # canonical values are ASCII: chars == bytes
        if self.count >= self.max_urls or self.nbytes + size > self.max_bytes:
            return FULL
        if not self.seen.add(loc):
            return DUPLICATE
        if self._keys is not None and not self._keys.keep(loc):
            return DUPLICATE  # an earlier partition has it: counted as a repeat
        self._parts.append(piece)
        self.count += 1
        self.nbytes += size
        if extra_head:
            self._xhtml = True
        if self.record:
            self._pairs.append((loc, "" if self.text else lastmod or ""))
        if self.text and (lastmod or changefreq or priority or alternates):
            self.unused_fields += 1
        if lastmod is not None:
            key = lastmod_key(lastmod)
            if key > self._newest_key:
                self._newest_key, self.newest_lastmod = key, lastmod
        return ADDED

    def getvalue(self) -> bytes:
        body = "".join(self._parts).encode("ascii")
        if self.text:
            return body
        return (HEAD_XHTML if self._xhtml else HEAD) + body + TAIL
