"""WriterOptions: everything ``write_sitemaps()`` can be told, with its checks.

Defaults and limits come from ``protocol``; hosts and the CLI fill these fields from
the declarative option table in ``sitemapkit.options``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from .._compat import usable_cores
from ..errors import ConfigError
from ..protocol import (
    DEFAULT_FILENAME,
    DEFAULT_MAX_BYTES,
    DEFAULT_SHARD_PATTERN,
    EXTRA_INDEX_PATTERN,
    MAX_BYTES,
    MAX_URLS,
    MIN_MAX_BYTES,
    TEXT_INDEX_FILENAME,
)
from ..rules.urls import normalize_base_url
from .compress import DEFAULT_LEVEL, check_level, resolve_backend
from .output import check_file_name


@dataclass(frozen=True)
class WriterOptions:
    """Everything write_sitemaps() can be told; plugins and the CLI build one of these."""

    max_urls: int = MAX_URLS
    max_bytes: int = DEFAULT_MAX_BYTES
    format: Literal["xml", "text"] = "xml"
    filename: str | None = None  # sitemap.xml / sitemap.txt
    index_filename: str | None = None  # xml: same as filename; text: sitemap-index.xml
    shard_pattern: str | None = None  # sitemap-{number:05d}-{digest}.xml.gz
    extra_index_pattern: str = EXTRA_INDEX_PATTERN
    gzip_copy: bool = True  # single-file sets also get filename + ".gz"
    gzip_level: int | None = None  # None: the backend's level closest to zlib 6's size
    gzip_backend: str = "auto"  # zlib-ng when installed, else zlib (compress.resolve_backend)
    # error: stop at the first invalid entry; skip: count and leave it out; report: read
    # the whole input, then fail naming every invalid entry (InvalidEntriesError)
    on_invalid: Literal["error", "skip", "report"] = "error"
    workers: int | None = None
    fsync: bool = True
    now: datetime | None = None  # reference time for the future-lastmod check
    lock_timeout: float = 600.0
    follow_symlink: bool = False  # allow an output directory that is a symlink
    changes_file: str | None = None  # per-URL lastmod record: enables WriteResult.changes

    @property
    def backend(self) -> str:
        """The gzip backend this process uses: ``auto`` is resolved here, where the
        shards are compressed (an engine worker without zlib-ng takes zlib, and a worker
        is never sent a backend its driver had)."""
        return resolve_backend(self.gzip_backend)

    @property
    def level(self) -> int:
        """The gzip level: as given, else the backend's closest to zlib 6 in size."""
        return self.gzip_level if self.gzip_level is not None else \
            DEFAULT_LEVEL.get(self.backend, 6)

    @property
    def entry_names(self) -> frozenset[str]:
        """The names a set's entry point goes by (the index's, the single file's): what a
        journal of this set names."""
        return frozenset({str(self.filename), str(self.index_filename or self.filename)})

    def resolved(self) -> WriterOptions:
        """Fill defaults that depend on the format and check every value."""
        if self.format not in DEFAULT_FILENAME:
            raise ConfigError(f"format must be 'xml' or 'text', not {self.format!r}")
        text = self.format == "text"
        ext = "txt" if text else "xml"
        opts = replace(
            self,
            filename=self.filename or DEFAULT_FILENAME[self.format],
            shard_pattern=self.shard_pattern or DEFAULT_SHARD_PATTERN % ext,
            # gzip threads: one a usable core, at most two (they keep both cores of a
            # small machine busy beside the main thread, which has the parsing; more
            # measured no faster), one where the process may use one core
            workers=self.workers or min(2, usable_cores()),
        )
        opts = replace(opts, index_filename=opts.index_filename
                       or (TEXT_INDEX_FILENAME if text else opts.filename))
        opts._check()
        return opts

    def _check(self) -> None:
        def bad(msg: str) -> ConfigError:
            return ConfigError(msg)

        if self.format not in ("xml", "text"):
            raise bad(f"format must be 'xml' or 'text', not {self.format!r}")
        if not isinstance(self.max_urls, int) or not 1 <= self.max_urls <= MAX_URLS:
            raise bad(f"max_urls must be 1..{MAX_URLS}, not {self.max_urls!r}")
        if not isinstance(self.max_bytes, int) or not MIN_MAX_BYTES <= self.max_bytes <= MAX_BYTES:
            raise bad(f"max_bytes must be {MIN_MAX_BYTES}..{MAX_BYTES:,} (the protocol maximum), "
                      f"not {self.max_bytes!r}")
        if self.on_invalid not in ("error", "skip", "report"):
            raise bad(f"on_invalid must be 'error', 'skip' or 'report', not "
                      f"{self.on_invalid!r}")
        if self.workers is not None and (not isinstance(self.workers, int) or self.workers < 1):
            raise bad(f"workers must be a positive integer, not {self.workers!r}")
        try:
            check_level(self.backend, self.level)
            for what, name in (("filename", self.filename),
                               ("index_filename", self.index_filename)):
                check_file_name(str(name), what)
            for what, pattern in (("shard_pattern", self.shard_pattern),
                                  ("extra_index_pattern", self.extra_index_pattern)):
                sample = str(pattern).format(number=1, digest="0123abcd")
                check_file_name(sample, what)
                if sample == str(pattern).format(number=2, digest="0123abcd"):
                    raise ValueError(f"{what} {pattern!r} must contain {{number}}")
        except KeyError as exc:
            raise bad(f"a file name pattern uses an unknown field {{{exc.args[0]}}}; the "
                      "fields are {number} and {digest}, e.g. "
                      f"{DEFAULT_SHARD_PATTERN % 'xml'!r}") from None
        except (ValueError, IndexError) as exc:
            raise bad(str(exc)) from None
        if not str(self.shard_pattern).endswith(".gz"):
            raise bad(f"shard_pattern {self.shard_pattern!r} must end in .gz (shards are gzipped)")


def resolve(options: WriterOptions | None, overrides: dict[str, Any],
            base_url: str) -> tuple[WriterOptions, str]:
    """Checked options (``options=`` plus keyword overrides) and the normalized base URL."""
    try:
        opts = replace(options or WriterOptions(), **overrides).resolved()
    except TypeError as exc:
        raise ConfigError(str(exc)) from None
    try:
        return opts, normalize_base_url(base_url)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
