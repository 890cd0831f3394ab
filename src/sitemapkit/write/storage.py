"""Where a partitioned set lives: a local directory, or any fsspec URL (``s3://``,
``gs://``, ``abfs://``, ``memory://``).

Every file is written whole (one PUT on a store, temp file plus rename on a disk).
A partition's shards are *staged*: stored under a hidden name (``STAGED_PREFIX`` and
the final name), which nothing publishes, validates or lists, and moved to their final
names by the commit, just before the index that lists them: so a partitioned run that
is killed, however long it ran, leaves no file under a sitemap's name that the live
index does not list. A move is a rename on a disk and a server-side copy on a store.

An engine whose tasks cannot hand a result to a later task (Spark) *keeps* its
prepared shards and keys here between its two jobs (``keep``): hidden names
(``KEPT_PREFIX``), never synced, each object starting with ``KEPT_MAGIC``, so that
the run, or the next commit here if the run was killed, removes them and nothing else.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..errors import ConfigError, OutputError
from ..protocol import MAX_BYTES, TEXT_SUFFIXES, written_by_sitemapkit
from . import output
from .output import KEPT_MAGIC, KEPT_PREFIX, STAGED_PREFIX


def staged(name: str) -> str:
    """The hidden name a partition's shard is stored under until its commit."""
    return STAGED_PREFIX + name


def kept(name: str) -> str:
    """The hidden name of an engine's scratch object (``Storage.keep``)."""
    return KEPT_PREFIX + name


class Storage(Protocol):
    """The few operations a partition writer and its commit need."""

    where: str  # how messages name the location

    def put(self, name: str, data: bytes) -> None:
        """Store ``data`` under ``name`` whole: a reader sees all of it or nothing."""

    def get(self, name: str, limit: int | None = None) -> bytes | None:
        """A file's bytes (the first ``limit`` of them), or None when it does not exist."""

    def size(self, name: str) -> int | None:
        """A file's size, or None when it does not exist."""

    def stage(self, name: str, data: bytes) -> None:
        """Store a shard whole under ``staged(name)``, the hidden name it keeps until
        the commit moves it."""

    def unstage(self, names: list[str]) -> None:
        """Move staged shards to their final names (the commit, before the index)."""

    def names(self) -> list[str]:
        """Every file name directly under the location."""

    def keep(self, name: str, parts: Sequence[bytes | memoryview]) -> None:
        """Store ``KEPT_MAGIC`` and ``parts`` whole under ``kept(name)``: scratch between
        an engine's jobs, never synced (a crash loses the run that needs it anyway)."""

    def read_kept(self, name: str, start: int = 0, end: int | None = None) -> bytes:
        """Bytes ``start:end`` of what ``keep`` stored under ``name`` (after the magic)."""

    def drop_kept(self, names: Collection[str] | None = None) -> list[str]:
        """Remove kept objects (``names``, as given to ``keep``; None: every one here)
        whose first bytes are ``KEPT_MAGIC``; returns the file names removed."""

    def delete(self, names: list[str]) -> list[str]:
        """Remove files (missing ones are fine); returns the names removed."""

    def remove_dead_temps(self, live: list[str], entry: Collection[str]) -> list[str]:
        """Temp files left by writers that died mid-write (a killed engine worker), and
        what a killed commit of the set at ``entry`` left; returns the names removed."""

    def lock(self, timeout: float) -> contextlib.AbstractContextManager[None]:
        """Serialize commits where the location supports it."""


