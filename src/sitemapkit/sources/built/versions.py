"""A versioned site's output: which folders are versions, which are aliases of them,
and which source commit built each.

- **mike** writes ``versions.json`` at the root (each version with its aliases), and
  one commit per deploy on its branch, "Deployed 2133146 to 2.0 with MkDocs 1.6.1 and
  mike 2.2.0": the newest such commit for a version names its source commit.
- **Any other tree** (Read the Docs' ``/<lang>/<version>/``, one Sphinx build per tag):
  version folders by glob, and a version -> tag or branch map.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from urllib.parse import unquote

from ...errors import InputError

MIKE_FILE = "versions.json"
DEPLOYED = re.compile(r"Deployed (?P<rev>[0-9a-f]{4,40}) to (?P<version>.+?)"
                      r"(?: in (?P<prefix>.+?))? with ")
DEPLOY_BRANCHES = ("gh-pages", "origin/gh-pages")  # mike's default, and a fresh clone's


@dataclass
class Version:
    """One version folder of the output (relative, '/'-separated) and what built it."""

    name: str
    aliases: tuple[str, ...] = ()
    ref: str | None = None  # the source commit (or tag, branch) named for it
    whence: str = ""  # where the ref came from, for the notes


@dataclass
class Versions:
    """The versions to list, and what was found on the way."""

    chosen: list[Version]
    aliases: dict[str, str] = field(default_factory=dict)  # alias folder -> version
    notes: list[str] = field(default_factory=list)
    mike: bool = False


def mike_versions(root: Path) -> list[Version] | None:
    """mike's ``versions.json`` at ``root`` as versions with their aliases; None when
    there is none. A file that is not mike's list is an error naming it."""
    path = root / MIKE_FILE
    if not path.is_file():
        return None
    try:
        listing = json.loads(path.read_text("utf-8"))
        return [Version(str(v["version"]), tuple(str(a) for a in v.get("aliases", [])))
                for v in listing]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"{path} is not a mike versions list: {exc}") from None


def select(found: list[Version], versions: tuple[str, ...] = (), alias: str | None = None
           ) -> list[Version]:
    """All versions, those matching ``versions`` (names or globs), or the one ``alias``
    points to."""
    if alias:
        chosen = [v for v in found if alias in v.aliases]
        if not chosen:
            raise InputError(f"no version has the alias {alias!r} (aliases: "
                             f"{sorted({a for v in found for a in v.aliases})})")
        return chosen
    if versions:
        chosen = [v for v in found if any(fnmatchcase(v.name, p) for p in versions)]
        if not chosen:
            raise InputError(f"no version matches {list(versions)} (versions: "
                             f"{[v.name for v in found]})")
        return chosen
    return found


def find_versions(out: Path, versions: tuple[str, ...] = (), alias: str | None = None,
                  refs: dict[str, str] | None = None) -> Versions | None:
    """The versions of the output ``out``: mike's, else the folders ``versions`` globs
    name (relative to ``out``, e.g. ``en/*``); None when it is not versioned."""
    refs = refs or {}
    listed = mike_versions(out)
    if listed is not None:
        chosen = select(listed, versions, alias)
        result = Versions(chosen, {a: v.name for v in listed for a in v.aliases}, mike=True)
    elif alias:
        raise InputError(f"--alias needs mike's {MIKE_FILE} in {out}")
    elif versions or refs:
        names = sorted({p.relative_to(out).as_posix() for pattern in (versions or tuple(refs))
                        for p in out.glob(pattern) if p.is_dir() and not p.is_symlink()})
        if not names:
            raise InputError(f"no folder of {out} matches {list(versions or refs)}")
        result = Versions([Version(n) for n in names])
    else:
        return None
    unknown = sorted(set(refs) - {v.name for v in result.chosen})
    if unknown:
        raise InputError(f"--version-ref names {unknown}, which are not versions listed here "
                         f"({[v.name for v in result.chosen]})")
    for version in result.chosen:
        if version.name in refs:
            version.ref, version.whence = refs[version.name], "--version-ref"
    return result


def deployed_refs(out: Path, project: Path | None, branch: str | None
                  ) -> tuple[dict[str, str], str]:
    """(version -> source commit, the branch read) from mike's deploy commits: on
    ``branch`` of the project's repository when given, else the branch ``out`` is a
    checkout of, else the project's ``gh-pages`` (or ``origin/gh-pages``). The newest
    deploy of a version wins."""
    places: list[tuple[Path, str]] = []
    if branch:
        places.append((project or out, branch))
    else:
        places.append((out, "HEAD"))
        places += [(project, b) for b in DEPLOY_BRANCHES if project is not None]
    for where, rev in places:
        found = _deploys(where, rev)
        if found:
            return found, (f"{rev} in {where}" if rev != "HEAD" else f"the branch of {where}")
    return {}, ""


def _deploys(where: Path, rev: str) -> dict[str, str]:
    try:
        done = subprocess.run(["git", "--no-pager", "log", "--format=%s", rev, "--"],
                              cwd=where, capture_output=True, check=False)
    except OSError:  # no git: no deploys to read (the dating says so once)
        return {}
    if done.returncode != 0:
        return {}
    found: dict[str, str] = {}
    for subject in done.stdout.decode(errors="replace").splitlines():  # newest first
        match = DEPLOYED.match(subject)
        if match and match["version"] not in found:
            found[match["version"]] = match["rev"]
    return found


_CANONICAL = re.compile(rb"""<link\b[^>]*\brel=["']?canonical["']?[^>]*\bhref=["']?([^"'\s>]+)""",
                        re.IGNORECASE)
_CANONICAL_FIRST = re.compile(rb"""<link\b[^>]*\bhref=["']?([^"'\s>]+)["']?[^>]*\brel=["']?"""
                              rb"""canonical""", re.IGNORECASE)


def canonical_folder(found: Versions, out: Path, base: str) -> tuple[str, Version] | None:
    """mike's ``canonical_version``: when every chosen version's front page names its
    canonical URL in one folder of the output, an alias (``latest``) or a version,
    that folder and the version it holds; else None."""
    named: set[str] = set()
    for version in found.chosen:
        try:
            with open(out / version.name / "index.html", "rb") as fh:
                head = fh.read(1 << 16)
        except OSError:
            return None
        match = _CANONICAL.search(head) or _CANONICAL_FIRST.search(head)
        href = match[1].decode("utf-8", "replace") if match else ""
        if not href.startswith(base):
            return None
        named.add(unquote(href[len(base):]).split("/", 1)[0])
    if len(named) != 1:
        return None
    folder = named.pop()
    target = found.aliases.get(folder, folder)
    holder = next((v for v in found.chosen if v.name == target), None)
    if holder is None or all(v.name == folder for v in found.chosen):
        return None
    return folder, holder
