"""A URL is dropped as a repeat only when it is one. The duplicate check's key is 128
bits of BLAKE2b (a slot word and a check word, the same in every process); under
SITEMAPKIT_TEST_KEY_BITS=8 the slot words of 1,000 URLs collide hundreds of times, and
the writer and the validator, on each twin, still lose nothing, with the bytes of a
full-key run whatever PYTHONHASHSEED is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit._urlset import _locset_py

BASE = "https://example.com/"
URLS = [f"{BASE}p/{i}" for i in range(1000)]


def cli(*args: str, cwd: Path, twin_env: dict[str, str], bits: str = "",
        seed: str = "0") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **twin_env, "PYTHONHASHSEED": seed,
           "SITEMAPKIT_TEST_KEY_BITS": bits}
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_narrowed_slot_words_do_collide():
    """The switch is not a no-op: at 8 bits, 1,000 URLs share at most 256 slot words."""
    mask = (1 << 64) - 1 ^ ((1 << 56) - 1)
    words = {int.from_bytes(_locset_py.blake2b(u.encode(), digest_size=16).digest()[:8],
                            "little") & mask for u in URLS}
    assert len(words) <= 256


def test_the_writer_loses_nothing_under_8_bit_keys(tmp_path, twin_env):
    source = tmp_path / "urls.txt"
    source.write_text("".join(u + "\n" for u in URLS + URLS[::10]))  # 100 true repeats
    runs = {}
    for label, bits, seed in (("full", "", "0"), ("8 bits", "8", "0"),
                              ("8 bits, seed 1", "8", "1"), ("full, seed 2", "", "2")):
        out = tmp_path / label.replace(" ", "_").replace(",", "")
        done = cli("write", str(source), "-o", str(out), "--base-url", BASE,
                   "--max-urls", "300", cwd=tmp_path, twin_env=twin_env, bits=bits, seed=seed)
        assert done.returncode == 0, done.stderr
        assert "1,000 URLs in 4 shards, 0 skipped, 100 duplicates" in done.stdout
        assert ("SITEMAPKIT_TEST_KEY_BITS=8: duplicate keys narrowed to 8 bits"
                in done.stderr) == bool(bits)
        runs[label] = files(out)
    assert runs["8 bits"] == runs["full"] == runs["8 bits, seed 1"] == runs["full, seed 2"]


@pytest.mark.parametrize("repeat", [False, True])
def test_the_validator_loses_nothing_under_8_bit_keys(tmp_path, twin_env, repeat):
    source = tmp_path / "urls.txt"
    source.write_text("".join(u + "\n" for u in URLS))
    done = cli("write", str(source), "-o", "out", "--base-url", BASE, "--max-urls", "300",
               cwd=tmp_path, twin_env=twin_env)
    assert done.returncode == 0, done.stderr
    if repeat:  # one real repeat across two shards: found, and only it
        shard = sorted((tmp_path / "out").glob("sitemap-00004-*.xml.gz"))[0]
        import gzip

        text = gzip.decompress(shard.read_bytes()).decode()
        text = text.replace("</urlset>", f"<url><loc>{URLS[5]}</loc></url></urlset>")
        shard.write_bytes(gzip.compress(text.encode()))
    checked = cli("validate", "out", "--base-url", BASE, cwd=tmp_path, twin_env=twin_env,
                  bits="8")
    duplicates = [line for line in checked.stdout.splitlines() + checked.stderr.splitlines()
                  if "[rule 15 duplicate]" in line]
    if repeat:
        assert len(duplicates) == 1 and URLS[5] in duplicates[0], checked.stdout
    else:
        assert checked.returncode == 0 and not duplicates, checked.stdout + checked.stderr
