"""Where a built site's pages are: the top levels of its output directory, listed
here so the scan can split the folders below them between its workers. Hidden
folders are skipped, symbolic links named and never followed; a folder below the top
that cannot be read is left out like a page that cannot be read, with why (the
listing below the top levels, and the reads, are ``_urlset.read_pages``)."""

from __future__ import annotations

from ..._urlset import list_folder
from ...errors import InputError

# bytes of a page read whole (a list page for its links, a page for its edit link); a
# larger one is not read (a 200 MB page cost 300 MB of memory): its date is not guessed
PAGE_READ_LIMIT = 16 << 20
FRONTIER_DEPTH = 2  # levels listed before the scan's work is split (Hugo: root, sections)


def frontier(root: str) -> tuple[list[str], list[str], list[str]]:
    """(pages in the top levels, folders below them left to walk, links in the top
    levels, never followed): what is split between the workers."""
    files: list[str] = []
    links: list[str] = []
    level = [""]
    for _ in range(FRONTIER_DEPTH):
        below: list[str] = []
        for rel_dir in level:
            try:
                found, folders, linked = list_folder(root, rel_dir)
            except InputError:
                if not rel_dir:
                    raise  # the output itself
                files.append(rel_dir + "/")  # read as a page: left out with why
                continue
            files += found
            below += folders
            links += linked
        level = below
    return files, sorted(level), links
