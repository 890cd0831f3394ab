"""What both docs plugins do after writing, written once: the robots.txt line, the
opt-in validation of the output, and the opt-in IndexNow / ping notification."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._display import count, shown_path
from ._urlset import USE_EXTENSIONS
from .docsite import is_host_root, robots_sitemap_line
from .notify import IndexNowOptions, NotifyConfigError, announce, load_key, write_key_file
from .validate import ValidateOptions, validate
from .writer import WriteResult

INDEXNOW_KEYS = {"enabled", "key", "key_file", "key_location", "endpoint", "batch_size",
                 "timeout", "retries", "dry_run", "write_key_file", "fail_on_error"}


@dataclass(frozen=True)
class PublishSettings:
    robots_txt: bool = True
    validate: bool | str = False  # True, or "strict" (warnings fail too)
    indexnow: IndexNowOptions | None = None
    write_key_file: bool = True
    pings: tuple[str, ...] = ()
    fail_on_notify_error: bool = False
    max_bytes: int = 10_485_760


@dataclass
class Outcome:
    infos: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # the host fails the build on these


def indexnow_settings(config: Mapping[str, Any] | None
                      ) -> tuple[IndexNowOptions | None, bool, bool]:
    """(options, write the key file, failures fail the build) from a plugin's mapping."""
    if not config or not config.get("enabled", True):
        return None, False, False
    unknown = set(config) - INDEXNOW_KEYS
    if unknown:
        raise NotifyConfigError(f"unknown indexnow settings {sorted(unknown)}; known: "
                                f"{sorted(INDEXNOW_KEYS)}")
    defaults = IndexNowOptions("placeholder")
    options = IndexNowOptions(
        load_key(config.get("key"), config.get("key_file")), config.get("key_location"),
        config.get("endpoint", defaults.endpoint),
        int(config.get("batch_size", defaults.batch_size)),
        float(config.get("timeout", defaults.timeout)),
        int(config.get("retries", defaults.retries)), dry_run=bool(config.get("dry_run")))
    return (options.checked(), bool(config.get("write_key_file", True)),
            bool(config.get("fail_on_error", False)))


def after_write(result: WriteResult, out_dir: str | Path, base: str,
                settings: PublishSettings) -> Outcome:
    outcome = Outcome()
    out = Path(out_dir)
    entry_url = result.url(result.entry_point)
    if settings.robots_txt:
        if is_host_root(base):
            robots_sitemap_line(out / "robots.txt",
                                [result.url(n) for n in result.index_files] or [entry_url])
        else:
            outcome.infos.append(f"{base} is a sub-path site; crawlers read robots.txt only at "
                                 f"the host root, so add 'Sitemap: {entry_url}' there")
    if settings.indexnow is not None and settings.write_key_file:
        write_key_file(out, settings.indexnow.key)
    if settings.validate:
        _validate(out, base, settings, outcome)
    notes, failures = announce(result.changes, entry_url, settings.indexnow, settings.pings)
    outcome.infos += notes
    (outcome.errors if settings.fail_on_notify_error else outcome.warnings).extend(failures)
    return outcome


def summary_line(result: WriteResult, dated: int, started: float) -> str:
    """The one info line both plugins print after a build (the build named if pure)."""
    build = "" if USE_EXTENSIONS else "; pure-Python build (the C accelerator is not active)"
    return (f"{count(result.url_count, 'URL')} in {count(result.shard_count, 'shard')}, "
            f"{dated:,} with lastmod -> {shown_path(result.out_dir / result.entry_point)} "
            f"({time.perf_counter() - started:.2f} s){build}")


def _validate(out: Path, base: str, settings: PublishSettings, outcome: Outcome) -> None:
    """The whole output directory: sitemaps, robots.txt, and that each loc is a built page."""
    report = validate([out], ValidateOptions(base_url=base, max_bytes=settings.max_bytes))
    strict = settings.validate == "strict"
    for finding in report.findings:
        failing = finding.severity == "error" or strict
        (outcome.errors if failing else outcome.warnings).append(f"validate: {finding.text()}")
    outcome.infos.append(report.summary(strict).removeprefix("sitemapkit "))
