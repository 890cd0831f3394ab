"""The one batched history walk behind git dates.

For every target path it finds the commit that ``git log -1 -- path`` names (git's
default history simplification), plus the rename rule: a pure rename (R100 in the
whole-tree ``git diff-tree -M``) is not a change, so the walk goes on under the old
name; a rename with edits is a change. Commits listed as ignored are not changes
either. All targets walk together in one ``git log``, so a path's date never depends
on which other paths were asked about.

The log is limited to a pathspec (``WalkSpec.paths``) that covers every target, read
with ``--raw --no-renames`` and parent rewriting: git lists only the commits that
touch those paths (and every merge) and diffs only there, with no rename detection.
Renames are asked of git only where a page's chain meets an add (``gitask``); a page
whose content came from outside the pathspec is handed back in ``escaped``, waiting at
that commit under its old name, for a walk with a wider pathspec.

How the walk follows git: each target waits at one commit of its own history chain.
At a non-merge commit it is resolved if the commit changed it, else it moves to the
parent. At a merge it moves to the first parent when unchanged against it (the
first-parent diff says so); when the merge's blob differs from *every* parent's the
merge made it; otherwise the merge took it from the first other parent holding the
same blob, where the walk continues.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .ask import Asker
from .commands import GitFailed, Group, Raw, Stream, WalkSpec, commits_waited_at, git_command

__all__ = ["GitFailed", "Group", "WalkResult", "WalkSpec", "arrive", "decide",
           "git_command", "walk"]


@dataclass
class WalkResult:
    """Dates per target (ISO 8601 with the commit's offset) and what is left."""

    dates: dict[str, str] = field(default_factory=dict)
    shallow: set[str] = field(default_factory=set)  # changed beyond the shallow boundary
    waiting: dict[str, Group] = field(default_factory=dict)  # commit -> unresolved targets
    escaped: dict[str, Group] = field(default_factory=dict)  # moved in from outside paths
    calls: int = 0
    error: str | None = None  # git's message when the walk ended early on an error

    def leftover(self) -> list[str]:
        return [t for groups in (self.waiting, self.escaped) for group in groups.values()
                for ts in group.values() for t in ts]


def walk(spec: WalkSpec, revs: list[str], start: dict[str, Group], ask: Asker) -> WalkResult:
    """Walk ``git log revs`` newest first, resolving the targets waiting in ``start``.

    When git fails before every target is resolved, ``error`` says why; the targets
    resolved up to that point are exact, the rest stay in ``waiting``.
    """
    out = WalkResult(waiting={c: dict(g) for c, g in start.items()})
    if not out.waiting:
        return out
    fmt = "%x1e%H%x1f%P%x1f" + ("%cI" if spec.date_kind == "committer" else "%aI")
    # --parents rewrites parents past the commits that do not touch the pathspec, so
    # git lists only the ones that do; a shallow clone's grafts must stay visible.
    limit = ["--full-history", "--parents", *(["--sparse"] if spec.boundary else []),
             "--", *spec.paths] if spec.paths else []
    main = Stream(spec, ["log", "-z", "--topo-order", "--root", f"--format={fmt}",
                          "--raw", "--no-abbrev", "--no-renames",
                          "--diff-merges=first-parent", *revs, *limit])
    prefixes = tuple(r for r in spec.ignored if len(r) < 40)  # abbreviated ids
    try:
        for commit, parents, when, changes in commits_waited_at(
                main, out.waiting, revs[0] if spec.paths and len(revs) == 1 else None):
            group = out.waiting.pop(commit)
            ignored = commit in spec.ignored or commit.startswith(prefixes)
            try:
                if commit in spec.boundary:  # grafted: lists every file as added
                    out.shallow.update(t for targets in group.values() for t in targets)
                elif len(parents) > 1:
                    _merge(out, group, parents, changes, ask, when, ignored)
                else:
                    _single(out, spec, group, parents, changes, ask, commit, when, ignored)
            except GitFailed:  # a question failed before anything moved: still waiting
                arrive(out.waiting, commit, group)
                raise
            if not out.waiting:
                break
        else:
            main.check()
    except GitFailed as exc:
        out.error = str(exc)
    finally:
        main.close()
    out.calls += 1
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


def _single(out: WalkResult, spec: WalkSpec, group: Group, parents: list[str],
            changes: Raw, ask: Asker, commit: str, when: str, ignored: bool) -> None:
    """A non-merge commit: changed targets are resolved (or renamed), the rest move on.
    An add is looked up in the whole-tree diff: it may be a rename from anywhere. Every
    question is asked before the group changes, so a failed one leaves it whole."""
    steps: list[tuple[str, tuple[str, str | None]]] = []
    for path, (status, _) in changes.items():
        if path in group:
            old: str | None = None
            # An add may be a rename from anywhere; a true root commit renames nothing.
            if status == "A" and spec.renames and (parents or spec.paths):
                status, old = ask.renames(commit).get(path, ("A", None))
            steps.append((path, decide(status, old, ignored)))
    moved: Group = {}
    for path, (action, old) in steps:
        if action == "skip":
            continue
        targets = group.pop(path)
        if action == "resolve":
            for target in targets:
                out.dates[target] = when
        elif spec.covers(str(old)):
            moved.setdefault(str(old), []).extend(targets)
        else:  # from outside the pathspec: a wider walk takes it on from this commit,
            out.escaped.setdefault(commit, {}).setdefault(str(old), []).extend(targets)
            # where the old path's deletion sends it to the parent
    _join(group, moved)
    if parents and group:
        arrive(out.waiting, parents[0], group)


def _merge(out: WalkResult, group: Group, parents: list[str], changes: Raw, ask: Asker,
           when: str, ignored: bool) -> None:
    """A merge: unchanged against the first parent -> follow it; a blob no parent holds
    -> the merge made it; else the first other parent holding the same blob, the one
    ``git log -- path`` follows."""
    sources = {path: next((p for p in parents[1:] if _same(ask.blob(p, path), blob)), None)
               for path, (status, blob) in changes.items()
               if path in group and status != "D"}  # D: a rename's old path, as _single
    other: dict[str, Group] = {}
    for path, source in sources.items():
        if source is not None:
            other.setdefault(source, {})[path] = group.pop(path)
        elif not ignored:  # an ignored merge passes its own change on to the first parent
            for target in group.pop(path):
                out.dates[target] = when
    if group:
        arrive(out.waiting, parents[0], group)
    for source, moved in other.items():
        arrive(out.waiting, source, moved)


def _same(full: str | None, blob: bytes) -> bool:
    return full is not None and full.encode() == blob


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

