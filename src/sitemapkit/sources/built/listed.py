"""Which pages a built list page lists (a blog index, an archive, a tag page, a section
list, pagination): its entries. In ``<main>`` (else the whole page), each
``<article>`` is one entry, its title link; without articles, every link of
``<main>`` but its navigation, header, footer and asides. Comments, scripts and
styles never count. A page with neither element lists nothing that can be told from
navigation, so it lists nothing.

Which pages are list pages: those the generator family knows it made as lists
without a source file of their own (taxonomies, archives, pagination, blog indexes:
``Layout.made_lists``), and those whose source it marks as a list (Hugo's ``_index``
files). Any other page without a source is no list: it is undated, whatever it links
to (a guess from its links would date it by pages it merely mentions).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import Path
from urllib.parse import urljoin

from ...errors import InputError
from ...heads.meta import page_identity
from ...heads.tags import attributes, raw_tags
from ..pages import PageRow
from .listing import PAGE_READ_LIMIT

_HIDDEN = re.compile(r"<!--.*?(?:-->|\Z)|<(script|style)\b.*?(?:</\1\s*>|\Z)",
                     re.IGNORECASE | re.DOTALL)
_MAIN = re.compile(r"<main[\s>].*</main\s*>", re.IGNORECASE | re.DOTALL)
_ARTICLE = re.compile(r"<article[\s>].*?</article\s*>", re.IGNORECASE | re.DOTALL)
_CHROME = re.compile(r"<(nav|header|footer|aside)[\s>].*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_HEADING = re.compile(r"<(h[1-6])[\s>].*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_HEADER = re.compile(r"<header[\s>].*?</header\s*>", re.IGNORECASE | re.DOTALL)
_LINKS = frozenset({"a"})


def main_links(html: str) -> list[str]:
    """The ``href`` of every entry the page's main content lists, in order. Where it
    holds ``<article>`` elements (a blog index, an archive), each article is one entry:
    its title link (the first link of its heading, else of its ``<header>``, else its
    first link), never the links in a post's excerpt. Otherwise every link of the main
    content, its navigation, header, footer and asides taken out."""
    text = _HIDDEN.sub("", html)
    main = _MAIN.search(text)
    region = main.group(0) if main else text
    articles = [match.group(0) for match in _ARTICLE.finditer(region)]
    if articles:
        return [href for article in articles if (href := _entry_link(article))]
    if not main:
        return []
    return _hrefs(_CHROME.sub("", region))


def _entry_link(article: str) -> str | None:
    for pattern in (_HEADING, _HEADER):
        found = pattern.search(article)
        if found and (links := _hrefs(found.group(0))):
            return links[0]
    links = _hrefs(_CHROME.sub("", article))
    return links[0] if links else None


def _hrefs(region: str) -> list[str]:
    return [href for _, raw, _ in raw_tags(region, _LINKS)
            if (href := attributes(raw).get("href", "").strip())]


def with_lists(rows: list[PageRow], out: Path, is_list_source: Callable[[str], bool] | None,
               made_lists: Collection[str] = ()) -> list[PageRow]:
    """``rows`` with each list page's ``lists``: the sources of the site's pages its
    main content links to (itself and pages without a source left out).
    ``is_list_source``: the family's test for a source that makes a list page;
    ``made_lists``: the labels of the list pages the generator made without one."""
    sources = {row.loc: row.source for row in rows if row.source}
    result = []
    for row in rows:
        if (not row.source and row.label in made_lists) or (
                row.source and is_list_source is not None and is_list_source(row.source)):
            path = out / row.label
            try:
                with open(path, "rb") as fh:
                    data = fh.read(PAGE_READ_LIMIT + 1)
            except OSError as exc:  # gone or unreadable since the scan: as the scan says
                raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
            if len(data) > PAGE_READ_LIMIT:  # the links it lists are not all known
                result.append(replace(row, undated=f"a list page larger than "
                                      f"{PAGE_READ_LIMIT >> 20} MiB is not read for the "
                                      "pages it lists"))
                continue
            html = data.decode("utf-8", "replace")
            own = page_identity(row.loc)
            listed: dict[str, None] = {}
            for href in main_links(html):
                url = urljoin(row.loc, href).split("#", 1)[0]
                source = _source_at(url, sources)
                if source and page_identity(url) != own:
                    listed[source] = None
            if listed:
                row = replace(row, lists=tuple(listed))
        result.append(row)
    return result


def _source_at(url: str, sources: dict[str, str]) -> str | None:
    """The source of the page at ``url``, in any form a server serves it at (``X``,
    ``X/``, ``X/index.html``): a dictionary lookup per form, no URL parsing."""
    if url.endswith("/index.html"):
        url = url[: -len("index.html")]
    return sources.get(url) or sources.get(url.rstrip("/")) or sources.get(url + "/")


def with_members(rows: list[PageRow], members: dict[str, tuple[str, ...]],
                 unknown: dict[str, str] | None = None) -> list[PageRow]:
    """``rows`` with each list page's ``lists`` as the generator's own data gives them
    (``Layout.members``, by output path): its HTML is not read. A list page whose
    members are not all known (``unknown``: output path -> why) is undated."""
    unknown = unknown or {}
    return [replace(row, undated=unknown[row.label]) if row.label in unknown else
            replace(row, lists=tuple(s for s in listed if s != row.source))
            if (listed := members.get(row.label)) else row for row in rows]
