"""Every user-facing option, declared once: type, default, help text and the hosts
that take it.

MkDocs' config schema (``mkdocs.config``), the Sphinx ``add_config_value`` calls
(``sitemapkit_<name>``), the ``sitemapkit write`` flags and the docs' options table
are all generated from ``OPTIONS`` (``python -m sitemapkit.options`` prints the
table; a test checks docs/options.md against it). ``publish.settings`` turns the values a
host read into the typed objects the pipeline takes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .protocol import (
    CHANGEFREQS,
    DEFAULT_MAX_BYTES,
    INDEXNOW_ENDPOINT,
    INDEXNOW_MAX_BATCH,
    MAX_BYTES,
    MAX_URLS,
)

# The values two options take; the modules that act on them import them from here.
LASTMOD_KINDS = ("datetime", "date", "none")  # how a page's date is written
BACKENDS = ("auto", "zlib", "isal", "zlib-ng")  # gzip implementations, "auto": the fastest

MKDOCS, SPHINX, CLI, SITE = "mkdocs", "sphinx", "cli", "site"  # SITE: `sitemapkit site`
DOCS = (MKDOCS, SPHINX)
PAGES = (MKDOCS, SPHINX, SITE)  # hosts that list pages and date them from git
ALL = (MKDOCS, SPHINX, CLI, SITE)
NONE = type(None)

# What a page without a git date gets (the git options' "undated" choices).
DEFAULT_CACHE = ".cache/sitemapkit"  # git-date cache beside mkdocs.yml or in --source
IGNORE_REVS_FILE = ".git-blame-ignore-revs"  # git blame's convention: optional when absent
POLICIES = ("omit", "mtime", "build-time")


@dataclass(frozen=True)
class Option:
    """One option. ``types`` are the accepted value types; ``item`` the type of a list's
    items; ``overrides`` a per-host default, as (host, value) pairs."""

    name: str
    default: Any
    help: str
    hosts: tuple[str, ...]
    types: tuple[type, ...]
    choices: tuple[Any, ...] = ()
    item: type | None = None
    overrides: tuple[tuple[str, Any], ...] = ()
    flag: str | None = None  # the CLI flag when not --<name with dashes>
    metavar: str | None = None  # the CLI value's name when not the flag's
    section: str = "pages"

    def default_for(self, host: str) -> Any:
        return dict(self.overrides).get(host, self.default)

    def flag_for(self, host: str = CLI) -> str:
        """The command-line flag: a boolean switches away from its default there."""
        if self.flag:
            return self.flag
        dashed = self.name.replace("_", "-")
        return f"--no-{dashed}" if self.default_for(host) is True else f"--{dashed}"

    @property
    def cli_flag(self) -> str:
        return self.flag_for(CLI)

    @property
    def cli_metavar(self) -> str:
        return self.metavar or self.cli_flag.removeprefix("--").replace("-", "_").upper()


def _o(name: str, default: Any, help: str, hosts: tuple[str, ...], *types: type,
       **more: Any) -> Option:
    if not types:
        types = (type(default),)
    return Option(name, default, help, hosts, types, **more)


OPTIONS: tuple[Option, ...] = (
    # --- which pages, and what each entry says ---
    _o("enabled", True, "turn the plugin off without removing it", (MKDOCS,)),
    _o("exclude", [], "globs on source paths (MkDocs), docnames (Sphinx) or output paths "
       "(site), e.g. drafts/*", PAGES, list, item=str),
    _o("exclude_urls", [], "globs on page URLs", (SPHINX,), list, item=str),
    _o("lastmod", "datetime", "datetime (the commit time with its UTC offset), date, or none",
       PAGES, str, choices=LASTMOD_KINDS),
    _o("changefreq", None, "default for every page (Google and Bing ignore it)", PAGES, str,
       NONE, choices=CHANGEFREQS),
    _o("priority", None, "default for every page, 0.0 to 1.0 (ignored by Google and Bing)",
       PAGES, int, float, str, NONE),
    _o("rules", [], "[{match: glob, changefreq, priority}]; the first match wins", DOCS,
       list, item=dict),
    _o("base_url", None, "the site's URL when html_baseurl is not set", (SPHINX,), str, NONE),
    _o("url_scheme", "{link}", "page URL under the base, from {lang}, {version}, {link}",
       (SPHINX,)),
    _o("language", None, "the {lang} of url_scheme (default: language)", (SPHINX,), str,
       NONE),
    _o("version", None, "the {version} of url_scheme (default: version)", (SPHINX,), str,
       NONE),
    # --- git dates ---
    _o("date_kind", "committer", "committer or author date", PAGES, str,
       choices=("committer", "author"), section="git"),
    _o("ignore_revs", [], "commits that are not modifications (formatting sweeps)", PAGES,
       list, item=str, section="git"),
    _o("ignore_revs_file", IGNORE_REVS_FILE, "file of such commits, from the repo root ('' "
       "for none); a file named here must exist, the conventional one may be absent", PAGES,
       section="git"),
    *(_o(state, "omit", f"pages git cannot date ({state.replace('_', ' ')}): omit, mtime or "
         "build-time", PAGES, str, choices=POLICIES, section="git")
      for state in ("uncommitted", "untracked", "not_in_git", "no_git")),
    _o("date_lists", True, "a page that lists other pages (blog index, archives, categories, "
       "tags, section lists) is as new as the newest page it lists", (MKDOCS, SITE),
       section="git"),
    _o("date_api_pages", True, "a mkdocstrings page is as new as the source files of the "
       "objects it renders", (MKDOCS,), section="git"),
    _o("shallow", "warn", "a shallow clone: warn, or error (fails the build)", PAGES, str,
       choices=("warn", "error"), section="git"),
    _o("cache_dir", None, "git-date cache (default: .cache/sitemapkit beside mkdocs.yml or "
       "in --source, <doctrees>/sitemapkit for Sphinx; '' turns it off)", PAGES, str, NONE,
       section="git"),
    # --- what is written ---
    _o("filename", None, "entry-point file name (default: sitemap.xml, or sitemap.txt for "
       "text sitemaps)", ALL, str, NONE, section="output"),
    _o("max_urls", MAX_URLS, "URLs per sitemap file before a new shard starts", ALL,
       section="output"),
    _o("max_bytes", DEFAULT_MAX_BYTES, f"uncompressed byte cap per file (at most {MAX_BYTES})",
       ALL, section="output"),
    _o("gzip_level", None, "compression level (default: 6 for zlib and zlib-ng, the level "
       "closest in size for isal)", ALL, int, NONE, section="output"),
    _o("gzip_backend", "auto", "gzip implementation: auto is zlib-ng when installed (a "
       "core dependency where it ships wheels), else zlib; isal needs the 'fast' extra",
       (CLI, SITE), str, choices=BACKENDS, section="output"),
    _o("index_filename", None, "index file name when sharded (default: the entry point; "
       "sitemap-index.xml for text sitemaps)", (CLI,), str, NONE, section="output"),
    _o("shard_pattern", None, "shard names with {number} and {digest} (default: "
       "'sitemap-{number:05d}-{digest}.xml.gz')", (CLI,), str, NONE, section="output"),
    _o("gzip_copy", True, "single-file sets also get a FILENAME.gz copy", (CLI,),
       section="output"),
    _o("skip_invalid", False, "skip invalid entries (counted and reported) instead of failing",
       (CLI,), section="output"),
    _o("fsync", True, "fsync every file (without: faster, less durable)", (CLI,), section="output"),
    _o("follow_symlink", False, "allow an output directory that is a symlink", (CLI,),
       section="output"),
    _o("robots_txt", True, "add the Sitemap: line to robots.txt at a host root", ALL,
       overrides=((CLI, False),), section="output"),
    _o("dry_run", False, "write, replace, remove and submit nothing: say what would be "
       "written, removed and submitted", (CLI, SITE), flag="--dry-run", section="output"),
    # --- languages ---
    _o("x_default", True, "the x-default of each cluster: a language, a URL, or true (the "
       "i18n default language, MkDocs) / false", DOCS, bool, str, NONE,
       overrides=((SPHINX, None),), section="languages"),
    _o("languages", {}, "language -> URL prefix, e.g. {'en': 'en/', 'de': 'de/'}", (SPHINX,),
       dict, list, section="languages"),
    # --- after writing ---
    _o("validate", False, "check the output after writing: true (errors fail the build) or "
       "strict (warnings too)", PAGES, bool, str, choices=(False, True, "strict"),
       section="publish"),
    _o("indexnow", {}, "{key | key_file, endpoint, ...}: submit pages whose lastmod changed",
       DOCS, dict, section="publish"),
    _o("notify", [], "GET URL templates with {sitemap} after writing", ALL, list, item=str,
       flag="--ping", metavar="TEMPLATE", section="publish"),
    _o("changes_file", None, "per-URL lastmod record to compare runs with (default with "
       "IndexNow: in the cache, outside the published directory)", (CLI, SITE), str, NONE,
       section="publish"),
    _o("changes_from", None, "the earlier set to compare with (what IndexNow submits, the "
       "change report): a URL, folder or sitemap file; live (the entry point at the base "
       "URL); local (only the record in the cache). Default: the local record, else live",
       ALL, str, NONE, metavar="URL|DIR|FILE", section="publish"),
    _o("changes_report", None, "write what changed against the earlier set into this file: "
       "Markdown (.md), JSON (.json) or text", ALL, str, NONE, metavar="FILE",
       section="publish"),
    _o("human_view", False, "write sitemap.html beside the sitemaps: every URL with its "
       "lastmod and alternates, for people (plain HTML: browsers are removing XSLT)", ALL,
       section="output"),
    _o("drop_unsourced", False, "leave out pages with no source file (taxonomies, archives); "
       "by default they are listed without lastmod", (SITE,)),
    _o("keep_unlisted", False, "list the pages the generator built in this run but left out "
       "of its own sitemap (its config excludes them; by default they stay out, and are "
       "named); older files it does not list are listed either way, as stale", (SITE,)),
    _o("report", None, "JSON Lines file naming every URL the generator's own sitemap listed "
       "that is left out (with its reason) and every page listed that it did not", (SITE,),
       str, NONE, metavar="FILE", section="publish"),
)

INDEXNOW_OPTIONS: tuple[Option, ...] = (  # keys of `indexnow`; flags of `sitemapkit write`
    _o("key", None, "IndexNow key: submit URLs whose lastmod changed", ALL, str, NONE,
       flag="--indexnow-key"),
    _o("key_file", None, "read the IndexNow key from this file", ALL, str, NONE,
       flag="--indexnow-key-file"),
    _o("key_location", None, "URL of the key file (default: /<key>.txt on the site)", ALL,
       str, NONE, flag="--indexnow-key-location"),
    _o("endpoint", INDEXNOW_ENDPOINT, "IndexNow endpoint to submit to", ALL,
       flag="--indexnow-endpoint"),
    _o("batch_size", INDEXNOW_MAX_BATCH, f"URLs per IndexNow request (at most "
       f"{INDEXNOW_MAX_BATCH})", ALL, flag="--indexnow-batch"),
    _o("timeout", 10.0, "seconds to wait for each notification request", ALL,
       flag="--notify-timeout"),
    _o("retries", 3, "retries for 429, 5xx and network errors, with backoff", ALL,
       flag="--notify-retries"),
    _o("dry_run", False, "show what IndexNow would submit; send nothing (the commands' "
       "--dry-run does this and writes nothing too)", DOCS),
    _o("fail_on_error", False, "a failed notification fails the run (default: a warning)",
       ALL, flag="--fail-on-notify-error"),
    _o("write_key_file", True, "write <key>.txt into the site root", DOCS),
    _o("enabled", True, "turn IndexNow off but keep its settings", DOCS),
)


def for_host(host: str, table: tuple[Option, ...] = OPTIONS) -> Iterator[Option]:
    return (option for option in table if host in option.hosts)


def _shown(value: Any) -> str:
    if value is None:
        return "off"
    if isinstance(value, bool):
        return str(value).lower()
    return f"`{value!r}`" if isinstance(value, str) else f"`{value}`"


def _flags(option: Option, host: str) -> str:
    """A switch's two forms (every command takes both), else its one flag."""
    if option.flag is None and isinstance(option.default_for(host), bool) and \
            not [c for c in option.choices if isinstance(c, str)]:
        dashed = option.name.replace("_", "-")
        return f"`--{dashed}` / `--no-{dashed}`"
    return f"`{option.flag_for(host)}`"


def markdown_table() -> str:
    """The docs' options table (MkDocs keys; Sphinx adds the sitemapkit_ prefix)."""
    rows = ["| option | default | MkDocs | Sphinx | `sitemapkit write` | `sitemapkit site` | "
            "meaning |", "|---|---|---|---|---|---|---|"]
    for option in OPTIONS:
        defaults = {host: option.default_for(host) for host in option.hosts}
        default = "; ".join(f"{h}: {_shown(v)}" for h, v in defaults.items()) \
            if len(set(map(repr, defaults.values()))) > 1 else _shown(option.default)
        cells = ["✓" if h in option.hosts else "" for h in DOCS]
        flags = [_flags(option, h) if h in option.hosts else "" for h in (CLI, SITE)]
        rows.append(f"| `{option.name}` | {default} | {' | '.join(cells + flags)} | "
                    f"{option.help.replace('|', '/')} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":  # pragma: no cover - documentation helper
    sys.stdout.write(markdown_table())
