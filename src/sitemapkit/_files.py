"""File primitives every layer shares: the temp name sitemapkit's own files carry until
they are renamed into place, an exclusive write that leaves no partial file, the atomic
replace and a cache folder git ignores. Low in the layers so that the git cache and the
writer use the same ones."""

from __future__ import annotations

import contextlib
import errno
import gzip
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, cast

TMP_PREFIX = ".sitemapkit-tmp-"
STAGED_PREFIX = ".sitemapkit-staged-"  # a partition's shard until its commit moves it
KEPT_PREFIX = ".sitemapkit-kept-"  # an engine's prepared shard or keys, until its second job
KEPT_MAGIC = b"sitemapkit kept\n"  # the first bytes of every kept object: provably ours
# the generator mark of the human view's pages: `site` never takes them for pages, and
# only pages carrying it are removed as an earlier view's
HUMAN_VIEW_GENERATOR = "sitemapkit human view"
HUMAN_VIEW_MARK = f'<meta name="generator" content="{HUMAN_VIEW_GENERATOR}">'


class NotRegular(OSError):
    """A path that is no regular file (a FIFO, a socket, a device, a folder, a link):
    never opened for reading, since a FIFO's open blocks until a writer comes."""


def kind_of(mode: int) -> str:
    """A file type in the words a user knows."""
    return ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a folder" if stat.S_ISDIR(mode) else "a symbolic link" if stat.S_ISLNK(mode)
            else "no regular file")


def regular_fd(path: str | os.PathLike[str]) -> int:
    """A file descriptor open for reading on a regular file, never following a final
    symbolic link and never blocking: the open is non-blocking and the type is checked
    on the open file, so a FIFO, socket or device under a page's or a sitemap's name is
    refused (``NotRegular``, naming what it is) instead of hanging the run."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | \
        getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EMLINK):  # a link; a socket
            mode = os.lstat(path).st_mode
            raise NotRegular(exc.errno, f"is {kind_of(mode)}", os.fspath(path)) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(errno.EINVAL, f"is {kind_of(mode)}", os.fspath(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``regular_fd`` as a binary file object."""
    return os.fdopen(regular_fd(path), "rb")


@contextlib.contextmanager
def open_unpacked(path: str | os.PathLike[str], gunzip: bool) -> Iterator[BinaryIO]:
    """``open_regular``, read through gzip when ``gunzip``: both closed on the way out
    (a GzipFile over a file object leaves that one open)."""
    with open_regular(path) as raw:
        if not gunzip:
            yield raw
            return
        with gzip.GzipFile(fileobj=raw, mode="rb") as unpacked:
            yield cast(BinaryIO, unpacked)


def read_regular(path: str | os.PathLike[str], limit: int = -1) -> bytes | None:
    """The first ``limit`` bytes of a regular file (all with -1); None when it is
    missing, unreadable or no regular file (``open_regular``)."""
    try:
        with open_regular(path) as fh:
            return fh.read(limit)
    except OSError:
        return None


def temp_path(out_dir: Path, name: str) -> Path:
    return out_dir / f"{TMP_PREFIX}{os.getpid()}-{os.urandom(4).hex()}-{name}"


def write_file(path: Path, data: bytes, fsync: bool) -> None:
    """A new file (``path`` must not exist), whole or not at all: a failed write (a full
    disk) or a stop (Ctrl-C, SIGTERM), even one that lands as the open returns, leaves
    no file behind."""
    fd = -1
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if fsync:
            os.fsync(fd)
    except FileExistsError:
        if fd >= 0:  # pragma: no cover - the open itself is what raises it
            os.close(fd)
            path.unlink(missing_ok=True)
        raise  # someone else's file: never removed
    except BaseException:
        if fd >= 0:
            os.close(fd)
        path.unlink(missing_ok=True)
        raise
    os.close(fd)


def atomic_write(path: str | os.PathLike[str], data: bytes | str, fsync: bool = False) -> None:
    """Every file the package writes outside a sitemap commit (robots.txt, the IndexNow
    key file, caches, records, a version index): a temp file beside it, then one
    rename, so a reader or a crash never sees half a file."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(target.parent, target.name)
    try:
        write_file(tmp, data.encode("utf-8") if isinstance(data, str) else data, fsync)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


CACHE_GITIGNORE = "# Made by sitemapkit: a cache, nothing here belongs in git.\n*\n"


def ensure_cache_dir(directory: Path) -> None:
    """Make a cache folder that git ignores by itself (a ``.gitignore`` holding ``*``,
    as pytest does), so no ``git add -A`` commits it. Only in a folder sitemapkit makes,
    or one named ``sitemapkit`` (the default ``.cache/sitemapkit``): never in a folder
    the user chose that already exists."""
    made = not directory.exists()
    directory.mkdir(parents=True, exist_ok=True)
    ignore = directory / ".gitignore"
    if (made or directory.name == "sitemapkit") and not ignore.exists():
        atomic_write(ignore, CACHE_GITIGNORE)


def remove_dead_temp_folders(prefix: str) -> int:
    """Remove the folders in $TMPDIR named ``prefix + pid + ...`` whose process is gone
    (a killed run's); a folder whose pid is alive, or not named so, is left alone.
    Returns how many were removed."""
    removed = 0
    for folder in Path(tempfile.gettempdir()).glob(prefix + "*"):
        pid = folder.name[len(prefix):].split("-", 1)[0]
        if not pid.isdigit() or not folder.is_dir() or folder.is_symlink():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
        except OSError:
            pass  # alive, another user's
    return removed
