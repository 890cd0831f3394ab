"""Work started ahead in a forked process (``sources/ahead.py``) and the git pass of
``sitemapkit site`` that uses it (``publish/gitpass.py``): the result taken from the
child is the result the pass gives here, warnings included; a child that fails, a
fork that is not safe and a different set of paths all end in the pass running here."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from gitrepo import Repo

from sitemapkit.publish import gitpass
from sitemapkit.site import defaults
from sitemapkit.sources.built.mapping import Sources
from sitemapkit.sources.built.scan import BuiltPage
from sitemapkit.sources.git.ahead import Ahead
from sitemapkit.sources.pages import PageRow


def in_fresh_process(code: str) -> None:
    """Run ``code`` where no other thread runs, as in the CLI: a test session may hold
    threads of earlier tests, and then no fork is made (``Ahead``'s rule)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": HELPERS})
    assert done.returncode == 0, done.stderr


HELPERS = os.pathsep.join(str(Path(__file__).parent / d) for d in ("helpers", "."))


def test_the_child_gives_its_result_and_the_parent_goes_on():
    in_fresh_process("""
        import os
        from sitemapkit.sources.git.ahead import Ahead
        ahead = Ahead(lambda: {"pid": os.getpid(), "sum": sum(range(10))})
        assert ahead.pid is not None
        got = ahead.take()
        assert got is not None and got["sum"] == 45 and got["pid"] != os.getpid(), got
        assert ahead.take() is None  # taken once
        def fails():
            raise ValueError("in the child")
        failing = Ahead(fails)
        assert failing.pid is not None and failing.take() is None  # the caller works
        # never taken (the caller failed first): a child blocked on writing a result
        # larger than the pipe holds is stopped and reaped when the Ahead goes
        untaken = Ahead(lambda: "x" * (1 << 22))
        pid = untaken.pid
        del untaken
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass  # reaped already
        else:
            raise AssertionError("the untaken child was left behind")
    """)


def test_no_fork_while_another_thread_runs():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        ahead = Ahead(lambda: 1)
        assert ahead.pid is None and ahead.take() is None
    finally:
        stop.set()
        other.join()


def test_cancel_waits_for_the_child_and_drops_its_result(tmp_path):
    in_fresh_process(f"""
        from pathlib import Path
        from sitemapkit.sources.git.ahead import Ahead
        marker = Path({str(tmp_path / "done")!r})
        ahead = Ahead(lambda: marker.write_text("x"))
        assert ahead.pid is not None
        ahead.cancel()
        assert marker.read_text() == "x" and ahead.take() is None  # finished, unheard
    """)


@pytest.fixture
def site_repo(tmp_path: Path) -> tuple[Repo, list[BuiltPage], Sources]:
    repo = Repo(tmp_path / "r")
    repo.commit("2024-01-10T09:00:00+01:00", {"docs/a.md": "a\n", "docs/b.md": "b\n",
                                             "docs/inc.md": "i\n"})
    repo.commit("2024-03-05T12:00:00+01:00", {"docs/b.md": "b2\n"})
    repo.write("docs/a.md", "changed, not committed\n")  # a warning-free note: uncommitted
    repo.write("docs/new.md", "untracked\n")
    docs = repo.root / "docs"
    pages = [BuiltPage(f"{n}/index.html", f"https://e.com/{n}/") for n in ("a", "b", "new")]
    sources = Sources(files={p.path: str(docs / f"{p.path.split('/')[0]}.md") for p in pages},
                      parts={"b/index.html": (str(docs / "inc.md"),)})
    return repo, pages, sources


def _rows(pages: list[BuiltPage], sources: Sources) -> list[PageRow]:
    return [PageRow(p.url, sources.files[p.path], p.path, parts=sources.parts.get(p.path, ()))
            for p in pages]


def test_the_pass_taken_from_the_child_is_the_pass_run_here(site_repo, tmp_path):
    repo, pages, sources = site_repo
    values = {**defaults(), "cache_dir": ""}
    here: list[str] = []
    inline = gitpass.row_dates(_rows(pages, sources), values, repo.root, here, None)
    assert inline.dates and inline.notes  # b dated (with its part); a uncommitted, new untracked
    saved = tmp_path / "inline.pickle"
    saved.write_bytes(pickle.dumps((inline, here, pages, sources)))
    in_fresh_process(f"""
        import pickle
        from sitemapkit.publish import gitpass
        from sitemapkit.site import defaults
        from test_ahead import _rows
        inline, here, pages, sources = pickle.loads(open({str(saved)!r}, "rb").read())
        values = {{**defaults(), "cache_dir": ""}}
        ahead = gitpass.dates_ahead(pages, sources, values, {str(repo.root)!r})
        assert ahead is not None and ahead[1].pid is not None
        def not_here(*args):
            raise AssertionError("the pass ran here, not in the child")
        gitpass._git_pass = not_here  # the child has the real one
        there = []
        taken = gitpass.row_dates(_rows(pages, sources), values, {str(repo.root)!r}, there,
                                  ahead)
        assert taken == inline and there == here, (taken, inline, there, here)
    """)


def test_other_paths_than_expected_are_dated_here(site_repo, monkeypatch):
    repo, pages, sources = site_repo
    values = {**defaults(), "cache_dir": ""}
    ahead = gitpass.dates_ahead(pages, sources, values, repo.root)
    assert ahead is not None
    fewer = _rows(pages, sources)[:2]  # e.g. drop_unsourced left a page out
    passes = []
    real = gitpass._git_pass
    monkeypatch.setattr(gitpass, "_git_pass", lambda *a: passes.append(a[0]) or real(*a))
    got = gitpass.row_dates(fewer, values, repo.root, [], ahead)
    assert passes and set(passes[0]) == {r.source for r in fewer} | {*fewer[1].parts}
    assert set(got.dates) | set(got.unknown) <= set(passes[0])
