"""Atomic, owned output: temp files beside their target, a lock, the previous set.

Nothing internal stays in the output directory (it is what gets published): the lock
is an ``flock`` on the directory itself, and the previous set is read from the live
entry point (the shards its index lists) rather than from a manifest. During a commit
a journal temp file lists the new names, so that the next run can remove the shards
of a commit that was killed before its entry point went live. sitemapkit only ever
deletes such files and temp files carrying its own prefix, never anything else.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from urllib.parse import unquote

from .._files import KEPT_MAGIC as KEPT_MAGIC
from .._files import KEPT_PREFIX as KEPT_PREFIX
from .._files import STAGED_PREFIX as STAGED_PREFIX
from .._files import TMP_PREFIX as TMP_PREFIX
from .._files import NotRegular as NotRegular
from .._files import atomic_write as atomic_write
from .._files import open_regular as open_regular
from .._files import read_regular as read_regular
from .._files import temp_path as temp_path
from .._files import write_file as write_file
from ..errors import OutputError
from ..protocol import MAX_BYTES, SITEMAP_SUFFIXES
from ..protocol import SNIFF_BYTES as SNIFF_BYTES
from ..protocol import looks_like_sitemap as looks_like_sitemap

JOURNAL = "journal.json"
_LOC = re.compile(rb"<loc>\s*([^<]*?)\s*</loc>")


def check_file_name(name: str, what: str) -> str:
    """A plain file name inside the output directory: no separators, no '..', no NUL."""
    if (
        not isinstance(name, str)
        or not name
        or "\x00" in name
        or "/" in name
        or "\\" in name
        or name in (".", "..")
        or name.startswith(".")
        or os.path.isabs(name)
    ):
        raise ValueError(f"{what} {name!r} must be a plain file name inside the output "
                         "directory (no '/', '\\', '..', NUL or leading '.')")
    return name


def prepare_dir(out_dir: str | os.PathLike[str], follow_symlink: bool = False) -> Path:
    """The output directory, created if needed. A symlinked one (which writes files
    somewhere else than the path says) is refused unless explicitly allowed."""
    path = Path(out_dir)
    if "\x00" in str(path):
        raise OutputError(f"output path {str(path)!r} contains a NUL byte")
    if path.is_symlink() and not follow_symlink:
        raise OutputError(f"output directory {str(path)!r} is a symlink to "
                          f"{os.readlink(path)!r}; refusing to write through it "
                          "(allow it with follow_symlink=True / --follow-symlink)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        pass
    except OSError as exc:
        raise OutputError(f"cannot make the output directory {str(path)!r}: "
                          f"{exc.strerror or exc}") from None
    if not path.is_dir():
        raise OutputError(f"output path {str(path)!r} is not a directory")
    return path


@contextlib.contextmanager
def locked(out_dir: Path, timeout: float, notes: list[str] | None = None,
           waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """Serialize writers on one directory (CI retries): an flock on the directory
    itself, so no lock file is left in what gets published. A wait is said in
    ``notes`` once it is over, and to ``waiting`` as it starts (a run that sits silent
    for minutes looks hung)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no cross-process lock
        yield
        return
    fd = os.open(out_dir, os.O_RDONLY)
    try:
        started = time.monotonic()
        deadline = started + timeout
        waited = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if notes is not None and waited:
                    notes.append(f"waited {time.monotonic() - started:.1f} s for another "
                                 f"sitemapkit writer to finish in {out_dir}")
                break
            except BlockingIOError:
                if not waited and waiting is not None:
                    waiting(f"waiting for another sitemapkit writer to finish in {out_dir} "
                            f"(at most {timeout:g} s)")
                waited = True
                if time.monotonic() > deadline:
                    raise OutputError(f"another sitemapkit writer is writing into {out_dir} "
                                      f"(waited {timeout:g} s)") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def sync_dir(out_dir: Path) -> None:
    with contextlib.suppress(OSError):  # not supported on every platform / filesystem
        fd = os.open(out_dir, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_stale_temps(out_dir: Path, live: Iterable[str], entry: Collection[str],
                       notes: list[str] | None = None) -> list[str]:
    """Temp files of writers that died (we hold the lock, so none is live), and the
    files a killed commit of *this* set (its journal names an ``entry`` name) renamed into
    place that no live index here names. A journal of another set in this folder is
    left for that set's next run, and said in ``notes``. Returns the names removed."""
    keep = set(live)
    removed: list[str] = []
    others: dict[str, None] = {}
    listed: set[str] | None = None  # every name a live index here lists, read once
    for path in sorted(out_dir.glob(TMP_PREFIX + "*")):
        if path.name.endswith("-" + JOURNAL):
            try:  # a FIFO under a journal's name is never opened (read_regular)
                owner, names = read_journal(read_regular(path, MAX_BYTES) or b"[]")
            except ValueError:
                owner, names = None, []
            if owner is not None and owner not in entry:
                others[owner] = None
                continue  # that set's own next run replays it
            if listed is None:
                listed = names_listed(os.listdir(out_dir),
                                      lambda name, limit: read_regular(out_dir / name, limit))
            removed += remove_owned(out_dir, [n for n in names
                                              if n not in keep and n not in listed])
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    if others and notes is not None:
        notes.append(f"a killed run of another sitemap set here ({', '.join(others)}) left "
                     "files behind; its next run removes them, this one leaves them")
    return removed


def names_listed(present: Iterable[str], get: Callable[[str, int], bytes | None]) -> set[str]:
    """Every index among the files ``present`` (``get`` reads a file's first bytes),
    with the file names its locs end in: what a journal or a stray sweep may never
    remove, whichever set's it is (another set here may be live)."""
    names: set[str] = set()
    for name in present:
        if not name.endswith(SITEMAP_SUFFIXES) or name.startswith(TMP_PREFIX):
            continue
        head = get(name, SNIFF_BYTES)
        if head is None or b"<sitemapindex" not in head:
            continue
        names.update((name, name + ".gz"))
        for loc in listed_locs(get(name, MAX_BYTES) or b""):
            names.add(unquote(loc.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[-1]))
    return names


def listed_locs(index: bytes) -> list[str]:
    """The locs an index lists, unescaped, in order."""
    from html import unescape  # here: html.entities is 3 ms of every CLI start

    return [unescape(loc.decode("utf-8", "replace")) for loc in _LOC.findall(index)]


def file_of(loc: str, prefix: str) -> str | None:
    """The file name in this folder a listed loc names: only a loc exactly at
    ``prefix`` + name, never a file of another host or folder with the same name."""
    if not loc.startswith(prefix):
        return None
    name = unquote(loc[len(prefix):].split("?", 1)[0].split("#", 1)[0])
    return name if name and "/" not in name else None


def is_sitemap_file(path: Path) -> bool:
    """A regular file here whose name and first bytes are a sitemap's."""
    if not path.name.endswith(SITEMAP_SUFFIXES):
        return False
    head = read_regular(path, SNIFF_BYTES)
    return head is not None and looks_like_sitemap(head, path.name)


def write_journal(path: Path, entry: str, new: list[str], old: list[str],
                  fsync: bool) -> None:
    """The names a commit is about to make live and the names of the set it replaces,
    for the next run of the same set (its entry point ``entry``) if this one dies
    anywhere: before the entry point lands, the new names the live set does not list
    are removed; after, the old ones. ``path`` is a ``temp_path(out, JOURNAL)``, named
    by the caller first, so a stop at any moment knows what to remove."""
    write_file(path, json.dumps({"entry": entry, "new": new, "old": old}).encode(), fsync)


def read_journal(data: bytes) -> tuple[str | None, list[str]]:
    """(the entry point of the set a journal belongs to, every name it holds). An older
    journal names no entry point (None): its names are removed only where no live
    index here lists them, as every journal's are."""
    found = json.loads(data)
    names = found if isinstance(found, list) else \
        [*found.get("new", []), *found.get("old", [])] if isinstance(found, dict) else []
    entry = found.get("entry") if isinstance(found, dict) else None
    return (entry if isinstance(entry, str) else None,
            [n for n in names if isinstance(n, str)])


def is_plain(name: str) -> bool:
    """A plain file name in the folder, or a partition shard staged under one."""
    try:
        check_file_name(name.removeprefix(STAGED_PREFIX), "manifest entry")
    except ValueError:
        return False
    return True


def remove_owned(out_dir: Path, names: list[str]) -> list[str]:
    """Delete files of a sitemap set; returns the names unlinked. A hand-edited or
    hostile index or journal cannot make us delete anything but a plain file name in
    this directory whose first bytes are a sitemap's (``is_sitemap_file``)."""
    removed = []
    for name in dict.fromkeys(names):
        if is_plain(name) and is_sitemap_file(out_dir / name):
            with contextlib.suppress(FileNotFoundError):
                (out_dir / name).unlink()
                removed.append(name)
    return removed


SHOWN_REMOVED = 10  # removed files named one by one; past that they are counted


def removed_note(names: list[str], what: str) -> list[str]:
    """The one line that names every file a run removed (counted past ten)."""
    if not names:
        return []
    shown = ", ".join(names[:SHOWN_REMOVED])
    more = f" and {len(names) - SHOWN_REMOVED:,} more" if len(names) > SHOWN_REMOVED else ""
    return [f"removed {len(names):,} {'file' if len(names) == 1 else 'files'} {what}: "
            f"{shown}{more}"]


def named_file(exc: OSError) -> str:
    """`` (FILE)`` for the file an error names, unless it is one of the run's own
    temporary or staged names: the folder is named already, and that name is ours."""
    name = os.fspath(exc.filename) if exc.filename else ""
    if not name or os.path.basename(str(name)).startswith((TMP_PREFIX, STAGED_PREFIX,
                                                            KEPT_PREFIX)):
        return ""
    return f" ({name})"


def remove_owned_temps(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
