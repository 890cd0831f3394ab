"""Rspress 2: its config is ``rspress.config.*`` in the project (``root``: the docs
folder, ``docs`` by default; ``base``; ``siteOrigin``), loaded by Rspress' own
``loadConfigFile`` (presets, ``import.meta.dirname``, ``process.env`` count; read as
written only where it cannot be asked, with a warning). The build writes its site
data into the client bundle (``static/js/*.js``): every page's ``routePath`` (its URL
under ``base``, after ``_meta.json``, locales, versions and ``route`` options) and
``_relativePath`` (its source under ``root``): the generator's own record of each
page's source. Its sitemap plugin (``pluginSitemap({siteUrl})``) stamps each page
with the source file's modification time; the set is read as the floor and
replaced."""

from __future__ import annotations

import json
import os
import re
from functools import partial
from pathlib import Path

from .family import Built, Known, Layout, assigned, site_url, url_key
from .jsconfig import load, read_as_written

CONFIGS = ("rspress.config.ts", "rspress.config.mts", "rspress.config.js",
           "rspress.config.mjs", "rspress.config.cts", "rspress.config.cjs")
_STRING = r'"((?:[^"\\]|\\.)*)"'
_ROUTE = re.compile(rb"\broutePath:" + _STRING.encode())
_SOURCE = re.compile(rb"\b_relativePath:" + _STRING.encode())
_BUNDLE_MARK = b"_relativePath:"
# ``root: path.join(__dirname, 'docs')``, the usual form, besides a plain string
_ROOT = re.compile(r"""\broot\s*:\s*path\.(?:join|resolve)\(\s*__dirname\s*,\s*(["'`])"""
                   r"""(?:\./)?([^"'`\n]*)\1\s*\)""")


def detect(source: Path, generator: str) -> Layout | None:
    config = next((source / name for name in CONFIGS if (source / name).is_file()), None)
    if config is None:
        return None
    text = config.read_text("utf-8", errors="replace")
    given = site_url(_value(text, "siteUrl"))  # pluginSitemap's option: kept in its closure
    asked = load("Rspress", "rspress/config.mjs", config, str(config.resolve()),
                 str(source.resolve()))
    said = ""
    if isinstance(asked, dict):
        content = Path(asked["root"])
        base, origin = asked["base"], asked["siteOrigin"]
        content_from = f"{config.name} root (as Rspress loads it)"
    else:
        named = _ROOT.search(text)
        content = source / (named[2] if named else assigned(config, "root") or "docs")
        base, origin = _value(text, "base") or "/", _value(text, "siteOrigin")
        content_from = f"{config.name} root" if named or assigned(config, "root") \
            else f"{config.name} (no root read there: docs/, Rspress' default)"
        said = read_as_written("Rspress", config, asked, "root, base and siteOrigin")
    imports = Imports(source, content)
    return Layout("Rspress", content, known=partial(site_data, content=content,
                                                    imports=imports, said=said),
                  content_from=content_from,
                  base_url=given or site_url(origin, base),
                  base_from=f"{config.name} " + (
                      f"pluginSitemap's siteUrl {given}" if given else
                      f"siteOrigin {origin} and base {base}"),
                  base_missing="--base-url with the site's URL (or set siteOrigin in "
                  f"{config.name})")


def _value(text: str, key: str) -> str | None:
    """A string literal the config gives ``key`` anywhere (plugins' options sit inside
    calls), as a property or as a constant of that name (``siteUrl: siteOrigin`` with
    ``const siteOrigin = '…'``)."""
    found = re.search(rf"""\b{key}\s*:\s*(["'`])([^"'`\n]*)\1""", text)
    if found is None:
        named = re.search(rf"""\b{key}\s*:\s*([A-Za-z_$][\w$]*)\s*[,}}\n]""", text)
        name = named[1] if named else key
        found = re.search(rf"""\b(?:const|let|var)\s+{re.escape(name)}\s*=\s*(["'`])"""
                          rf"""([^"'`\n]*)\1""", text)
    return found[2] if found else None


def _unescape(raw: bytes) -> str:
    return raw.decode("utf-8", "replace").replace('\\"', '"').replace("\\/", "/") \
        .replace("\\\\", "\\")


