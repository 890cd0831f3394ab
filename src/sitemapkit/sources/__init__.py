"""Where page facts come from: ``gitdates`` (+ ``history``, the batched git walk),
``inputs`` (URL files for ``sitemapkit write``), ``htmlmeta`` (a built page's head)
and ``pages`` (host-neutral page rules)."""
