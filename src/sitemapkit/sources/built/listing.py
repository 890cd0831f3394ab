"""Where a built site's pages are: the top levels of its output directory, listed
here so the scan can split the folders below them between its workers. Hidden
folders are skipped; a folder that cannot be read is an input error naming it (the
listing below the top levels, and the reads, are ``_urlset.read_pages``)."""

from __future__ import annotations

from ..._urlset import list_folder

FRONTIER_DEPTH = 2  # levels listed before the scan's work is split (Hugo: root, sections)


def frontier(root: str) -> tuple[list[str], list[str]]:
    """(pages in the top levels, folders below them left to walk): what is split
    between the workers."""
    files: list[str] = []
    level = [""]
    for _ in range(FRONTIER_DEPTH):
        below: list[str] = []
        for rel_dir in level:
            found, folders = list_folder(root, rel_dir)
            files += found
            below += folders
        level = below
    return files, sorted(level)
