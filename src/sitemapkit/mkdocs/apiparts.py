"""mkdocstrings pages: the source files of the objects a page renders are parts of it.

A page that is a three-line stub (``::: package.module``) shows the module's
docstrings, so it changes when the module does. Which objects a page renders is read
from its Markdown (mkdocstrings' own ``::: identifier`` lines, fenced code skipped);
which file each object lives in, from the griffe objects mkdocstrings' Python handler
loaded while rendering the page (so nothing is loaded twice). Members a module
re-exports (its ``__all__``) render from their own files: those count too. An object
the handler does not know is named in a note, never dropped in silence.
"""

from __future__ import annotations

import os
import re
from typing import Any

_AUTODOC = re.compile(r"^(?:#{1,6} *)?::: ?(\S.*?) *$")  # mkdocstrings' block syntax
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def identifiers(markdown: str) -> list[str]:
    """The ``::: identifier`` lines of a page, outside fenced code, in order."""
    found: list[str] = []
    fence = ""
    for line in markdown.splitlines():
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        match = _AUTODOC.match(line)
        if match:
            found.append(match.group(1))
    return found


_NO_HANDLER = object()  # mkdocstrings is in the build but gave no Python handler


def python_handler(config: Any) -> Any | None:
    """The mkdocstrings plugin's Python handler, while the build is running; None
    when mkdocstrings is not in the build. A handler it cannot give holds no objects,
    so every object on the page is reported as not found (never a silent skip)."""
    plugin = config.plugins.get("mkdocstrings")
    if plugin is None:
        return None
    try:
        return plugin.get_handler("python")
    except Exception:  # a foreign plugin's own errors
        return _NO_HANDLER


def object_files(handler: Any, names: list[str]) -> tuple[list[str], list[str]]:
    """(source files of the objects ``names`` and the members they re-export, names
    the handler's loaded objects do not hold)."""
    collection = getattr(handler, "_modules_collection", None)
    files: dict[str, None] = {}
    unknown = []
    for name in names:
        try:
            found = collection[name] if collection is not None else None
        except Exception:  # KeyError, or griffe's own lookup errors
            found = None
        if found is None:
            unknown.append(name)
            continue
        target = _target(found)
        for obj in [target, *_exported(target)]:
            path = _file(obj)
            if path:
                files[path] = None
    return list(files), unknown


def _target(obj: Any) -> Any:
    """An alias's final target (where its docstring lives), else the object."""
    try:
        return obj.final_target if getattr(obj, "is_alias", False) else obj
    except Exception:  # an alias griffe cannot resolve: its own file
        return obj


def _exported(obj: Any) -> list[Any]:
    """The members a module lists in ``__all__`` that live elsewhere (rendered here)."""
    out = []
    for member in getattr(obj, "members", {}).values():
        try:
            if getattr(member, "is_alias", False) and member.is_exported:
                out.append(member.final_target)
        except Exception:  # an unresolvable re-export renders nothing
            continue
    return out


def _file(obj: Any) -> str | None:
    path = getattr(obj, "filepath", None)
    if isinstance(path, list):  # a namespace package: no single file
        return None
    return os.path.abspath(path) if path else None
