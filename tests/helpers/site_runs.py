"""``sitemapkit site`` as the README writes it, from a project's root, for the tests of
real generator builds: the run (with a report and ``--validate strict``) and what it
wrote (held against ``validate``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sitemap_check import read_set
from summaries import keep

from sitemapkit.validate import ValidateOptions, validate


def site_here(project: Path, out: str, *args: str, code: int = 0
              ) -> tuple[str, list[dict[str, str]]]:
    """``sitemapkit site OUT`` from the project's root, with a report and --validate
    strict: (its stderr, the report's rows); its exit status must be ``code``."""
    report = project.parent / f"{project.name}-report.jsonl"
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", out, "--report",
                           str(report), "--validate", "strict", *args], cwd=project,
                          capture_output=True, text=True, timeout=600)
    keep(done, project)
    assert done.returncode == code, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    rows = [json.loads(line) for line in report.read_text().splitlines()] \
        if report.exists() else []
    return done.stderr, rows


def written(out: Path, base: str) -> dict[str, str | None]:
    """loc -> lastmod of the set in ``out``, which ``validate`` finds valid."""
    got = {u.loc: u.lastmod for u in read_set(out, base).urls}
    found = validate([out], ValidateOptions(base_url=base))
    assert found.ok(), "\n".join(f.text() for f in found.findings)
    return got
