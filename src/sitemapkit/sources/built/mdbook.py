"""mdBook: ``book.toml`` names the source folder (``book.src``) and the book's URL path
(``output.html.site-url``; ``cname`` is its host), and ``SUMMARY.md`` names every
chapter: mdBook builds a page for each listed file (``X.md`` -> ``X.html``, a
``README.md`` -> that folder's ``index.html``) and none for a draft chapter (``[X]()``).
A chapter is made of its file and what it includes (``{{#include}}``,
``{{#rustdoc_include}}``, ``{{#playground}}``). The book's front page ``index.html``
is a copy of the first chapter when that chapter is not itself ``index.html``: the
chapter is listed at its own URL, the copy left out. ``print.html`` and ``toc.html``
say noindex; redirect stubs (``output.html.redirect``) are refresh pages: both left out
by what they say. mdBook writes no sitemap, so there is no floor."""

from __future__ import annotations

import os
import re
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from .family import Built, Known, Layout, read_config, url_key

# a SUMMARY.md line that links a chapter: a list item, or a prefix or suffix chapter
# (its first link; text may follow it, as mdBook allows)
_CHAPTER = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?\[.*?\]\(\s*(<[^>]*>|[^\s)]*)\s*\)")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_FENCE = re.compile(r"^\s*(```|~~~)")
# a chapter's parts; a backslash before the braces makes the text literal
_INCLUDE = re.compile(r"(?<!\\)\{\{\s*#(?:include|rustdoc_include|playground)\s+([^\s}]+)")
INCLUDE_DEPTH = 8  # an included Markdown file may include more; mdBook stops at 10


def detect(source: Path, generator: str) -> Layout | None:
    config_file = source / "book.toml"
    if not config_file.is_file():
        return None
    config = read_config(config_file)
    book = _table(config, "book")
    html = _table(_table(config, "output"), "html")
    content = source / str(book.get("src") or "src")
    path = str(html.get("site-url") or "/")
    cname = html.get("cname")
    base = f"https://{str(cname).strip('/')}/{path.strip('/')}" if cname else None
    return Layout("mdBook", content, candidates=_copied,
                  known=partial(chapters, content=content),
                  not_pages=partial(front_copy, content=content), index_links=True,
                  content_from="book.toml book.src" if book.get("src") else
                  "book.toml (src/, the default book.src)",
                  base_url=(base.rstrip("/") + "/") if base else None,
                  base_from="book.toml output.html.cname (the host) with site-url (the path)",
                  base_missing=f"--base-url https://<your host>/{path.strip('/')}"
                  f"{'/' if path.strip('/') else ''} (or set output.html.cname in book.toml)")


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _copied(path: str) -> list[str]:
    """A page that is no chapter: an ``.html`` file of the source folder, which mdBook
    copies into the book as it is."""
    return [path]


def summary_chapters(content: Path) -> list[str]:
    """The source paths (relative to ``content``) of the chapters ``SUMMARY.md`` lists,
    in its order; drafts (no path) are not chapters."""
    try:
        text = (content / "SUMMARY.md").read_text("utf-8", errors="replace")
    except OSError:
        return []
    found: list[str] = []
    fenced = False
    for line in _COMMENT.sub("", text).splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _CHAPTER.match(line)
        if match is None:
            continue
        target = match[1].strip("<>").split("#", 1)[0].strip()
        if not target:
            continue  # a draft chapter: no page
        target = target.removeprefix("./")
        if not (content / target).is_file() and (content / unquote(target)).is_file():
            target = unquote(target)
        found.append(target)
    return list(dict.fromkeys(found))


def output_path(chapter: str) -> str:
    """The page mdBook writes for a chapter: its extension made ``.html``, a
    ``README.md`` made its folder's ``index.html`` (mdBook's ``index`` preprocessor)."""
    folder, _, name = chapter.rpartition("/")
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if stem.lower() == "readme":
        stem = "index"
    return (folder + "/" if folder else "") + stem + ".html"


def chapters(built: Built, content: Path) -> dict[str, list[Known]]:
    """URL key of each chapter's page -> its file and the files it includes."""
    listed = summary_chapters(content)
    if not listed:
        built.warnings.append(f"no chapters in {content / 'SUMMARY.md'}: the book's pages have "
                              "no source, so no lastmod (is book.src in book.toml right?)")
    found: dict[str, list[Known]] = {}
    for chapter in listed:
        path = str(content / chapter)
        found.setdefault(url_key(output_path(chapter)), []).append(
            Known(path, tuple(included(path))))
    return found


def included(path: str, depth: int = 0) -> list[str]:
    """The files a chapter includes, and what included Markdown includes in turn."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return []
    parts: list[str] = []
    folder = os.path.dirname(path)
    for target in _INCLUDE.findall(text):
        part = os.path.normpath(os.path.join(folder, target.split(":", 1)[0]))
        if os.path.isfile(part) and part not in parts:
            parts.append(part)
            if part.endswith(".md") and depth < INCLUDE_DEPTH:
                parts += [p for p in included(part, depth + 1) if p not in parts]
    return parts


def front_copy(built: Built, content: Path) -> dict[str, str]:
    """The front page ``index.html`` when mdBook wrote it as the first chapter's copy."""
    listed = summary_chapters(content)
    if not listed:
        return {}
    first = output_path(listed[0])
    if url_key(first) == "":
        return {}
    return {"": f"mdBook's copy of the first chapter, {first}, as the book's front page "
                f"(the chapter is listed at its own URL)"}
