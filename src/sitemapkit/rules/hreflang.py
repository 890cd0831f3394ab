"""hreflang clusters (protocol-rules 36-39), written once for plugins, CLI and writer.

A cluster is one page in several languages. Google ignores alternates unless every
member lists every member, itself included, with the same set, so the writer checks
members against each other as they stream past.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Protocol

from ..protocol import HREFLANG, X_DEFAULT

__all__ = ["X_DEFAULT", "Alternates", "ClusterCheck", "check_cluster", "cluster",
           "digest", "normalize_alternates", "pairs_from_config"]
from .model import EntryError, tuple_pairs
from .urls import normalize_href


class LocValues(Protocol):
    """What a cluster check needs of its table: the hot unit's ``LocSet(values=True)``.
    Declared here, so that the rules never import the hot unit (which imports them)."""

    def get(self, key: str | int) -> int: ...

    def put(self, key: str | int, value: int) -> None: ...


Alternates = tuple[tuple[str, str], ...]


def cluster(urls_by_lang: Mapping[str, str], x_default: str | None = None) -> Alternates:
    """The alternates every member of one cluster carries: each language, then x-default.

    ``x_default`` is a language code of the cluster (its URL becomes x-default) or a URL.
    """
    pairs = [(lang, url) for lang, url in urls_by_lang.items()]
    if x_default:
        pairs.append((X_DEFAULT, urls_by_lang.get(x_default, x_default)))
    return tuple(pairs)


DIGEST_BITS = 62  # a value table keeps 63 bits: room for one flag beside a digest
RECENT_CLUSTERS = 1024  # clusters kept whole, to name what a disagreeing member changed
WAITING_KEPT = 8_192  # hrefs waiting for their own entry kept as strings (~1.5 MB)
_NOT_WAITING = object()


def digest(members: frozenset[tuple[str, str]]) -> int:
    """A cluster's identity, its set's hash: equal sets, equal digests. Two different
    sets share one with odds of about 1 in 100,000 at 10**7 distinct sets."""
    return hash(members) & ((1 << DIGEST_BITS) - 1)


class ClusterCheck:
    """Remembers each href's cluster so a member that disagrees is caught on arrival.

    Per href it keeps only a hash and its cluster's digest (about 20 bytes in the C
    twin, where sets of strings took ~400). An href on this site that a member listed
    waits for its own entry: the latest WAITING_KEPT such hrefs as strings, older ones
    as a bit beside their digest, so rows of one language after another stay as small
    as rows of a cluster together. Recent clusters are kept whole for messages."""

    def __init__(self, table: LocValues, site_prefix: str) -> None:
        self._of = table  # href -> digest << 1 | waiting (and no longer a string here)
        self._site = site_prefix
        # the latest hrefs waiting for their entry (ordered: a dict whose first keys
        # are deleted over and over takes ever longer to find its first one)
        self._waiting: OrderedDict[str, None] = OrderedDict()
        self._spilled = 0  # older waiting hrefs, marked by their bit
        self._recent: dict[int, frozenset[tuple[str, str]]] = {}
        self._last: Alternates | None = None  # the previous member's (same object: agrees)

    def add(self, loc: str, alternates: Alternates) -> None:
        """Record one member (normalized, non-empty alternates that list the member, as
        ``check_cluster`` makes sure); raise if it disagrees with one seen."""
        if alternates is self._last and any(href == loc for _, href in alternates):
            self.arrived(loc)  # the previous member mapped every href
            return
        key = frozenset((lang.lower(), href) for lang, href in alternates)
        d = digest(key)
        table = self._of
        for href in (loc, *(h for _, h in alternates)):
            known = table.get(href)
            if known >= 0 and known >> 1 != d:
                raise EntryError("alternate-cluster", "alternates", loc,
                                 self._differs(href, known >> 1, key))
        for _, href in alternates:
            if table.get(href) < 0:
                table.put(href, d << 1)
                if href != loc and href.startswith(self._site):
                    self._wait(href)
        self.arrived(loc)
        if len(self._recent) >= RECENT_CLUSTERS:
            self._recent.clear()
        self._recent[d] = key
        self._last = alternates

    def _wait(self, href: str) -> None:
        waiting = self._waiting
        if len(waiting) >= WAITING_KEPT:  # the oldest becomes a bit in the table
            oldest, _ = waiting.popitem(last=False)
            self._of.put(oldest, self._of.get(oldest) | 1)
            self._spilled += 1
        waiting[href] = None

    def arrived(self, loc: str) -> None:
        """``loc``'s own entry was written: it waits for it no more."""
        if self._waiting.pop(loc, _NOT_WAITING) is _NOT_WAITING and self._spilled:
            value = self._of.get(loc)
            if value & 1:
                self._of.put(loc, value ^ 1)
                self._spilled -= 1

    def _differs(self, href: str, known_digest: int, key: frozenset[tuple[str, str]]) -> str:
        known = self._recent.get(known_digest)
        if known is None:
            listed = sorted(f"{lang} {h}" for lang, h in key)[:4]
            return (f"{href} is already in a cluster with other alternates, listed by an "
                    f"earlier entry; this entry lists {listed}")
        differs = sorted(f"{lang} {h}" for lang, h in known ^ key)[:4]
        return f"{href} is already in a cluster with other alternates; they differ in {differs}"

    def missing_members(self) -> tuple[int, str | None]:
        """How many hrefs on this site no entry with alternates claimed (reciprocity
        unknown), and one of them if one is among the latest."""
        return len(self._waiting) + self._spilled, min(self._waiting, default=None)


