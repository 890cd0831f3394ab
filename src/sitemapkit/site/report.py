"""What one ``sitemapkit site`` run found, stage by stage. Each stage says its notes
and warnings into its own section as it runs; the summary is rendered from the
sections in their order once the set is written, so a stage never needs to know
where another's lines go. The ``--report`` rows are kept here too."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from ..publish.pipeline import Outcome
from ..sources.built.compare import Difference


class Stage(IntEnum):
    """The stages of a run, in the order the summary says them."""

    OUTPUT = 0  # the output's pages, the base URL and where it came from
    SOURCES = 1  # each page's source: the generator's records, --map, edit links
    DATES = 2  # git's dates: staged copies, front matter, what stays undated and why
    FLOOR = 3  # the generator's own sitemap: what it leaves out, URLs, languages
    WRITTEN = 4  # the set written: what it replaced, validation


@dataclass
class SiteReport:
    """Each stage's notes and warnings, and the ``--report`` rows."""

    notes: dict[Stage, list[str]] = field(default_factory=lambda: {s: [] for s in Stage})
    warnings: dict[Stage, list[str]] = field(default_factory=lambda: {s: [] for s in Stage})
    rows: list[Difference] = field(default_factory=list)

    def note(self, stage: Stage, *lines: str) -> None:
        self.notes[stage].extend(lines)

    def warn(self, stage: Stage, *lines: str) -> None:
        self.warnings[stage].extend(lines)

    def warned(self) -> int:
        return sum(map(len, self.warnings.values()))

    def render(self, outcome: Outcome, strict: bool) -> Outcome:
        """The outcome with the summary line first, then every stage's notes and
        warnings in stage order (what the writer said comes under WRITTEN); with
        ``strict``, each warning is an error too."""
        self.note(Stage.WRITTEN, *outcome.infos[1:])
        self.warn(Stage.WRITTEN, *outcome.warnings)
        outcome.infos[1:] = [line for stage in Stage for line in self.notes[stage]]
        outcome.warnings[:] = [line for stage in Stage for line in self.warnings[stage]]
        if strict and outcome.warnings:  # --validate strict: they fail
            outcome.errors += [f"strict: {w}" for w in outcome.warnings]
        return outcome