class LocalStorage:
    """A directory: temp file plus rename per file, an flock during the commit."""

    def __init__(self, root: Path, fsync: bool) -> None:
        self.root, self.fsync, self.where = root, fsync, str(root)

    def put(self, name: str, data: bytes) -> None:
        output.atomic_write(self.root / name, data, self.fsync)

    def get(self, name: str, limit: int | None = None) -> bytes | None:
        """None for a missing file, one that is no regular file (a FIFO under a
        sitemap's name is never opened: that would block) and one that cannot be read
        (EIO): what it names is then not known, so nothing it names is removed."""
        try:
            with output.open_regular(self.root / name) as fh:
                return fh.read(-1 if limit is None else limit)
        except OSError:
            return None

    def size(self, name: str) -> int | None:
        try:
            return (self.root / name).stat().st_size
        except FileNotFoundError:
            return None

    def names(self) -> list[str]:
        return sorted(os.listdir(self.root))

    def stage(self, name: str, data: bytes) -> None:
        output.atomic_write(self.root / staged(name), data, self.fsync)

    def keep(self, name: str, parts: Sequence[bytes | memoryview]) -> None:
        tmp = output.temp_path(self.root, kept(name))
        try:
            with open(tmp, "xb") as fh:
                fh.write(KEPT_MAGIC)
                for part in parts:
                    fh.write(part)
            os.replace(tmp, self.root / kept(name))
        finally:
            tmp.unlink(missing_ok=True)

    def read_kept(self, name: str, start: int = 0, end: int | None = None) -> bytes:
        with output.open_regular(self.root / kept(name)) as fh:
            fh.seek(len(KEPT_MAGIC) + start)
            return fh.read(-1 if end is None else end - start)

    def drop_kept(self, names: Collection[str] | None = None) -> list[str]:
        found = [kept(n) for n in names] if names is not None else \
            [n for n in os.listdir(self.root) if n.startswith(KEPT_PREFIX)]
        removed = []
        for name in found:
            if output.read_regular(self.root / name, len(KEPT_MAGIC)) == KEPT_MAGIC:
                with contextlib.suppress(FileNotFoundError):
                    (self.root / name).unlink()
                    removed.append(name)
        return removed

    def unstage(self, names: list[str]) -> None:
        for name in names:
            os.replace(self.root / staged(name), self.root / name)
        if self.fsync and names:
            output.sync_dir(self.root)

    def delete(self, names: list[str]) -> list[str]:
        removed = output.remove_owned(self.root, names)
        if self.fsync:
            output.sync_dir(self.root)
        return removed

    def remove_dead_temps(self, live: list[str], entry: Collection[str]) -> list[str]:
        return output.remove_stale_temps(self.root, live, entry)

    def lock(self, timeout: float) -> contextlib.AbstractContextManager[None]:
        return output.locked(self.root, timeout)


class FsspecStorage:
    """An fsspec file system under one prefix; each put is a single whole-object write."""

    def __init__(self, fs: Any, root: str, where: str) -> None:
        self.fs, self.root, self.where = fs, root.rstrip("/"), where

    def _path(self, name: str) -> str:
        return posixpath.join(self.root, name)

    def put(self, name: str, data: bytes) -> None:
        self.fs.pipe_file(self._path(name), data)

    def get(self, name: str, limit: int | None = None) -> bytes | None:
        try:
            return bytes(self.fs.cat_file(self._path(name), start=0 if limit else None,
                                          end=limit))
        except FileNotFoundError:
            return None

    def size(self, name: str) -> int | None:
        self.fs.invalidate_cache(self._path(name))
        try:
            return int(self.fs.info(self._path(name))["size"])
        except FileNotFoundError:
            return None

    def names(self) -> list[str]:
        self.fs.invalidate_cache(self.root)
        try:
            listed = self.fs.ls(self.root, detail=False)
        except FileNotFoundError:
            return []
        return sorted(posixpath.basename(str(p).rstrip("/")) for p in listed)

    def stage(self, name: str, data: bytes) -> None:
        self.fs.pipe_file(self._path(staged(name)), data)

    def keep(self, name: str, parts: Sequence[bytes | memoryview]) -> None:
        self.fs.pipe_file(self._path(kept(name)), b"".join([KEPT_MAGIC, *parts]))

    def read_kept(self, name: str, start: int = 0, end: int | None = None) -> bytes:
        return bytes(self.fs.cat_file(self._path(kept(name)), start=len(KEPT_MAGIC) + start,
                                      end=None if end is None else len(KEPT_MAGIC) + end))

    def drop_kept(self, names: Collection[str] | None = None) -> list[str]:
        found = [kept(n) for n in names] if names is not None else \
            [n for n in self.names() if n.startswith(KEPT_PREFIX)]
        ours = [n for n in found if self.get(n, len(KEPT_MAGIC)) == KEPT_MAGIC]
        if ours:
            with contextlib.suppress(FileNotFoundError):
                self.fs.rm([self._path(n) for n in ours])
        return ours

    def unstage(self, names: list[str]) -> None:
        """One server-side copy a shard (concurrent on async stores such as s3fs), then
        the staged objects are removed."""
        if names:
            self.fs.copy([self._path(staged(n)) for n in names],
                         [self._path(n) for n in names])
            self.fs.rm([self._path(staged(n)) for n in names])

    def delete(self, names: list[str]) -> list[str]:
        present = set(self.names())  # so the names returned are the objects removed
        plain = [n for n in names if output.is_plain(n) and n in present]
        if plain:
            with contextlib.suppress(FileNotFoundError):
                self.fs.rm([self._path(n) for n in plain])
        return plain

    def remove_dead_temps(self, live: list[str], entry: Collection[str]) -> list[str]:
        """Nothing to do: a store's PUT is whole, so no writer leaves a temp object."""
        return []

    @contextlib.contextmanager
    def lock(self, timeout: float) -> Iterator[None]:
        yield  # object stores have no lock: one committer per location (documented)


