"""Fifty kills across `sitemapkit write`, `sitemapkit site`, `mkdocs build` with the
plugin and `sphinx-build` with the extension, each over a folder that holds two sets:
the host's `sitemap.xml` and a `products.xml` that `sitemapkit write` keeps beside it.
A kill lands either in the commit (after a random number of the run's renames) or at a
random moment of the whole run (a build's start, its pages, the git pass). After every
kill, the other set's next run keeps the killed set's live files; after the killed
set's next run, every sitemap file in the folder is named by one of the two live sets,
both are complete, and no temp file is left (guarantees: rules 1, 2 and 3)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

from docs_projects import mkdocs_project, sphinx_project
from kills import KILLER
from sitemap_check import read_set

from sitemapkit.protocol import looks_like_sitemap
from sitemapkit.write.output import TMP_PREFIX

BASE = "https://example.com/"
PAGES = {f"p{i}.md": f"# Page {i}\n" for i in range(6)}
SPHINX_PAGES = {"index.rst": "Home\n====\n\n.. toctree::\n\n" + "".join(
    f"   p{i}\n" for i in range(5)) + "\n", **{f"p{i}.rst": f"P{i}\n==\n\nText.\n"
                                              for i in range(5)}}


def run(module: str, *args: str, cwd: Path, kill: int | None = None,
        rng: random.Random | None = None) -> int:
    """The command to its end, or killed: after ``kill`` renames, or (``kill`` -1) at a
    random moment of its run."""
    if kill is None:
        done = subprocess.run([sys.executable, "-m", module, *args], cwd=cwd,
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONWARNINGS": "ignore"})
        assert done.returncode == 0, f"{module} {args}:\n{done.stdout}\n{done.stderr}"
        return 0
    proc = subprocess.Popen([sys.executable, "-c", KILLER, str(kill), module, *args], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if kill < 0:
        assert rng is not None
        try:
            proc.wait(timeout=rng.uniform(0.05, 1.0))  # the kill's moment, not a wait
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
    return proc.wait(timeout=300)


def sitemap_files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
            and p.name.endswith((".xml", ".xml.gz")) and
            looks_like_sitemap(p.read_bytes()[:4096], p.name)}


def named(folder: Path) -> set[str]:
    """Every file the two live sets name (each read whole and checked)."""
    names: set[str] = set()
    for entry in ("sitemap.xml", "products.xml"):
        listed = read_set(folder, BASE, entry_point=entry, max_urls=100)
        names |= {entry, *listed.shards}
        if (folder / (entry + ".gz")).exists():
            names.add(entry + ".gz")  # the single-file set's copy
    return names


def loop(kills: int, folder: Path, host: tuple[str, list[str], Path], rng: random.Random,
         tmp_path: Path) -> dict[str, int]:
    """``kills`` kills, of the host's run or of the products set's write, at random."""
    products = [tmp_path / f"products-{v}.txt" for v in range(3)]
    for v, path in enumerate(products):
        path.write_text("".join(f"{BASE}shop/{v}/{i}\n" for i in range(250 + 40 * v)))
    write = ["write", "", "-o", str(folder), "--base-url", BASE, "--filename", "products.xml",
             "--max-urls", "100"]
    module, args, cwd = host
    run(module, *args, cwd=cwd)
    live = str(products[0])
    run("sitemapkit", *[live if a == "" else a for a in write], cwd=tmp_path)
    outcomes = {"killed in the commit": 0, "killed at a random moment": 0,
                "finished before the kill": 0}
    for _ in range(kills):
        mode = rng.choice([rng.randrange(0, 4), -1])  # every set here has 4 renames or more
        if rng.random() < 0.5:
            source = str(rng.choice(products))
            code = run("sitemapkit", *[source if a == "" else a for a in write], cwd=tmp_path,
                       kill=mode, rng=rng)
            if code == 0:
                live = source
            run(module, *args, cwd=cwd)  # the other set first: it must keep this one's
            named(folder)  # both complete, right after the other set's run
            run("sitemapkit", *[live if a == "" else a for a in write], cwd=tmp_path)
        else:
            code = run(module, *args, cwd=cwd, kill=mode, rng=rng)
            run("sitemapkit", *[live if a == "" else a for a in write], cwd=tmp_path)
            named(folder)
            run(module, *args, cwd=cwd)
        assert code == -signal.SIGKILL or (code == 0 and mode < 0), (mode, code)
        outcomes["finished before the kill" if code == 0 else "killed in the commit"
                 if mode >= 0 else "killed at a random moment"] += 1
        assert sitemap_files(folder) == named(folder)
        assert not [p for p in folder.iterdir() if p.name.startswith(TMP_PREFIX)]
        want = set((Path(live)).read_text().split())
        assert {u.loc for u in read_set(folder, BASE, entry_point="products.xml",
                                        max_urls=100).urls} == want
    return outcomes


def test_kills_across_site_and_write(tmp_path):
    out = tmp_path / "public"
    for i in range(7):
        page = out / (f"p{i}/index.html" if i else "index.html")
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"<!DOCTYPE html><html><head><title>{i}</title></head><body></body>"
                        "</html>")
    host = ("sitemapkit", ["site", str(out), "--base-url", BASE, "--max-urls", "2"], tmp_path)
    got = loop(26, out, host, random.Random(4901), tmp_path)
    assert got["killed in the commit"] >= 8, got  # the seed's draw: each of those lands


def test_kills_across_the_mkdocs_plugin_and_write(tmp_path):
    repo = mkdocs_project(tmp_path / "docs", {"index.md": "# Home\n", **PAGES},
                          {"plugins": [{"sitemapkit": {"max_urls": 2}}]})
    host = ("mkdocs", ["build", "--dirty", "-q"], repo.root)
    got = loop(14, repo.root / "site", host, random.Random(4902), tmp_path)
    assert got["killed in the commit"] >= 2, got


def test_kills_across_the_sphinx_extension_and_write(tmp_path):
    repo = sphinx_project(tmp_path / "docs", SPHINX_PAGES, base=BASE,
                          extra="sitemapkit_max_urls = 2")
    host = ("sphinx", ["-q", "-b", "html", ".", "_build/html"], repo.root)
    got = loop(10, repo.root / "_build/html", host, random.Random(4903), tmp_path)
    assert got["killed in the commit"] >= 2, got
