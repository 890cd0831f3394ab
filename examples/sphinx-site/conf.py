# The bundled Sphinx example: one line enables sitemapkit.
project = "sitemapkit example"
extensions = ["sitemapkit.sphinx"]
html_baseurl = "https://docs.example.com/"
exclude_patterns = ["_build"]
sitemapkit_exclude = ["drafts"]
sitemapkit_validate = True  # check the output (and each listed page) after writing
