"""Astro and Starlight: ``X/index.html`` (or ``X.html`` with ``build.format: 'file'``)
comes from the docs collection (``src/content/docs/X.md``, ``.mdx``, ``.mdoc``, or
``X/index.*``) or from ``src/pages/X.astro`` (``.md``, ``.mdx``, ``X/index.*``).
Starlight renders a page a locale has not translated from the default locale's
source (``/de/components/`` from ``components.mdx``, its edit link says so): such a
fallback page is that source's page, and is dated by it. ``site`` and ``base`` are
asked of Astro itself (its config loader, run with Node from the project, in this
run's environment); read from the file as written only where it cannot be asked,
with a warning."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

from .family import LANGUAGE, Built, Known, Layout, assigned, join, site_url, stem
from .jsconfig import load, read_as_written

CONFIGS = ("astro.config.mjs", "astro.config.ts", "astro.config.mts", "astro.config.js",
           "astro.config.cjs")
DOCS = "src/content/docs"
SUFFIXES = {DOCS: (".md", ".mdx", ".mdoc"), "src/pages": (".astro", ".md", ".mdx", ".html")}


def detect(source: Path, generator: str) -> Layout | None:
    config = next((source / name for name in CONFIGS if (source / name).is_file()), None)
    if config is None:
        return None
    asked = load("Astro", "astro/config.mjs", config, str(source.resolve()))
    if isinstance(asked, dict):
        site, base = asked["site"], asked["base"]
        return Layout("Astro", source, candidates, generated=("404.html",),
                      known=partial(fallbacks, source),
                      base_url=site_url(site, base),
                      base_from=f"{config.name} site {site} and base {base}, as Astro "
                                "resolves them",
                      base_unset=f"{config.name} gives no site once Astro loads it (an "
                                 "environment variable not set?)")
    said = read_as_written("Astro", config, asked, "site and base")
    return Layout("Astro", source, candidates, generated=("404.html",),
                  known=partial(fallbacks, source, said=said),
                  base_url=site_url(assigned(config, "site"), assigned(config, "base")),
                  base_from=f"{config.name} site and base")


def candidates(path: str) -> list[str]:
    name, directory = stem(path)
    found = []
    for root, suffixes in SUFFIXES.items():
        names = ([join(root, name)] if name else []) + [join(root, name, "index")] \
            if directory else [join(root, name)]
        found += [n + suffix for n in names for suffix in suffixes]
    return found


def fallbacks(source: Path, built: Built, said: str = "") -> dict[str, list[Known]]:
    """Pages of a locale folder the docs collection has no source for, whose page in
    the default locale has one: Starlight's fallbacks, by URL key. ``said``: why the
    config was read as written, a warning."""
    if said:
        built.warnings.append(said)
    docs = source / DOCS
    if not docs.is_dir():
        return {}
    locales = {p.name for p in docs.iterdir() if p.is_dir() and LANGUAGE.fullmatch(p.name)}
    found: dict[str, list[Known]] = {}
    for key in built.keys:
        locale, _, rest = key.partition("/")
        if locale not in locales or _source(docs, key) is not None:
            continue
        fallback = _source(docs, rest)
        if fallback is not None:
            found[key] = [Known(fallback)]
    return found


def _source(docs: Path, key: str) -> str | None:
    """The docs collection's one source of the page at URL key ``key``."""
    names = [key + s for s in SUFFIXES[DOCS]] + [join(key, "index") + s for s in SUFFIXES[DOCS]]
    existing = [n for n in names if (docs / n).is_file()]
    return os.path.join(str(docs), existing[0]) if len(existing) == 1 else None
