"""Sphinx: a page is dated by everything it is made of (includes, data files and, in a
translated build, its catalog), through the same single git pass."""

from __future__ import annotations

from docs_projects import sphinx_build, sphinx_project
from sitemap_check import read_set

BASE = "https://example.org/docs/"
T0, T1, T2 = "2024-01-01T00:00:00+00:00", "2024-03-03T03:00:00+01:00", "2024-05-05T05:00:00-04:00"


def lastmods(out) -> dict[str, str | None]:
    return {u.loc.removeprefix(BASE): u.lastmod for u in read_set(out, BASE).urls}


def test_included_and_data_files_move_a_pages_date(tmp_path):
    repo = sphinx_project(tmp_path / "p", {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   team\n   code\n   plain\n",
        "team.rst": "Team\n====\n\n.. csv-table::\n   :file: data/team.csv\n\n"
                    ".. include:: snippets/note.rst\n",
        "code.rst": "Code\n====\n\n.. literalinclude:: examples/code.py\n",
        "plain.rst": "Plain\n=====\n",
        "data/team.csv": "name,role\nAda,lead\n",
        "snippets/note.rst": "A note.\n",
        "examples/code.py": "print('hi')\n",
    }, extra='exclude_patterns = ["_build", "snippets"]', when=T0)
    repo.commit(T1, {"data/team.csv": "name,role\nAda,lead\nBob,dev\n"})
    repo.commit(T2, {"examples/code.py": "print('hello')\n"})
    sphinx_build(repo.root, "html", "-W")
    got = lastmods(repo.root / "_build/html")
    assert got == {"index.html": T0, "team.html": T1, "code.html": T2, "plain.html": T0}
    html = repo.root / "_build/html"
    assert not [p for p in html.iterdir() if p.name.startswith(".sitemapkit")]
    repo.commit("2024-06-06T06:00:00+00:00", {"snippets/note.rst": "A newer note.\n"})
    sphinx_build(repo.root, "html", "-W")  # incremental: dependencies kept in the env
    assert lastmods(repo.root / "_build/html")["team.html"] == "2024-06-06T06:00:00+00:00"


def _translated(tmp_path, compact: str):
    po = ('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
          'msgid "{src}"\nmsgstr "{dst}"\n')
    repo = sphinx_project(tmp_path / "ja", {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   guide/install\n   guide/usage\n",
        "guide/install.rst": "Install\n=======\n",
        "guide/usage.rst": "Usage\n=====\n",
        "locale/ja/LC_MESSAGES/guide/install.po": po.format(src="Install", dst="導入"),
        "locale/ja/LC_MESSAGES/guide.po": po.format(src="Usage", dst="使い方"),
    }, extra=f'language = "ja"\nlocale_dirs = ["locale/"]\ngettext_compact = {compact}\n'
             'exclude_patterns = ["_build", "locale"]', when=T0)
    repo.write(".gitignore", "_build/\n*.mo\n")
    repo.commit(T1, {"locale/ja/LC_MESSAGES/guide/install.po":
                     po.format(src="Install", dst="インストール")})
    repo.commit(T2, {"locale/ja/LC_MESSAGES/guide.po": po.format(src="Usage", dst="使用法")})
    for _ in range(2):  # the second, incremental, build reads the .mo Sphinx recorded
        done = sphinx_build(repo.root, "html", "-W")
        # the compiled .mo is the .po beside it: never a "not in git" note
        said = [line for line in (done.stdout + done.stderr).splitlines()
                if "sitemapkit" in line]
        assert not [line for line in said if ".mo" in line], said
    return lastmods(repo.root / "_build/html")


def test_a_per_document_catalog_dates_its_translated_page(tmp_path):
    got = _translated(tmp_path, "False")
    assert got == {"index.html": T0, "guide/install.html": T1, "guide/usage.html": T0}


def test_a_compact_catalog_counts_for_every_document_it_serves(tmp_path):
    got = _translated(tmp_path, "True")  # guide.po serves guide/install and guide/usage
    assert got == {"index.html": T0, "guide/install.html": T2, "guide/usage.html": T2}
