"""The generator's own sitemaps, read before they are replaced: the root one (or an
index and its children) and those in language folders (``de/sitemap.xml``, as Zensical
and i18n builds write them). Their URL set is the floor: every URL they listed that
sitemapkit leaves out is named with its reason (``missing``)."""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote
from xml.etree import ElementTree

from ..._display import count
from ..._files import open_regular, open_unpacked, read_regular
from ...protocol import (
    MAX_BYTES,
    SITEMAP_NS,
    SNIFF_BYTES,
    XHTML_NS,
    looks_like_sitemap,
    written_by_sitemapkit,
)
from ...rules.robots import sitemap_lines
from .family import LANGUAGE

_URL, _LOC, _LASTMOD = f"{{{SITEMAP_NS}}}url", f"{{{SITEMAP_NS}}}loc", f"{{{SITEMAP_NS}}}lastmod"
_SITEMAP, _LINK = f"{{{SITEMAP_NS}}}sitemap", f"{{{XHTML_NS}}}link"
_SPACE = "[ \t\n\r\f\v]*"  # XML's (and a bytes pattern's) \s, not Unicode's
_URL_TEXT = re.compile(r"<url>(.*?)</url>", re.S)
_LOC_TEXT = re.compile(rf"<loc>{_SPACE}([^<]*?){_SPACE}</loc>")
# greedy, with the space around a loc cut afterwards: four times faster than lazy
_LOC_FIRST = re.compile(rf"<url>{_SPACE}<loc>([^<]*)</loc>")
_LOC_DATED = re.compile(rf"<loc>([^<]*)</loc>{_SPACE}<lastmod>")
_XML_SPACE = " \t\n\r\f\v"


@dataclass
class OldSitemap:
    name: str
    locs: dict[str, bool] = field(default_factory=dict)  # loc -> had a lastmod
    alternates: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    children: list[Path] = field(default_factory=list)  # an index's files inside the site
    languages: list[Path] = field(default_factory=list)  # language folders' sitemaps
    unreadable: list[str] = field(default_factory=list)  # "file: why", never compared
    kept: list[str] = field(default_factory=list)  # language-folder sitemaps not the generator's
    ours: bool = False  # written by sitemapkit (an earlier run): nothing to compare with
    not_urls: list[str] = field(default_factory=list)  # locs that are no URL ("None")
    written: float | None = None  # the entry point's modification time
    # the site's URL its locs are under, where that is not the base URL of this run: no
    # floor then (nothing is left out or compared by it), and that is a warning
    elsewhere: str = ""

    @property
    def dated(self) -> int:
        return sum(self.locs.values())

    def describe(self) -> str:
        kind = f"an index of {count(len(self.children), 'sitemap')}" if self.children \
            else "a sitemap"
        dates = "no lastmod" if not self.dated else f"{self.dated:,} with lastmod"
        more = f" and {len(self.languages)} in language folders" if self.languages else ""
        return f"{self.name} ({kind}{more}, {len(self.locs):,} URLs, {dates})"


def read_old(out_dir: Path, name: str, base: str) -> OldSitemap | None:
    """The sitemaps at ``out_dir/name`` and ``out_dir/<language>/name``, following an
    index into files under ``out_dir``. None when there is none; a file that cannot be
    parsed is named in ``unreadable`` (it is replaced all the same, but not compared)."""
    found = OldSitemap(name)
    root = out_dir / name
    seen = False
    if root.is_file():
        seen = True
        found.ours = _ours(root)  # still read: a re-run keeps the clusters it wrote
        try:
            found.written = root.stat().st_mtime
        except OSError:
            pass
        _read_file(root, out_dir, base, found, found.children)
    folders = sorted(p for p in out_dir.iterdir() if p.is_dir() and not p.is_symlink()) \
        if out_dir.is_dir() else []
    for folder in folders:
        language_map = (folder / name).resolve()
        if not found.ours and LANGUAGE.fullmatch(folder.name) and language_map.is_file() \
                and language_map not in found.children:
            seen = True
            _read_language(language_map, out_dir, base + quote(folder.name) + "/", found)
    if seen:
        _drop_non_urls(found)
    return found if seen else None


def _drop_non_urls(found: OldSitemap) -> None:
    """Locs that are no http(s) URL (MkDocs built without ``site_url`` writes "None"
    for each page) name no page: counted once, never compared page by page."""
    found.not_urls = [loc for loc in found.locs if not loc.startswith(("http://", "https://"))]
    for loc in found.not_urls:
        del found.locs[loc]


