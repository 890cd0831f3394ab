"""Fixture docs projects with a git history, built by the real tools."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from gitrepo import Repo

NOINDEX_THEME = """{% extends "base.html" %}
{% block extrahead %}
{% if page and page.meta.robots %}<meta name="robots" content="{{ page.meta.robots }}">{% endif %}
{% if page and page.meta.redirect %}
<meta http-equiv="refresh" content="0; url={{ page.meta.redirect }}">{% endif %}
{% if page and page.meta.canonical %}
<link rel="canonical" href="{{ page.meta.canonical }}">{% endif %}
{% endblock %}
"""


def mkdocs_project(root: Path, pages: dict[str, str], config: dict | None = None,
                   when: str = "2024-05-05T10:00:00+02:00") -> Repo:
    repo = Repo(root)
    settings = {"site_name": "Test", "site_url": "https://example.com/",
                "plugins": ["sitemapkit"], **(config or {})}
    repo.write("mkdocs.yml", yaml.safe_dump(settings, allow_unicode=True))
    repo.write(".gitignore", "site/\n.cache/\n")
    for path, text in pages.items():
        repo.write(f"docs/{path}", text)
    repo.commit(when)
    return repo


def mkdocs_build(root: Path, *args: str, check: bool = True,
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", *args], cwd=root,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})})
    if check and done.returncode != 0:
        raise AssertionError(f"mkdocs build failed:\n{done.stderr}")
    return done


SPHINX_CONF = """
extensions = ["sitemapkit.sphinx"]
project = "Test"
html_baseurl = {base!r}
exclude_patterns = ["_build"]
{extra}

import os
def _boom(app, doctree, docname):
    if os.environ.get("SITEMAPKIT_TEST_FAIL"):
        raise RuntimeError("simulated failure in a later extension")
def setup(app):
    app.connect("doctree-resolved", _boom)
"""


def sphinx_project(root: Path, pages: dict[str, str], base: str = "https://example.org/docs/",
                   extra: str = "", when: str = "2024-05-05T10:00:00+02:00") -> Repo:
    repo = Repo(root)
    repo.write("conf.py", SPHINX_CONF.format(base=base, extra=extra))
    repo.write(".gitignore", "_build/\n")
    for path, text in pages.items():
        repo.write(path, text)
    repo.commit(when)
    return repo


def sphinx_build(root: Path, out: str, *args: str, builder: str = "html", check: bool = True,
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "sphinx", "-b", builder, *args, ".",
                           f"_build/{out}"], cwd=root, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONWARNINGS": "ignore",
                                            **(env or {})})
    if check and done.returncode != 0:
        raise AssertionError(f"sphinx-build failed:\n{done.stdout}\n{done.stderr}")
    return done


def need(tool: str) -> str:
    """A generator's executable (on PATH or beside this Python); skipped when missing,
    unless SITEMAPKIT_REQUIRE_GENERATORS=1 (CI sets it): then a missing one fails."""
    here = Path(sys.executable).parent / tool
    found = shutil.which(tool) or (str(here) if here.exists() else None)
    if found is None:
        if os.environ.get("SITEMAPKIT_REQUIRE_GENERATORS") == "1":
            pytest.fail(f"{tool} is required here (SITEMAPKIT_REQUIRE_GENERATORS=1)")
        pytest.skip(f"{tool} is not installed")
    return found


def npm_modules(where: Path, *packages: str) -> Path:
    """``node_modules`` with ``packages`` from the npm registry, installed in ``where``."""
    npm = need("npm")
    (where / "package.json").write_text('{"name": "t", "private": true, "type": "module"}\n')
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error",
                           *packages], cwd=where, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"npm install failed:\n{done.stdout}\n{done.stderr}"
    return where / "node_modules"
