"""Two sets in one folder (``products.xml`` beside ``sitemap.xml``, as shops keep them):
a journal belongs to the set whose commit wrote it. A killed commit of one set is
cleaned up by that set's next run; the other set's runs leave it, and say so, and
never remove a file a live index names (guarantees rules 1 and 3)."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from kills import KILLER
from sitemap_check import read_set

from sitemapkit.write.output import JOURNAL, TMP_PREFIX

BASE = "https://shop.example.com/"


def cli(*args: str, cwd: Path, kill_after: int | None = None) -> subprocess.CompletedProcess[str]:
    head = [sys.executable, "-c", KILLER, str(kill_after), "sitemapkit"] \
        if kill_after is not None else [sys.executable, "-m", "sitemapkit"]
    return subprocess.run([*head, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def urls(tmp: Path, name: str, tag: str, n: int) -> str:
    (tmp / name).write_text("".join(f"{BASE}{tag}/p{i}\n" for i in range(n)))
    return name


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())
            if not p.name.startswith(TMP_PREFIX)}


def named_by_live_sets(folder: Path) -> set[str]:
    names: set[str] = set()
    for entry in ("sitemap.xml", "products.xml"):  # each must be there, and whole
        names |= {entry, *read_set(folder, BASE, entry_point=entry).shards}
    return names


def write(tmp: Path, source: str, filename: str, kill_after: int | None = None
          ) -> subprocess.CompletedProcess[str]:
    return cli("write", source, "-o", "out", "--base-url", BASE, "--max-urls", "100",
               "--filename", filename, cwd=tmp, kill_after=kill_after)


@pytest.mark.parametrize("kill_after", [0, 7, 24])
def test_a_killed_commit_of_one_set_never_costs_the_other_set_a_file(tmp_path, kill_after):
    out = tmp_path / "out"
    assert write(tmp_path, urls(tmp_path, "a.txt", "a", 3_000), "sitemap.xml").returncode == 0
    assert write(tmp_path, urls(tmp_path, "p.txt", "p", 2_500), "products.xml").returncode == 0
    both = digests(out)
    assert len(both) == 2 + 30 + 25
    killed = write(tmp_path, urls(tmp_path, "p2.txt", "q", 2_600), "products.xml", kill_after)
    assert killed.returncode == -9
    journals = sorted(out.glob(f"{TMP_PREFIX}*-{JOURNAL}"))
    assert len(journals) == 1 and json.loads(journals[0].read_bytes())["entry"] == \
        "products.xml"
    orphans = set(digests(out)) - set(both)
    assert len(orphans) == kill_after  # the killed run's shards renamed into place

    again = write(tmp_path, "a.txt", "sitemap.xml")  # the other set's next run
    assert again.returncode == 0, again.stderr
    after = digests(out)
    assert {n: d for n, d in after.items() if n in both} == both  # every file, same bytes
    assert set(after) == set(both) | orphans
    assert "a killed run of another sitemap set here (products.xml) left files behind; " \
        "its next run removes them" in again.stderr
    assert journals[0].exists()  # left for products.xml's next run

    mended = write(tmp_path, "p2.txt", "products.xml")
    assert mended.returncode == 0, mended.stderr
    assert set(digests(out)) == named_by_live_sets(out)  # nothing stray, nothing lost
    assert {u.loc for u in read_set(out, BASE, entry_point="sitemap.xml").urls} == \
        {f"{BASE}a/p{i}" for i in range(3_000)}
    assert len(read_set(out, BASE, entry_point="products.xml").urls) == 2_600
    assert not list(out.glob(TMP_PREFIX + "*"))


def test_a_journal_of_no_set_removes_nothing_a_live_index_names(tmp_path):
    """A journal from before journals named their set (or a hostile one) that names
    another set's live shards: those stay; only files no live index names go."""
    out = tmp_path / "out"
    assert write(tmp_path, urls(tmp_path, "a.txt", "a", 300), "sitemap.xml").returncode == 0
    assert write(tmp_path, urls(tmp_path, "p.txt", "p", 250), "products.xml").returncode == 0
    live = list(read_set(out, BASE, entry_point="products.xml").shards)
    orphan = "sitemap-00009-0123456789abcdef.xml.gz"
    (out / orphan).write_bytes((out / live[0]).read_bytes())
    (out / f"{TMP_PREFIX}1-ab-{JOURNAL}").write_text(json.dumps([*live, orphan]))
    before = digests(out)
    done = write(tmp_path, "a.txt", "sitemap.xml")
    assert done.returncode == 0, done.stderr
    assert digests(out) == {n: d for n, d in before.items() if n != orphan}
    assert f"of a killed run: {orphan}" in done.stderr


def test_random_kills_across_two_sets_leave_both_complete(tmp_path):
    """Kills at random renames of either set's commit; after every kill and the next
    complete run of each set, every file present is named by a live set, and both
    sets hold exactly their URLs."""
    rng = random.Random(49)
    out = tmp_path / "out"
    sources = {"sitemap.xml": [urls(tmp_path, f"a{v}.txt", f"a{v}", 1_000 + 100 * v)
                               for v in range(3)],
               "products.xml": [urls(tmp_path, f"p{v}.txt", f"p{v}", 900 + 100 * v)
                                for v in range(3)]}
    live = {}
    for name, files in sources.items():
        assert write(tmp_path, files[0], name).returncode == 0
        live[name] = files[0]
    for _ in range(6):
        victim = rng.choice(sorted(sources))
        source = rng.choice(sources[victim])
        killed = write(tmp_path, source, victim, kill_after=rng.randrange(0, 10))
        assert killed.returncode in (-9, 0)
        if killed.returncode == 0:
            live[victim] = source
        other = next(n for n in sources if n != victim)
        assert write(tmp_path, live[other], other).returncode == 0  # the other set first
        assert named_by_live_sets(out) <= set(digests(out))  # both complete (read_set checks)
        assert write(tmp_path, live[victim], victim).returncode == 0
        assert set(digests(out)) == named_by_live_sets(out)
        for name, source in live.items():
            want = set((tmp_path / source).read_text().split())
            assert {u.loc for u in read_set(out, BASE, entry_point=name).urls} == want
