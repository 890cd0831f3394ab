"""What a MkDocs file is as a page: the 404 page, a page a plugin generated (no source
to date), its front matter, and the signals of an output a ``--dirty`` build kept."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File
from mkdocs.utils.meta import get_data

from .._urlset import head_signals
from ..heads.meta import HEAD_END, HtmlSignals, html_signals


def inside(path: str | None, directory: str) -> bool:
    return bool(path) and os.path.abspath(str(path)).startswith(
        os.path.join(os.path.abspath(directory), ""))


def generated(file: File, docs_dir: str) -> bool:
    """A page a plugin made (blog archives, tags): it has no source file to date."""
    return getattr(file, "generated_by", None) is not None and \
        not inside(file.abs_src_path, docs_dir)


def is_404(file: File) -> bool:
    """The site's not-found page (``404.md``, or any source MkDocs serves at ``404/``);
    only a source named ``404...`` at the top can be, so ``url`` is rarely computed."""
    return file.src_uri.startswith("404") and (
        file.src_uri == "404.md" or file.url in ("404.html", "404/"))


def meta(file: File) -> Mapping[str, Any]:
    """Front matter: from the page if this build read it, else from its source."""
    if file.page is not None and file.page.markdown is not None:
        return file.page.meta
    if not file.abs_src_path:
        return {}
    try:
        return get_data(Path(file.abs_src_path).read_text("utf-8-sig"))[1]
    except OSError:
        return {}


def read_signals(file: File) -> HtmlSignals:
    """A page a --dirty build did not rebuild: read its existing output."""
    try:
        return page_signals(Path(file.abs_dest_path).read_text("utf-8", errors="replace"))
    except OSError:
        return HtmlSignals()


def page_signals(output: str) -> HtmlSignals:
    """``html_signals`` of a rendered page, read by the hot unit's head reader (C when
    built: a tenth of the time) from the page's head alone, found as it finds it."""
    end = HEAD_END.search(output)
    if end is None:
        return html_signals(output)
    document, noindex, canonical, redirect, alternates, generator = head_signals(
        output[:end.end()].encode("utf-8", "surrogatepass"))
    if not document:  # no <html> or <head> before it: the reference reads it as text
        return html_signals(output)
    return HtmlSignals(noindex, canonical, redirect, alternates, generator)
