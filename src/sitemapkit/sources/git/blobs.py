"""Staged sources: a build that copies its sources into an ignored folder before it
runs (per-language configs written at build time, English files standing in for
missing translations) leaves pages made from files git does not know. Such a file
is the tracked file whose bytes it holds: its git blob id equals that file's in the
index. Only equal bytes map a file, never a name; bytes that several tracked files
hold are reported, not guessed."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass, field

from .commands import git_command


@dataclass
class Staged:
    """Copies mapped to the tracked file they are, and those that could not be."""

    found: dict[str, str] = field(default_factory=dict)  # copy -> tracked file (absolute)
    ambiguous: dict[str, list[str]] = field(default_factory=dict)  # copy -> its equals


def blob_id(path: str) -> str | None:
    """git's blob id of a file's bytes (as ``git hash-object`` gives it)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def tracked_blobs(top: str) -> tuple[dict[str, list[str]], set[str]] | None:
    """(blob id -> the tracked files holding it, every tracked file), absolute, from
    the index of the repository at ``top``; None when git cannot list it."""
    git = shutil.which("git")
    if git is None:
        return None
    done = subprocess.run(git_command(git, "ls-files", "-s", "-z"), cwd=top,
                          capture_output=True, check=False)
    if done.returncode != 0:
        return None
    blobs: dict[str, list[str]] = {}
    tracked: set[str] = set()
    for entry in os.fsdecode(done.stdout).split("\0"):
        info, tab, name = entry.partition("\t")
        fields = info.split()
        if not tab or len(fields) != 3 or fields[0] == "160000":  # a submodule
            continue
        path = os.path.join(top, name)
        tracked.add(path)
        if fields[2] == "0":  # stage 0: not a conflict's side
            blobs.setdefault(fields[1], []).append(path)
    return blobs, tracked


def staged_sources(paths: list[str], top: str) -> Staged:
    """For each of ``paths`` (absolute, under ``top``) that git does not track, the one
    tracked file with the same bytes."""
    result = Staged()
    listing = tracked_blobs(top)
    if listing is None:
        return result
    blobs, tracked = listing
    for path in dict.fromkeys(paths):
        if path in tracked or not os.path.isfile(path):
            continue
        blob = blob_id(path)
        equal = [p for p in blobs.get(blob or "", ()) if p != path]
        if len(equal) == 1:
            result.found[path] = equal[0]
        elif equal:
            result.ambiguous[path] = sorted(equal)
    return result
