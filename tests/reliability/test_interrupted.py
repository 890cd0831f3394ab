"""Interrupted docs builds keep the previous sitemap: an exception in another plugin or
extension, or Ctrl-C (KeyboardInterrupt) during the build."""

from __future__ import annotations

import pytest
from docs_projects import mkdocs_build, mkdocs_project, sphinx_build, sphinx_project

from conftest import snapshot

HOOK = """
import os
def on_page_markdown(markdown, **kwargs):
    if os.environ.get("FAIL_AT") == "page-ctrl-c":
        raise KeyboardInterrupt
    return markdown
def on_post_build(config, **kwargs):
    if os.environ.get("FAIL_AT") == "post-build":
        raise RuntimeError("a later plugin failed")
"""


def sitemap_files(out):
    return {k: v for k, v in snapshot(out).items() if k.startswith(("sitemap", "robots"))}


@pytest.mark.parametrize("fail_at", ["post-build", "page-ctrl-c"])
def test_mkdocs(tmp_path, monkeypatch, fail_at):
    repo = mkdocs_project(tmp_path / "m", {"index.md": "# Home\n", "a.md": "# A\n"},
                          {"hooks": ["hook.py"]})
    repo.write("hook.py", HOOK)
    repo.commit("2024-01-01T00:00:00Z")
    mkdocs_build(repo.root)
    before = sitemap_files(repo.root / "site")
    assert "sitemap.xml" in before
    repo.write("docs/b.md", "# B\n")
    repo.commit("2024-02-02T00:00:00Z")
    monkeypatch.setenv("FAIL_AT", fail_at)
    # --dirty: a clean `mkdocs build` empties site/ itself before anything runs.
    done = mkdocs_build(repo.root, "--dirty", check=False)
    assert done.returncode != 0
    assert sitemap_files(repo.root / "site") == before


@pytest.mark.parametrize("fail_at", ["exception", "ctrl-c"])
def test_sphinx(tmp_path, fail_at):
    extra = ("import os\n"
             "def _stop(app, docname, source):\n"
             "    if os.environ.get('STOP') == 'ctrl-c' and docname == 'b':\n"
             "        raise KeyboardInterrupt\n"
             "def _later(app, exc):\n"
             "    if os.environ.get('STOP') == 'exception':\n"
             "        raise RuntimeError('a later extension failed')\n")
    repo = sphinx_project(tmp_path / "s", {"index.rst": "Home\n====\n"}, extra=extra + (
        "def setup_more(app):\n"
        "    app.connect('source-read', _stop)\n"
        "    app.connect('build-finished', _later, priority=400)\n"
        "import sphinx.application\n"))
    (repo.root / "conf.py").write_text((repo.root / "conf.py").read_text().replace(
        '    app.connect("doctree-resolved", _boom)',
        '    app.connect("doctree-resolved", _boom)\n    setup_more(app)'))
    repo.commit("2024-01-01T00:00:00Z")
    sphinx_build(repo.root, "html")
    before = sitemap_files(repo.root / "_build/html")
    assert "sitemap.xml" in before
    repo.write("b.rst", ":orphan:\n\nB\n=\n")
    repo.commit("2024-02-02T00:00:00Z")
    done = sphinx_build(repo.root, "html", check=False, env={"STOP": fail_at})
    assert done.returncode != 0
    assert sitemap_files(repo.root / "_build/html") == before
