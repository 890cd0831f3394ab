"""A corrupt gzip input ('invalid distance too far back', 'invalid block type', a
wrong check word) is one clear error naming the file, never a traceback, in one
process and in folder mode, on both twins, for every input format; nothing is
written (guarantees rule 6)."""

from __future__ import annotations

import gzip
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

BASE = "https://example.com/"
FORMATS = {"txt": lambda i: f"{BASE}p{i}\n", "csv": lambda i: f"{BASE}p{i},2024-01-0{i % 9 + 1}\n",
           "tsv": lambda i: f"{BASE}p{i}\t2024-01-0{i % 9 + 1}\n",
           "jsonl": lambda i: f'{{"loc": "{BASE}p{i}"}}\n'}
HEADERS = {"csv": "loc,lastmod\n", "tsv": "loc\tlastmod\n"}
TAILS = 7  # random tails per format and mode


def corrupt(data: bytes, rng: random.Random, tail: int) -> tuple[bytes, bool]:
    """(the gzip member damaged, whether the damage must be reported as gzip's). The
    first three are fixed: an invalid first block type, a wrong check word, a cut
    stream; the rest replace a random stretch of the deflate body (what it decodes to
    before the decoder notices may be refused first, as a bad row)."""
    if tail == 0:
        return data[:10] + bytes([data[10] | 0b110]) + data[11:], True  # block type 3
    if tail == 1:
        return data[:-8] + bytes(b ^ 0xFF for b in data[-8:-4]) + data[-4:], True
    if tail == 2:
        return data[: len(data) // 2], True
    start = rng.randrange(10 + len(data) // 4, len(data) - 8)
    length = rng.randrange(1, 64)
    return data[:start] + rng.randbytes(length) + data[start + length:], False


def cli(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env={**os.environ, **env})


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_corrupt_gzip_tail_is_one_clean_error(tmp_path, twin_env, fmt):
    rng = random.Random(f"{fmt}-{twin_env}")
    text = HEADERS.get(fmt, "") + "".join(FORMATS[fmt](i) for i in range(40_000))
    packed = gzip.compress(text.encode(), mtime=0)
    for tail in range(TAILS):
        bad, stream = corrupt(packed, rng, tail)
        name = f"urls-{tail}.{fmt}.gz"
        (tmp_path / name).write_bytes(bad)
        parts = tmp_path / f"parts-{tail}"
        parts.mkdir()
        (parts / f"part-0.{fmt}.gz").write_bytes(gzip.compress(
            (HEADERS.get(fmt, "") + FORMATS[fmt](99_999)).encode()))
        (parts / f"part-1.{fmt}.gz").write_bytes(bad)
        for source, out in ((name, f"out-{tail}"), (parts.name, f"outp-{tail}")):
            done = cli("write", source, "-o", out, "--base-url", BASE, cwd=tmp_path,
                       env=twin_env)
            assert "Traceback" not in done.stderr, done.stderr
            assert done.returncode == 1, (source, done.stderr)
            # the stream's own damage, or a row the damage made (garbage decoded before
            # the decoder noticed): either way a line naming where
            first = done.stderr.splitlines()[0]
            assert first.startswith("sitemapkit: error: ") and (
                "cannot read" in first or "line " in first), done.stderr
            assert not list((tmp_path / out).glob("sitemap*")), "nothing is written"
            if stream:
                assert ("gzip data is corrupt" in first or "ends too soon" in first or
                        "CRC check failed" in first) and (
                            name in first or "part-1." in first), first
                assert "could not write" not in first  # the input's fault, not the output's
