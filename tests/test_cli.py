"""`sitemapkit write` as a user runs it: a real subprocess, real files."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sitemap_check import read_set

from conftest import BASE, run, snapshot


def test_use_extensions_reports_what_is_active(pytestconfig):
    code = "import sitemapkit; print(sitemapkit.USE_EXTENSIONS)"
    forced = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "SITEMAPKIT_NO_EXTENSIONS": "1"}, check=True)
    assert forced.stdout.strip() == "False"
    if pytestconfig.getoption("c_extensions"):
        normal = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                env={**os.environ, "SITEMAPKIT_NO_EXTENSIONS": ""}, check=True)
        assert normal.stdout.strip() == "True"


def test_a_cli_process_turns_the_collector_back_on(monkeypatch, tmp_path, capsys):
    """``main()`` as a process's entry point pauses the cyclic collector for the imports
    only (and freezes what they made); the run itself, and a caller's, keep it."""
    import gc

    from sitemapkit.cli import main

    src = tmp_path / "urls.txt"
    src.write_text(f"{BASE}a\n")
    monkeypatch.setattr(sys, "argv", ["sitemapkit", "write", str(src), "-o",
                                      str(tmp_path / "out"), "--base-url", BASE, "-q"])
    try:
        assert main() == 0
        assert gc.isenabled() and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert main(["write", str(src), "-o", str(tmp_path / "again"), "--base-url", BASE,
                 "-q"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_text_input(tmp_path, twin_env):
    src = tmp_path / "urls.txt"
    src.write_text(f"{BASE}a\n\n{BASE}b c\r\n  {BASE}ü  \n")
    done = run("write", str(src), "-o", str(tmp_path / "out"), "--base-url", BASE, env=twin_env)
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith("3 URLs in 1 shard, 0 skipped, 0 duplicates -> ")
    assert line.endswith(" s; gzip: zlib-ng level 6)") and "sitemap.xml" in line
    assert read_set(tmp_path / "out", BASE).locs == [BASE + "a", BASE + "b%20c", BASE + "%C3%BC"]


def test_csv_tsv_jsonl_and_gzip_inputs(tmp_path, twin_env):
    (tmp_path / "in.csv").write_text(f"loc,lastmod,priority\n{BASE}a,2024-01-02,0.5\n"
                                     f'"{BASE}b,c",,\n')
    (tmp_path / "in.tsv").write_text(f"lastmod\tloc\n2024-01-02T03:04:05Z\t{BASE}t\n")
    lines = [json.dumps({"loc": BASE + "j", "changefreq": "daily"}), json.dumps(BASE + "k")]
    (tmp_path / "in.jsonl.gz").write_bytes(gzip.compress("\n".join(lines).encode()))
    expected = {"in.csv": [BASE + "a", BASE + "b,c"], "in.tsv": [BASE + "t"],
                "in.jsonl.gz": [BASE + "j", BASE + "k"]}
    for name, locs in expected.items():
        out = tmp_path / name.replace(".", "_")
        done = run("write", str(tmp_path / name), "-o", str(out), "--base-url", BASE,
                   env=twin_env)
        assert done.returncode == 0, done.stderr
        assert read_set(out, BASE).locs == locs
    urls = read_set(tmp_path / "in_csv", BASE).urls
    assert (urls[0].lastmod, urls[0].priority, urls[1].lastmod) == ("2024-01-02", "0.5", None)
    assert read_set(tmp_path / "in_tsv", BASE).urls[0].lastmod == "2024-01-02T03:04:05+00:00"


def test_stdin_with_explicit_format(tmp_path, twin_env):
    data = "\n".join(json.dumps({"loc": f"{BASE}s{i}"}) for i in range(120))
    done = run("write", "-", "--format", "jsonl", "-o", str(tmp_path), "--base-url", BASE,
               "--max-urls", "50", stdin=data, env=twin_env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("120 URLs in 3 shards")
    assert len(read_set(tmp_path, BASE).locs) == 120


def test_invalid_input_exits_1_naming_entry_and_line(tmp_path, twin_env):
    out = tmp_path / "out"
    run("write", "-", "-o", str(out), "--base-url", BASE, stdin=BASE + "old\n", env=twin_env)
    before = snapshot(out)
    done = run("write", "-", "-o", str(out), "--base-url", BASE,
               stdin=f"{BASE}a\n\n{BASE}b\n/relative\n", env=twin_env)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("sitemapkit: error: entry 3: loc '/relative' breaks rule "
                                  "'loc-absolute'")
    assert "(input line 4); nothing was written" in done.stderr
    assert snapshot(out) == before


def test_skip_invalid_reports_what_it_skipped(tmp_path, twin_env):
    done = run("write", "-", "-o", str(tmp_path), "--base-url", BASE, "--skip-invalid",
               stdin=f"{BASE}a\nnope\n{BASE}a\n", env=twin_env)
    assert done.returncode == 0
    assert "skipped 1 invalid entry (loc-absolute: 1)" in done.stderr
    assert done.stdout.startswith("1 URL in 1 shard, 1 skipped, 1 duplicate")


@pytest.mark.parametrize(
    ("args", "stdin", "code", "message"),
    [
        (["write", "-", "--base-url", BASE], "", 2, "required: -o/--out"),
        (["write", "-", "-o", "{out}", "--base-url", BASE, "--max-bytes", "60000000"], "x", 2,
         "protocol maximum"),
        (["write", "-", "-o", "{out}", "--base-url", "docs/"], "x", 2, "invalid base_url"),
        (["write", "-", "-o", "{out}", "--base-url", BASE, "--filename", "../x.xml"], "x", 2,
         "plain file name"),
        (["frobnicate"], "", 2, "invalid choice"),
        (["write", "{out}/missing.txt", "-o", "{out}", "--base-url", BASE], "", 1, "cannot read"),
        (["write", "-", "-o", "{out}", "--base-url", BASE], "\n\n", 1, "empty sitemap"),
        (["write", "-", "--format", "csv", "-o", "{out}", "--base-url", BASE],
         "url,when\nx,y\n", 1, "header must name 'loc'"),
        (["write", "-", "--format", "jsonl", "-o", "{out}", "--base-url", BASE], "{nope\n", 1,
         "line 1: not valid JSON"),
    ],
)
def test_exit_codes(tmp_path, args, stdin, code, message):
    args = [a.replace("{out}", str(tmp_path)) for a in args]
    done = run(*args, stdin=stdin)
    assert done.returncode == code, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_text_sitemap_option(tmp_path: Path):
    done = run("write", "-", "-o", str(tmp_path), "--base-url", BASE, "--text",
               stdin=f"{BASE}a&b\n")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "sitemap.txt").read_text() == f"{BASE}a&b\n"


def test_a_closed_output_pipe_ends_quietly_with_141(tmp_path):
    """`sitemapkit validate big.txt | head -1`: no traceback, exit 141 as git gives."""
    import fcntl

    bad = tmp_path / "sitemap.txt"
    bad.write_text("".join(f"{BASE}page {i}\n" for i in range(20_000)))  # an error each
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)  # the ~9 KB report cannot fit
    child = subprocess.Popen([sys.executable, "-m", "sitemapkit", "validate", str(bad)],
                             stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        first = reader.readline()  # the reader is done after one line, as head -1 is
    assert child.stderr is not None
    with child.stderr:
        err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 141, err
    assert b"error" in first and "Traceback" not in err and "BrokenPipe" not in err
