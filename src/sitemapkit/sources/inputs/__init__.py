"""Input files and streams for ``sitemapkit write`` and the engines: text, CSV/TSV and
JSON Lines readers, byte-block line reading, part-file folders, partitions and Arrow columns."""
