"""What every generator family module provides: a ``Layout`` that says where the
site's content lives, which source paths may have made an output page, and what the
generator itself left behind that names each page's source (route metadata, a build
environment, front matter). Shared helpers for reading configs and front matter."""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...rules.dates import normalize_lastmod
from ...rules.model import EntryError

LANGUAGE = re.compile(r"[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")  # a language-like folder name
# ISO 639-1: the language codes a folder of per-language configs is named by (``de/``,
# ``pt-BR/``); a folder named like one that is not (``api/``, ``web/``) is a project's
ISO_639_1 = frozenset("""
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv
cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr
ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw
ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv
ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr
ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi
yo za zh zu""".split())


def is_language(name: str) -> bool:
    """A folder name that is a language tag: an ISO 639-1 code, then subtags."""
    return LANGUAGE.fullmatch(name) is not None and \
        re.split(r"[-_]", name, maxsplit=1)[0] in ISO_639_1


@dataclass(frozen=True)
class Known:
    """A page's source as the generator recorded it, with the other files it is made of."""

    source: str  # absolute path
    parts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Built:
    """What a family's ``known`` reads against: the output directory, the base URL's
    path (permalinks carry it) and every page's ``url_key``; ``notes`` takes what it
    could not read, so a fallback to the layout rules is never silent."""

    out: Path
    base_path: str
    keys: frozenset[str]
    notes: list[str] = field(default_factory=list)  # what the family could not read, said
    warnings: list[str] = field(default_factory=list)  # ... where pages lose their dates
    # source path -> the lastmod its front matter declares, where the generator itself
    # takes that over git (Docusaurus last_update, Jekyll last_modified_at)
    declared: dict[str, str] = field(default_factory=dict)
    # (git directory, commit) -> a work tree of that repository at that commit, or None:
    # for sources the generator read from a commit it did not check out (Antora's
    # branches); the caller owns the trees and removes them after the git pass
    checkout: Callable[[str, str], Path | None] = field(default=lambda gitdir, commit: None)
    # URL key of a list page -> why how new it is cannot be told (it lists a content file
    # whose page the generator could not be asked for): ``members`` fills it, and such a
    # page goes out without lastmod, never dated by the members it could map
    unknown_members: dict[str, str] = field(default_factory=dict)


def _none(path: str) -> list[str]:
    return []


def _nothing() -> None:
    return None


def _never(source: str) -> bool:
    return False


@dataclass
class Layout:
    """A generator family and its content root. ``candidates`` lists, for an output path
    relative to the site root, the source paths (relative to ``content``) that may have
    made it, the generator's first choice first. ``known`` reads what the generator
    recorded, keyed by ``url_key``; it wins over the candidates. ``lists`` tells a
    source that makes a list page (Hugo's ``_index`` files): dated by what it lists too.
    ``prepare`` does the part of ``known`` that needs no page, while the scan reads.
    ``made_lists`` names (by ``url_key``) the list pages the generator makes without a
    source of their own (taxonomies, archives, pagination, blog indexes): only those,
    and ``lists`` sources, are dated by what they list; any other page without a source
    is undated, whatever it links to."""

    family: str  # the generator's name as messages give it ("Hugo", "Zensical")
    content: Path
    candidates: Callable[[str], list[str]] = _none
    generated: tuple[str, ...] = field(default=())  # output paths that never have a source
    known: Callable[[Built], dict[str, list[Known]]] | None = None
    lists: Callable[[str], bool] = _never
    made_lists: Callable[[Built], frozenset[str]] | None = None
    clean_urls: bool = False  # ``x.html`` is served and listed at ``…/x`` (VitePress)
    clean_from: str = ""  # the setting that says so, where not "<family>'s cleanUrls"
    # ``X/index.html`` is what the generator's own navigation links (mdBook's README
    # chapters): listed so, not as ``X/`` (the site's root page stays ``/``)
    index_links: bool = False
    # the config setting ``content`` comes from ("mkdocs.yml docs_dir"): a folder the
    # config names that does not exist stops the run with an error naming both
    content_from: str = ""
    prepare: Callable[[], None] = _nothing  # reads what needs no page, while they are read
    base_url: str | None = None  # the site's URL as the generator's config names it
    base_from: str = ""  # where: "mkdocs.yml site_url"
    declares: str = ""  # the front matter ``known`` may fill ``Built.declared`` from
    # URL key -> why: output pages the generator says are no pages of their own (mdBook's
    # front page, a copy of its first chapter); left out with that reason
    not_pages: Callable[[Built], dict[str, str]] | None = None
    base_missing: str = ""  # the --base-url to pass when ``base_from`` names none
    # why ``base_from`` names no URL, where "is not set" would be wrong (a variable)
    base_unset: str = ""
    # the path the config serves every page under (Next's basePath, Eleventy's
    # pathPrefix) and where it says so: a --base-url without it is a warning
    url_path: str = ""
    url_path_from: str = ""
    # URL key of each list page -> the sources of the pages it lists, as the generator's
    # own data says (Hugo's content tree); where given, a page's links never date it
    members: Callable[[Built], dict[str, tuple[str, ...]]] | None = None
    # of several existing candidates, the one the generator builds the page from (None:
    # it cannot be told, and the page is reported, never guessed)
    choose: Callable[[list[str]], str | None] | None = None
    # URL key -> its translations as the generator's own records give them, (hreflang,
    # URL key) each, itself included (mdBook's po/xx.po builds); hreflang alternates
    clusters: Callable[[Built], dict[str, tuple[tuple[str, str], ...]]] | None = None
    # the output folders this layout's pages sit in when it was read from configs in
    # language-named folders (``de/mkdocs.yml``): such a layout is the project of an
    # output only when that output holds one of them (a parent's ``de/`` is no reason)
    language_folders: tuple[str, ...] = ()


