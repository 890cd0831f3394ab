"""What a page shows beyond its own source, collected while it renders: the posts a
list page shows (the ``posts`` its page context holds, as Material's blog views have
them: a blog index, archive, category or pagination page), and the source files of
the API objects a mkdocstrings page renders (``apiparts``), and the files its
``--8<--`` snippets pull in (``snippets``). All of them date the page."""

from __future__ import annotations

from collections.abc import Iterable

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

from .._display import count
from .apiparts import blocks, global_options, object_files, python_handler


class Shown:
    def __init__(self) -> None:
        self.listed: dict[str, tuple[str, ...]] = {}  # dest_uri -> sources of its posts
        self.parts: dict[str, tuple[str, ...]] = {}  # dest_uri -> snippets, API objects' files
        self.unknown: dict[str, list[str]] = {}  # dest_uri -> objects the handler lacked

    def posts(self, page: Page, context: TemplateContext) -> None:
        """The posts this page shows (only these: a pagination page shows a slice)."""
        posts = context.get("posts")
        if isinstance(posts, list) and posts:
            sources = (getattr(getattr(post, "file", None), "abs_src_path", None)
                       for post in posts)
            self.listed[page.file.dest_uri] = tuple(dict.fromkeys(s for s in sources if s))

    def api_objects(self, page: Page, config: MkDocsConfig) -> None:
        """The files of the objects this page rendered, read now: mkdocstrings tears
        its handlers down when the build ends."""
        if not page.markdown or ":::" not in page.markdown:
            return
        found = blocks(page.markdown)
        handler = python_handler(config) if found else None
        if handler is None:
            return
        files, unknown = object_files(handler, found, global_options(config))
        self.add_parts(page, files)
        if unknown:
            self.unknown[page.file.dest_uri] = unknown

    def add_parts(self, page: Page, files: Iterable[str]) -> None:
        """Files ``page`` shows beyond its own source (snippets, API objects' code)."""
        own = page.file.abs_src_path
        dest = page.file.dest_uri
        self.parts[dest] = tuple(dict.fromkeys(
            [*self.parts.get(dest, ()), *(f for f in files if f != own)]))

    def notes(self, files: list[File]) -> list[str]:
        """One line for the objects of ``files`` (the pages listed) that mkdocstrings'
        handler did not hold, with an example."""
        missing = [(file.src_uri, name) for file in files
                   for name in self.unknown.get(file.dest_uri, ())]
        if not missing:
            return []
        pages = len({page for page, _ in missing})
        return [f"{count(len(missing), 'object')} on {count(pages, 'page')} not found among "
                f"the objects mkdocstrings' Python handler loaded, so their source files are "
                f"not counted in those pages' lastmod (e.g. {missing[0][0]} renders "
                f"{missing[0][1]})"]
