"""Main job on the bundled example: a real `mkdocs build` over a git history.

On first run the example is copied to examples/work/ and given a history with set
commit dates (pages changed at different times and time zones), so every
<lastmod> in the sitemap is that page's own last commit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "work" / "mkdocs-site"
HISTORY = [  # (commit date, files touched)
    ("2024-01-15T09:00:00+01:00", None),  # everything
    ("2024-03-02T14:30:00-05:00", ["docs/guide/install.md"]),
    ("2024-06-21T08:15:00+05:30", ["docs/reference/api.md", "docs/guide/über-uns.md"]),
    ("2025-02-10T17:45:00+00:00", ["docs/index.md"]),
]


def git(*args: str, when: str | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Example", "GIT_AUTHOR_EMAIL": "ex@example.invalid",
           "GIT_COMMITTER_NAME": "Example", "GIT_COMMITTER_EMAIL": "ex@example.invalid"}
    if when:
        env |= {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", *args], cwd=WORK, env=env, check=True, capture_output=True)


def make_history() -> None:
    shutil.copytree(HERE / "mkdocs-site", WORK)
    git("init", "-q", "-b", "main")
    (WORK / ".gitignore").write_text("site/\n.cache/\n")
    for number, (when, files) in enumerate(HISTORY):
        for name in files or []:
            with open(WORK / name, "a", encoding="utf-8") as f:
                f.write(f"\nRevised in commit {number}.\n")
        git("add", "-A")
        git("commit", "-q", "-m", f"docs: revision {number}", when=when)


def main() -> int:
    if not (WORK / ".git").exists():
        shutil.rmtree(WORK, ignore_errors=True)
        make_history()
        print(f"created {WORK} with a {len(HISTORY)}-commit git history")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=WORK,
                          capture_output=True, text=True)
    for line in done.stderr.splitlines():
        if "sitemapkit" in line or done.returncode:
            print(line)
    if done.returncode:
        return done.returncode
    site = WORK / "site"
    print(f"sitemap files in {site}:")
    for name in ("sitemap.xml", "sitemap.xml.gz", "robots.txt"):
        print(f"  {name}")
    print((site / "sitemap.xml").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
