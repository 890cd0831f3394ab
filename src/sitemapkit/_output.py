"""Atomic, owned output: temp files beside their target, a manifest, a lock.

sitemapkit only ever deletes files listed in its own manifest or temp files
carrying its own prefix, never anything else in the output directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

MANIFEST = ".sitemapkit-manifest.json"
LOCK = ".sitemapkit.lock"
TMP_PREFIX = ".sitemapkit-tmp-"


class OutputError(OSError):
    """The output directory or a file in it could not be written safely."""


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
    if not path.is_dir():
        raise OutputError(f"output path {str(path)!r} is not a directory")
    return path


@contextlib.contextmanager
def locked(out_dir: Path, timeout: float) -> Iterator[None]:
    """Serialize writers on one directory (CI retries): an flock on a lock file."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no cross-process lock
        yield
        return
    fd = os.open(out_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise OutputError(f"another sitemapkit writer holds {out_dir / LOCK} "
                                      f"(waited {timeout:g} s)") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def temp_path(out_dir: Path, name: str) -> Path:
    return out_dir / f"{TMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}-{name}"


def write_file(path: Path, data: bytes, fsync: bool) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if fsync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        path.unlink(missing_ok=True)  # a disk-full write leaves no partial file
        raise
    os.close(fd)


def sync_dir(out_dir: Path) -> None:
    with contextlib.suppress(OSError):  # not supported on every platform / filesystem
        fd = os.open(out_dir, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_stale_temps(out_dir: Path) -> None:
    """Temp files of writers that died (we hold the lock, so none is live)."""
    for path in out_dir.glob(TMP_PREFIX + "*"):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def read_manifest(out_dir: Path) -> list[str]:
    try:
        data = json.loads((out_dir / MANIFEST).read_text("utf-8"))
        files = data["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [f for f in files if isinstance(f, str) and _is_plain(f)]


def _is_plain(name: str) -> bool:
    try:
        check_file_name(name, "manifest entry")
    except ValueError:
        return False
    return True


def write_manifest(out_dir: Path, files: list[str], entry_point: str, fsync: bool) -> None:
    data = json.dumps({"tool": "sitemapkit", "version": 1, "entry_point": entry_point,
                       "files": files}, indent=1).encode()
    tmp = temp_path(out_dir, MANIFEST.lstrip("."))
    write_file(tmp, data, fsync)
    try:
        os.replace(tmp, out_dir / MANIFEST)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


SITEMAP_SUFFIXES = (".xml", ".xml.gz", ".txt", ".txt.gz")


def remove_owned(out_dir: Path, names: list[str]) -> None:
    """Delete files we wrote. A hand-edited or hostile manifest cannot make us delete
    anything that is not a plain sitemap-like file name in this directory."""
    for name in names:
        if not _is_plain(name) or not name.endswith(SITEMAP_SUFFIXES):
            continue
        path = out_dir / name
        if path.is_symlink() or path.is_file():
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def remove_owned_temps(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
