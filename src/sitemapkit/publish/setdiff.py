"""What changed between two published sets: URLs added, removed and re-dated, and
alternates changed, rendered as text (a terminal), Markdown (a CI job summary or a pull
request comment) or JSON (scripts)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .._display import count
from .readback import Record

FORMATS = ("text", "markdown", "json")
SHOWN = 1000  # URLs a Markdown list names before it counts the rest (comments have a cap)


@dataclass
class SetDiff:
    """The differences of ``new`` against ``old``, each list in ``new``'s order (removed:
    in ``old``'s)."""

    old: str
    new: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    redated: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    alternates: list[str] = field(default_factory=list)
    urls_old: int = 0
    urls_new: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed or self.redated or self.alternates)

    def summary(self) -> str:
        return (f"{count(len(self.added), 'URL')} added, {len(self.removed):,} removed, "
                f"{len(self.redated):,} re-dated, {len(self.alternates):,} with changed "
                f"alternates ({self.urls_old:,} -> {self.urls_new:,} URLs)")


def compare(old: Record, new: Record) -> SetDiff:
    found = SetDiff(old.where, new.where, urls_old=len(old.urls), urls_new=len(new.urls))
    for loc, listed in new.urls.items():
        before = old.urls.get(loc)
        if before is None:
            found.added.append(loc)
            continue
        if before.lastmod != listed.lastmod:
            found.redated.append((loc, before.lastmod, listed.lastmod))
        if old.alternates_known and before.alternates != listed.alternates:
            found.alternates.append(loc)
    found.removed = [loc for loc in old.urls if loc not in new.urls]
    return found


def report_format(path: Path) -> str:
    """A report file's format from its name: .md Markdown, .json JSON, else text."""
    return {".md": "markdown", ".markdown": "markdown", ".json": "json"}.get(
        path.suffix.lower(), "text")


def render(diff: SetDiff, form: str) -> str:
    if form == "json":
        return json.dumps({"old": diff.old, "new": diff.new, "added": diff.added,
                           "removed": diff.removed, "redated": [d[0] for d in diff.redated],
                           "lastmods": {loc: [a, b] for loc, a, b in diff.redated},
                           "alternates_changed": diff.alternates,
                           "urls": {"old": diff.urls_old, "new": diff.urls_new}},
                          indent=1) + "\n"
    if form == "markdown":
        return _markdown(diff)
    lines = [f"+ {loc}" for loc in diff.added] + [f"- {loc}" for loc in diff.removed]
    lines += [f"~ {loc} {a or '(no lastmod)'} -> {b or '(no lastmod)'}"
              for loc, a, b in diff.redated]
    lines += [f"@ {loc} alternates changed" for loc in diff.alternates]
    return "\n".join([*lines, f"{diff.old} -> {diff.new}: {diff.summary()}"]) + "\n"


def _markdown(diff: SetDiff) -> str:
    out = ["### Sitemap changes", "", f"`{diff.old}` → `{diff.new}`", "",
           "| added | removed | re-dated | alternates changed | URLs |",
           "|---:|---:|---:|---:|---:|",
           f"| {len(diff.added):,} | {len(diff.removed):,} | {len(diff.redated):,} | "
           f"{len(diff.alternates):,} | {diff.urls_old:,} → {diff.urls_new:,} |", ""]
    sections = [("Added", [f"- {loc}" for loc in diff.added]),
                ("Removed", [f"- {loc}" for loc in diff.removed]),
                ("Re-dated", [f"- {loc}: {a or 'no lastmod'} → {b or 'no lastmod'}"
                              for loc, a, b in diff.redated]),
                ("Alternates changed", [f"- {loc}" for loc in diff.alternates])]
    for title, items in sections:
        if not items:
            continue
        more = [f"- … and {len(items) - SHOWN:,} more"] if len(items) > SHOWN else []
        out += [f"<details><summary>{title} ({len(items):,})</summary>", "",
                *items[:SHOWN], *more, "", "</details>", ""]
    if not diff.changed:
        out.append("No URL was added, removed or re-dated.")
    return "\n".join(out).rstrip() + "\n"
