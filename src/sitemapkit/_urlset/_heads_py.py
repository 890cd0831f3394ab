"""Reference twin of the built-site scan's hot loop: list the ``.html`` files under a
folder, read each one up to ``</head>`` and read its signals (robots, refresh,
canonical, hreflang, generator). ``sitemapkit site`` does this for every page of a
site, so on a large one it is most of the run.

``ext/_heads.pxi`` (``read_pages``, ``head_signals``; the tokenizer in
``_heads_tokens.pxi``) makes the same decisions in C
with the GIL released, so the scan's threads run in parallel; a head it cannot read
exactly (an entity, a non-ASCII byte where the tokenizer would have to classify it,
no ``</head>``) is handed to ``head_signals`` here, so both give the same answers.
"""

from __future__ import annotations

import os
import re

from .._files import open_regular, regular_fd
from ..errors import InputError
from ..heads.meta import NEEDLES, html_signals

__all__ = ["BYTES_SPACE", "NEEDLES", "TEXT_SPACE", "head_signals", "html_files", "read_head",
           "read_pages", "unread"]

# The whitespace classes the reference's regexes and str methods use, below 0x80:
# ``\s`` of a str pattern, ``str.split()`` and ``str.strip()`` (``TEXT_SPACE``, with
# \x1c-\x1f), ``\s`` of a bytes pattern (``BYTES_SPACE``). The C tables are built from
# these, and a test checks them against ``re`` and ``str.isspace``.
TEXT_SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "
BYTES_SPACE = b"\t\n\x0b\x0c\r "

HEAD_CHUNK = 1 << 13  # most heads end in the first 8 KiB
HEAD_LIMIT = 1 << 20  # a <head> longer than this is read no further
_HEAD_END = re.compile(rb"</head\s*>", re.IGNORECASE)
# a page, not a fragment: HTML5 needs neither <html> nor <head> after its doctype
_DOCUMENT = re.compile(rb"<html[\s>]|<head[\s>]|<!doctype\s+html[\s>]", re.IGNORECASE)

Alternates = tuple[tuple[str, str], ...]
# (document, noindex, canonical, redirect, alternates, generator): ``document`` is
# False for an HTML fragment (no <html> or <head>), whose other fields are empty.
Signals = tuple[bool, bool, str | None, bool, Alternates, str | None]
PageHead = tuple[str, bool | None, bool, str | None, bool, Alternates, str | None]  # rel first
_FRAGMENT: Signals = (False, False, None, False, (), None)
# A symbolic link (to a folder, a page, nowhere, or round in a loop) is never followed:
# it may lead out of the tree. ``document`` None names it.
LINK: tuple[None, bool, None, bool, Alternates, None] = (None, False, None, False, (), None)


def read_pages(root: str, files: list[str], subtrees: list[str]) -> list[PageHead]:
    """(path relative to ``root``, *signals) of ``files`` and of every page under
    ``subtrees``, in path order, a link below them with ``LINK``'s signals, a page or
    folder (``rel/``) that cannot be read with ``unread``'s."""
    links: set[str] = set()
    rels = list(files)
    for folder in subtrees:
        rels += html_files(root, folder, links)
    return [(rel, *(LINK if rel in links else _page(root + "/" + rel)))
            for rel in sorted(rels + list(links))]


def _page(path: str) -> Signals | tuple[None, bool, None, bool, Alternates, str]:
    if path.endswith("/"):  # an unreadable folder the walk met
        return unread(path)
    try:
        head = read_head(path)
    except InputError:
        return unread(path)
    return head_signals(head)


def unread(path: str) -> tuple[None, bool, None, bool, Alternates, str]:
    """A page, or a folder (``path`` ending in '/'), that cannot be read: ``LINK``'s
    signals with why in the generator's place ("is a FIFO (named pipe)", "Permission
    denied", "File name too long"). Both twins ask this function, so they say the same."""
    try:
        if path.endswith("/"):
            os.listdir(path)
        else:
            with open_regular(path) as fh:
                fh.read(HEAD_CHUNK)  # a failing disk says EIO here
        why = "could be read only in part"  # it changed under the scan
    except OSError as exc:
        why = exc.strerror or str(exc)
    return (None, False, None, False, (), why)


def head_signals(head: bytes) -> Signals:
    """What the head of one page (its bytes, as ``read_head`` gives them) says."""
    if not _DOCUMENT.search(head):
        return _FRAGMENT
    found = html_signals(head.decode("utf-8", "replace"))
    return (True, found.noindex, found.canonical, found.redirect, found.alternates,
            found.generator)


def html_files(root: str, top: str = "", links: set[str] | None = None) -> list[str]:
    """Relative paths of the .html files under ``top``; hidden folders skipped (one
    ``scandir`` per directory, no per-file stat). A folder with no pages yields none.
    Symbolic links are not followed; ``links`` gets the ones ``list_folder`` names."""
    found: list[str] = []
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            files, folders, linked = list_folder(root, folder)
        except InputError:  # a folder that cannot be read: itself, as an unread page
            found.append(folder + "/")
            continue
        found += files
        stack += folders
        if links is not None:
            links.update(linked)
    return found


def list_folder(root: str, rel_dir: str) -> tuple[list[str], list[str], list[str]]:
    """(.html files, folders not hidden, links) directly in ``rel_dir``, relative to
    root. A symbolic link is never followed (it may lead out of the tree or round in a
    loop): one to a folder, to a page, dangling or looping is named in ``links``; one
    to another file is no page."""
    try:
        entries = list(os.scandir(os.path.join(root, rel_dir) if rel_dir else root))
    except OSError as exc:
        raise InputError(f"cannot read {os.path.join(root, rel_dir)}: "
                         f"{exc.strerror or exc}") from None
    files: list[str] = []
    folders: list[str] = []
    links: list[str] = []
    for entry in entries:
        name = entry.name
        rel = rel_dir + "/" + name if rel_dir else name
        html = name.endswith((".html", ".htm"))
        if entry.is_symlink():
            if not name.startswith(".") and (html or not _regular(entry)):
                links.append(rel)
        elif entry.is_dir(follow_symlinks=False):
            if not name.startswith("."):
                folders.append(rel)
        elif html:
            files.append(rel)
    return files, folders, links


def _regular(entry: os.DirEntry[str]) -> bool:
    """A link's target is a regular file (False: a folder, nothing, a loop)."""
    try:
        return entry.is_file()
    except OSError:
        return False


def read_head(path: str) -> bytes:
    """The bytes up to ``</head>`` (or the first MiB); an unreadable page, or one that is
    no regular file (a FIFO's open would block), is an error."""
    try:
        fd = regular_fd(path)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        data = b""
        while len(data) < HEAD_LIMIT:
            chunk = os.read(fd, HEAD_CHUNK)
            if not chunk:
                break
            data += chunk
            end = _HEAD_END.search(data, max(0, len(data) - len(chunk) - 8))
            if end:
                return data[:end.end()]
        return data
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
