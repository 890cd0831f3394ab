"""How counts and paths read in every message: one way, everywhere."""

from __future__ import annotations

import os


def count(n: int, word: str, plural: str | None = None) -> str:
    """``1 URL``, ``2 URLs``, ``300,006 errors``: thousands separated, plural right."""
    return f"{n:,} {word if n == 1 else plural or word + 's'}"


def shown_path(path: str | os.PathLike[str]) -> str:
    """A path as the user would type it: relative to the working directory when it is
    inside it (``site/sitemap.xml``), else absolute; never a bare ``.``."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:  # pragma: no cover - another drive on Windows
        return absolute
    return absolute if relative.startswith(os.pardir) or relative == os.curdir else relative


def size(n: int) -> str:
    """Bytes as people read them: 900 bytes, 42 KiB, 61 MiB, 2.0 GiB."""
    if n < 1024:
        return count(n, "byte")
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:,.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    return count(n, "byte")  # pragma: no cover - every n >= 1024 has a unit
