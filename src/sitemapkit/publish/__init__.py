"""After the write: the pipeline every host calls (``pipeline``), the settings it takes
(``settings``), robots.txt (``robots``), IndexNow and pings (``notify``) and the
multi-version index (``siteindex``)."""
