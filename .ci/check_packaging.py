"""sdist -> wheel must carry the compiled twin; the fallbacks must behave.

1. The sdist ships ext/_urlset_c.pyx and no generated C.
2. A wheel built from that sdist contains sitemapkit/_urlset/_urlset_c*.so, and works.
3. SITEMAPKIT_NO_EXTENSIONS=1 builds a pure wheel.
4. A failing compiler (CC=false) still gives a pure wheel, with a loud warning.
5. ...unless SITEMAPKIT_REQUIRE_EXTENSIONS=1, which makes it an error.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, env: dict[str, str] | None = None, check: bool = True):
    print("+", " ".join(args), flush=True)
    return subprocess.run(args, env={**os.environ, **(env or {})}, capture_output=True,
                          text=True, check=check, cwd=ROOT)


def wheel_from(sdist: Path, out: Path, env: dict[str, str] | None = None, check=True):
    out.mkdir()
    done = run(sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(out), str(sdist),
               env=env, check=check)
    wheels = list(out.glob("*.whl"))
    return done, wheels[0] if wheels else None


def has_extension(wheel: Path) -> bool:
    return any("_urlset_c" in n and n.endswith((".so", ".pyd"))
               for n in zipfile.ZipFile(wheel).namelist())


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        run(sys.executable, "-m", "build", "--sdist", "--outdir", str(t / "sdist"))
        sdist = next((t / "sdist").glob("*.tar.gz"))
        names = tarfile.open(sdist).getnames()
        assert any(n.endswith("ext/_urlset_c.pyx") for n in names), names
        assert not any(n.endswith("ext/_urlset_c.c") for n in names), "generated C shipped"
        assert any(n.endswith("sitemapkit/py.typed") for n in names)
        assert any(n.endswith("/LICENSE") for n in names), "sdist lacks LICENSE"

        done, wheel = wheel_from(sdist, t / "c", env={"SITEMAPKIT_REQUIRE_EXTENSIONS": "1"})
        assert wheel and has_extension(wheel), "wheel from sdist lacks the extension"
        inside = zipfile.ZipFile(wheel).namelist()
        hot = [n for n in inside if n.startswith("sitemapkit/_urlset/")]
        assert any(n.endswith("_urlset_c.pyi") for n in hot) and \
            any("_urlset_c" in n and n.endswith((".so", ".pyd")) for n in hot), hot
        for data in ("sitemapkit/data/antora/pages.cjs", "sitemapkit/data/eleventy/pages.mjs",
                     "sitemapkit/data/next/config.mjs",
                     "sitemapkit/data/hugo/hugo.toml",
                     "sitemapkit/data/vitepress/config.mjs",
                     "sitemapkit/data/rspress/config.mjs", "sitemapkit/data/astro/config.mjs",
                     "sitemapkit/data/hugo-members/config.toml"):
            assert data in inside, f"wheel lacks {data}"  # what site runs the generators with
        print("ok: wheel from sdist has the extension:", wheel.name)
        venv = t / "venv"
        run(sys.executable, "-m", "venv", str(venv))
        py = str(venv / "bin" / "python")
        run(py, "-m", "pip", "install", "-q", "--no-deps", str(wheel))
        check = run(py, "-c", "import sitemapkit; print(sitemapkit.USE_EXTENSIONS)", env={
            "SITEMAPKIT_NO_EXTENSIONS": ""})
        assert check.stdout.strip() == "True", check.stdout
        meta = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith("METADATA"))
        metadata = zipfile.ZipFile(wheel).read(meta).decode()
        assert "License-Expression: MIT" in metadata, metadata[:800]
        assert any(n.endswith("/LICENSE") for n in zipfile.ZipFile(wheel).namelist())
        print("ok: SPDX license expression and LICENSE file in the wheel")

        done, wheel = wheel_from(sdist, t / "pure", env={"SITEMAPKIT_NO_EXTENSIONS": "1"})
        assert wheel and not has_extension(wheel)
        print("ok: SITEMAPKIT_NO_EXTENSIONS=1 builds a pure wheel")

        done, wheel = wheel_from(sdist, t / "broken", env={"CC": "false", "CXX": "false"})
        assert wheel and not has_extension(wheel)
        assert "could not be compiled" in done.stderr + done.stdout, done.stderr[-2000:]
        run(py, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel))
        version = run(py, "-m", "sitemapkit", "--version", env={"SITEMAPKIT_NO_EXTENSIONS": ""})
        assert "the C accelerator was not compiled" in version.stdout, version.stdout
        print("ok: --version of that install says so:", version.stdout.strip())
        print("ok: a failing compiler falls back to a pure wheel with a warning")

        done, wheel = wheel_from(sdist, t / "required", check=False,
                                 env={"CC": "false", "CXX": "false",
                                      "SITEMAPKIT_REQUIRE_EXTENSIONS": "1"})
        assert done.returncode != 0 and wheel is None
        print("ok: SITEMAPKIT_REQUIRE_EXTENSIONS=1 turns a failed compile into an error")


if __name__ == "__main__":
    main()
