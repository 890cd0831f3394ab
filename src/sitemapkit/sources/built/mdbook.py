"""mdBook: ``book.toml`` names the source folder (``book.src``) and the book's URL path
(``output.html.site-url``; ``cname`` is its host), and ``SUMMARY.md`` names every
chapter: mdBook builds a page for each listed file (``X.md`` -> ``X.html``, a
``README.md`` -> that folder's ``index.html``) and none for a draft chapter (``[X]()``).
A chapter is made of its file and what it includes (``{{#include}}``,
``{{#rustdoc_include}}``, ``{{#playground}}``). The book's front page ``index.html``
is a copy of the first chapter when that chapter is not itself ``index.html``: the
chapter is listed at its own URL, the copy left out. ``print.html`` and ``toc.html``
say noindex; redirect stubs (``output.html.redirect``) are refresh pages: both left out
by what they say. mdBook writes no sitemap, so there is no floor.

Translations (mdbook-i18n-helpers): each ``po/xx.po`` (``preprocessor.gettext.po-dir``)
whose language the output holds a build of (``MDBOOK_BOOK__LANGUAGE=xx mdbook build -d
book/xx``) is a language. Its pages show the chapter translated by that catalog, so
each is made of the chapter, what it includes, and ``xx.po``; the pages of one chapter
across languages are hreflang alternates, the book's own ``book.language`` at the top."""

from __future__ import annotations

import os
import re
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
    gettext = _table(_table(config, "preprocessor"), "gettext")
    books = Books(content, source / str(gettext.get("po-dir") or "po"),
                  str(book.get("language") or "en"))
    return Layout("mdBook", content, candidates=_copied, known=books.chapters,
                  not_pages=books.front_copies, clusters=books.clusters, index_links=True,
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


class Books:
    """The book's chapters in each language built into the output: the source
    language at the top, a translation per ``po/xx.po`` whose ``xx/`` the output holds."""

    def __init__(self, content: Path, po_dir: Path, language: str) -> None:
        self.content, self.po_dir, self.language = content, po_dir, language

    def languages(self, built: Built) -> dict[str, Path]:
        """Each translation built into the output -> its catalog; a catalog without a
        build is said once."""
        try:
            catalogs = sorted(p for p in self.po_dir.iterdir() if p.suffix == ".po")
        except OSError:
            return {}
        found = {p.stem: p for p in catalogs if (built.out / p.stem).is_dir()
                 and p.stem != self.language}
        missing = [p.stem for p in catalogs if p.stem not in found and p.stem != self.language]
        note = f"mdBook translations: {', '.join(missing)} " \
            f"{'has' if len(missing) == 1 else 'have'} a catalog in " \
            f"{self.po_dir.name}/ but no build in the output (MDBOOK_BOOK__LANGUAGE=xx " \
            "mdbook build -d book/xx)"
        if missing and note not in built.notes:
            built.notes.append(note)
        return found

    def chapters(self, built: Built) -> dict[str, list[Known]]:
        """URL key of each chapter's page -> its file and the files it includes (and,
        in a translation, its catalog)."""
        listed = summary_chapters(self.content)
        if not listed:
            built.warnings.append(f"no chapters in {self.content / 'SUMMARY.md'}: the book's "
                                  "pages have no source, so no lastmod (is book.src in "
                                  "book.toml right?)")
        found: dict[str, list[Known]] = {}
        languages = self.languages(built)
        for chapter in listed:
            path = str(self.content / chapter)
            parts = tuple(included(path))
            found.setdefault(url_key(output_path(chapter)), []).append(Known(path, parts))
            for lang, catalog in languages.items():
                found.setdefault(url_key(f"{lang}/{output_path(chapter)}"), []).append(
                    Known(path, (*parts, str(catalog))))
        if languages:  # the .html files mdBook copies into every build as they are
            for copied in _copied_files(self.content):
                for lang in languages:
                    found.setdefault(url_key(f"{lang}/{copied}"), []).append(
                        Known(str(self.content / copied)))
        return found

    def front_copies(self, built: Built) -> dict[str, str]:
        """The front page ``index.html`` of each language's build, where mdBook wrote it
        as the first chapter's copy."""
        listed = summary_chapters(self.content)
        first = output_path(listed[0]) if listed else ""
        if not listed or url_key(first) == "":
            return {}
        why = f"mdBook's copy of the first chapter, {first}, as the book's front page (the " \
            "chapter is listed at its own URL)"
        return {url_key(f"{lang}/index.html") if lang else "": why
                for lang in ("", *self.languages(built))}

    def clusters(self, built: Built) -> dict[str, tuple[tuple[str, str], ...]]:
        """Each chapter's page -> the same chapter in every language built."""
        languages = [*self.languages(built)]
        if not languages:
            return {}
        found: dict[str, tuple[tuple[str, str], ...]] = {}
        for chapter in summary_chapters(self.content):
            page = output_path(chapter)
            cluster = ((self.language, url_key(page)),
                       *((lang, url_key(f"{lang}/{page}")) for lang in languages))
            for _, key in cluster:
                found[key] = cluster
        return found


def _copied_files(content: Path) -> list[str]:
    """The ``.html`` files of the source folder, relative to it."""
    found = []
    for folder, dirs, names in os.walk(content):
        dirs.sort()
        found += [os.path.relpath(os.path.join(folder, n), content).replace(os.sep, "/")
                  for n in sorted(names) if n.endswith(".html")]
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
