"""A published sitemap set read back as a record: every loc with its lastmod and its
hreflang alternates. From a folder (its entry point and every file its index lists
there), a sitemap file, or a live URL (fetched with the sitemaps its index lists, every
read capped and timed: ``validate.remote``). What ``sitemapkit diff`` compares, and what
a change report is made of."""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import tempfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO
from urllib.parse import unquote

from .._files import open_unpacked
from ..errors import FetchError, InputError
from ..protocol import FETCH_DEADLINE, MAX_BYTES, SITEMAP_NS, TEXT_SUFFIXES, XHTML_NS

# where sitemaps.org and the generators put the entry point, in the order tried
ENTRY_POINTS = ("sitemap.xml", "sitemap_index.xml", "sitemap-index.xml", "sitemap.xml.gz",
                "sitemap.txt")
if TYPE_CHECKING:
    from xml.etree import ElementTree

    from ..validate.remote import Fetched

_URL, _LOC, _LASTMOD = f"{{{SITEMAP_NS}}}url", f"{{{SITEMAP_NS}}}loc", f"{{{SITEMAP_NS}}}lastmod"
_SITEMAP, _LINK = f"{{{SITEMAP_NS}}}sitemap", f"{{{XHTML_NS}}}link"


@dataclass(frozen=True)
class Listed:
    """One URL as a set lists it."""

    lastmod: str | None = None
    alternates: tuple[tuple[str, str], ...] = ()  # (hreflang, href), sorted


@dataclass
class Record:
    """What a set lists, and where it was read from."""

    where: str
    urls: dict[str, Listed] = field(default_factory=dict)
    files: int = 0
    notes: list[str] = field(default_factory=list)
    alternates_known: bool = True  # False: a lastmod record, which keeps no alternates
    parts: list[tuple[str, int]] = field(default_factory=list)  # (file name, URLs), in order

    def by_file(self) -> Iterator[tuple[str, dict[str, Listed]]]:
        """The URLs of each file read, in order (a URL listed twice: where first seen)."""
        items = iter(self.urls.items())
        for name, n in self.parts:
            yield name, dict(itertools.islice(items, n))


def read_record(given: str | os.PathLike[str], deadline: float = FETCH_DEADLINE) -> Record:
    """The set at ``given``: an http(s) URL (each file fetched within ``deadline``
    seconds), a folder or a sitemap file."""
    text = os.fspath(given)
    if text.startswith(("http://", "https://")):
        from ..validate.remote import fetch  # on use: urllib is not needed otherwise

        with tempfile.TemporaryDirectory(prefix="sitemapkit-record-") as tmp:
            got = _fetch_entry(text, Path(tmp), functools.partial(fetch, deadline=deadline))
            for loc, why in got.failed.items():  # a part of the set unread: no record
                raise FetchError(f"cannot fetch {loc}: {why}")
            record = Record(got.url)
            record.notes += got.notes
            _read_set(got.path, Path(tmp), record)
            return record
    path = Path(text)
    if path.is_dir():
        entry = next((path / n for n in ENTRY_POINTS if (path / n).is_file()), None)
        if entry is None:
            raise InputError(f"{path} holds no sitemap (looked for {', '.join(ENTRY_POINTS)})")
        path_root = path
    elif path.is_file():
        entry, path_root = path, path.parent
    else:
        raise InputError(f"{path}: no such file, folder or URL")
    record = Record(text)
    _read_set(entry, path_root, record)
    return record


def _fetch_entry(url: str, into: Path, fetch: Callable[[str, Path], Fetched]) -> Fetched:
    """A sitemap URL, or a folder URL (ending in '/'): its entry point, by the names
    generators use, the first one there."""
    if not url.split("?", 1)[0].endswith("/"):
        return fetch(url, into)
    missing: list[str] = []
    for name in ENTRY_POINTS:
        try:
            return fetch(url + name, into)
        except FetchError as exc:
            if exc.status != 404:
                raise
            missing.append(name)
    raise FetchError(f"{url} serves none of {', '.join(missing)} (HTTP 404 each)", 404)


def _read_set(entry: Path, root: Path, record: Record) -> None:
    """The entry point, and for an index each file it lists under ``root``."""
    if entry.name.endswith(TEXT_SUFFIXES):
        _read_text(entry, record)
        return
    children: list[str] = []
    _read_xml(entry, record, children)
    for loc in children:
        child = _local(root, loc)
        if child is None:
            record.notes.append(f"{loc}, listed by {entry.name}, is not a file under {root}")
            continue
        if child.name.endswith(TEXT_SUFFIXES):
            _read_text(child, record)
        else:
            _read_xml(child, record, [])


def _local(root: Path, loc: str) -> Path | None:
    """The file under ``root`` a listed sitemap's URL names: the longest tail of its
    path that is a file there (the folder's URL on the site is not needed)."""
    segments = unquote(loc.split("?", 1)[0].split("://", 1)[-1]).split("/")[1:]
    for k in range(len(segments)):
        tail = "/".join(segments[k:])
        if ".." not in tail.split("/") and (root / tail).is_file():
            return root / tail
    return None


def _open(path: Path) -> contextlib.AbstractContextManager[BinaryIO]:
    """A regular file only (a FIFO's open would block), gunzipped when named so."""
    return open_unpacked(path, path.suffix == ".gz")


def _capped(fh: BinaryIO, path: Path) -> Iterator[bytes]:
    """``fh`` in blocks, refusing more than the protocol's largest file (a gzip bomb)."""
    total = 0
    while block := fh.read(1 << 20):
        total += len(block)
        if total > MAX_BYTES:
            raise InputError(f"{path} holds more than {MAX_BYTES:,} bytes, the most a sitemap "
                             "file may (sitemapkit rules 22)")
        yield block


def _read_xml(path: Path, record: Record, children: list[str]) -> None:
    from xml.etree import ElementTree  # here, not at the top: a first run reads none

    parser: ElementTree.XMLPullParser[ElementTree.Element] = \
        ElementTree.XMLPullParser(events=("end",))
    record.files += 1
    before = len(record.urls)
    try:
        with _open(path) as fh:
            for block in _capped(fh, path):
                parser.feed(block)
                _take(parser, record, children)
        parser.close()
        _take(parser, record, children)
    except (ElementTree.ParseError, OSError, EOFError, zlib.error) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    if len(record.urls) > before or not children:
        record.parts.append((path.name, len(record.urls) - before))


def _take(parser: ElementTree.XMLPullParser[ElementTree.Element], record: Record,
          children: list[str]) -> None:
    events: Iterator[Any] = parser.read_events()  # ("end", element) pairs
    for _, element in events:
        if element.tag == _URL:
            loc = (element.findtext(_LOC) or "").strip()
            lastmod = (element.findtext(_LASTMOD) or "").strip() or None
            links = tuple(sorted((link.get("hreflang", ""), link.get("href", ""))
                                 for link in element.iter(_LINK)))
            if loc:
                record.urls[loc] = Listed(lastmod, links)
            element.clear()
        elif element.tag == _SITEMAP:
            loc = (element.findtext(_LOC) or "").strip()
            if loc:
                children.append(loc)
            element.clear()


def _read_text(path: Path, record: Record) -> None:
    record.files += 1
    try:
        with _open(path) as fh:
            data = b"".join(_capped(fh, path))
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    before = len(record.urls)
    for line in data.decode("utf-8", "replace").splitlines():
        if line.strip():
            record.urls[line.strip()] = Listed()
    record.parts.append((path.name, len(record.urls) - before))
