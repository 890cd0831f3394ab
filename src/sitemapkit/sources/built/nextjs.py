"""Next.js static exports (``output: 'export'``, into ``out/``): Nextra 4 and Fumadocs.
The config is code, so Next itself loads it (``loadConfig`` at the phase of ``next
build``, with ``data/next/config.mjs``): ``basePath`` and ``trailingSlash`` as the
build used them. Which file made which page, the docs framework knows:
- Nextra: its own page map (the functions its loader runs over the content folder and
  the app folder): each route's MDX or page file; a folder's ``_meta`` file counts
  toward the folder's index page, the list it orders;
- Fumadocs: the project's own ``loader()`` (``lib/source.ts``), run with every MDX
  import left empty: each page's URL and file; a folder's ``meta.json`` counts toward
  the folder's index page.
Beside them, each page file of the app folder that is one route (no dynamic segment),
as the build recorded it (``.next/app-path-routes-manifest.json``), is its page's
source. Without ``trailingSlash`` the export writes ``x.html`` that Next serves and links as
``/x``: listed so. Next has no setting for the site's URL: ``--base-url`` gives it,
``basePath`` included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .family import Built, Known, Layout, url_key
from .jsconfig import load

CONFIGS = ("next.config.js", "next.config.mjs", "next.config.ts", "next.config.cjs",
           "next.config.mts")


def detect(source: Path, generator: str) -> Layout | None:
    config = next((source / name for name in CONFIGS if (source / name).is_file()), None)
    if config is None:
        return None
    asked = load("Next.js", "next/config.mjs", config, str(source.resolve()))
    if isinstance(asked, str):
        return Layout("Next.js", source, known=lambda built: _unasked(built, asked),
                      base_unset="Next.js has no setting for the site's URL",
                      base_missing="--base-url with the site's URL, Next's basePath included "
                      f"(Next.js could not be asked for {config.name}: {asked})")
    settings = asked.get("next") or {}
    base_path = str(settings.get("basePath") or "")
    slash = bool(settings.get("trailingSlash"))
    root = source.resolve()
    family, framework = "Next.js", _no_record
    if isinstance(asked.get("nextra"), dict):
        family, framework = "Nextra", Nextra(root, asked["nextra"], slash).known
    elif isinstance(asked.get("fumadocs"), dict):
        family, framework = "Fumadocs", Fumadocs(asked["fumadocs"], slash).known
    app = [(str(p["route"]), str(root / p["file"])) for p in settings.get("appPages") or ()
           if isinstance(p, dict) and p.get("route") and p.get("file")]

    def known(built: Built) -> dict[str, list[Known]]:
        """The framework's pages, and the app folder's one-route pages Next recorded."""
        found = framework(built)
        for route, file in app:
            key = url_key(exported(route, slash))
            if key in built.keys and key not in found:
                found[key] = [Known(file)]
        return found

    return Layout(family, source, known=known, clean_urls=not slash,
                  clean_from=f"Next's trailingSlash: false ({config.name})",
                  url_path=base_path, url_path_from=f"basePath in {config.name}",
                  base_unset=f"Next.js has no setting for the site's URL ({config.name} "
                  f"names basePath {base_path or '(none)'} only)",
                  base_missing="--base-url with the site's URL" + (
                      f", its basePath {base_path} included" if base_path else ""))


def _unasked(built: Built, why: str) -> dict[str, list[Known]]:
    built.warnings.append(f"Next.js could not be asked for its config ({why}): its pages "
                          "have no source, so no lastmod (install the site's packages with npm "
                          "before sitemapkit site, or pass --map)")
    return {}


def _no_record(built: Built) -> dict[str, list[Known]]:
    """A site of neither framework: only its app folder's own pages are known."""
    return {}


def exported(route: str, slash: bool) -> str:
    """The file ``next build`` exports a route to: ``x.html``, or ``x/index.html`` with
    ``trailingSlash``; the root, ``index.html``."""
    path = route.strip("/")
    return "index.html" if not path else f"{path}/index.html" if slash else f"{path}.html"


class Nextra:
    """Nextra's page map, read against the export."""

    def __init__(self, root: Path, said: dict[str, Any], slash: bool) -> None:
        self.root, self.said, self.slash = root, said, slash

    def known(self, built: Built) -> dict[str, list[Known]]:
        found: dict[str, list[Known]] = {}
        in_links = bool(self.said.get("localeInLinks"))  # the route carries it already
        for page in self.said.get("pages") or ():
            route = str(page.get("route") or "/")
            locale = str(page.get("locale") or "")
            if locale and not in_links:  # Next's i18n routing: /<locale>/<route>
                route = f"/{locale}{route}"
            key = url_key(exported(route, self.slash))
            if key not in built.keys or not page.get("file"):
                continue
            parts = (str(self.root / page["meta"]),) if page.get("meta") else ()
            found.setdefault(key, []).append(Known(str(self.root / page["file"]), parts))
        return found


class Fumadocs:
    """What the project's Fumadocs loaders said, read against the export."""

    def __init__(self, said: dict[str, Any], slash: bool) -> None:
        self.said, self.slash = said, slash

    def known(self, built: Built) -> dict[str, list[Known]]:
        if self.said.get("problem"):
            built.warnings.append(f"Fumadocs could not be asked which file made each page "
                                  f"({self.said['problem']}): its pages have no source, so no "
                                  "lastmod (pass --map)")
            return {}
        found: dict[str, list[Known]] = {}
        for page in self.said.get("pages") or ():
            # the loader's URL is the route: Next puts basePath before it, in links
            # and in the export's folder alike
            key = url_key(exported(str(page.get("url") or "/"), self.slash))
            if key not in built.keys or not page.get("file"):
                continue
            parts = (str(page["meta"]),) if page.get("meta") else ()
            found.setdefault(key, []).append(Known(str(page["file"]), parts))
        return found
