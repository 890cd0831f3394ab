"""``sitemapkit index``: one sitemap index over per-version sitemaps (mike, ReadTheDocs).

Each child directory keeps its own sitemaps; this writes the root index that lists
them all, flattening any child index (indexes are never nested, rule 27), after
validating every child. The root robots.txt keeps one ``Sitemap:`` line for it.
"""

from __future__ import annotations

import html
import itertools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import quote, unquote

from .._display import count, shown_path
from ..errors import InputError, SiteIndexError
from ..protocol import DEFAULT_MAX_BYTES, MAX_BYTES, MAX_URLS
from ..rules.urls import normalize_base_url
from ..sources.built.floor import read_base
from ..sources.built.versions import MIKE_FILE, mike_versions, select
from ..validate import Report, ValidateOptions, validate
from ..validate.urls import url_key
from ..write import output
from ..write.index import index_xml
from .readback import ENTRY_POINTS, read_record
from .robots import is_host_root, robots_sitemap_line, robots_would_add


@dataclass
class IndexResult:
    out_file: Path
    index_url: str
    children: list[str]  # version directories, relative to the output directory
    sitemaps: list[tuple[str, str | None]] = field(default_factory=list)  # url, lastmod
    robots_changed: bool = False
    notes: list[str] = field(default_factory=list)
    child_report: Report | None = None

    def summary(self) -> str:
        return (f"{count(len(self.sitemaps), 'sitemap')} from "
                f"{count(len(self.children), 'directory', 'directories')} "
                f"({', '.join(self.children)}) -> {shown_path(self.out_file)}")


def select_versions(root: Path, versions: Sequence[str] = (), alias: str | None = None
                    ) -> list[Path]:
    """Version directories named by mike's versions.json: all, some (names or globs),
    or the one an alias points to."""
    try:
        listed = mike_versions(root)
        if listed is None:
            raise InputError(f"{root / MIKE_FILE} is not a mike versions list: no such file")
        return [root / v.name for v in select(listed, tuple(versions), alias)]
    except InputError as exc:
        raise SiteIndexError(str(exc)) from None


def entry_point(directory: Path) -> Path:
    """The file a child directory publishes: the first usual entry point name there."""
    for name in ENTRY_POINTS:
        if (directory / name).is_file():
            return directory / name
    raise SiteIndexError(f"{directory} has no sitemap (looked for {', '.join(ENTRY_POINTS)})")


def _children(dirs: Sequence[str | os.PathLike[str]], versions: Sequence[str],
              alias: str | None) -> list[Path]:
    """The version directories to index: given ones, or those mike's versions.json selects."""
    children: list[Path] = []
    for given in map(Path, dirs):
        if not given.is_dir():
            raise SiteIndexError(f"{given} is not a directory")
        if (given / "versions.json").is_file():
            children += select_versions(given, versions, alias)
        elif versions or alias:
            raise SiteIndexError(f"--versions/--alias need mike's versions.json in {given}")
        else:
            children.append(given)
    if not children:
        raise SiteIndexError("no directories to index")
    return children


