"""From the option values a host read (``options.OPTIONS`` names) to the typed objects
the pipeline takes. Every host calls these; none builds them by hand."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, NotifyConfigError
from ..options import DEFAULT_CACHE, INDEXNOW_OPTIONS
from ..protocol import DEFAULT_MAX_BYTES
from ..rules.model import EntryError
from ..sources.pages import PageRules

if TYPE_CHECKING:
    from ..sources.git.dates import GitOptions
from ..write.options import WriterOptions
from .notify import IndexNowOptions, load_key

INDEXNOW_KEYS = frozenset(option.name for option in INDEXNOW_OPTIONS)
_WRITER_FIELDS = frozenset(f.name for f in fields(WriterOptions))


@dataclass(frozen=True)
class PublishSettings:
    """What happens after the sitemaps are written."""

    robots_txt: bool = True
    validate: bool | str = False  # True, or "strict" (warnings fail too)
    indexnow: IndexNowOptions | None = None
    write_key_file: bool = True
    pings: tuple[str, ...] = ()
    fail_on_notify_error: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    # every lastmod is a page's last commit (the docs hosts): a set dated on one day is
    # then what git says, so validation does not take it for a build date (rule 17)
    git_dated: bool = False
    dry_run: bool = False  # write, replace, remove and submit nothing; say what would be
    changes_from: str | None = None  # the earlier set: URL, folder, file, "live", "local"
    changes_report: str | None = None  # write what changed against it into this file
    human_view: bool = False  # sitemap.html beside the sitemaps, for people


def default_record(out: str | os.PathLike[str]) -> str:
    """Where ``write`` and ``site`` keep the lastmod record between runs: a cache beside
    the working directory, never in the output (which gets published); one per output
    directory. A fresh CI checkout has none: the live site is the record then."""
    import hashlib  # only here: its import starts OpenSSL (~7 ms of every CLI start)

    digest = hashlib.sha1(os.path.abspath(out).encode()).hexdigest()[:12]
    return os.path.join(DEFAULT_CACHE, f"lastmods-{digest}.json")


def writer_options(values: Mapping[str, Any], **more: Any) -> WriterOptions:
    """WriterOptions from option values; None means the writer's own default."""
    given = {k: v for k, v in values.items() if k in _WRITER_FIELDS and v is not None}
    given |= more
    if values.get("skip_invalid"):
        given["on_invalid"] = "skip"
    return WriterOptions(**given)


def cache_folder(values: Mapping[str, Any], source: str | os.PathLike[str] | None
                 ) -> str | None:
    """The run's cache folder: ``cache_dir`` (relative to the project), else
    ``.cache/sitemapkit`` in the project (``source``, else the working directory);
    None when ``cache_dir`` is "" (no cache)."""
    setting = values["cache_dir"]
    if setting == "":
        return None
    return str(Path(source or ".") / (DEFAULT_CACHE if setting is None else setting))


def git_options(values: Mapping[str, Any], cache_dir: str | None) -> GitOptions:
    from ..sources.git.dates import GitOptions  # on use: the git modules cost a CLI start

    return GitOptions(
        date_kind=values["date_kind"], ignore_revs=tuple(values["ignore_revs"]),
        ignore_revs_file=values["ignore_revs_file"] or None,
        uncommitted=values["uncommitted"], untracked=values["untracked"],
        not_in_git=values["not_in_git"], no_git=values["no_git"],
        shallow=values["shallow"], cache_dir=cache_dir)


def page_rules(values: Mapping[str, Any], default_exclude: tuple[str, ...] = ()) -> PageRules:
    try:
        return PageRules.build([*default_exclude, *values["exclude"]], values["changefreq"],
                               values["priority"], values.get("rules", ()))
    except (EntryError, ValueError) as exc:
        raise ConfigError(str(exc)) from None


def indexnow(config: Mapping[str, Any] | None) -> tuple[IndexNowOptions | None, bool, bool]:
    """(options, write the key file, failures fail the run) from an ``indexnow`` mapping
    (the plugins' setting, or the CLI's flags under the same names)."""
    if not config or not config.get("enabled", True):
        return None, False, False
    unknown = set(config) - INDEXNOW_KEYS
    if unknown:
        raise NotifyConfigError(f"unknown indexnow settings {sorted(unknown)}; known: "
                                f"{sorted(INDEXNOW_KEYS)}")
    value = {o.name: config.get(o.name, o.default) for o in INDEXNOW_OPTIONS}
    options = IndexNowOptions(
        load_key(value["key"], value["key_file"]), value["key_location"], value["endpoint"],
        int(value["batch_size"]), float(value["timeout"]), int(value["retries"]),
        dry_run=bool(value["dry_run"]))
    return options.checked(), bool(value["write_key_file"]), bool(value["fail_on_error"])


def publish_settings(values: Mapping[str, Any],
                     indexnow_values: Mapping[str, Any] | None) -> PublishSettings:
    options, key_file, fail = indexnow(indexnow_values)
    return PublishSettings(bool(values["robots_txt"]), values.get("validate", False), options,
                           key_file, tuple(values.get("notify") or ()),
                           fail or bool((indexnow_values or {}).get("fail_on_error")),
                           values.get("max_bytes") or DEFAULT_MAX_BYTES,
                           dry_run=bool(values.get("dry_run")),
                           changes_from=values.get("changes_from") or None,
                           changes_report=values.get("changes_report") or None,
                           human_view=bool(values.get("human_view")))
