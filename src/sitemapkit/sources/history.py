"""The one batched history walk behind git dates.

For every target path it finds the commit that ``git log -1 -- path`` names (git's
default history simplification), plus the rename rule: a pure rename (R100) is not a
change, so the walk goes on under the old name; a rename with edits is a change.
Commits listed as ignored are not changes either. All targets walk together in one
``git log``, so a path's date never depends on which other paths were asked about.
That log may be limited to the targets' folder (``WalkSpec.paths``): git then diffs
only that folder but still lists every commit, and each add or rename it saw is
recorded as a ``Decision`` for ``verify`` to check against the whole-tree diff, since
rename detection inside a folder cannot see a move from outside it.

How the walk follows git: each target waits at one commit of its own history chain.
At a non-merge commit it is resolved if the commit changed it, else it moves to the
parent. At a merge it moves to the first parent when unchanged against it (the
first-parent diff says so); when the merge's content differs from *every* parent (the
combined diff, read from a second log over merges only) the merge made it; otherwise
the merge took it from the other side, where the walk continues.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from .gitlog import (
    Combined,
    GitFailed,
    Group,
    Stream,
    WalkSpec,
    changed_between,
    commits_waited_at,
    git_command,
    whole_tree_changes,
)

__all__ = ["Decision", "GitFailed", "Group", "WalkResult", "WalkSpec", "arrive", "decide",
           "git_command", "verify", "walk"]


class Decision(NamedTuple):
    """A step a path-limited walk took on a rename-shaped change (A or R): rename
    detection there saw only the limited paths, so the whole-tree diff of the same
    commit must agree before the step counts (``verify``)."""

    commit: str
    when: str
    path: str
    targets: tuple[str, ...]
    step: tuple[str, str | None]  # decide()'s answer in the limited view


@dataclass
class WalkResult:
    """Dates per target (ISO 8601 with the commit's offset) and what is left."""

    dates: dict[str, str] = field(default_factory=dict)
    shallow: set[str] = field(default_factory=set)  # changed beyond the shallow boundary
    waiting: dict[str, Group] = field(default_factory=dict)  # commit -> unresolved targets
    calls: int = 0
    error: str | None = None  # git's message when the walk ended early on an error
    decisions: list[Decision] = field(default_factory=list)  # path-limited walks only

    def leftover(self) -> list[str]:
        return [t for group in self.waiting.values() for ts in group.values() for t in ts]


def walk(spec: WalkSpec, revs: list[str], start: dict[str, Group]) -> WalkResult:
    """Walk ``git log revs`` newest first, resolving the targets waiting in ``start``.

    When git fails before every target is resolved, ``error`` says why; the targets
    resolved up to that point are exact, the rest stay in ``waiting``.
    """
    out = WalkResult(waiting={c: dict(g) for c, g in start.items()})
    if not out.waiting:
        return out
    fmt = "%x1e%H%x1f%P%x1f" + ("%cI" if spec.date_kind == "committer" else "%aI")
    renames = ["-M"] if spec.renames else ["--no-renames"]
    # Limited to paths, git diffs only those paths but still lists every commit with its
    # real parents (--full-history --sparse), so the chains are the same as unlimited.
    limit = ["--full-history", "--sparse", "--", *spec.paths] if spec.paths else []
    record = bool(spec.paths)
    main = Stream(spec, ["log", "-z", "--topo-order", "--root", f"--format={fmt}",
                          "--name-status", *renames, "--diff-merges=first-parent", *revs,
                          *limit])
    combined = Combined(spec, revs)  # started at the first merge that matters
    prefixes = tuple(r for r in spec.ignored if len(r) < 40)  # abbreviated ids
    try:
        for commit, parents, when, changes in commits_waited_at(main, out.waiting):
            group = out.waiting.pop(commit)
            ignored = commit in spec.ignored or commit.startswith(prefixes)
            if commit in spec.boundary:  # grafted: lists every file as added
                out.shallow.update(t for targets in group.values() for t in targets)
            elif len(parents) > 1:
                _merge(out, group, parents, changes, combined, commit, when, ignored)
            else:
                _single(out, group, parents, changes, commit, when, ignored, record)
            if not out.waiting:
                break
        else:
            main.check()
    except GitFailed as exc:
        out.error = str(exc)
    finally:
        main.close()
        combined.close()
    out.calls += 1 + (combined.stream is not None)  # octopus merges may have added some
    return out


def decide(status: str, old: str | None, ignored: bool) -> tuple[str, str | None]:
    """What a non-merge commit's change means for the content at its path:
    ("follow", old path) for a pure or ignored rename, ("skip", None) for an ignored
    edit or a deletion, ("resolve", None) for a change (an ignored add included)."""
    kind = status[:1]
    if kind == "R" and old is not None and (ignored or status == "R100"):
        return "follow", old  # the content lived there before
    if kind == "D" or ignored and kind != "A":
        return "skip", None  # a mechanical change: the content's date lies further back
    return "resolve", None


def _single(out: WalkResult, group: Group, parents: list[str],
            changes: dict[str, tuple[str, str | None]], commit: str, when: str,
            ignored: bool, record: bool) -> None:
    """A non-merge commit: changed targets are resolved (or renamed), the rest move on."""
    moved: Group = {}
    for path, (status, old) in changes.items():
        targets = group.get(path)
        if targets is None:
            continue
        step = decide(status, old, ignored)
        if record and parents and status[:1] in "AR":  # a root commit renames nothing
            out.decisions.append(Decision(commit, when, path, tuple(targets), step))
        if step[0] == "skip":
            continue
        del group[path]
        if step[0] == "follow":
            moved.setdefault(str(step[1]), []).extend(targets)
        else:
            for target in targets:
                out.dates[target] = when
    _join(group, moved)
    if parents and group:
        arrive(out.waiting, parents[0], group)


def _merge(out: WalkResult, group: Group, parents: list[str],
           changes: dict[str, tuple[str, str | None]], combined: Combined, commit: str,
           when: str, ignored: bool) -> None:
    """A merge: unchanged against the first parent -> follow it; differing from every
    parent -> the merge made it; else it came from another parent: the first one it is
    unchanged against, as git follows (an octopus merge asks git which, once)."""
    other: Group = {}
    moved: Group = {}
    made_here: set[str] | None = None
    for path, (_, old) in changes.items():
        targets = group.pop(path, None)
        if targets is None:
            continue
        if made_here is None:
            made_here = combined.paths(commit)
        if path not in made_here:
            other.setdefault(path, []).extend(targets)
        elif ignored:
            moved.setdefault(old or path, []).extend(targets)
        else:
            for target in targets:
                out.dates[target] = when
    _join(group, moved)
    if group:
        arrive(out.waiting, parents[0], group)
    if other and len(parents) == 2:
        arrive(out.waiting, parents[1], other)
    elif other:
        _octopus(out, other, parents, combined.spec, commit, when)


def _octopus(out: WalkResult, other: Group, parents: list[str], spec: WalkSpec,
             commit: str, when: str) -> None:
    """Send each page to the first non-first parent it is unchanged against."""
    for parent in parents[1:]:
        changed = changed_between(spec, parent, commit)
        out.calls += 1
        same = {path: targets for path, targets in other.items() if path not in changed}
        if same:
            arrive(out.waiting, parent, same)
            other = {path: targets for path, targets in other.items() if path in changed}
        if not other:
            return
    for targets in other.values():  # unchanged against none: git shows the merge itself
        for target in targets:
            out.dates[target] = when


def _join(into: Group, more: Group) -> None:
    for path, targets in more.items():
        into.setdefault(path, []).extend(targets)


def arrive(waiting: dict[str, Group], commit: str, group: Group) -> None:
    """Chains meet at a commit: join their groups (the smaller into the larger)."""
    present = waiting.get(commit)
    if present is None:
        waiting[commit] = group
        return
    small, large = (group, present) if len(group) <= len(present) else (present, group)
    _join(large, small)
    waiting[commit] = large




def verify(spec: WalkSpec, decisions: list[Decision]) -> list[Decision]:
    """The limited walk's rename-shaped steps that the whole-tree diff of the same commit
    (one ``git diff-tree --stdin`` for all of them) would have taken differently."""
    commits = list(dict.fromkeys(d.commit for d in decisions))
    if not commits:
        return []
    whole = whole_tree_changes(spec, commits)
    prefixes = tuple(r for r in spec.ignored if len(r) < 40)
    return [d for d in decisions if d.step != decide(
        *whole.get(d.commit, {}).get(d.path, ("A", None)),
        d.commit in spec.ignored or d.commit.startswith(prefixes))]
