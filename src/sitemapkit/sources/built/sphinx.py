"""Sphinx: ``X.html`` (html) or ``X/`` (dirhtml) comes from ``X.rst``, ``.md``, ...
When the build environment is there (``.doctrees/environment.pickle``, which every
``sphinx-build`` writes), each page's source and the files it includes come from it,
exactly as the extension reads them during the build."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

from .family import Known, Layout, assigned, join, site_url, stem

SUFFIXES = (".rst", ".md", ".txt", ".ipynb")
GENERATED = ("genindex.html", "search.html", "py-modindex.html", "genindex/index.html",
             "search/index.html", "py-modindex/index.html")


def detect(source: Path, generator: str) -> Layout | None:
    if not (source / "conf.py").is_file():
        return None
    return Layout("Sphinx", source, candidates, generated=GENERATED,
                  known=lambda built: environment_pages(built.out, source, built.notes),
                  base_url=site_url(assigned(source / "conf.py", "html_baseurl")),
                  base_from="conf.py html_baseurl")


def candidates(path: str) -> list[str]:
    name, directory = stem(path)
    names = [name] if not directory else [join(name, "index")] if not name else \
        [name, join(name, "index")]
    return [n + suffix for n in names for suffix in SUFFIXES]


def find_environment(out: Path, source: Path) -> Path | None:
    """Where sphinx-build leaves its environment: ``<out>/.doctrees`` (plain
    ``sphinx-build``) or ``<out>/../doctrees`` (``make html``, ``-M``)."""
    for folder in (out / ".doctrees", out.parent / "doctrees", out.parent / ".doctrees",
                   source / "_build" / "doctrees"):
        if (folder / "environment.pickle").is_file():
            return folder / "environment.pickle"
    return None


def environment_pages(out: Path, source: Path, notes: list[str]) -> dict[str, list[Known]]:
    """URL key -> the document's source and its recorded dependencies (includes,
    literalinclude, images), for both builders' URL shapes. Unpickling needs Sphinx,
    which built the site; without it, or for an unreadable file, the layout rules do."""
    pickled = find_environment(out, source)
    if pickled is None:
        notes.append(f"no Sphinx environment (.doctrees/environment.pickle) in {out} or beside "
                     "it: pages map by file name, and their includes do not count")
        return {}
    try:
        with open(pickled, "rb") as fh:
            env: Any = pickle.load(fh)  # the user's own build, as Sphinx reads it
        docs = sorted(env.found_docs)
        srcdir = str(getattr(env, "srcdir", "") or source)
        if not os.path.isdir(srcdir):
            srcdir = str(source)
        known_paths = getattr(env.project, "_docname_to_path", None) or {}
        paths = {d: os.path.join(srcdir, known_paths.get(d) or env.doc2path(d, False))
                 for d in docs}
        deps = {d: tuple(os.path.join(srcdir, os.fspath(p)) for p in env.dependencies.get(d, ()))
                for d in docs}
    except Exception as exc:  # another Sphinx's pickle: the layout decides, and says so
        notes.append(f"cannot read the Sphinx environment {pickled} ({type(exc).__name__}: "
                     f"{exc}): pages map by file name, and their includes do not count")
        return {}
    dirhtml = not any((out / (d + ".html")).is_file() for d in docs[:50]
                      if not d.endswith("index"))
    found: dict[str, list[Known]] = {}
    for doc in docs:
        key = (doc[: -len("index")].rstrip("/") if doc == "index" or doc.endswith("/index")
               else doc) if dirhtml else doc + ".html"
        if not dirhtml and (doc == "index" or doc.endswith("/index")):
            key = doc[: -len("index")].rstrip("/")
        found.setdefault(key, []).append(Known(paths[doc], deps[doc]))
    return found