def build_index(dirs: Sequence[str | os.PathLike[str]], out_file: str | os.PathLike[str],
                base_url: str, *, versions: Sequence[str] = (), alias: str | None = None,
                robots: bool = True, max_bytes: int = DEFAULT_MAX_BYTES,
                dry_run: bool = False) -> IndexResult:
    """Write ``out_file``, an index over the sitemaps of ``dirs`` (each a version directory,
    or a mike root whose versions.json selects them). ``base_url`` is the URL of
    ``out_file``'s directory. ``dry_run``: every check, and nothing written; the notes
    say what would be."""
    out = Path(out_file)
    if out.is_dir():  # like `write -o`: a directory means "the index goes in here"
        out = out / "sitemap.xml"
    if dry_run and not out.parent.is_dir():
        raise SiteIndexError(f"{out.parent} is not a folder")
    out_dir = out.parent if dry_run else output.prepare_dir(out.parent)
    output.check_file_name(out.name, "index file name")
    prefix = normalize_base_url(base_url)
    children = _children(dirs, versions, alias)
    root = out_dir.resolve()
    rel_dirs = []
    for child in children:
        # a linked folder (mike's ``latest -> 2.0``) is listed at the link's own place,
        # when both the link and where it leads are inside the index's folder
        linked = child.is_symlink() and child.resolve().is_relative_to(root)
        resolved = child.parent.resolve() / child.name if linked else child.resolve()
        if not resolved.is_relative_to(root) or resolved == root:
            raise SiteIndexError(f"{child} is not below {out_dir}; an index lists only sitemaps in "
                              "its own directory or below (sitemapkit rules 28)")
        rel_dirs.append(resolved.relative_to(root).as_posix())
    entry_points = [entry_point(c) for c in children]
    child_urls = [prefix + quote(d) + "/" for d in rel_dirs]
    for point, child, url, rel in zip(entry_points, children, child_urls, rel_dirs, strict=True):
        _check_base(point, child, url, rel, prefix)
    report = Report()
    for child, url in zip(children, child_urls, strict=True):
        one = validate([child], ValidateOptions(base_url=url, max_bytes=max_bytes,
                                                check_pages=False))
        where = shown_path(child)  # which child: every mike child is named sitemap.xml
        report.findings += [replace(f, file=f"{where}/{f.file}") for f in one.findings]
        report.counts.update(one.counts)
        report.results.update({p.resolve(): r for p, r in one.results.items()})
    result = IndexResult(out, prefix + quote(out.name), rel_dirs, child_report=report)
    if not report.ok():
        raise SiteIndexError(f"the child sitemaps have {report.total('error')} errors; fix them "
                          "first (sitemapkit validate shows them all)", report)
    for point, child, url in zip(entry_points, children, child_urls, strict=True):
        result.sitemaps += _listed(point.resolve(), child, url, report)
    _earlier_entries(out, out_dir, prefix, result, dry_run)
    if len(result.sitemaps) > MAX_URLS:
        raise SiteIndexError(f"{len(result.sitemaps):,} sitemaps: more than one index holds "
                          f"({MAX_URLS:,}), and indexes cannot be nested")
    files = index_xml(result.sitemaps, max_bytes)
    if len(files) > 1:
        raise SiteIndexError(f"the index would exceed the byte cap of {max_bytes:,} bytes")
    if dry_run:
        same = out.is_file() and out.read_bytes() == files[0]
        result.notes += ["dry run: nothing was written", f"would write {out} listing "
                         f"{len(result.sitemaps):,} sitemaps" + (" (unchanged)" if same else "")]
        robots_file = out_dir / "robots.txt"
        if robots and is_host_root(prefix) and robots_would_add(robots_file,
                                                                [result.index_url]):
            result.notes.append(f"would add 'Sitemap: {result.index_url}' to {robots_file}")
        return result
    output.atomic_write(out, files[0], fsync=True)
    # the entry point whole: an older set's .gz copy beside it would still be served
    # (and read by validate) as a second, stale entry point
    result.notes += output.removed_note(output.remove_owned(out.parent, [out.name + ".gz"]),
                                        "that stood beside the new index as its copy")
    if robots and is_host_root(prefix):
        result.robots_changed = robots_sitemap_line(out_dir / "robots.txt", [result.index_url])
    elif robots:
        result.notes.append(f"{prefix} is a sub-path; crawlers read robots.txt only at the "
                            f"host root, so add 'Sitemap: {result.index_url}' there")
    return result


_ENTRY = re.compile(rb"<sitemap>(.*?)</sitemap>", re.S)
_FIELD = re.compile(rb"<(loc|lastmod)>\s*([^<]*?)\s*</\1>")