def url_key(path: str) -> str:
    """An output path or URL path as one key: ``X/``, ``X/index.html``, ``X`` and
    ``/X/`` are one page, as servers serve them."""
    path = path.lstrip("/")
    if path == "index.html" or path.endswith("/index.html"):
        path = path[: -len("index.html")]
    return path.rstrip("/")


def stem(path: str) -> tuple[str, bool]:
    """(X, True) for ``X/index.html`` or ``index.html`` (X ''), (X, False) for ``X.html``."""
    if path == "index.html" or path.endswith("/index.html"):
        return path[: -len("index.html")].rstrip("/"), True
    return path.rsplit(".", 1)[0], False


def join(*parts: str) -> str:
    return "/".join(p.strip("/") for p in parts if p.strip("/"))


_SCALAR = re.compile(r"""^([A-Za-z_][\w-]*)\s*[:=]\s*["']?([^"'#\n]*?)["']?\s*(?:#.*)?$""")
_FRONT = re.compile(r"\A(?:\ufeff)?(---|\+\+\+)[ \t]*\r?\n(.*?)\r?\n\1[ \t]*(?:\r?\n|\Z)", re.S)


_NAIVE = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?")


def declared_lastmod(value: object) -> str | None:
    """A front-matter date as a lastmod: a time with its zone whole; a day, or a time
    without a zone (in the site's zone, which is not known here), as its day; None
    when it is no date (the page is then dated by git)."""
    if isinstance(value, datetime) and value.utcoffset() is None:
        value = value.date()
    elif isinstance(value, str) and _NAIVE.fullmatch(value.strip()):
        value = value.strip()[:10]
    try:
        return normalize_lastmod(value, None)
    except EntryError:
        return None


def read_config(path: Path) -> dict[str, Any]:
    """A config file as a mapping. TOML and YAML use tomllib and PyYAML when present
    (the generators themselves bring PyYAML); without them, top-level ``key: value``
    and ``key = value`` lines are read, which covers the keys used here."""
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else _parser(path.suffix)(text)
    except Exception as exc:  # each parser has its own error type
        said = " ".join(str(exc).replace("^", "").split())  # YAML's caret picture: one line
        raise InputError(f"cannot read {path}: {said}") from None
    return data if isinstance(data, dict) else {}


def front_matter(path: str | Path, keys: tuple[str, ...] = ()) -> dict[str, Any]:
    """A content file's front matter (YAML ``---`` or TOML ``+++``); {} when it has
    none or it cannot be read as a mapping (the generator would have failed on it).
    With ``keys``, front matter that names none of them at a line start is not parsed
    (a YAML parse per page would cost seconds on a 100,000-page site)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(16384)
    except OSError:
        return {}
    match = _FRONT.match(head)
    if not match:
        return {}
    if keys and not re.search(rf"^\s*(?:{'|'.join(map(re.escape, keys))})\s*[:=]", match[2],
                              re.MULTILINE | re.IGNORECASE):  # Hugo's keys have no case
        return {}
    try:
        data = _parser(".toml" if match[1] == "+++" else ".yml")(match[2])
    except Exception:  # a page the generator built has readable front matter
        data = _top_level(match[2])
    return data if isinstance(data, dict) else {}


def _parser(suffix: str) -> Callable[[str], Any]:
    name = "tomllib" if suffix == ".toml" else "yaml"
    try:
        module: Any = importlib.import_module(name)
    except ImportError:
        return _top_level
    if name == "tomllib":
        return module.loads  # type: ignore[no-any-return]

    class AnyTag(module.SafeLoader):  # type: ignore[misc]
        """mkdocs.yml may carry !!python/name and !ENV tags: read them as None."""

    AnyTag.add_multi_constructor("", lambda loader, suffix, node: None)
    return lambda text: module.load(text, Loader=AnyTag)


def _top_level(text: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        match = _SCALAR.match(line)
        if match:
            found[match[1]] = match[2].strip()
    return found


def assigned(path: Path, key: str) -> str | None:
    """The string literal a Python or JavaScript config assigns to ``key`` at a line's
    start (``html_baseurl = "..."``, ``url: '...'``), or None: what a site's URL needs
    from configs that are programs, without running them."""
    try:
        text = path.read_text("utf-8", errors="replace")
    except OSError:
        return None
    found = re.search(rf"""^\s*{re.escape(key)}\s*[:=]\s*(["'`])([^"'`\n]*)\1""", text,
                      re.MULTILINE)
    return found[2] if found else None


def site_url(url: object, path: object = "") -> str | None:
    """A config's site URL joined with its path setting (Jekyll's ``baseurl``,
    Docusaurus' ``baseUrl``); None when the config names no absolute URL."""
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return None
    tail = str(path or "").strip("/")
    return url.rstrip("/") + "/" + (tail + "/" if tail else "")


def read_map(path: Path) -> dict[str, Known]:
    """``--map`` JSON Lines: {"url": page URL or path, "source": file} per line, with
    optional "parts": the other files the page is made of (a banner a build script
    inserts into each translation), which date it too. Paths are as given (relative
    ones are under ``--source``)."""
    found: dict[str, Known] = {}
    try:
        lines = path.read_text("utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read the map file {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            parts = row.get("parts", [])
            if not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
                raise TypeError
            found[str(row["url"])] = Known(str(row["source"]), tuple(parts))
        except (ValueError, KeyError, TypeError, AttributeError):
            raise InputError(f"{path} line {number}: expected a JSON object with 'url' and "
                             "'source' (and 'parts', a list of files, if any)") from None
    return found
