"""mkdocstrings pages: the source files of the objects a page renders are parts of it.

A page that is a three-line stub (``::: package.module``) shows the module's
docstrings, so it changes when the module does. Which objects a page renders is read
from its Markdown (mkdocstrings' own ``::: identifier`` lines, fenced code skipped,
with the ``options`` indented under each, over the handler's global ones; a line whose
identifier is no dotted Python path, or whose block names another handler, is not the
Python handler's: mkdocs-click's ``::: mkdocs-click`` is left alone); which file
each object lives in, from the griffe objects mkdocstrings' Python handler loaded
while rendering the page (so nothing is loaded twice). A page counts exactly what it
renders: the members a module re-exports (its ``__all__``), or only those its
``members`` option selects, each from its own file; and with ``inherited_members``,
the members a class inherits, from its bases' files. An object the handler does not
know is named in a note, never dropped in silence.
"""

from __future__ import annotations

import importlib
import os
import re
import textwrap
from typing import Any

_AUTODOC = re.compile(r"^(?:#{1,6} *)?::: ?(\S.*?) *$")  # mkdocstrings' block syntax
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# what the Python handler can render: a dotted path of Python names. Other extensions'
# blocks in the same syntax (mkdocs-click's ``::: mkdocs-click``) are theirs: they
# replace them before mkdocstrings reads the page, so they are left alone, unsaid.
_PYTHON_PATH = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


def blocks(markdown: str) -> list[tuple[str, dict[str, Any]]]:
    """(identifier, its block's ``options``) of each ``::: identifier`` line outside
    fenced code, in order: the options are the YAML indented under the line."""
    found: list[tuple[str, dict[str, Any]]] = []
    fence = ""
    lines = markdown.splitlines()
    for number, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        match = _AUTODOC.match(line)
        if match and _PYTHON_PATH.fullmatch(match.group(1)):
            data = _block(lines, number + 1)
            if data.get("handler", "python") != "python":
                continue  # another handler's object: not the Python handler's to find
            options = data.get("options")
            found.append((match.group(1), options if isinstance(options, dict) else {}))
    return found


def _block(lines: list[str], start: int) -> dict[str, Any]:
    """The YAML block indented under a ``:::`` line ({} if none or unreadable:
    mkdocstrings would have failed on it)."""
    block = []
    for line in lines[start:]:
        if line.strip() and not line.startswith((" ", "\t")):
            break
        block.append(line)
    if not any(line.strip() for line in block):
        return {}
    try:
        yaml: Any = importlib.import_module("yaml")  # mkdocs brings PyYAML
        data = yaml.safe_load(textwrap.dedent("\n".join(block)))
    except Exception:  # PyYAML's errors
        return {}
    return data if isinstance(data, dict) else {}


def global_options(config: Any) -> dict[str, Any]:
    """The Python handler's ``options`` in mkdocs.yml, which each block's extend."""
    plugin = config.plugins.get("mkdocstrings")
    settings = getattr(plugin, "config", None)
    try:
        handlers = settings.get("handlers") or {} if settings is not None else {}
        options = (handlers.get("python") or {}).get("options") or {}
    except AttributeError:  # a foreign plugin object
        return {}
    return dict(options) if isinstance(options, dict) else {}


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


def object_files(handler: Any, names: list[str] | list[tuple[str, dict[str, Any]]],
                 defaults: dict[str, Any] | None = None) -> tuple[list[str], list[str]]:
    """(source files of the objects a page renders: each block's object, the members
    it renders from other files and, with ``inherited_members``, what its classes
    inherit; the names the handler's loaded objects do not hold). ``names`` are
    identifiers or (identifier, block options); ``defaults``, the global options."""
    collection = getattr(handler, "_modules_collection", None)
    files: dict[str, None] = {}
    unknown = []
    for item in names:
        name, options = (item, {}) if isinstance(item, str) else item
        settings = {**(defaults or {}), **options}
        try:
            found = collection[name] if collection is not None else None
        except Exception:  # KeyError, or griffe's own lookup errors
            found = None
        if found is None:
            unknown.append(name)
            continue
        target = _target(found)
        shown = [target, *_members(target, settings.get("members"),
                                   bool(settings.get("show_submodules")))]
        inherit = settings.get("inherited_members", False)
        shown += [m for obj in shown for m in _inherited(obj, inherit)]
        for obj in shown:
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


def _members(obj: Any, selected: object, submodules: bool) -> list[Any]:
    """The members rendered with the object: every one (``members`` unset or true),
    of which re-exports only when listed in ``__all__`` and submodules only with
    ``show_submodules``; only those named (a list); none (false or an empty list).
    Re-exports as their final targets."""
    if selected is False or selected == []:
        return []
    names = {str(n) for n in selected} if isinstance(selected, list) else None
    out = []
    for name, member in getattr(obj, "members", {}).items():
        if names is not None and name not in names:
            continue
        try:
            if getattr(member, "is_alias", False):
                if names is not None or member.is_exported:
                    out.append(member.final_target)
            elif submodules or not getattr(member, "is_module", False):
                out.append(member)
        except Exception:  # an unresolvable re-export renders nothing
            continue
    return out


def _inherited(obj: Any, setting: object) -> list[Any]:
    """What a class renders from its bases: every inherited member
    (``inherited_members: true``), those named (a list), or none."""
    if not setting or not getattr(obj, "is_class", False):
        return []
    names = {str(n) for n in setting} if isinstance(setting, list) else None
    try:
        inherited = dict(obj.inherited_members)
    except Exception:  # bases griffe cannot resolve: nothing it could render either
        return []
    out = []
    for name, member in inherited.items():
        if names is None or name in names:
            out.append(_target(member))
    return out


def _file(obj: Any) -> str | None:
    path = getattr(obj, "filepath", None)
    if isinstance(path, list):  # a namespace package: no single file
        return None
    return os.path.abspath(path) if path else None
