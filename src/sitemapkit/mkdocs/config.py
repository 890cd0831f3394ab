"""Typed MkDocs config for the plugin; ``enabled`` first, everything else optional."""

from __future__ import annotations

from mkdocs.config import config_options as c
from mkdocs.config.base import Config

from ..entries import CHANGEFREQS
from ..gitdates import POLICIES


class SitemapConfig(Config):  # type: ignore[no-untyped-call]
    enabled = c.Type(bool, default=True)
    # what goes in
    exclude = c.ListOfItems(c.Type(str), default=[])  # globs on source paths (docs/ relative)
    lastmod = c.Choice(("datetime", "date", "none"), default="datetime")
    changefreq = c.Optional(c.Choice(sorted(CHANGEFREQS)))  # off: Google and Bing ignore it
    priority = c.Optional(c.Type((int, float, str)))
    rules = c.ListOfItems(c.Type(dict), default=[])  # [{match: glob, changefreq, priority}]
    # git dates
    date_kind = c.Choice(("committer", "author"), default="committer")
    ignore_revs = c.ListOfItems(c.Type(str), default=[])
    ignore_revs_file = c.Type(str, default=".git-blame-ignore-revs")
    uncommitted = c.Choice(POLICIES, default="omit")
    untracked = c.Choice(POLICIES, default="omit")
    not_in_git = c.Choice(POLICIES, default="omit")
    no_git = c.Choice(POLICIES, default="omit")
    shallow = c.Choice(("warn", "error"), default="warn")
    cache_dir = c.Type(str, default=".cache/sitemapkit")  # "" turns the cache off
    # what comes out
    filename = c.Type(str, default="sitemap.xml")
    max_urls = c.Type(int, default=50_000)
    max_bytes = c.Type(int, default=10_485_760)
    gzip_level = c.Type(int, default=6)
    robots_txt = c.Type(bool, default=True)
    # languages (mkdocs-static-i18n) and checks
    x_default = c.Type((bool, str), default=True)  # True: the i18n default language
    # telling search engines (off by default; the sitemaps.org ping is gone)
    indexnow = c.Type(dict, default={})  # {key | key_file, endpoint, dry_run, ...}
    notify = c.ListOfItems(c.Type(str), default=[])  # GET templates with {sitemap}


# ``validate: true`` is the documented key, but ``Config.validate`` is MkDocs' own method,
# so the option cannot be a class attribute: add it to the schema by name instead.
SitemapConfig._schema = (*SitemapConfig._schema,
                         ("validate", c.Choice((False, True, "strict"), default=False)))
