"""pymdownx.snippets: the files a page pulls in with ``--8<--`` are parts of it.

A home page that is only ``--8<-- "README.md"`` shows the README, so it changes when the
README does. Which files a page pulls in is asked of the extension itself: its own
preprocessor, configured as the build configures it (``base_path``,
``restrict_base_path``, ``auto_append``, ``check_paths``), runs over the page's
Markdown as the build's will, and every file it reads is recorded, nested snippets,
line ranges and sections included (a file is dated whole). Snippets fetched from a URL
are not read (no download, and git cannot date them). Nothing of the extension's
search for files is copied here.
"""

from __future__ import annotations

import importlib
import logging
import os
from typing import Any

from mkdocs.config.defaults import MkDocsConfig

EXTENSION = "pymdownx.snippets"
log = logging.getLogger("mkdocs.plugins.sitemapkit")


class SnippetFiles:
    """The snippet preprocessor of the build's own configuration, recording what it
    reads; ``None`` preprocessor when the build does not use the extension."""

    def __init__(self, config: MkDocsConfig) -> None:
        self.pre: Any = None
        self.read: list[str] = []
        if EXTENSION not in (config.markdown_extensions or ()):
            return
        try:
            markdown: Any = importlib.import_module("markdown")  # MkDocs brings it
            md = markdown.Markdown(extensions=[EXTENSION], extension_configs={
                EXTENSION: dict((config.mdx_configs or {}).get(EXTENSION, {}))})
            pre = md.preprocessors["snippet"]
        except Exception as exc:
            log.debug(f"sitemapkit: {EXTENSION} could not be asked ({exc})")
            return
        reader = pre.read_lines

        def read_lines(path: str) -> list[str]:
            self.read.append(os.path.abspath(path))
            return reader(path)  # type: ignore[no-any-return]

        pre.read_lines = read_lines
        pre.download = lambda url: []  # a URL is never fetched here, nor dated
        self.pre = pre

    def files(self, markdown: str) -> tuple[str, ...]:
        """The files the extension reads for a page whose Markdown is ``markdown``, in
        the order it reads them, each once."""
        if self.pre is None or (not self.pre.auto_append and "-8<-" not in markdown):
            return ()
        self.read = []
        try:
            self.pre.run(markdown.split("\n"))
        except Exception as exc:
            log.debug(f"sitemapkit: {EXTENSION} stopped on a page ({exc})")
        return tuple(dict.fromkeys(self.read))
