#!/usr/bin/env bash
# The main job on the bundled example: sets up .venv (first run), then writes
# sitemaps for examples/urls.csv into examples/work/urls-site.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/sitemapkit ]; then
    python3 -m venv .venv
    .venv/bin/pip install -q -e '.[mkdocs,sphinx]'
fi
out=examples/work/urls-site
.venv/bin/sitemapkit write examples/urls.csv -o "$out" --base-url https://example.com/ \
    --max-urls 100
echo "sitemap files in $out:"
ls -1 "$out"
