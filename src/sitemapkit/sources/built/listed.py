"""Which pages a built list page lists (a blog index, an archive, a tag page, a section
list, pagination): the links in its main content. ``<main>``, else every
``<article>``; the navigation, header, footer and asides inside them are taken out,
and comments, scripts and styles never count. A page with neither element lists
nothing that can be told from navigation, so it lists nothing.

Which pages are list pages: those without a source file of their own (taxonomies,
archives, pagination), and those whose source the generator family marks as a list
(Hugo's ``_index`` files).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from urllib.parse import urljoin

from ...errors import InputError
from ...heads.tags import attributes, raw_tags
from ..pages import PageRow
from .listing import PAGE_READ_LIMIT
from .scan import page_identity

_HIDDEN = re.compile(r"<!--.*?(?:-->|\Z)|<(script|style)\b.*?(?:</\1\s*>|\Z)",
                     re.IGNORECASE | re.DOTALL)
_MAIN = re.compile(r"<main[\s>].*</main\s*>", re.IGNORECASE | re.DOTALL)
_ARTICLE = re.compile(r"<article[\s>].*?</article\s*>", re.IGNORECASE | re.DOTALL)
_CHROME = re.compile(r"<(nav|header|footer|aside)[\s>].*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_LINKS = frozenset({"a"})


def main_links(html: str) -> list[str]:
    """The ``href`` of every link in the page's main content, in order."""
    text = _HIDDEN.sub("", html)
    main = _MAIN.search(text)
    if main:
        region = main.group(0)
    else:
        region = "".join(match.group(0) for match in _ARTICLE.finditer(text))
    region = _CHROME.sub("", region)
    return [href for _, raw, _ in raw_tags(region, _LINKS)
            if (href := attributes(raw).get("href", "").strip())]


def with_lists(rows: list[PageRow], out: Path,
               is_list_source: Callable[[str], bool] | None) -> list[PageRow]:
    """``rows`` with each list page's ``lists``: the sources of the site's pages its
    main content links to (itself and pages without a source left out).
    ``is_list_source``: the family's test for a source that makes a list page."""
    sources = {row.loc: row.source for row in rows if row.source}
    result = []
    for row in rows:
        if not row.source or (is_list_source is not None and is_list_source(row.source)):
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
