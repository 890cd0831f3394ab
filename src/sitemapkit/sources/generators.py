"""Which generator built a site, and where each output page's source file is.

The generator is found from its config file in ``--source``; each family maps an
output path back to its source by its own layout rules. Where the rules give no
single existing file, a theme's "edit this page" link is used (the longest suffix of
its path that exists in the repository), and an explicit map file wins over both.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError

SPHINX_SUFFIXES = (".rst", ".md", ".txt", ".ipynb")
SPHINX_GENERATED = ("genindex.html", "search.html", "py-modindex.html", "genindex/index.html",
                    "search/index.html", "py-modindex/index.html")
_EDIT_LINK = re.compile(rb"""<a\b[^>]*?href=["']([^"']+/(?:edit|blob|tree)/[^"']+)["']""",
                        re.IGNORECASE)


@dataclass
class Layout:
    """A generator family and its content root; ``candidates`` lists, for an output path
    relative to the site root, the source paths (relative to ``content``) that may have
    made it, the generator's first choice first."""

    family: str
    content: Path
    candidates: Callable[[str], list[str]]
    generated: tuple[str, ...] = field(default=())  # output paths that never have a source


_SCALAR = re.compile(r"""^([A-Za-z_][\w-]*)\s*[:=]\s*["']?([^"'#\n]*?)["']?\s*(?:#.*)?$""")


def detect(source: Path) -> Layout | None:
    """The layout of the generator whose config file is in ``source`` (None: unknown)."""
    for name in ("mkdocs.yml", "properdocs.yml", "zensical.toml"):
        if (source / name).is_file():
            config = _read(source / name)
            project = config.get("project", config) if name.endswith(".toml") else config
            family = {"mkdocs.yml": "mkdocs", "properdocs.yml": "properdocs"}.get(
                name, "zensical")
            return Layout(family, source / str(project.get("docs_dir", "docs")),
                          _mkdocs_candidates)
    for name in ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml"):
        if (source / name).is_file():
            return _hugo(source / name, _read(source / name))
    if (source / "conf.py").is_file():
        return Layout("sphinx", source, _sphinx_candidates,
                      generated=SPHINX_GENERATED)
    if (source / "_config.yml").is_file():
        config = _read(source / "_config.yml")
        return Layout("jekyll", source / str(config.get("source", ".")),
                      _jekyll_candidates)
    if (source / "pelicanconf.py").is_file():  # slugs: only edit links and a map file help
        return Layout("pelican", source / "content", lambda p: [])
    return None


def _read(path: Path) -> dict[str, Any]:
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
        raise InputError(f"cannot read {path}: {exc}") from None
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


def _stem(path: str) -> tuple[str, bool]:
    """(X, True) for ``X/index.html`` or ``index.html`` (X ''), (X, False) for ``X.html``."""
    if path == "index.html" or path.endswith("/index.html"):
        return path[: -len("index.html")].rstrip("/"), True
    return path.rsplit(".", 1)[0], False


def _join(*parts: str) -> str:
    return "/".join(p for p in parts if p)


def _mkdocs_candidates(path: str) -> list[str]:
    stem, directory = _stem(path)
    if not directory:
        return [stem + ".md"]
    own = [stem + ".md"] if stem else []
    return own + [_join(stem, "index.md"), _join(stem, "README.md")]


def _sphinx_candidates(path: str) -> list[str]:
    stem, directory = _stem(path)
    names = [stem] if not directory else [_join(stem, "index")] if not stem else \
        [stem, _join(stem, "index")]
    return [name + suffix for name in names for suffix in SPHINX_SUFFIXES]


def _jekyll_candidates(path: str) -> list[str]:
    stem, directory = _stem(path)
    names = [_join(stem, "index")] + ([stem] if directory and stem else [])
    if not directory:
        names = [stem]
    return [name + suffix for name in names for suffix in (".md", ".markdown", ".html")]


def _hugo(config_file: Path, config: dict[str, Any]) -> Layout:
    """Hugo: ``X/index.html`` <- ``X.md | X/_index.md | X/index.md``; a language's pages
    under ``/<lang>/`` come from ``X.<lang>.md`` or that language's contentDir."""
    content = str(config.get("contentDir", "content"))
    languages = {str(k): v for k, v in (config.get("languages") or {}).items()}
    default = str(config.get("defaultContentLanguage", "en"))
    dirs = {lang: str(v["contentDir"]) for lang, v in languages.items()
            if isinstance(v, dict) and "contentDir" in v}

    def candidates(path: str) -> list[str]:
        first, _, rest = path.partition("/")
        lang = first if first in languages and rest else default
        stem, directory = _stem(rest if first in languages and rest else path)
        names = [stem, _join(stem, "_index"), _join(stem, "index")] if directory and stem \
            else ["_index", "index"] if directory else [stem]
        found = [_join(dirs[lang], n) + ".md" for n in names] if lang in dirs else []
        if languages:
            found += [_join(content, n) + f".{lang}.md" for n in names]
        if lang == default and lang not in dirs:
            found += [_join(content, n) + ".md" for n in names]
        return found

    return Layout("hugo", config_file.parent, candidates)


def edit_link_source(html_path: Path, tracked: set[str]) -> str | None:
    """The repository file an "edit this page" link names: the longest suffix of the
    link's path that is a tracked file (``tracked`` holds repository-relative paths)."""
    try:
        data = html_path.read_bytes()
    except OSError:
        return None
    for match in _EDIT_LINK.finditer(data):
        parts = match.group(1).decode("utf-8", "replace").split("?")[0].split("/")
        for start in range(len(parts)):
            candidate = "/".join(parts[start:])
            if candidate in tracked:
                return candidate
    return None


def read_map(path: Path) -> dict[str, str]:
    """``--map`` JSON Lines: {"url": page URL or path, "source": file} per line."""
    found: dict[str, str] = {}
    try:
        lines = path.read_text("utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read the map file {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            found[str(row["url"])] = str(row["source"])
        except (ValueError, KeyError, TypeError):
            raise InputError(f"{path} line {number}: expected a JSON object with 'url' and "
                             "'source'") from None
    return found
