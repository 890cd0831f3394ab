"""One repository's git pass for ``gitdates``: the status check, the batched walk
(``history``), the HEAD-keyed cache with its incremental update, and the retry
without renames when git cannot read an object."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._display import count
from ..._files import atomic_write, ensure_cache_dir
from ...errors import GitDatesError
from ...protocol import FUTURE_TOLERANCE_SECONDS
from .ask import Asker
from .commands import Background, parse_status
from .history import GitFailed, Group, WalkResult, WalkSpec, arrive, git_command, walk
from .ignorerevs import ignored_commits

if TYPE_CHECKING:
    from .model import GitDates, GitOptions

CACHE_VERSION = 2
ROUNDS = 2  # limited walks before the rest walks the whole repository
SPECS = 64  # most pathspec entries a limited walk names
WHOLE = 20  # walk the whole repository when under 1 in WHOLE tracked files is outside


_UNSHALLOW = ("Fetch the full history (for GitHub Actions: actions/checkout with "
              "fetch-depth: 0).")


class Repo:
    """One repository's pass: status, the walk (or the cache) and the failure rules."""

    def __init__(self, git: str, root: str, opts: GitOptions, out: GitDates) -> None:
        self.git, self.opts, self.out = git, opts, out
        self.root = Path(root)
        self.ask = Asker(git, self.root)  # the pass's helpers: cat-file and diff-tree

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
        # status is the slowest git call here (it looks at every file in the scope):
        # started first, it runs on the other core while HEAD, the tracked files and
        # the cache are read; left unheard when the pass fails before its walk
        status = Background(self.git, self.root, ["status", "--porcelain=v1", "-z",
                                                   "--untracked-files=all", "--",
                                                   _common_dir(list(rel.values()))])
        walked = None
        try:
            walked = self._walked(rel, files, fallback)
        finally:
            if walked is None:
                status.stop()
        if walked is None:
            return
        out, error = status.finish()
        self.out.git_calls += 1  # the status
        if error:
            return self._failed(error, files, fallback)
        dated, shallow, failed, tracked = walked
        dirty, untracked = parse_status(out)
        when = {iso: datetime.fromisoformat(iso) for iso in set(dated.values())}
        ahead = time.time() + FUTURE_TOLERANCE_SECONDS  # rule 18: no lastmod past it
        future: list[str] = []
        dates, from_git = self.out.dates, 0
        for f, r in rel.items():
            if r in dirty:
                fallback.setdefault("uncommitted", []).append(f)
            elif r in untracked:
                fallback.setdefault("untracked", []).append(f)
            elif r in dated and when[dated[r]].timestamp() > ahead:
                self.out.unknown[f] = self.out.states[f] = "future"
                future.append(r)
            elif r in dated:
                dates[f] = when[dated[r]]  # one datetime per distinct commit time
                from_git += 1
            elif r in failed:
                fallback.setdefault("git-error", []).append(f)
            elif r in tracked:
                state = self.out.unknown[f] = "shallow" if r in shallow else "no-history"
                self.out.states[f] = state
            else:
                fallback.setdefault("not-in-git", []).append(f)
        self.out.from_git += from_git
        if future:
            self._future(future, dated)
        beyond = sum(self.out.states.get(f) == "shallow" for f in rel)
        if beyond:  # a shallow clone that dates nothing here is not worth a word
            self.out.warnings.append(
                f"{self.root} is a shallow clone: {count(beyond, 'file')} last changed "
                f"before its oldest commit, so the pages made of them get no lastmod. "
                f"{_UNSHALLOW}")

    def _future(self, files: list[str], dated: dict[str, str]) -> None:
        """Files whose last commit is dated more than a day ahead of the clock (a skewed
        clock made it): undated, never the build stopped; the warning names the commit."""
        example = files[0]
        try:
            commit = self._run("log", "-1", "--format=%h", "--", example).decode().strip()
        except GitFailed:
            commit = ""
        self.out.warnings.append(
            f"{count(len(files), 'file')} in {self.root} last changed in a commit dated "
            f"more than 24 hours ahead of this machine's clock (e.g. {example}, commit "
            f"{commit or '?'} of {dated[example]}): the pages made of them get no lastmod "
            "(sitemapkit rules 18). A clock was wrong when it was made; the next commit to "
            "those files dates them again")

    def _walked(self, rel: dict[str, str], files: list[str], fallback: dict[str, list[str]]
                ) -> tuple[dict[str, str], set[str], set[str], set[str]] | None:
        """(dates, shallow, failed, tracked) of the walk, or None when git failed before
        it (the pages are then in ``fallback``)."""
        try:
            info = self._run("rev-parse", "--git-path", "shallow", "--is-shallow-repository",
                             "HEAD").decode().split("\n")
        except GitFailed as exc:
            fallback.setdefault("no-commits", []).extend(files)
            self.out.warnings.append(str(exc))
            return None
        shallow_file, is_shallow, head = Path(info[0]), info[1] == "true", info[2]
        try:
            tracked = set(os.fsdecode(self._run("ls-files", "-z")).split("\0")) - {""}
        except GitFailed as exc:
            self._failed(str(exc), files, fallback)
            return None
        boundary: set[str] = set()
        if is_shallow:
            path = shallow_file if shallow_file.is_absolute() else self.root / shallow_file
            boundary = set(path.read_text().split())
            if self.opts.shallow == "error":
                raise GitDatesError(f"{self.root} is a shallow clone: pages last changed "
                                    f"before its oldest commit get no lastmod. {_UNSHALLOW}")
        try:
            dated, shallow, failed = self._dates(head, [r for r in rel.values() if r in tracked],
                                                 boundary, tracked)
        finally:
            self.out.git_calls += self.ask.calls
            self.ask.close()
        return dated, shallow, failed, tracked

    def _failed(self, error: str, files: list[str], fallback: dict[str, list[str]]) -> None:
        self.out.warnings.append(f"{error}: {count(len(files), 'page')} could not be dated")
        fallback.setdefault("git-error", []).extend(files)

    # --- the one history walk, with a cache keyed by HEAD ----------------------
    def _cache_path(self) -> Path | None:
        if not self.opts.cache_dir:
            return None
        digest = hashlib.sha1(str(self.root).encode()).hexdigest()[:16]
        return Path(self.opts.cache_dir) / f"gitdates-{digest}.json"

    def _dates(self, head: str, targets: list[str], boundary: set[str], tracked: set[str]
               ) -> tuple[dict[str, str], set[str], set[str]]:
        """(dates, shallow, failed): targets -> ISO dates; never caches a failed pass."""
        ignored = ignored_commits(self.ask, self.root, self.opts, self.out)
        spec = WalkSpec(self.git, self.root, self.opts.date_kind, frozenset(ignored),
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
        walked = self._walk(spec, head, {head: {t: [t] for t in todo}},
                            _pathspec(todo, tracked)) if todo else None
        if walked is not None:
            dates.update(walked.dates)
        clean = walked is None or not walked.error
        unchanged = walked is None and isinstance(cached, dict) and old.get("head") == head
        if cache and clean and not unchanged:  # (unchanged: every answer came from it)
            keep = cached if isinstance(cached, dict) and old.get("head") == head else {}
            _store(cache, {"head": head, "key": key, "dates": {**keep, **dates}})
        if walked is None:
            return dates, set(), set()
        return dates, walked.shallow, set(walked.leftover()) if walked.error else set()

    def _incremental(self, spec: WalkSpec, old: str, head: str, todo: list[str],
                     cached: dict[str, Any], dates: dict[str, str]) -> list[str]:
        """Walk only old..head; chains that reach ``old`` take the cached answer there.
        Returns the targets that still need a full walk."""
        result = walk(spec, [head, f"^{old}"], {head: {t: [t] for t in todo}}, self.ask)
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
              paths: tuple[str, ...]) -> WalkResult:
        """Limited to the pages' own paths first: git lists and diffs only what touches
        them, and renames are asked only where a page was added. A page moved in from
        outside walks on from there with its old path added to the pathspec, for up to
        ``ROUNDS`` walks; what is left after those walks the whole repository. Every
        step is the one a whole-repository walk takes."""
        if not paths:
            return self._walk_whole(spec, [head], start)
        result = WalkResult(waiting={})
        revs, todo = [head], start
        for _ in range(ROUNDS):
            part = walk(replace(spec, paths=paths), revs, todo, self.ask)
            self.out.git_calls += part.calls
            if part.error:  # the whole walk says what failed, or retries without
                return self._walk_whole(spec, [head], start)  # rename detection
            result.dates.update(part.dates)
            result.shallow |= part.shallow
            for commit, group in part.waiting.items():
                arrive(result.waiting, commit, group)
            revs, todo = list(part.escaped), part.escaped
            if not todo:
                return result
            paths = _widen(paths, [p for g in todo.values() for p in g])
        more = self._walk_whole(spec, revs, todo)
        more.dates.update(result.dates)
        more.shallow |= result.shallow
        for commit, group in result.waiting.items():
            arrive(more.waiting, commit, group)
        return more

    def _walk_whole(self, spec: WalkSpec, revs: list[str], start: dict[str, Group]
                    ) -> WalkResult:
        """The walk over the whole repository; if rename detection fails (a missing blob),
        once more without."""
        result = walk(spec, revs, start, self.ask)
        self.out.git_calls += result.calls
        if result.error and spec.renames:
            retry = walk(replace(spec, renames=False), revs, result.waiting, self.ask)
            self.out.git_calls += retry.calls
            if not retry.error:
                self.out.warnings.append(
                    f"{result.error} (in {self.root}); dated {count(len(retry.dates), 'page')} "
                    "again without rename detection, so moved pages may show their move "
                    "date. Repair the repository (git fsck; a partial clone needs a full "
                    "fetch)")
            retry.dates.update(result.dates)
            retry.shallow |= result.shallow
            retry.error = result.error  # never cached
            result = retry
        if result.error and result.leftover():
            self.out.warnings.append(f"{result.error} (in {self.root}): "
                                     f"{count(len(result.leftover()), 'page')} could not be "
                                     "dated")
        return result