def _earlier_entries(out: Path, out_dir: Path, prefix: str, result: IndexResult,
                     dry_run: bool) -> None:
    """Every entry of the index being replaced that this one does not list is kept or
    named: a sitemap in a folder this output does not hold (another deployment on the
    same site, ``other-project/sitemap.xml``) is kept with its lastmod; one of this
    output's folders that is no longer indexed (a version removed), or outside the
    index's folder (rule 28), is dropped, and said."""
    data = output.read_regular(out, MAX_BYTES) if out.is_file() else None
    if not data or b"<sitemapindex" not in data[:4096]:
        return
    listed = {url_key(url) for url, _ in result.sitemaps}
    kept, dropped = [], []
    for block in _ENTRY.findall(data):
        fields = {k.decode(): html.unescape(v.decode("utf-8", "replace"))
                  for k, v in _FIELD.findall(block)}
        loc = fields.get("loc", "")
        if not loc or url_key(loc) in listed:
            continue
        folder = unquote(loc[len(prefix):]).split("/", 1)[0] if loc.startswith(prefix) else ""
        if loc.startswith(prefix) and "/" in loc[len(prefix):] and \
                not os.path.lexists(out_dir / folder):
            kept.append((loc, fields.get("lastmod")))
        else:
            dropped.append(loc)
    result.sitemaps += kept
    verb = ("would keep", "would drop") if dry_run else ("kept", "dropped")
    if kept:
        result.notes.append(f"{verb[0]} {count(len(kept), 'entry', 'entries')} of the index "
                            f"it replaces that name sitemaps in folders this output does not "
                            f"hold (another deployment on the site), e.g. {kept[0][0]}")
    if dropped:
        result.notes.append(f"{verb[1]} {count(len(dropped), 'entry', 'entries')} of the index "
                            f"it replaces: sitemaps of this output's folders it no longer "
                            f"indexes, or outside {prefix}, e.g. {dropped[0]}")


def _check_base(point: Path, child: Path, url: str, rel: str, prefix: str) -> None:
    """A base URL off by a level names its cause, instead of one scope error per URL of
    every child: where the child's own locs put it, and the base URL that follows. The
    pages a child's locs name tell it where there are pages; else the folder its locs
    share (an output of sitemaps only)."""
    if not point.is_file():
        return
    found = read_base(child, point.name) or _shared_folder(point)
    if found is None or url_key(found).startswith(url_key(url)):  # there, or deeper
        return
    tail = quote(rel) + "/"
    hint = f"--base-url {found[: -len(tail)]}" if found.endswith(tail) else \
        "the base URL of the index's own folder"
    raise SiteIndexError(f"--base-url {prefix} puts {shown_path(child)} at {url}, but its "
                         f"sitemap lists its pages at {found}; pass {hint}")


SHARED_LOCS = 200  # locs a child's folder is read from


def _shared_folder(point: Path) -> str | None:
    """The folder URL every one of the first locs of the set at ``point`` lies in."""
    try:
        urls = list(itertools.islice(read_record(point).urls, SHARED_LOCS))
    except InputError:
        return None  # validation names what is wrong with it
    folders = [u.split("?", 1)[0].rsplit("/", 1)[0] + "/" for u in urls
               if u.startswith(("http://", "https://"))]
    if not folders:
        return None
    shared = os.path.commonprefix(folders)
    shared = shared[: shared.rfind("/") + 1]
    return shared if shared.count("/") >= 3 else None


def _listed(point: Path, child_dir: Path, child_url: str, report: Report
            ) -> list[tuple[str, str | None]]:
    """An entry point's sitemaps as (url, newest lastmod): itself, or its index's shards."""
    checked = report.results[point]
    if checked.kind != "index":
        rel = point.relative_to(child_dir.resolve()).as_posix()
        return [(child_url + quote(rel), checked.newest_lastmod)]
    base_key = url_key(child_url)
    listed = []
    for _, key, _ in checked.references:  # validated: each is under child_url and exists
        target = (child_dir / unquote(key[len(base_key):].split("?", 1)[0])).resolve()
        listed.append((key, report.results[target].newest_lastmod))
    return listed