def open_storage(out: str | os.PathLike[str], *, fsync: bool = True, follow_symlink: bool = False,
                 storage_options: Mapping[str, Any] | None = None) -> Storage:
    """A local path or ``file://`` URL as a directory; any other URL through fsspec."""
    text = os.fspath(out)
    if "://" not in text or text.startswith("file://"):
        local = text.removeprefix("file://")
        return LocalStorage(output.prepare_dir(local, follow_symlink), fsync)
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise ConfigError(f"{text} is a URL: writing there needs fsspec and its driver "
                          "(pip install 'sitemapkit[s3]', or fsspec plus e.g. gcsfs)") from None
    try:
        fs, root = url_to_fs(text, **dict(storage_options or {}))
    except (ImportError, ValueError) as exc:
        raise ConfigError(f"cannot open {text}: {exc}") from None
    with contextlib.suppress(Exception):  # object stores have no directories to make
        fs.makedirs(root, exist_ok=True)
    return FsspecStorage(fs, root, text.rstrip("/"))


@dataclass
class LiveSet:
    """The files of the set at an entry point that this run may replace and remove,
    and the locs it listed that are no file of this folder (another base URL)."""

    names: list[str] = field(default_factory=list)
    elsewhere: list[str] = field(default_factory=list)


def live_set(storage: Storage, entry_point: str, extra_indexes: re.Pattern[str],
             prefix: str) -> LiveSet:
    """The set published last at ``entry_point`` (sitemapkit's, or a generator's that
    ``site`` replaces): the entry point, its ``.gz`` copy, extra indexes, and every
    sitemap an index lists at ``prefix`` + name. A file counts only when its first
    bytes are a sitemap's: a feed or a verification file an index names is no part,
    and a text file only when the index is sitemapkit's own (``urls.txt`` that a
    generator's index names is the user's list, whatever its lines)."""
    present = set(storage.names())
    indexes = [entry_point] + sorted(n for n in present if extra_indexes.fullmatch(n))
    names = [entry_point, entry_point + ".gz", *indexes[1:]]
    found = LiveSet()
    for index in indexes:
        head = storage.get(index, output.SNIFF_BYTES)
        if head is None or b"<sitemapindex" not in head:
            continue
        ours = written_by_sitemapkit(head)
        for loc in output.listed_locs(storage.get(index, MAX_BYTES) or b""):
            name = output.file_of(loc, prefix)
            if name is not None and (ours or not name.endswith(TEXT_SUFFIXES)):
                names.append(name)
            elif not loc.startswith(prefix):
                found.elsewhere.append(loc)
    for name in dict.fromkeys(names):
        if output.is_plain(name) and name in present and \
                output.looks_like_sitemap(storage.get(name, output.SNIFF_BYTES) or b"", name):
            found.names.append(name)
    return found


def storage_error(storage: Storage, exc: OSError) -> OutputError:
    """An OSError from a store as the typed error every host maps."""
    detail = exc.strerror or str(exc)
    return OutputError(f"could not write sitemaps into {storage.where}: {detail}"
                       f"{output.named_file(exc)}; "
                       "the previous sitemaps there are unchanged")
