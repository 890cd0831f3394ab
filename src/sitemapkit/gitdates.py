"""Last-commit dates for many files from one batched ``git log`` pass per repository.

Host-agnostic: give it file paths, get back ``{path: datetime}`` (the commit's own
UTC offset kept) plus a reason for every path it could not date. Per repository it
runs a constant number of git processes (rev-parse, ls-files, status, one log),
whatever the number of files, and none at all for a cached HEAD.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

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
}
CACHE_VERSION = 1


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

    def get(self, path: str | os.PathLike[str]) -> datetime | None:
        return self.dates.get(_absolute(path))


def git_dates(paths: Iterable[str | os.PathLike[str]],
              options: GitOptions | None = None) -> GitDates:
    """Date every path from its repository's history (see module docstring)."""
    opts = options or GitOptions()
    opts.check()
    result = GitDates()
    wanted = sorted({_absolute(p) for p in paths})
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
    _apply_policies(fallback, opts, result)
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


def _apply_policies(fallback: dict[str, list[str]], opts: GitOptions, out: GitDates) -> None:
    now = datetime.now(timezone.utc).replace(microsecond=0)
    for state, files in fallback.items():
        policy = opts.policy(state)
        for path in files:
            if policy == "mtime" and os.path.exists(path):
                out.dates[path] = datetime.fromtimestamp(int(os.stat(path).st_mtime),
                                                         timezone.utc)
            elif policy == "build-time":
                out.dates[path] = now
            else:
                out.unknown[path] = state
        what = {"omit": "lastmod omitted", "mtime": "used the file's mtime",
                "build-time": "used the build time"}[policy]
        many = len(files) != 1
        out.notes.append(f"{len(files)} page{'s' if many else ''} {STATES[state][many]}: {what}")


def _tokens(stream: Iterable[bytes]) -> Iterator[bytes]:
    """NUL-separated tokens from a byte stream, without holding it all."""
    rest = b""
    for chunk in stream:
        parts = (rest + chunk).split(b"\0")
        rest = parts.pop()
        yield from parts
    if rest:
        yield rest


