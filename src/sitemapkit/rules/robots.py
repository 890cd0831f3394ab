"""robots.txt ``Sitemap:`` lines as RFC 9309 reads them: the key in any case, blanks
around the colon, a ``#`` comment after the value, a byte-order mark before the
first. One reader for the writer that adds our line, its dry run, the generator's
entry point and the validator."""

from __future__ import annotations


def sitemap_lines(text: str) -> list[tuple[int, str]]:
    """(line number, URL) of each ``Sitemap:`` line of a robots.txt, in order."""
    found = []
    for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        key, colon, value = line.partition(":")
        if colon and key.strip().lower() == "sitemap":
            url = value.split("#", 1)[0].strip()
            if url:
                found.append((number, url))
    return found
