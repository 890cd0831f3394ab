"""hreflang clusters (protocol-rules 36-39), written once for plugins, CLI and writer.

A cluster is one page in several languages. Google ignores alternates unless every
member lists every member, itself included, with the same set, so the writer checks
members against each other as they stream past.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..protocol import HREFLANG, X_DEFAULT

__all__ = ["X_DEFAULT", "Alternates", "ClusterCheck", "check_cluster", "cluster",
           "normalize_alternates", "pairs_from_config"]
from .model import EntryError
from .urls import normalize_href

Alternates = tuple[tuple[str, str], ...]


def cluster(urls_by_lang: Mapping[str, str], x_default: str | None = None) -> Alternates:
    """The alternates every member of one cluster carries: each language, then x-default.

    ``x_default`` is a language code of the cluster (its URL becomes x-default) or a URL.
    """
    pairs = [(lang, url) for lang, url in urls_by_lang.items()]
    if x_default:
        pairs.append((X_DEFAULT, urls_by_lang.get(x_default, x_default)))
    return tuple(pairs)


class ClusterCheck:
    """Remembers each href's cluster so a member that disagrees is caught on arrival."""

    def __init__(self) -> None:
        self._cluster_of: dict[str, frozenset[tuple[str, str]]] = {}
        self._members: set[str] = set()
        self._last: Alternates | None = None  # the previous member's (same object: agrees)

    def add(self, loc: str, alternates: Alternates) -> None:
        """Record one member (normalized values); raise if it disagrees with one seen."""
        if alternates is self._last and any(href == loc for _, href in alternates):
            self._members.add(loc)  # the previous member mapped every href to this set
            return
        key = frozenset((lang.lower(), href) for lang, href in alternates)
        for href in (loc, *(h for _, h in alternates)):
            known = self._cluster_of.get(href)
            if known is not None and known != key:
                differs = sorted(f"{lang} {h}" for lang, h in known ^ key)[:4]
                raise EntryError("alternate-cluster", "alternates", loc,
                                 f"{href} is already in a cluster with other alternates; "
                                 f"they differ in {differs}")
        for _, href in alternates:
            self._cluster_of[href] = key
        self._members.add(loc)
        self._last = alternates

    def missing_members(self, site_prefix: str) -> list[str]:
        """hrefs on this site that no entry with alternates claimed (reciprocity unknown)."""
        return sorted(h for h in self._cluster_of
                      if h.startswith(site_prefix) and h not in self._members)


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
        if not isinstance(lang, str) or not (lang.lower() == X_DEFAULT or HREFLANG.fullmatch(lang)):
            raise EntryError("alternate", "alternate hreflang", lang)
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
