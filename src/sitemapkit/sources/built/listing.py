"""Which files of a built site's output are its pages: every ``.html`` file, hidden
folders skipped, one ``scandir`` per directory and no per-file stat. A folder with no
pages simply yields none; a folder that cannot be read is an input error naming it."""

from __future__ import annotations

import os

from ...errors import InputError

FRONTIER_DEPTH = 2  # levels listed before the scan's work is split (Hugo: root, sections)


def html_files(root: str, top: str = "") -> list[str]:
    """Relative paths of the .html files under ``top``; hidden folders skipped (one
    ``scandir`` per directory, no per-file stat). A folder with no pages yields none."""
    found: list[str] = []
    stack = [top]
    while stack:
        files, folders = _list(root, stack.pop())
        found += files
        stack += folders
    return found


def _list(root: str, rel_dir: str) -> tuple[list[str], list[str]]:
    """(.html files, folders not hidden) directly in ``rel_dir``, relative to root."""
    try:
        entries = list(os.scandir(os.path.join(root, rel_dir) if rel_dir else root))
    except OSError as exc:
        raise InputError(f"cannot read {os.path.join(root, rel_dir)}: "
                         f"{exc.strerror or exc}") from None
    files: list[str] = []
    folders: list[str] = []
    for entry in entries:
        name = entry.name
        rel = rel_dir + "/" + name if rel_dir else name
        if entry.is_dir():
            if not name.startswith("."):
                folders.append(rel)
        elif name.endswith((".html", ".htm")):
            files.append(rel)
    return files, folders


def frontier(root: str) -> tuple[list[str], list[str]]:
    """(pages in the top levels, folders below them left to walk): what is split
    between the workers. Hidden folders are skipped, as in ``html_files``."""
    files: list[str] = []
    level = [""]
    for _ in range(FRONTIER_DEPTH):
        below: list[str] = []
        for rel_dir in level:
            found, folders = _list(root, rel_dir)
            files += found
            below += folders
        level = below
    return files, sorted(level)


def page_paths(root: str, files: list[str], subtrees: list[str]) -> list[str]:
    """The pages among ``files`` and under ``subtrees``, in path order."""
    return sorted(files + [rel for folder in subtrees for rel in html_files(root, folder)])
