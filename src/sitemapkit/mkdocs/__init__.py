"""MkDocs plugin: ``plugins: [sitemapkit]``."""
