"""``sitemapkit site`` over a versioned output: mike's ``gh-pages`` (``versions.json``),
or version folders by glob (Read the Docs' ``/<lang>/<version>/``) with a version ->
tag map. Each version folder is one ``site`` run, with its pages mapped and dated as
of the source commit that built it (the project checked out there, so its config,
files, renames and ignore-revs are that commit's); then one root index lists every
version's sitemaps and ``robots.txt`` names it. Alias folders (``latest``) are not
listed: their pages are the version's own. A version without a commit this clone has
is named, and its pages listed without lastmod.

    from sitemapkit.site.versions import versioned_sitemaps
    outcome = versioned_sitemaps("gh-pages", "https://docs.example.com/", source=".")
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .._display import count, shown_path
from ..errors import ConfigError
from ..protocol import DEFAULT_MAX_BYTES
from ..publish.pipeline import Outcome
from ..publish.siteindex import IndexResult, build_index
from ..rules.urls import normalize_base_url
from ..sources.built.compare import merge_reports
from ..sources.built.mapping import repository_top
from ..sources.built.scan import require_dir
from ..sources.built.versions import (
    Version,
    Versions,
    canonical_folder,
    deployed_refs,
    find_versions,
)
from ..sources.git.commands import GitFailed
from ..sources.git.revision import Revisions
from . import site_sitemaps


@dataclass
class VersionedOutcome:
    """Every version's run, and the root index over them (None on a dry run, or when a
    version failed: the index is written only over a complete set)."""

    infos: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    versions: dict[str, Outcome] = field(default_factory=dict)
    commits: dict[str, str | None] = field(default_factory=dict)  # version -> commit
    index: IndexResult | None = None


def versioned_sitemaps(out_dir: str | os.PathLike[str], base_url: str | None, *,
                       source: str | os.PathLike[str] | None = None,
                       versions: tuple[str, ...] = (), alias: str | None = None,
                       refs: Mapping[str, str] | None = None,
                       deploy_branch: str | None = None,
                       **values: Any) -> VersionedOutcome | None:
    """Sitemaps for every chosen version of the output ``out_dir`` and one root index;
    None when the output is not versioned (no ``versions.json``, no ``versions`` or
    ``refs`` given). ``base_url`` is the URL of ``out_dir``; ``source`` the project
    (its repository holds the versions' commits)."""
    started = time.perf_counter()
    out = Path(out_dir)
    require_dir(out)
    found = find_versions(out, tuple(versions), alias, dict(refs or {}))
    if found is None:
        return None
    if not base_url:
        raise ConfigError("a versioned site needs --base-url, the URL of its root folder "
                          "(each version's config names only its own)")
    base = normalize_base_url(base_url)
    project = Path(os.path.abspath(source)) if source is not None else None
    top = repository_top(project) if project is not None else None
    result = VersionedOutcome()
    _refs_from_deploys(found, out, project, deploy_branch, result)
    _canonical_version(found, out, base, result)
    missing = [v.name for v in found.chosen if not (out / v.name).is_dir()]
    if missing:
        raise ConfigError(f"{shown_path(out)} has no folder for {count(len(missing), 'version')} "
                          f"it lists: {', '.join(missing)}")
    with tempfile.TemporaryDirectory(prefix="sitemapkit-version-cache-") as cache, \
            Revisions(top or Path(".")) as revisions:
        commits = {v.name: revisions.resolve(v.ref) if top is not None and v.ref else None
                   for v in found.chosen}
        order = {c: i for i, c in enumerate(
            revisions.oldest_first([c for c in commits.values() if c]))}
        chosen = sorted(found.chosen, key=lambda v: (order.get(commits[v.name] or "",
                                                               len(order)), v.name))
        report = values.get("report")
        parts: list[tuple[str, Path]] = []  # each version's report, merged into one
        for number, version in enumerate(chosen):
            commit = result.commits[version.name] = commits[version.name]
            own = {**values}
            if report:
                parts.append((version.name, Path(cache) / f"report-{number}.jsonl"))
                own["report"] = str(parts[-1][1])
            result.versions[version.name] = _one(
                version, commit, out, base, project, top, revisions, cache, own, result)
        if report:
            merge_reports(report, parts)
            result.warnings = [_named(w, parts, report) for w in result.warnings]
            result.infos = [_named(i, parts, report) for i in result.infos]
    if not result.errors:
        result.index = _index(found, out, base, values, result)
    _summary(found, result, out, time.perf_counter() - started)
    return result


def _named(text: str, parts: list[tuple[str, Path]], report: str) -> str:
    """A version's line naming its part of the report names the whole report."""
    for _, part in parts:
        text = text.replace(str(part), str(report))
    return text


def _refs_from_deploys(found: Versions, out: Path, project: Path | None,
                       branch: str | None, result: VersionedOutcome) -> None:
    if not found.mike or all(v.ref for v in found.chosen):
        return
    deployed, where = deployed_refs(out, project, branch)
    for version in found.chosen:
        if version.ref is None and version.name in deployed:
            version.ref, version.whence = deployed[version.name], f"mike's deploy on {where}"
    if where:
        result.infos.append(f"source commits from mike's deploy commits on {where}")


def _canonical_version(found: Versions, out: Path, base: str, result: VersionedOutcome) -> None:
    """mike's ``canonical_version``: every version's pages name their canonical URL in
    one folder (an alias, ``latest``, or a version). Then that folder's URLs are the
    ones listed, the pages of the version it holds, dated as of that version's commit;
    the other versions' pages point there, and are left out, in one line."""
    canonical = canonical_folder(found, out, base)
    if canonical is None:
        return
    folder, holder = canonical
    others = [v.name for v in found.chosen if v.name != folder]
    found.chosen = [Version(folder, holder.aliases, holder.ref, holder.whence)]
    found.aliases.pop(folder, None)
    result.infos.append(
        f"every version's pages name their canonical URL under {folder}/ (mike's "
        f"canonical_version): {folder}/ is listed, the pages of {holder.name} dated as of "
        f"its commit; the folders {', '.join(sorted(others))} are not listed: their pages' "
        "canonicals point there")


def _one(version: Version, commit: str | None, out: Path, base: str, project: Path | None,
         top: Path | None, revisions: Revisions, cache: str, values: Mapping[str, Any],
         result: VersionedOutcome) -> Outcome:
    """One version folder's ``site`` run, with the project as it was at ``commit``."""
    name = version.name
    source = None
    where = ""
    failed = None
    if commit is not None and project is not None and top is not None:
        try:
            tree = revisions.at(commit)
            source = tree / project.relative_to(top)
            where = str(tree)
        except GitFailed as exc:  # said, and the version's pages go out undated
            failed = f"{name}: cannot check out {commit[:12]} ({exc})"
    if failed is not None:
        result.warnings.append(f"{failed}: its pages are listed without lastmod")
    elif source is None:
        result.warnings.append(f"{name}: {_why_undated(version, project, top)}: its pages "
                               "are listed without lastmod")
    rebase = (str(top), where) if where and top is not None else None
    folder = out / name
    # mike's symlinked alias (``latest -> 2.0``), listed for canonical_version: its set
    # is written through the link, into the version's folder inside this output
    inside = folder.is_symlink() and folder.resolve().is_relative_to(out.resolve())
    outcome: Outcome = site_sitemaps(folder, base + quote(name) + "/", source=source,
                            version_root=base, rebase=rebase, through_link=inside,
                            **{**values, "robots_txt": False, "cache_dir": cache})
    shown = f"{project}@{commit[:12]}" if commit and project else ""

    def said(text: str) -> str:
        return f"{name}: " + (text.replace(where, shown) if where else text)

    result.infos += [said(i) for i in outcome.infos]
    result.warnings += [said(w) for w in outcome.warnings]
    result.errors += [said(e) for e in outcome.errors]
    return outcome


def _why_undated(version: Version, project: Path | None, top: Path | None) -> str:
    if project is None:
        return "no --source, so no repository to find its commit in"
    if top is None:
        return f"{project} is not in a git repository"
    if version.ref is None:
        return ("no source commit: no mike deploy commit names it (give --version-ref "
                f"{version.name}=TAG)")
    return (f"its source commit {version.ref} ({version.whence}) is not in {top} (a shallow "
            "or partial clone? fetch it, e.g. git fetch --tags --unshallow)")


def _index(found: Versions, out: Path, base: str, values: Mapping[str, Any],
           result: VersionedOutcome) -> IndexResult | None:
    """The root index over every version's sitemaps (after a dry run: what it would be)."""
    if values.get("dry_run"):
        result.infos.append(f"would write {shown_path(out / 'sitemap.xml')}, an index over "
                            f"the sitemaps of {count(len(found.chosen), 'version')}")
        return None
    index = build_index([out / v.name for v in found.chosen], out / "sitemap.xml", base,
                        robots=bool(values.get("robots_txt", True)),
                        max_bytes=int(values.get("max_bytes") or DEFAULT_MAX_BYTES))
    result.infos += index.notes
    if index.robots_changed:
        result.infos.append(f"robots.txt names {index.index_url}")
    return index


def _summary(found: Versions, result: VersionedOutcome, out: Path, elapsed: float) -> None:
    urls = sum(o.result.url_count for o in result.versions.values())
    undated = [n for n, c in result.commits.items() if c is None]
    head = (f"{count(len(found.chosen), 'version')} ({', '.join(result.versions)}): "
            f"{count(urls, 'URL')}")
    if result.index is not None:
        head += (f"; {shown_path(result.index.out_file)} indexes "
                 f"{count(len(result.index.sitemaps), 'sitemap')}")
    head += f" in {elapsed:.1f} s"
    extra = []
    aliases = sorted(a for a, v in found.aliases.items() if (out / a).exists())
    if aliases:
        extra.append(f"alias folders not listed (their pages are their version's): "
                     f"{', '.join(aliases)}")
    if undated:
        extra.append(f"without a source commit, so undated: {', '.join(undated)}")
    result.infos[:0] = [head, *extra]
