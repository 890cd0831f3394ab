"""A page's own "edit this page" link, and the repository file it names.

Only the page's own link counts, never a link in its body to a README, the site's
config or another language's page. The link is the one the theme marks as the edit
link (``rel="edit"``, a class or title saying "edit", or link text saying it), else
the one whose file maps to the page's URL. Links are read by the tag tokenizer, so
minified output (unquoted attributes), entities and case are handled."""

from __future__ import annotations

import re
from collections.abc import Container
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ...errors import InputError
from ...heads.tags import attributes, raw_tags, tokens
from .family import url_key
from .listing import PAGE_READ_LIMIT

_REPO_PATH = re.compile(r"/(?:-/)?(?:edit|blob|tree|_edit|src/branch|src)/")
_TEXT_END = re.compile(r"</a\s*>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_ANCHORS = frozenset({"a"})
_REPO_NEEDLES = ("/edit/", "/blob/", "/tree/", "/_edit/", "/src/")  # what _REPO_PATH needs
_SOURCE_SUFFIX = re.compile(r"\.(?:md|mdx|markdown|rst|txt|ipynb|html?|adoc|org)$")
_INDEX_NAMES = ("index", "_index", "readme", "README")


class PageTooLarge(Exception):
    """A page larger than ``PAGE_READ_LIMIT``: not read for its edit link."""


def edit_link_source(html_path: Path, tracked: Container[str], page_key: str,
                     languages: frozenset[str] = frozenset()) -> str | None:
    """The tracked file (repository-relative) the page's own edit link names, or None.
    ``page_key`` is the page's ``url_key``, for links the theme did not mark;
    ``languages`` the site's language folders (``de`` for ``de/...``)."""
    try:
        with open(html_path, "rb") as fh:
            data = fh.read(PAGE_READ_LIMIT + 1)
    except OSError as exc:  # the scan read its head: a failure now is not a "no link"
        raise InputError(f"cannot read {html_path}: {exc.strerror or exc}") from None
    if len(data) > PAGE_READ_LIMIT:
        raise PageTooLarge(html_path)  # not read whole: the caller counts and says it
    text = data.decode("utf-8", "replace")
    if not _REPO_PATH.search(text):
        return None
    marked: list[str] = []
    plain: list[str] = []
    for _, raw, end in raw_tags(text, _ANCHORS, _REPO_NEEDLES):  # no nav, no body prose
        attrs = attributes(raw)
        href = attrs.get("href", "")
        if not _REPO_PATH.search(href):
            continue
        target = _tracked_file(href, tracked)
        if target is None:
            continue
        (marked if _is_edit_link(attrs, text, end) else plain).append(target)
    if marked:
        if len(set(marked)) == 1:
            return marked[0]
        plain = marked  # two marked links to two files: the URL decides
    mapped = {f for f in plain if maps_to(f, page_key, languages)}
    return mapped.pop() if len(mapped) == 1 else None


def _is_edit_link(attrs: dict[str, str], text: str, end: int) -> bool:
    if "edit" in tokens(attrs.get("rel", "")):
        return True
    if any("edit" in t for t in tokens(attrs.get("class", ""))):
        return True
    label = (attrs.get("title", "") + " " + attrs.get("aria-label", "")).lower()
    if "edit" in label:
        return True
    close = _TEXT_END.search(text, end, end + 2000)
    inner = _TAG.sub(" ", text[end:close.start()]).lower() if close else ""
    return "edit" in inner.split() or "edit this page" in inner


def _tracked_file(href: str, tracked: Container[str]) -> str | None:
    """The longest suffix of the link's path that is a tracked file."""
    parts = unquote(urlsplit(href).path).split("/")
    for start in range(len(parts)):
        candidate = "/".join(parts[start:])
        if candidate in tracked:
            return candidate
    return None


def maps_to(source: str, page_key: str, languages: frozenset[str] = frozenset()) -> bool:
    """A source file whose path, without its suffix and index name, ends with the
    page's URL path (case-insensitive: Hugo lower-cases URLs), and not right under a
    folder named after one of the site's ``languages`` (its top-level language
    folders: another language's page)."""
    name = _SOURCE_SUFFIX.sub("", source)
    folder, _, last = name.rpartition("/")
    if last in _INDEX_NAMES:
        name = folder
    name, key = name.lower(), url_key(page_key).lower()
    if key.endswith(".html"):
        key = key[: -len(".html")]
    if not key:  # the home page: an index file at the top of its folder tree
        return last in _INDEX_NAMES and "/" not in folder.strip("/")
    if name == key:
        return True
    if not name.endswith("/" + key):
        return False
    above = name[: -len(key) - 1].rsplit("/", 1)[-1]
    return above not in languages  # docs/de/x.md is de/x/'s source, not x/'s
