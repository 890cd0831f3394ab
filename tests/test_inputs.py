"""Input files as users have them: Excel's BOM, CRLF, quoted CSV fields, JSON on stdin
without --format, a time without its offset, a runaway line. Each is read, or stopped
with a message naming the line; a stopped run leaves the previous set untouched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sitemap_check import read_set

BASE = "https://example.com/"


def write(tmp_path: Path, name: str, data: bytes, *args: str,
          stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    path = tmp_path / name
    path.write_bytes(data)
    source = "-" if stdin is not None else str(path)
    return subprocess.run([sys.executable, "-m", "sitemapkit", "write", source, "-o",
                           str(tmp_path / "out"), "--base-url", BASE, *args],
                          input=stdin.decode() if stdin is not None else None,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONWARNINGS": "error"})


def test_excel_csv_with_bom_crlf_and_quoted_commas(tmp_path):
    data = ("\ufeffloc,lastmod,changefreq,priority\r\n"
            f'{BASE}a,2024-01-01,weekly,0.5\r\n"{BASE}b?x=1,2",2024-01-02,,\r\n').encode()
    done = write(tmp_path, "urls.csv", data)
    assert done.returncode == 0, done.stderr
    urls = read_set(tmp_path / "out", BASE).urls
    assert [(u.loc, u.lastmod, u.changefreq, u.priority) for u in urls] == [
        (BASE + "a", "2024-01-01", "weekly", "0.5"), (BASE + "b?x=1,2", "2024-01-02", None, None)]


def test_text_and_jsonl_with_bom_and_crlf(tmp_path):
    assert write(tmp_path, "u.txt", f"\ufeff{BASE}a\r\n\r\n{BASE}b\r\n".encode()).returncode == 0
    assert read_set(tmp_path / "out", BASE).locs == [BASE + "a", BASE + "b"]
    jsonl = f'\ufeff{{"loc": "{BASE}c", "lastmod": "2024-02-02"}}\r\n'.encode()
    assert write(tmp_path, "u.jsonl", jsonl).returncode == 0
    assert read_set(tmp_path / "out", BASE).urls[0].lastmod == "2024-02-02"


def test_json_on_stdin_without_format_says_what_to_add(tmp_path):
    done = write(tmp_path, "unused", b"", stdin=f'{{"loc": "{BASE}a"}}\n'.encode())
    assert done.returncode == 1
    assert "line 1 looks like JSON Lines: add --format jsonl" in done.stderr


def test_a_time_without_offset_is_explained_in_words(tmp_path):
    done = write(tmp_path, "t.tsv", f"loc\tlastmod\n{BASE}a\t2024-01-01T10:00:00\n".encode())
    assert done.returncode == 1
    assert "needs its UTC offset" in done.stderr and "(input line 2)" in done.stderr
    assert "tzinfo" not in done.stderr


def test_a_runaway_line_is_named_and_nothing_changes(tmp_path):
    assert write(tmp_path, "ok.txt", f"{BASE}a\n".encode()).returncode == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    for name in ("long.txt", "long.csv", "long.jsonl"):
        header = b"loc\n" if name.endswith(".csv") else b""
        q = '"' if name.endswith(".jsonl") else ""
        rows = f"{q}{BASE}a{q}\n{q}{BASE}{'b' * 70_000}{q}\n"
        done = write(tmp_path, name, header + rows.encode())
        assert done.returncode == 1, name
        assert "characters long, over the 64 KiB" in done.stderr, done.stderr
        assert ("line 3" if header else "line 2") in done.stderr
        assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before
