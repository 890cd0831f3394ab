"""What the validator reports: findings tied to a protocol rule, and the run's report."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from .._display import count

Severity = Literal["error", "warning"]
Say = Callable[[Severity, str, str], None]  # (severity, finding id, message) for one place

# finding id -> protocol-rules.md rule number (../shared/protocol-rules.md)
RULE_OF: dict[str, int] = {
    "encoding": 1, "bom": 1, "not-well-formed": 2, "double-escaped": 2, "doctype": 3,
    "namespace": 4, "not-a-sitemap": 4, "not-a-file": 4, "unreadable": 4,
    "element-order": 6, "loc-count": 6,
    "unexpected-element": 6, "empty": 7, "extension": 8, "loc-absolute": 9,
    "loc-too-long": 10, "loc-escaping": 11, "loc-too-short": 12, "loc-fragment": 13,
    "page-missing": 14, "page-noindex": 14, "page-redirect": 14, "page-canonical": 14,
    "page-unread": 14,
    "duplicate": 15,
    "lastmod-format": 16, "lastmod-whitespace": 16, "lastmod-build-date": 17,
    "lastmod-future": 18, "changefreq": 19, "priority": 20, "too-many-urls": 22,
    "too-large": 23, "index-format": 25, "too-many-sitemaps": 26, "index-target": 27,
    "nested-index": 27, "unreferenced": 27, "index-scope": 28, "index-lastmod": 29,
    "gzip": 31, "text-line": 32, "text-blank-line": 32, "one-host": 33, "scope": 34,
    "robots": 35, "hreflang-link": 36, "hreflang-self": 36, "hreflang-repeat": 36,
    "hreflang-cluster": 36, "hreflang-unlisted": 36, "hreflang-code": 37,
    "hreflang-region": 37, "hreflang-href": 38, "x-default": 39,
}
MAX_SHOWN_PER_ID = 50  # per file and id; the rest are counted, not printed


@dataclass(frozen=True)
class Finding:
    severity: Severity
    id: str
    file: str
    line: int | None
    message: str

    @property
    def rule(self) -> int:
        return RULE_OF[self.id]

    def text(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.severity} [rule {self.rule} {self.id}] {self.message}"

    def as_json(self) -> str:
        return json.dumps({**asdict(self), "rule": self.rule}, ensure_ascii=False)


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)  # (severity, id)
    files: int = 0
    urls: int = 0
    skipped: list[str] = field(default_factory=list)  # other XML (RSS, Atom) left alone
    notes: list[str] = field(default_factory=list)  # what was not checked, and why
    elapsed: float = 0.0
    results: dict[Path, Any] = field(default_factory=dict)  # path -> state.FileResult
    _shown: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(self, severity: Severity, id_: str, file: str, line: int | None,
            message: str) -> None:
        assert id_ in RULE_OF, id_
        self.counts[severity, id_] += 1
        self._shown[file, id_] += 1
        if self._shown[file, id_] <= MAX_SHOWN_PER_ID:
            self.findings.append(Finding(severity, id_, file, line, message))

    def total(self, severity: Severity) -> int:
        return sum(n for (sev, _), n in self.counts.items() if sev == severity)

    def has(self, id_: str) -> bool:
        return any(i == id_ for _, i in self.counts)

    def ok(self, strict: bool = False) -> bool:
        return not self.total("error") and not (strict and self.total("warning"))

    def hidden(self) -> int:
        return sum(self.counts.values()) - len(self.findings)

    def summary(self, strict: bool = False) -> str:
        errors, warnings = self.total("error"), self.total("warning")
        verdict = "valid" if self.ok(strict) else "INVALID"
        return (f"sitemapkit validate: {verdict}: {count(self.files, 'file')}, "
                f"{count(self.urls, 'URL')}, {count(errors, 'error')}, "
                f"{count(warnings, 'warning')}{' (strict)' if strict else ''}"
                f" ({self.elapsed:.2f} s)")

    def summary_json(self, strict: bool = False) -> str:
        return json.dumps({"summary": self.summary(strict), "valid": self.ok(strict),
                           "files": self.files, "urls": self.urls,
                           "errors": self.total("error"), "warnings": self.total("warning"),
                           "not_shown": self.hidden(), "skipped": self.skipped,
                           "notes": self.notes})