def _load(cache: Path) -> dict[str, Any]:
    with contextlib.suppress(OSError, ValueError):
        data = json.loads(cache.read_text("utf-8"))
        if isinstance(data, dict):
            return data
    return {}


def _store(cache: Path, data: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        ensure_cache_dir(cache.parent)
        atomic_write(cache, json.dumps(data))


def _common_dir(paths: list[str]) -> str:
    """Deepest directory containing every path: the folders the first and the last
    path in sort order share (every other path sorts between them, so shares them)."""
    if not paths:
        return "."
    prefix = os.path.commonprefix([min(paths), max(paths)])
    return prefix[:max(prefix.rfind("/"), 0)] or "."


def _pathspec(paths: list[str], tracked: set[str]) -> tuple[str, ...]:
    """The log's pathspec for the targets: their deepest common folder, else their
    top-level names. () (the whole repository) when that would name too many, or when
    it leaves out almost nothing: then limiting saves nothing and costs git the match."""
    common = _common_dir(paths)
    spec = (common,) if common != "." else tuple(sorted({p.split("/", 1)[0] for p in paths}))
    if len(spec) > SPECS:
        return ()
    prefixes = tuple(p + "/" for p in spec)
    outside = sum(1 for t in tracked if not t.startswith(prefixes) and t not in spec)
    return spec if outside * WHOLE > len(tracked) else ()


def _widen(paths: tuple[str, ...], more: list[str]) -> tuple[str, ...]:
    """``paths`` plus the old paths of pages moved in from outside them: each file by
    name, or by folder when there are many (a folder renamed as a whole)."""
    if not paths:
        return ()
    extra = sorted(set(more))
    if len(paths) + len(extra) > SPECS:
        extra = sorted({p.rpartition("/")[0] or p for p in extra})
    wide = tuple(sorted(set(paths) | set(extra)))
    return wide if len(wide) <= SPECS else ()
