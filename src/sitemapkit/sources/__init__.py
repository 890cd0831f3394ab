"""Where page facts come from, one folder per job: ``git`` (history: the batched pass
that dates sources), ``inputs`` (URL files and engine partitions for ``sitemapkit
write``), ``built`` (built sites: the scan, the floor and one module per generator
family), and ``pages`` (the host-neutral page row and its rules). A built page's head is
read by ``sitemapkit.heads``, below the hot unit, whose many-page scan reads the same
signals."""