def _read_language(path: Path, out_dir: Path, base: str, found: OldSitemap) -> None:
    """A language folder's sitemap that no index names is the generator's own for that
    language (multi-language builds write one each) only when every loc it lists lies
    under the site's URL of that folder: then it is read into the floor and replaced.
    Any other is a user's file: neither read nor removed, and said."""
    alone = OldSitemap(found.name)
    _read_file(path, out_dir, base, alone, alone.children)
    outside = next((loc for loc in alone.locs if not loc.startswith(base)), None)
    top = out_dir.resolve()
    shown = path.relative_to(top) if path.is_relative_to(top) else path
    if alone.children or (outside is not None and not alone.unreadable):
        found.kept.append(f"{shown} (it lists {outside or 'sitemaps'}, not pages under {base})")
        return
    found.languages.append(path)
    found.locs.update({loc: dated or found.locs.get(loc, False)
                       for loc, dated in alone.locs.items()})
    found.alternates.update(alone.alternates)
    found.unreadable += alone.unreadable


# where generators put their entry point when it is not sitemap.xml (Astro: an index at
# sitemap-index.xml naming sitemap-0.xml, ...), looked for after robots.txt's lines
ENTRY_NAMES = ("sitemap-index.xml", "sitemap_index.xml")


def generator_entry(out_dir: Path, name: str) -> str:
    """The file name of the generator's entry point at the output's top: ``name`` when
    it is there; else the one robots.txt's ``Sitemap:`` lines name there; else an index
    under the names generators use. Only a file that is a sitemap by its first bytes."""
    if (out_dir / name).is_file():
        return name
    named: list[str] = []
    try:
        with open_regular(out_dir / "robots.txt") as fh:
            robots = fh.read(MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        robots = ""
    for _, url in sitemap_lines(robots):
        named.append(unquote(url.split("?", 1)[0].rsplit("/", 1)[-1]))
    for candidate in [*named, *ENTRY_NAMES]:
        path = out_dir / candidate
        if candidate and "/" not in candidate and not candidate.startswith(".") and \
                path.is_file() and not path.is_symlink() and \
                looks_like_sitemap(_head(path), candidate):
            return candidate
    return name


def _head(path: Path) -> bytes:
    """A file's first bytes (none when it cannot be read or is no regular file)."""
    return read_regular(path, SNIFF_BYTES) or b""


BASE_READ = 1 << 20  # bytes of the generator's sitemap read to find the site's URL
BASE_VOTES = 200  # locs that vote


def read_base(out_dir: Path, name: str) -> str | None:
    """The site's URL as the generator's own sitemap at ``out_dir/name`` gives it: the
    prefix of its locs (an index's, or a urlset's) under which the rest names a file
    in ``out_dir``, the one most locs agree on. None without such a sitemap or
    agreement. Reads the first ``BASE_READ`` bytes only."""
    try:
        with open_regular(out_dir / name) as fh:
            head = fh.read(BASE_READ).decode("utf-8", "replace")
    except OSError:
        return None
    votes: dict[str, int] = {}
    for loc in [html.unescape(m[1]).strip() for m in _LOC_TEXT.finditer(head)][:BASE_VOTES]:
        scheme, sep, rest = loc.partition("://")
        if scheme not in ("http", "https") or not sep:
            continue
        host, _, path = rest.partition("/")
        segments = path.split("?", 1)[0].split("/")
        for k in range(len(segments)):
            if _served(out_dir, unquote("/".join(segments[k:]))):
                prefix = "/".join(segments[:k])
                base = f"{scheme}://{host}/" + (prefix + "/" if prefix else "")
                votes[base] = votes.get(base, 0) + 1
                break
    return max(votes, key=lambda b: (votes[b], -len(b))) if votes else None


def _served(out_dir: Path, rest: str) -> bool:
    """Whether a URL path under the site's root names a file of the output, as a
    static server maps it (``x/`` to ``x/index.html``, ``x`` to ``x.html``)."""
    if ".." in rest.split("/"):
        return False
    target = out_dir / rest if rest else out_dir
    return (target.is_file() and bool(rest)) or (target / "index.html").is_file() or \
        (bool(rest) and not rest.endswith("/") and
         target.with_name(target.name + ".html").is_file())


def _ours(path: Path) -> bool:
    return written_by_sitemapkit(_head(path))


def _read_file(path: Path, out_dir: Path, base: str, found: OldSitemap,
               children: list[Path]) -> None:
    try:
        with open_regular(path) as fh:
            start = fh.read(4096)
        if b"<sitemapindex" in start:
            for element in _parse(path):
                if element.tag == _SITEMAP:
                    child = _local(element.findtext(_LOC, "").strip(), out_dir, base)
                    if child is not None and child not in children and \
                            looks_like_sitemap(_head(child), child.name):  # no feed
                        children.append(child)
                        _read_urls(child, found)
        else:
            _read_urls(path, found)
    except (OSError, ValueError, ElementTree.ParseError, EOFError, zlib.error) as exc:
        top = out_dir.resolve()
        shown = path.relative_to(top) if path.is_relative_to(top) else path
        found.unreadable.append(f"{shown} ({exc})")


def _capped(path: Path) -> bytes:
    """The file's bytes, gunzipped for ``.gz``; more than a sitemap may hold (50 MB,
    a gzip bomb too) is refused after that many bytes, not read whole."""
    with open_unpacked(path, path.suffix == ".gz") as fh:
        data = fh.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES:,} bytes, the most a sitemap file may "
                         "hold (sitemapkit rules 22): not read")
    return data