class _Repo:
    def __init__(self, git: str, root: str, opts: GitOptions, out: GitDates) -> None:
        self.git, self.opts, self.out = git, opts, out
        self.root = Path(root)

    def _run(self, *args: str) -> bytes:
        self.out.git_calls += 1
        done = subprocess.run([self.git, "--literal-pathspecs", "-c", "core.quotepath=false",
                               *args], cwd=self.root, capture_output=True, check=False)
        if done.returncode != 0:
            raise GitDatesError(f"git {args[0]} failed in {self.root}: "
                                f"{done.stderr.decode(errors='replace').strip()}")
        return done.stdout

    def date(self, files: list[str], fallback: dict[str, list[str]]) -> None:
        cut = len(str(self.root)) + 1
        rel = {f: f[cut:].replace(os.sep, "/") for f in files}
        scope = _common_dir(list(rel.values()))
        try:
            info = self._run("rev-parse", "--git-path", "shallow", "--is-shallow-repository",
                             "HEAD").decode().split("\n")
        except GitDatesError as exc:
            fallback.setdefault("no-commits", []).extend(files)
            self.out.warnings.append(str(exc))
            return
        shallow_file, is_shallow, head = Path(info[0]), info[1] == "true", info[2]
        tracked = {os.fsdecode(p) for p in self._run("ls-files", "-z", "--", scope)
                   .split(b"\0") if p}
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
        status = self._start("status", "--porcelain=v1", "-z", "--untracked-files=all", "--",
                             scope)  # runs beside the log pass, on the other core
        try:
            dated = self._dates(head, scope, tracked, boundary)
        finally:
            out, _ = status.communicate()
        if status.returncode != 0:
            raise GitDatesError(f"git status failed in {self.root}")
        dirty, untracked = _parse_status(out)
        for f, r in rel.items():
            if r in dirty:
                fallback.setdefault("uncommitted", []).append(f)
            elif r in untracked:
                fallback.setdefault("untracked", []).append(f)
            elif r in dated:
                self.out.dates[f] = datetime.fromisoformat(dated[r])
                self.out.from_git += 1
            elif r in tracked:
                self.out.unknown[f] = "shallow" if boundary else "no-history"
            else:
                fallback.setdefault("not-in-git", []).append(f)
        shallow_unknown = sum(1 for f in files if self.out.unknown.get(f) == "shallow")
        if shallow_unknown:
            self.out.notes.append(f"{shallow_unknown} pages last changed beyond the shallow "
                                  "clone's boundary: lastmod omitted")

    def _start(self, *args: str) -> subprocess.Popen[bytes]:
        self.out.git_calls += 1
        return subprocess.Popen([self.git, "--literal-pathspecs", "-c", "core.quotepath=false",
                                 *args], cwd=self.root, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)


    # --- the one log pass, with a cache keyed by HEAD ----------------------
    def _cache_path(self) -> Path | None:
        if not self.opts.cache_dir:
            return None
        digest = hashlib.sha1(str(self.root).encode()).hexdigest()[:16]
        return Path(self.opts.cache_dir) / f"gitdates-{digest}.json"

    def _cache_key(self, scope: str) -> str:
        return json.dumps([CACHE_VERSION, self.opts.date_kind, sorted(self._ignored()), scope])

    def _dates(self, head: str, scope: str, tracked: set[str],
               boundary: set[str]) -> dict[str, str]:
        cache = self._cache_path()
        key = self._cache_key(scope)
        old: dict[str, object] = {}
        if cache and cache.exists():
            with contextlib.suppress(OSError, ValueError):
                old = json.loads(cache.read_text("utf-8"))
        if old.get("key") == key and not boundary:
            cached = old.get("dates")
            if old.get("head") == head and isinstance(cached, dict):
                return cached
            if cache and isinstance(cached, dict) and isinstance(old.get("head"), str):
                dates = self._incremental(str(old["head"]), head, scope, tracked, cached)
                if dates is not None:
                    self._store(cache, head, key, dates)
                    return dates
        dates = self._log(head, scope, tracked, boundary)
        if cache and not boundary:
            self._store(cache, head, key, dates)
        return dates

    def _store(self, cache: Path, head: str, key: str, dates: dict[str, str]) -> None:
        with contextlib.suppress(OSError):
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"head": head, "key": key, "dates": dates}), "utf-8")
            os.replace(tmp, cache)

    def _incremental(self, old: str, head: str, scope: str, tracked: set[str],
                     cached: dict[str, str]) -> dict[str, str] | None:
        """Update a cached map from old..head; None when old is not an ancestor."""
        self.out.git_calls += 1
        ancestor = subprocess.run([self.git, "merge-base", "--is-ancestor", old, head],
                                  cwd=self.root, capture_output=True, check=False)
        if ancestor.returncode != 0:
            return None
        fresh = self._walk(f"{old}..{head}", scope, tracked, set(), carry=cached)
        dates = {p: d for p, d in cached.items() if p in tracked}
        dates.update(fresh)
        if not tracked <= dates.keys():
            return None  # something the cache never dated: start again
        return dates

    def _log(self, head: str, scope: str, tracked: set[str], boundary: set[str]) -> dict[str, str]:
        return self._walk(head, scope, tracked, boundary)

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

    def _walk(self, rev: str, scope: str, targets: set[str], boundary: set[str],
              carry: dict[str, str] | None = None) -> dict[str, str]:
        """One ``git log`` newest first: the first real change of each target wins.

        ``alias`` maps a path as it was named in older commits to the current path
        (pure renames carry the older date; renames with edits are changes).
        ``carry``: for an incremental walk, dates of paths before the range.
        """
        ignored = self._ignored()
        fmt = "%x1e%H %cI" if self.opts.date_kind == "committer" else "%x1e%H %aI"
        args = [self.git, "--literal-pathspecs", "-c", "core.quotepath=false", "log", "-z",
                f"--format={fmt}", "--name-status", "-M", rev, "--", scope]
        self.out.git_calls += 1
        proc = subprocess.Popen(args, cwd=self.root, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        assert proc.stdout is not None
        alias = {t: t for t in targets}
        dates: dict[str, str] = {}
        fallback: dict[str, str] = {}  # files created by an ignored commit
        commit, when, skip, at_boundary = "", "", False, False
        try:
            tokens = _tokens(iter(lambda: proc.stdout.read(1 << 16), b""))  # type: ignore[union-attr]
            for token in tokens:
                token = token.lstrip(b"\n")
                if token.startswith(b"\x1e"):
                    commit, _, when = token[1:].decode().partition(" ")
                    skip = commit in ignored or any(commit.startswith(r) for r in ignored
                                                   if len(r) < 40)
                    at_boundary = commit in boundary
                    if not alias:
                        break
                    continue
                status = token.decode()
                old = os.fsdecode(next(tokens)) if status[:1] in "RC" else None
                path = os.fsdecode(next(tokens))
                target = alias.get(path)
                if target is None:
                    continue
                pure_rename = status[:1] == "R" and status[1:] == "100"
                if status[:1] == "R" and (pure_rename or skip) and old is not None:
                    alias.pop(path)
                    alias[old] = target  # keep looking for the content's own date
                    continue
                if at_boundary:
                    alias.pop(path)  # its real last change lies beyond the boundary
                    continue
                if skip:
                    if status[:1] == "A":
                        fallback.setdefault(target, when)
                    continue
                if status[:1] == "D":
                    continue
                dates[target] = when
                alias.pop(path)
        finally:
            proc.stdout.close()
            proc.kill()
            proc.wait()
        for target, when in fallback.items():
            dates.setdefault(target, when)
        if carry is not None:  # incremental: renamed-only paths inherit their old dates
            for old_path, target in alias.items():
                if old_path != target and target not in dates and old_path in carry:
                    dates[target] = carry[old_path]
        return dates


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
