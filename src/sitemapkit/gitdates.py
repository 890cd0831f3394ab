"""Last-commit dates for many files from one batched ``git log`` pass per repository.

Host-agnostic: give it file paths, get back ``{path: datetime}`` (the commit's own
UTC offset kept) plus a reason for every path it could not date. Per repository it
runs a constant number of git processes (rev-parse, ls-files, status and one log; at
most 8 with a log over merges, a diff-tree check of a folder-limited log and a whole
walk below a move), whatever the number of files, and no log at all for a cached HEAD.
The walk itself is in ``_history``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from ._history import (
    GitFailed,
    Group,
    WalkResult,
    WalkSpec,
    arrive,
    git_command,
    verify,
    walk,
)

Policy = Literal["omit", "mtime", "build-time"]
POLICIES = ("omit", "mtime", "build-time")
STATES = {  # state -> (one page ..., several pages ...)
    "uncommitted": ("has uncommitted changes", "have uncommitted changes"),
    "untracked": ("is untracked", "are untracked"),
    "not-in-git": ("is not in git (ignored, or outside the repository)",
                   "are not in git (ignored, or outside the repository)"),
    "no-git": ("could not be dated: no git executable",) * 2,
    "not-a-repo": ("is not in a git repository", "are not in a git repository"),
    "no-commits": ("is in a repository with no commits", "are in a repository with no commits"),
    "git-error": ("could not be dated: git failed (see the warning)",) * 2,
    "shallow": ("last changed beyond the shallow clone's boundary",) * 2,
    "no-history": ("has no commit in the walked history", "have no commit in the walked history"),
}
WHAT = {"omit": "lastmod omitted", "mtime": "used the file's mtime",
        "build-time": "used the build time"}
CACHE_VERSION = 2


class GitDatesError(RuntimeError):
    """Raised for a shallow clone when ``shallow="error"``, or a failing git."""


@dataclass(frozen=True)
class GitOptions:
    """How dates are found; every state defaults to omitting lastmod rather than lying."""

    date_kind: Literal["committer", "author"] = "committer"
    ignore_revs: tuple[str, ...] = ()
    ignore_revs_file: str | None = ".git-blame-ignore-revs"  # relative to the repo root
    uncommitted: Policy = "omit"
    untracked: Policy = "omit"
    not_in_git: Policy = "omit"
    no_git: Policy = "omit"
    shallow: Literal["warn", "error"] = "warn"
    cache_dir: str | None = None

    def policy(self, state: str) -> Policy:
        return {"uncommitted": self.uncommitted, "untracked": self.untracked,
                "not-in-git": self.not_in_git}.get(state, self.no_git)

    def check(self) -> None:
        if self.date_kind not in ("committer", "author"):
            raise ValueError(f"date_kind must be 'committer' or 'author', not {self.date_kind!r}")
        if self.shallow not in ("warn", "error"):
            raise ValueError(f"shallow must be 'warn' or 'error', not {self.shallow!r}")
        for name in ("uncommitted", "untracked", "not_in_git", "no_git"):
            if getattr(self, name) not in POLICIES:
                raise ValueError(f"{name} must be one of {POLICIES}, not "
                                 f"{getattr(self, name)!r}")


@dataclass
class GitDates:
    """Dates found, reasons for the rest, and aggregate notes (one line per case)."""

    dates: dict[str, datetime] = field(default_factory=dict)  # keys: absolute paths
    unknown: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    git_calls: int = 0
    from_git: int = 0
    states: dict[str, str] = field(default_factory=dict)  # path -> why git gave no date
    policies: dict[str, Policy] = field(default_factory=dict)  # state -> policy applied

    def get(self, path: str | os.PathLike[str]) -> datetime | None:
        return self.dates.get(_absolute(path))

    def notes_for(self, paths: Iterable[str | os.PathLike[str]]) -> list[str]:
        """One line per reason, counting only ``paths`` (the pages a sitemap lists)."""
        counts: dict[str, int] = {}
        for path in {_absolute(p) for p in paths}:
            state = self.states.get(path)
            if state is not None:
                counts[state] = counts.get(state, 0) + 1
        return [f"{n:,} page{'s' if n != 1 else ''} {STATES[state][n != 1]}: "
                f"{WHAT[self.policies.get(state, 'omit')]}" for state, n in counts.items()]


def git_dates(paths: Iterable[str | os.PathLike[str]],
              options: GitOptions | None = None, *,
              extra: Iterable[str | os.PathLike[str]] = ()) -> GitDates:
    """Date every path from its repository's history (see module docstring).

    ``extra`` paths (a page's included files, its translation catalog) are dated in the
    same pass when git can; they get no policy and no note, since they are not pages.
    """
    opts = options or GitOptions()
    opts.check()
    result = GitDates()
    counted = {_absolute(p) for p in paths}
    wanted = sorted(counted | {_absolute(p) for p in extra})
    fallback: dict[str, list[str]] = {}
    git = shutil.which("git")
    by_repo: dict[str, list[str]] = {}
    roots: dict[str, str | None] = {}
    for path in wanted:
        root = _repo_root(path.rpartition(os.sep)[0] or os.sep, roots)
        if git is None:
            fallback.setdefault("no-git", []).append(path)
        elif root is None:
            fallback.setdefault("not-a-repo", []).append(path)
        else:
            by_repo.setdefault(root, []).append(path)
    for root, files in by_repo.items():
        assert git is not None
        _Repo(git, root, opts, result).date(files, fallback)
    _apply_policies(fallback, opts, result, counted)
    result.notes = result.notes_for(counted)
    return result


def _absolute(path: str | os.PathLike[str]) -> str:
    """os.path.abspath, skipping the work for paths that are already clean (the usual)."""
    if isinstance(path, str) and path.startswith(os.sep) and "/." not in path and \
            "//" not in path and not path.endswith(os.sep) and os.sep == "/":
        return path
    return os.path.abspath(path)


def _repo_root(directory: str, memo: dict[str, str | None]) -> str | None:
    """Nearest ancestor holding ``.git`` (a directory, or a file for submodules)."""
    if directory not in memo:
        parent = os.path.dirname(directory)
        if os.path.exists(os.path.join(directory, ".git")):
            memo[directory] = directory
        elif parent == directory:
            memo[directory] = None
        else:
            memo[directory] = _repo_root(parent, memo)
    return memo[directory]


def _apply_policies(fallback: dict[str, list[str]], opts: GitOptions, out: GitDates,
                    counted: set[str]) -> None:
    now = datetime.now(timezone.utc).replace(microsecond=0)
    for state, files in fallback.items():
        policy = out.policies[state] = opts.policy(state)
        for path in files:
            if path not in counted:
                continue  # an extra path: simply undated
            out.states[path] = state
            if policy == "mtime" and os.path.exists(path):
                out.dates[path] = datetime.fromtimestamp(int(os.stat(path).st_mtime),
                                                         timezone.utc)
            elif policy == "build-time":
                out.dates[path] = now
            else:
                out.unknown[path] = state


class _Repo:
    def __init__(self, git: str, root: str, opts: GitOptions, out: GitDates) -> None:
        self.git, self.opts, self.out = git, opts, out
        self.root = Path(root)

    def _run(self, *args: str) -> bytes:
        self.out.git_calls += 1
        done = subprocess.run(git_command(self.git, *args), cwd=self.root,
                              capture_output=True, check=False)
        if done.returncode != 0:
            words = done.stderr.decode(errors="replace").strip().splitlines()
            raise GitFailed(f"git {args[0]} failed in {self.root}: "
                            f"{words[-1] if words else f'exit status {done.returncode}'}")
        return done.stdout

    def date(self, files: list[str], fallback: dict[str, list[str]]) -> None:
        cut = len(str(self.root)) + 1
        rel = {f: f[cut:].replace(os.sep, "/") for f in files}
        scope = _common_dir(list(rel.values()))
        try:
            info = self._run("rev-parse", "--git-path", "shallow", "--is-shallow-repository",
                             "HEAD").decode().split("\n")
        except GitFailed as exc:
            fallback.setdefault("no-commits", []).extend(files)
            self.out.warnings.append(str(exc))
            return
        shallow_file, is_shallow, head = Path(info[0]), info[1] == "true", info[2]
        try:
            tracked = {os.fsdecode(p) for p in self._run("ls-files", "-z").split(b"\0") if p}
        except GitFailed as exc:
            return self._failed(str(exc), files, fallback)
        boundary: set[str] = set()
        if is_shallow:
            path = shallow_file if shallow_file.is_absolute() else self.root / shallow_file
            boundary = set(path.read_text().split())
            message = (f"{self.root} is a shallow clone: pages last changed before its "
                       "oldest commit get no lastmod. Fetch the full history (for GitHub "
                       "Actions: actions/checkout with fetch-depth: 0).")
            if self.opts.shallow == "error":
                raise GitDatesError(message)
            self.out.warnings.append(message)
        status = _Background(self.git, self.root, ["status", "--porcelain=v1", "-z",
                                                   "--untracked-files=all", "--", scope])
        self.out.git_calls += 1  # status runs beside the log pass, on the other core
        try:
            dated, shallow, failed = self._dates(head, [r for r in rel.values() if r in tracked],
                                                 boundary, tracked)
        finally:
            out, error = status.finish()
        if error:
            return self._failed(error, files, fallback)
        dirty, untracked = _parse_status(out)
        for f, r in rel.items():
            if r in dirty:
                fallback.setdefault("uncommitted", []).append(f)
            elif r in untracked:
                fallback.setdefault("untracked", []).append(f)
            elif r in dated:
                self.out.dates[f] = datetime.fromisoformat(dated[r])
                self.out.from_git += 1
            elif r in failed:
                fallback.setdefault("git-error", []).append(f)
            elif r in tracked:
                state = self.out.unknown[f] = "shallow" if r in shallow else "no-history"
                self.out.states[f] = state
            else:
                fallback.setdefault("not-in-git", []).append(f)

    def _failed(self, error: str, files: list[str], fallback: dict[str, list[str]]) -> None:
        self.out.warnings.append(f"{error}: {_pages(len(files))} could not be dated")
        fallback.setdefault("git-error", []).extend(files)

    # --- the one history walk, with a cache keyed by HEAD ----------------------
    def _cache_path(self) -> Path | None:
        if not self.opts.cache_dir:
            return None
        digest = hashlib.sha1(str(self.root).encode()).hexdigest()[:16]
        return Path(self.opts.cache_dir) / f"gitdates-{digest}.json"

    def _dates(self, head: str, targets: list[str], boundary: set[str],
               tracked: set[str]) -> tuple[dict[str, str], set[str], set[str]]:
        """(dates, shallow, failed): targets -> ISO dates; never caches a failed pass."""
        spec = WalkSpec(self.git, self.root, self.opts.date_kind, frozenset(self._ignored()),
                        frozenset(boundary))
        key = json.dumps([CACHE_VERSION, spec.date_kind, sorted(spec.ignored)])
        cache = None if boundary else self._cache_path()
        old = _load(cache) if cache else {}
        cached = old.get("dates") if old.get("key") == key else None
        dates: dict[str, str] = {}
        todo = targets
        if isinstance(cached, dict) and old.get("head") == head:
            dates = {t: cached[t] for t in targets if t in cached}
            todo = [t for t in targets if t not in cached]
        elif isinstance(cached, dict) and isinstance(old.get("head"), str):
            todo = self._incremental(spec, str(old["head"]), head, todo, cached, dates)
        scope = _common_dir(todo)
        inside = sum(1 for p in tracked if p.startswith(scope + "/")) if scope != "." else 0
        if inside * 2 > len(tracked):
            scope = "."  # the folder is most of the repository: limiting saves nothing
        walked = self._walk(spec, head, {head: {t: [t] for t in todo}}, scope) if todo \
            else None
        if walked is not None:
            dates.update(walked.dates)
        clean = walked is None or not walked.error
        if cache and clean:
            keep = cached if isinstance(cached, dict) and old.get("head") == head else {}
            _store(cache, {"head": head, "key": key, "dates": {**keep, **dates}})
        if walked is None:
            return dates, set(), set()
        return dates, walked.shallow, set(walked.leftover()) if walked.error else set()

    def _incremental(self, spec: WalkSpec, old: str, head: str, todo: list[str],
                     cached: dict[str, Any], dates: dict[str, str]) -> list[str]:
        """Walk only old..head; chains that reach ``old`` take the cached answer there.
        Returns the targets that still need a full walk."""
        result = walk(spec, [head, f"^{old}"], {head: {t: [t] for t in todo}})
        self.out.git_calls += result.calls
        if result.error:
            return todo  # e.g. the old head is gone: start again
        dates.update(result.dates)
        rest = []
        for commit, group in result.waiting.items():
            for path, targets in group.items():
                if commit == old and isinstance(cached.get(path), str):
                    dates.update((t, cached[path]) for t in targets)
                else:
                    rest.extend(targets)
        return rest

    def _walk(self, spec: WalkSpec, head: str, start: dict[str, Group],
              scope: str) -> WalkResult:
        """Limited to the pages' folder first (git diffs only what is there), then the
        rename-shaped steps checked against whole-tree diffs; pages whose content came
        from elsewhere walk on through the whole repository from that commit. Every
        step is the one a whole-repository walk takes, at a fraction of its cost."""
        if scope == ".":
            return self._walk_whole(spec, [head], start)
        limited = walk(replace(spec, paths=(scope,)), [head], start)
        self.out.git_calls += limited.calls
        if limited.error:
            return self._walk_whole(spec, [head], start)  # it says what failed
        try:
            differ = verify(spec, limited.decisions)
        except GitFailed:
            return self._walk_whole(spec, [head], start)
        self.out.git_calls += bool(limited.decisions)
        redo: dict[str, Group] = {}
        moved: set[str] = set()
        for d in differ:  # newest first: a page's first disagreement is where it diverged
            for target in d.targets:
                if target not in moved:
                    moved.add(target)
                    redo.setdefault(d.commit, {}).setdefault(d.path, []).append(target)
        if not redo:
            return limited
        for target in moved:
            limited.dates.pop(target, None)
            limited.shallow.discard(target)
        for group in limited.waiting.values():
            for path in list(group):
                group[path] = [t for t in group[path] if t not in moved]
                if not group[path]:
                    del group[path]
        more = self._walk_whole(spec, list(redo), redo)
        more.dates.update(limited.dates)
        more.shallow |= limited.shallow
        for commit, group in limited.waiting.items():
            if group:
                arrive(more.waiting, commit, group)
        return more

    def _walk_whole(self, spec: WalkSpec, revs: list[str], start: dict[str, Group]
                    ) -> WalkResult:
        """The walk over the whole repository; if rename detection fails (a missing blob),
        once more without."""
        result = walk(spec, revs, start)
        self.out.git_calls += result.calls
        if result.error and spec.renames:
            retry = walk(replace(spec, renames=False), revs, result.waiting)
            self.out.git_calls += retry.calls
            if not retry.error:
                self.out.warnings.append(
                    f"{result.error} (in {self.root}); dated {_pages(len(retry.dates))} "
                    "again without rename detection, so moved pages may show their move "
                    "date. Repair the repository (git fsck; a partial clone needs a full "
                    "fetch)")
            retry.dates.update(result.dates)
            retry.shallow |= result.shallow
            retry.error = result.error  # never cached
            result = retry
        if result.error and result.leftover():
            self.out.warnings.append(f"{result.error} (in {self.root}): "
                                     f"{_pages(len(result.leftover()))} could not be dated")
        return result

    def _ignored(self) -> set[str]:
        revs = {r.strip().lower() for r in self.opts.ignore_revs if r.strip()}
        if self.opts.ignore_revs_file:
            path = self.root / self.opts.ignore_revs_file
            if path.is_file():
                for line in path.read_text("utf-8").splitlines():
                    line = line.split("#", 1)[0].strip().lower()
                    if line:
                        revs.add(line)
        return revs


class _Background:
    """A git command running beside the walk; its exit status is checked at the end."""

    def __init__(self, git: str, root: Path, args: list[str]) -> None:
        self.args = args
        self.proc = subprocess.Popen(git_command(git, *args), cwd=root,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def finish(self) -> tuple[bytes, str | None]:
        out, err = self.proc.communicate()
        if self.proc.returncode == 0:
            return out, None
        words = err.decode(errors="replace").strip().splitlines()
        return out, f"git {self.args[0]} failed: {words[-1] if words else self.proc.returncode}"


def _load(cache: Path) -> dict[str, Any]:
    with contextlib.suppress(OSError, ValueError):
        data = json.loads(cache.read_text("utf-8"))
        if isinstance(data, dict):
            return data
    return {}


def _store(cache: Path, data: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), "utf-8")
        os.replace(tmp, cache)


def _pages(count: int) -> str:
    return f"{count:,} page{'' if count == 1 else 's'}"


def _common_dir(paths: list[str]) -> str:
    """Deepest directory containing every path (the log's pathspec)."""
    parts = [p.split("/")[:-1] for p in paths]
    common: list[str] = []
    for level in zip(*parts, strict=False):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return "/".join(common) or "."


def _parse_status(data: bytes) -> tuple[set[str], set[str]]:
    """(dirty, untracked) repo-relative paths from ``git status --porcelain=v1 -z``."""
    dirty: set[str] = set()
    untracked: set[str] = set()
    tokens = iter(data.split(b"\0"))
    for token in tokens:
        if not token:
            continue
        code, path = token[:2].decode(), os.fsdecode(token[3:])
        if code == "??":
            untracked.add(path)
        else:
            dirty.add(path)
            if code[0] in "RC":
                next(tokens, None)  # the rename's source path
    return dirty, untracked
