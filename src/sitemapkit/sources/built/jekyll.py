"""Jekyll: ``X/index.html`` or ``X.html`` comes from ``X.md``, ``X/index.md`` (and
``.markdown``, ``.html``) under ``source``; a page's ``permalink`` front matter moves
it anywhere, so pages that set one are indexed by it."""

from __future__ import annotations

import os
import re
from pathlib import Path

from .family import (
    Known,
    Layout,
    declared_lastmod,
    front_matter,
    join,
    read_config,
    site_url,
    stem,
    url_key,
)

SUFFIXES = (".md", ".markdown", ".html")
_POST = re.compile(r"(\d{4})-(\d{2})-(\d{2})-(.+?)\.(?:md|markdown|html)$")


def detect(source: Path, generator: str) -> Layout | None:
    if not (source / "_config.yml").is_file():
        return None
    config = read_config(source / "_config.yml")
    content = source / str(config.get("source", "."))
    style = str(config.get("permalink", "date"))
    pager = str(config.get("paginate_path", "/page:num/")).strip("/")
    return Layout("Jekyll", content, candidates,
                  known=lambda built: _permalinks(content, style, built.declared),
                  made_lists=lambda built: pager_pages(built.keys, pager),
                  base_url=site_url(config.get("url"), config.get("baseurl")),
                  base_from="_config.yml url and baseurl", declares="last_modified_at")


def candidates(path: str) -> list[str]:
    name, directory = stem(path)
    names = [name] if not directory else [join(name, "index")] + ([name] if name else [])
    return [n + suffix for n in names for suffix in SUFFIXES]


def _permalinks(content: Path, style: str, declared: dict[str, str]) -> dict[str, list[Known]]:
    """What the layout rules cannot follow: pages whose front matter sets
    ``permalink``, and posts (``_posts/YYYY-MM-DD-title.md``) at their dated URL. Other
    ``_``-folders are layouts, includes and collections. A ``last_modified_at`` goes
    into ``declared``: jekyll-sitemap and jekyll-last-modified-at take it over git."""
    found: dict[str, list[Known]] = {}
    for folder, dirs, files in os.walk(content):
        dirs[:] = [d for d in dirs if d == "_posts" or not d.startswith(("_", ".")) and d not in
                   ("node_modules", "vendor")]
        in_posts = os.path.basename(folder) == "_posts"
        for name in files:
            if not name.endswith(SUFFIXES):
                continue
            path = os.path.join(folder, name)
            meta = front_matter(Path(path), ("permalink", "categories", "category",
                                             "last_modified_at"))
            when = declared_lastmod(meta.get("last_modified_at"))
            if when is not None:
                declared[os.path.realpath(path)] = when
            permalink = meta.get("permalink")
            if isinstance(permalink, str) and permalink.startswith("/") and ":" not in permalink:
                found.setdefault(url_key(permalink), []).append(Known(path))
            elif in_posts:
                key = _post_url(os.path.relpath(folder, content), name, meta, style)
                if key is not None:
                    found.setdefault(key, []).append(Known(path))
    return found


def _post_url(folder: str, name: str, meta: dict[str, object], style: str) -> str | None:
    """A post's URL under the ``date`` (default) or ``pretty`` permalink style, with its
    categories (the folders above ``_posts`` and the front matter's) in front."""
    match = _POST.match(name)
    if match is None or style not in ("date", "pretty"):
        return None
    year, month, day, title = match.groups()
    categories = [c for c in folder.replace(os.sep, "/").split("/")[:-1] if c not in (".", "")]
    listed = meta.get("categories", meta.get("category"))
    if isinstance(listed, str):
        listed = listed.split()
    if isinstance(listed, list):
        categories += [str(c) for c in listed if str(c) not in categories]
    path = join(*[c.lower() for c in categories], year, month, day, title)
    return path + ".html" if style == "date" else url_key(path)


def pager_pages(keys: frozenset[str], paginate_path: str) -> frozenset[str]:
    """The pages jekyll-paginate makes (``paginate_path``, ``page:num`` by default): the
    second page of a list and on."""
    if ":num" not in paginate_path:
        return frozenset()
    head, _, tail = paginate_path.partition(":num")
    pattern = re.compile(re.escape(head) + r"\d+" + re.escape(tail.rstrip("/")))
    return frozenset(key for key in keys if pattern.fullmatch(url_key(key)))
