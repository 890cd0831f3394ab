"""The typed errors the pipeline raises. Each host maps them in one place
(``mkdocs.plugin``, ``sphinx``, ``cli``): a ``SitemapkitError`` is a message for the
user, never a traceback."""

from __future__ import annotations


class SitemapkitError(Exception):
    """Base of every error sitemapkit raises on purpose; ``str()`` is the message."""


class ConfigError(SitemapkitError, ValueError):
    """An option is out of range or unsafe."""


class NoUrlsError(SitemapkitError, ValueError):
    """Nothing to write: an empty sitemap is never written (sitemapkit rules 7)."""


class OutputError(SitemapkitError, OSError):
    """The output directory or a file in it could not be written safely."""


class InputError(SitemapkitError, ValueError):
    """An input file itself is malformed (bad header, bad JSON line)."""


class InvalidEntriesError(InputError):
    """Every invalid entry of an input, read to its end (``on_invalid="report"``):
    ``entries`` holds the first of them (each an ``EntryError`` with its input line),
    ``count`` all of them, ``by_rule`` their rules. Nothing was written."""

    def __init__(self, entries: list[object], count: int, by_rule: dict[str, int]) -> None:
        rules = ", ".join(f"{rule}: {n:,}" for rule, n in sorted(by_rule.items()))
        super().__init__(f"{count:,} invalid entr{'y' if count == 1 else 'ies'} ({rules})")
        self.entries, self.count, self.by_rule = entries, count, by_rule


class FetchError(SitemapkitError):
    """A file named by a URL could not be fetched (refused, too large, timed out)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status, when the server answered


class NotifyConfigError(ConfigError):
    """A notification setting is unusable (bad key, ping template without {sitemap})."""


class GitDatesError(SitemapkitError, RuntimeError):
    """Raised for a shallow clone when ``shallow="error"``, or a failing git."""


class PublishError(SitemapkitError):
    """The sitemaps are live, but a step after them failed (robots.txt, the key file)."""


class SiteIndexError(SitemapkitError, ValueError):
    """Version directories cannot be indexed: missing, invalid, or outside the output.
    ``report`` holds the children's validation findings when they are the reason."""

    def __init__(self, message: str, report: object = None) -> None:
        super().__init__(message)
        self.report = report


class UsageError(SitemapkitError, ValueError):
    """Bad arguments to a command: a missing path or an out-of-range option (exit 2)."""


class PartitionError(SitemapkitError, ValueError):
    """A partition failed on an engine's worker; the message is the worker's, naming the
    partition, the entry's offset in it and the rule."""