def _parse(path: Path) -> list[ElementTree.Element]:
    return list(ElementTree.fromstring(_capped(path)))


def _read_urls(path: Path, found: OldSitemap) -> None:
    """A urlset's locs and which had a lastmod; the tree only when it has alternates."""
    data = _capped(path)
    if b"<xhtml:link" in data:
        _urls(list(ElementTree.fromstring(data)), found)
        return
    if b"<urlset" not in data[:4096] or b"</urlset>" not in data[-4096:]:
        raise ValueError("not a whole urlset: no <urlset> or no </urlset>")  # cut short
    text = data.decode("utf-8", "replace")
    # the usual shape, in two passes with no Python per URL: each <url> opens with its
    # <loc>, and each <lastmod> follows a <loc>; anything else is read block by block
    first: list[str] = _LOC_FIRST.findall(text)
    dated: list[str] = _LOC_DATED.findall(text)
    if len(first) == text.count("<url>") and len(dated) == text.count("<lastmod>"):
        with_date = {loc.strip(_XML_SPACE) for loc in dated}
        pairs = [(loc, loc in with_date) for loc in (raw.strip(_XML_SPACE) for raw in first)]
    else:
        pairs = [(match.group(1), "<lastmod>" in url) for url in _URL_TEXT.findall(text)
                 if (match := _LOC_TEXT.search(url))]
    locs = found.locs
    for loc, has_date in pairs:
        text_loc = html.unescape(loc) if "&" in loc else loc
        locs[text_loc] = locs.get(text_loc, False) or has_date


def _urls(elements: list[ElementTree.Element], found: OldSitemap) -> None:
    for url in elements:
        if url.tag != _URL:
            continue
        loc = url.findtext(_LOC, "").strip()
        found.locs[loc] = found.locs.get(loc, False) or url.find(_LASTMOD) is not None
        links = tuple((link.get("hreflang", ""), link.get("href", ""))
                      for link in url.iter(_LINK) if link.get("rel") == "alternate")
        if links:
            found.alternates[loc] = links


def _local(url: str, out_dir: Path, base: str) -> Path | None:
    """The file under ``out_dir`` a URL under ``base`` names."""
    if not url.startswith(base):
        return None
    rel = unquote(url[len(base):])
    target = (out_dir / rel).resolve()
    return target if target.is_relative_to(out_dir.resolve()) else None


def _exclusions_file(out_dir: Path, cache: str) -> Path:
    digest = hashlib.sha1(os.path.abspath(out_dir).encode()).hexdigest()[:12]
    return Path(cache) / f"generator-excluded-{digest}.json"


def save_exclusions(out_dir: Path, pages: list[str], cache: str) -> None:
    """Remember the output pages the generator's sitemap left out on purpose, when
    that sitemap is replaced: a later run over the same output (ours, then) leaves out
    exactly those again, and nothing else. Kept beside the working directory, never in
    the output (``cache``: the run's cache folder); a failure to keep it only costs
    that."""
    path = _exclusions_file(out_dir, cache)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps({"out": os.path.abspath(out_dir),
                                         "pages": sorted(pages)}), "utf-8")
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)


def load_exclusions(out_dir: Path, cache: str) -> frozenset[str]:
    """What ``save_exclusions`` kept for ``out_dir`` (empty: nothing, or unreadable)."""
    try:
        data = json.loads(_exclusions_file(out_dir, cache).read_text("utf-8"))
    except (OSError, ValueError):
        return frozenset()
    if not isinstance(data, dict) or data.get("out") != os.path.abspath(out_dir):
        return frozenset()
    return frozenset(str(p) for p in data.get("pages") or ())
