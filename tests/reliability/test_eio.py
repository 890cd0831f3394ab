"""I/O errors other than a full disk: EIO from the C library itself (an LD_PRELOAD shim,
tests/reliability/shim/eio.c, built here with the machine's C compiler), on read and on
fsync, where a failing disk or network file system puts it. Each is one clear line
naming the file and the error, the previous set stays byte for byte, no temp file is
left; a page that cannot be read is left out and named, and the run goes on
(guarantees rules 5 and 6)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sitemap_check import read_set

from sitemapkit.write.output import TMP_PREFIX

BASE = "https://example.com/"
SHIM = Path(__file__).parent / "shim" / "eio.c"
PAGE = "<!DOCTYPE html><html><head><title>x</title></head><body>x</body></html>"


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    assert compiler, "a C compiler builds the extension, and this shim"
    built = tmp_path_factory.mktemp("shim") / "eio.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", str(built), str(SHIM), "-ldl"],
                   check=True)
    return built


def cli(shim: Path, *args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env, "LD_PRELOAD": str(shim)})


def state(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("folder_mode", [False, True])
def test_eio_reading_the_input_names_the_input_and_keeps_the_old_set(
        shim, tmp_path, twin_env, folder_mode):
    (tmp_path / "parts").mkdir()
    for name in ("urls.txt", "parts/p0.txt"):
        (tmp_path / name).write_text("".join(f"{BASE}p{i}\n" for i in range(300)))
    source = "parts" if folder_mode else "urls.txt"
    assert cli(shim, "write", source, "-o", "out", "--base-url", BASE, "--max-urls", "100",
               cwd=tmp_path, env=twin_env).returncode == 0
    before = state(tmp_path / "out")
    failing = str(tmp_path / ("parts/p0.txt" if folder_mode else "urls.txt"))
    done = cli(shim, "write", source, "-o", "out", "--base-url", BASE, "--max-urls", "100",
               cwd=tmp_path, env={**twin_env, "SK_EIO_READ": failing})
    assert done.returncode == 1 and "Traceback" not in done.stderr
    shown = "parts/p0.txt" if folder_mode else "urls.txt"
    assert f"cannot read {shown}: Input/output error; nothing was written" in done.stderr, \
        done.stderr
    assert "could not write" not in done.stderr  # the input's fault, not the output's
    assert state(tmp_path / "out") == before


def test_eio_on_fsync_keeps_the_old_set_and_leaves_no_temp(shim, tmp_path, twin_env):
    (tmp_path / "urls.txt").write_text("".join(f"{BASE}p{i}\n" for i in range(300)))
    assert cli(shim, "write", "urls.txt", "-o", "out", "--base-url", BASE, "--max-urls", "100",
               cwd=tmp_path, env=twin_env).returncode == 0
    before = state(tmp_path / "out")
    (tmp_path / "urls.txt").write_text("".join(f"{BASE}q{i}\n" for i in range(300)))
    done = cli(shim, "write", "urls.txt", "-o", "out", "--base-url", BASE, "--max-urls", "100",
               cwd=tmp_path, env={**twin_env, "SK_EIO_FSYNC": "1"})
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "Input/output error; the previous sitemaps there are unchanged" in done.stderr
    assert state(tmp_path / "out") == before
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(TMP_PREFIX)]


def test_eio_reading_a_page_leaves_it_out_named_and_the_run_goes_on(shim, tmp_path, twin_env):
    out = tmp_path / "public"
    for page in ("index.html", "a/index.html", "b/index.html"):
        (out / page).parent.mkdir(parents=True, exist_ok=True)
        (out / page).write_text(PAGE)
    old = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
           'schemas/sitemap/0.9">' + "".join(f"<url><loc>{BASE}{p}</loc></url>"
                                            for p in ("", "a/", "b/")) + '</urlset>\n')
    (out / "sitemap.xml").write_text(old)
    done = cli(shim, "site", "public", "--base-url", BASE, cwd=tmp_path,
               env={**twin_env, "SK_EIO_READ": str(out / "a/index.html")})
    assert done.returncode == 0, done.stderr
    assert "1 page or folder could not be read, so it is not listed: a/index.html " \
        "(Input/output error)" in done.stderr
    assert sorted(u.loc for u in read_set(out, BASE).urls) == [BASE, BASE + "b/"]
    (out / "sitemap.xml").write_text(old)  # the generator's sitemap itself fails to read
    again = cli(shim, "site", "public", "--base-url", BASE, cwd=tmp_path,
                env={**twin_env, "SK_EIO_READ": str(out / "sitemap.xml")})
    assert again.returncode == 0, again.stderr
    assert "cannot read the generator's sitemap public/sitemap.xml (" in again.stderr
    assert "Input/output error" in again.stderr and "Traceback" not in again.stderr


def test_eio_reading_a_sitemap_to_validate_is_one_line(shim, tmp_path, twin_env):
    (tmp_path / "urls.txt").write_text("".join(f"{BASE}p{i}\n" for i in range(300)))
    assert cli(shim, "write", "urls.txt", "-o", "out", "--base-url", BASE, "--max-urls", "100",
               cwd=tmp_path, env=twin_env).returncode == 0
    shard = sorted(read_set(tmp_path / "out", BASE).shards)[1]
    done = cli(shim, "validate", "out", "--base-url", BASE, cwd=tmp_path,
               env={**twin_env, "SK_EIO_READ": str(tmp_path / "out" / shard)})
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    assert f"{shard}:1: error [rule 4 unreadable] cannot be read after 0 bytes " \
        "(Input/output error)" in done.stdout + done.stderr
    assert "Input/output error" in done.stdout + done.stderr