def site_data(built: Built, content: Path, imports: Imports | None = None, said: str = ""
              ) -> dict[str, list[Known]]:
    """URL key of each page's built file -> the source its site data names, with the
    Markdown it imports (MDX fragments); ``said``: why the config was read as written,
    a warning."""
    if said:
        built.warnings.append(said)
    found: dict[str, list[Known]] = {}
    for bundle in sorted((built.out / "static" / "js").rglob("*.js")):
        try:
            data = bundle.read_bytes()
        except OSError:
            continue
        if _BUNDLE_MARK not in data:
            continue
        routes = list(_ROUTE.finditer(data))
        for here, after in zip(routes, [*routes[1:], None], strict=True):
            end = after.start() if after is not None else len(data)
            source = _SOURCE.search(data, here.end(), end)
            if source is None or not source[1]:
                continue
            route = _unescape(here[1]).lstrip("/")
            page = route if route == "" or route.endswith("/") else (
                route if route.endswith(".html") else route + ".html")
            key = url_key(page)
            path = str(content / _unescape(source[1]))
            known = Known(path, tuple(imports.of(path)) if imports is not None else ())
            if known not in found.get(key, []):
                found.setdefault(key, []).append(known)
    if imports is not None and imports.unresolved:
        built.notes.append(f"{len(imports.unresolved):,} Markdown imports could not be "
                           f"resolved (e.g. {imports.unresolved[0]}): the pages that import "
                           "them are dated without them")
    if not found:
        built.warnings.append(f"no Rspress site data (routePath, _relativePath) in "
                              f"{built.out / 'static' / 'js'}: its pages have no source, so "
                              "no lastmod (is this the output of Rspress 2's build?)")
    return found


_IMPORT = re.compile(r"""^\s*import\s+[^'"\n;]*?\s*from\s*(["'])([^"'\n]+\.mdx?)\1""",
                     re.MULTILINE)
_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.MULTILINE | re.S)
IMPORT_DEPTH = 8


class Imports:
    """The Markdown files a page imports (``import Part from './part.mdx'``) and what
    those import: parts of the page. A specifier is a path relative to the importing
    file, or an alias of the project's ``tsconfig.json`` ``paths`` (as Rsbuild
    resolves them); anything else is counted in ``unresolved``."""

    def __init__(self, project: Path, content: Path) -> None:
        self.project, self.content = project, content
        self.aliases = _aliases(project)
        self.unresolved: list[str] = []
        self.memo: dict[str, list[str]] = {}

    def of(self, path: str, depth: int = 0) -> list[str]:
        if path in self.memo:
            return self.memo[path]
        self.memo[path] = []  # an import cycle ends here
        try:
            text = Path(path).read_text("utf-8", errors="replace")
        except OSError:
            return []
        found: list[str] = []
        for _, spec in _IMPORT.findall(_FENCED.sub("", text)):  # an example is no import
            part = self._resolve(spec, Path(path).parent)
            if part is None:
                self.unresolved.append(f"{spec} in {path}")
                continue
            if part not in found:
                found.append(part)
                if depth < IMPORT_DEPTH:
                    found += [p for p in self.of(part, depth + 1) if p not in found]
        self.memo[path] = found
        return found

    def _resolve(self, spec: str, folder: Path) -> str | None:
        target: Path | None = folder / spec if spec.startswith(".") else next(
            (Path(self.project, base, spec[len(prefix):]) for prefix, base in self.aliases
             if spec.startswith(prefix)), None)
        return os.path.normpath(target) if target is not None and target.is_file() else None


def _aliases(project: Path) -> list[tuple[str, str]]:
    """tsconfig.json ``paths`` as (specifier prefix, folder under the project): ``"@en/*":
    ["./docs/en/*"]`` is ("@en/", "./docs/en/"); exact aliases (no ``*``) are not for
    Markdown folders and are skipped."""
    try:
        text = (project / "tsconfig.json").read_text("utf-8")
    except OSError:
        return []
    text = re.sub(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/', lambda m: m[1] or "", text,
                  flags=re.S)  # JSON with comments, as TypeScript reads it
    text = re.sub(r",(\s*[}\]])", r"\1", text)
    try:
        options = json.loads(text).get("compilerOptions") or {}
    except (ValueError, AttributeError):
        return []
    found = []
    for key, targets in (options.get("paths") or {}).items():
        if key.endswith("/*") and isinstance(targets, list) and targets and \
                isinstance(targets[0], str) and targets[0].endswith("/*"):
            base = str(options.get("baseUrl") or ".")
            found.append((key[:-1], os.path.join(base, targets[0][:-1])))
    return sorted(found, key=lambda alias: -len(alias[0]))
