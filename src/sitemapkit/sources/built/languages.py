"""hreflang clusters from the pages themselves (``<link rel="alternate" hreflang>``),
for generators whose sitemap gives none. A cluster is kept only when it agrees with
itself: every member is a listed page that names the same cluster back. A site where
every link claims one language (a theme stamping ``hreflang="en"`` on itself) says
nothing about translations and is refused with a note."""

from __future__ import annotations

from urllib.parse import urljoin

from ...heads.meta import page_identity
from .scan import BuiltPage

Cluster = tuple[tuple[str, str], ...]


def page_clusters(pages: list[BuiltPage]) -> tuple[dict[str, Cluster], list[str]]:
    """(page URL -> its cluster as (hreflang, absolute href), notes)."""
    claimed = {page.url: tuple(sorted({(lang, urljoin(page.url, href).split("#", 1)[0])
                                       for lang, href in page.signals.alternates}))
               for page in pages if page.signals.alternates}
    if not claimed:
        return {}, []
    languages = {lang.lower() for cluster in claimed.values() for lang, _ in cluster}
    if len(languages - {"x-default"}) < 2:
        return {}, [f"hreflang links on {len(claimed):,} pages all claim "
                    f"{', '.join(sorted(languages))}: no translations, no alternates written"]
    pages_at = {page_identity(page.url) for page in pages}

    def member(href: str) -> tuple[str, str, str, str]:
        """The page a link names: ``…/x`` names the file ``x.html`` where that is the
        page (a generator serving clean URLs links them so)."""
        found = page_identity(href)
        if found not in pages_at and not href.endswith(("/", ".html")):
            clean = page_identity(href + ".html")
            if clean in pages_at:
                return clean
        return found

    def key_of(cluster: Cluster) -> frozenset[tuple[str, tuple[str, str, str, str]]]:
        return frozenset((lang.lower(), member(href)) for lang, href in cluster)

    by_identity = {page_identity(url): key_of(cluster) for url, cluster in claimed.items()}
    kept: dict[str, Cluster] = {}
    refused = 0
    for url, cluster in claimed.items():
        key = key_of(cluster)
        members = [member(href) for _, href in cluster]
        if len(set(members)) > 1 and page_identity(url) in members and \
                all(by_identity.get(m) == key for m in members):
            kept[url] = cluster
        else:
            refused += 1
    notes = [f"hreflang from the pages: {len(kept):,} pages in clusters"]
    if refused:
        notes.append(f"{refused:,} pages' hreflang links disagree with the pages they name "
                     "(not listed back, not a listed page, or no other page): no alternates "
                     "for them")
    return kept, notes