def pairs_from_config(items: Iterable[object], what: str) -> dict[str, str]:
    """``{"en": "/", "de": "/de/"}`` or ``[{"lang": "en", "prefix": "/"}]`` -> dict."""
    if isinstance(items, Mapping):
        return {str(k): str(v) for k, v in items.items()}
    out: dict[str, str] = {}
    for item in items:
        if not isinstance(item, Mapping) or "lang" not in item or "prefix" not in item:
            raise ValueError(f"{what}: each language needs 'lang' and 'prefix', got {item!r}")
        out[str(item["lang"])] = str(item["prefix"])
    return out


_last: tuple[object, Alternates] = ((), ())  # the last input and its result, as one object
_LANGS_SEEN: set[str] = set()  # hreflang codes already found valid (a site has few)


def normalize_alternates(value: object) -> Alternates:
    """Checked (lang, canonical href) pairs. Every member of a cluster carries the same
    alternates, usually one entry after another: the last answer is reused (replaced
    as one tuple, so threads never see half of it)."""
    global _last
    if not value:
        return ()
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise EntryError("alternate", "alternates", value)
    key = _pairs_key(value)
    last = _last
    if key is not None and key == last[0]:
        return last[1]
    out: list[tuple[str, str]] = []
    for pair in value:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise EntryError("alternate", "alternates", pair)
        lang, href = pair
        if type(lang) is not str or lang not in _LANGS_SEEN:
            if not isinstance(lang, str) or not (lang.lower() == X_DEFAULT
                                                 or HREFLANG.fullmatch(lang)):
                raise EntryError("alternate", "alternate hreflang", lang)
            if len(_LANGS_SEEN) >= 4096:
                _LANGS_SEEN.clear()
            _LANGS_SEEN.add(lang)
        out.append((lang, normalize_href(href)))
    result = tuple(out)
    if key is not None:
        _last = (key, result)
    return result


def _pairs_key(value: object) -> tuple[tuple[object, ...], ...] | None:
    """A list or tuple of pairs as nested tuples (None for anything else: a generator
    can be read only once)."""
    if not isinstance(value, (tuple, list)):
        return None
    if tuple_pairs(value):
        return value  # type: ignore[return-value]  # immutable all the way down
    pairs = []
    for pair in value:
        if not isinstance(pair, (tuple, list)):
            return None
        pairs.append(tuple(pair))
    return tuple(pairs)


def check_cluster(loc: str, alternates: tuple[tuple[str, str], ...]) -> None:
    """Google's per-entry rules: self-link present, no hreflang (or x-default) twice."""
    if not alternates:
        return
    seen: set[str] = set()
    for lang, _ in alternates:
        key = lang.lower()
        if key in seen:
            raise EntryError("alternate-repeat", "alternate hreflang", lang,
                             f"{loc} lists {lang!r} more than once")
        seen.add(key)
    if all(href != loc for _, href in alternates):
        raise EntryError("alternate-self", "alternates", loc,
                         f"none of {[h for _, h in alternates][:4]} is the entry's own URL")
