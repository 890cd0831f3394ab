"""Antora 3: the playbook (``antora-playbook.yml``) names the site's URL and its
content sources: git repositories, local or remote (cloned into Antora's cache), and
their branches, tags and start paths. Which page came from which repository,
reference and file, Antora alone knows: it is asked, by running the site's own
Antora (its playbook builder, content aggregator and classifier, as ``antora``
runs them; nothing is converted or written) with ``data/antora/pages.cjs``. Each
page's source, and each file it includes (resolved as Antora resolves them), is then
a file of its worktree (a branch Antora read from the checkout) or a file at the
commit Antora read (a branch or tag it did not check out, a cached clone): that
commit is checked out in a work tree of its own for the git pass, so a page is dated
by its own repository's history at that reference. Antora's sitemaps (an index over
one per component) are the floor; a page of an older version whose canonical names
the latest version's is left out by its canonical."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import InputError
from .family import Built, Known, Layout, read_config, site_url, url_key

PLAYBOOKS = ("antora-playbook.yml", "antora-playbook.yaml", "antora-playbook.json")
SCRIPT = Path(__file__).resolve().parents[2] / "data" / "antora" / "pages.cjs"
ASK_SECONDS = 600  # remote sources come from Antora's cache; a fetch is Antora's own


@dataclass
class Catalog:
    """What Antora said: each page's record, the sources it could not read, and why
    it could not be asked at all ("" when it was)."""

    pages: list[dict[str, Any]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (source url, error)
    problem: str = ""


def detect(source: Path, generator: str) -> Layout | None:
    playbook = find_playbook(source)
    if playbook is None:
        return None
    config = read_config(playbook)
    site = config.get("site") if isinstance(config.get("site"), dict) else {}
    asked: list[Catalog] = []

    def prepare() -> None:
        if not asked:
            asked.append(ask(playbook))

    def known(built: Built) -> dict[str, list[Known]]:
        prepare()
        return page_sources(asked[0], built, playbook)

    return Layout("Antora", source, known=known, prepare=prepare,
                  base_url=site_url(site.get("url")) if isinstance(site, dict) else None,
                  base_from=f"{playbook.name} site.url",
                  base_missing=f"--base-url with the site's URL (or set site.url in "
                  f"{playbook.name})")


def find_playbook(source: Path) -> Path | None:
    """The playbook in ``source``: Antora's default name first, else the one file
    named like a playbook (``*playbook*.yml``) that has content sources."""
    for name in PLAYBOOKS:
        if (source / name).is_file():
            return source / name
    try:
        named = sorted(p for p in source.iterdir() if "playbook" in p.name and
                       p.suffix in (".yml", ".yaml", ".json") and p.is_file())
    except OSError:
        return None
    for path in named:
        try:
            content = read_config(path).get("content")
        except InputError:
            continue
        if isinstance(content, dict) and content.get("sources"):
            return path
    return None


def ask(playbook: Path) -> Catalog:
    """Run the site's Antora over ``playbook`` and read its answer."""
    node = shutil.which("node")
    if node is None:
        return Catalog(problem="no node on PATH to run Antora with")
    roots = [str(playbook.parent.resolve())]
    installed = shutil.which("antora")
    if installed is not None:  # a global install: resolve from beside it
        roots.append(str(Path(os.path.realpath(installed)).parent))
    try:
        done = subprocess.run([node, str(SCRIPT), str(playbook.resolve()), *roots],
                              cwd=playbook.parent, capture_output=True, timeout=ASK_SECONDS,
                              check=False, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Catalog(problem=f"Antora could not be run ({exc})")
    catalog = Catalog()
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if "page" in row:
            catalog.pages.append(row)
        elif "failed" in row:
            catalog.failed.append((str(row["failed"]), str(row.get("error", ""))))
        elif "missing" in row:
            catalog.problem = ("Antora (@antora/site-generator) is not installed where the "
                               f"playbook is ({playbook.parent}) nor globally")
        elif "error" in row:
            catalog.problem = f"Antora failed on {playbook.name}: {row['error']}"
    if done.returncode != 0 and not catalog.problem and not catalog.pages:
        words = done.stderr.decode("utf-8", "replace").strip().splitlines()
        catalog.problem = f"Antora failed ({words[-1] if words else done.returncode})"
    return catalog


def page_sources(catalog: Catalog, built: Built, playbook: Path) -> dict[str, list[Known]]:
    """URL key of each page Antora published -> its source and included files, each a
    file of a worktree or of a work tree at the commit Antora read."""
    if catalog.problem:
        built.warnings.append(f"{catalog.problem}: Antora's pages have no source, so no "
                           "lastmod (install Antora beside the playbook, or pass --map)")
    for url, error in catalog.failed:
        built.warnings.append(f"Antora cannot read the content source {url} ({error}): its "
                           "pages have no source, so no lastmod (run antora once so that its "
                           "cache holds the clone, or point the source at a local clone)")
    found: dict[str, list[Known]] = {}
    unreadable: dict[str, str] = {}
    for row in catalog.pages:
        # the page is listed at its file (X.html) or, where the site serves it without
        # the extension (html_extension_style: drop), at Antora's own URL for it
        key = next((k for k in (url_key(str(row["out"])), _pub_key(row, built))
                    if k in built.keys), None)
        if key is None:  # left out by its own signals (an older version's
            continue  # canonical): no work tree for its commit
        source = _file(row, built, unreadable)
        if source is None:
            continue
        parts = tuple(p for part in row.get("parts") or () if (p := _file(part, built,
                                                                          unreadable)))
        found.setdefault(key, []).append(Known(source, parts))
    for where, why in unreadable.items():
        built.warnings.append(f"the commit Antora read from {where} cannot be checked out "
                           f"({why}): its pages have no source, so no lastmod")
    return found


def _file(row: dict[str, Any], built: Built, unreadable: dict[str, str]) -> str | None:
    """The file on disk that holds ``row``'s source as Antora read it."""
    origin = row.get("origin") or {}
    if row.get("abspath"):  # a worktree file: dated with its uncommitted state
        return str(row["abspath"])
    gitdir, commit = origin.get("gitdir"), origin.get("refhash")
    if not gitdir or not commit:
        return None
    tree = built.checkout(str(gitdir), str(commit))
    if tree is None:
        unreadable.setdefault(f"{origin.get('url') or gitdir} ({origin.get('refname')})",
                              "git's reason is in the warnings")
        return None
    start = str(origin.get("startPath") or "").strip("/")
    return str(tree / start / str(row["path"])) if start else str(tree / str(row["path"]))


def _pub_key(row: dict[str, Any], built: Built) -> str:
    """The ``url_key`` of the URL Antora publishes a page at (``pub.url``, from the
    site's root), under the base URL's path."""
    url = str(row.get("page") or "")
    base = built.base_path.rstrip("/")
    return url_key(url[len(base):] if base and url.startswith(base + "/") else url)
