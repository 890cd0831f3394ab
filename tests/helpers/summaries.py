"""The summaries of real ``sitemapkit site`` runs, kept for docs/generators.md: with
``SITEMAPKIT_SUMMARIES=FILE`` set, each run a generator test makes is appended to FILE
as one JSON line (the test, the command, what it printed), its temporary folder
written as ``…``. The docs quote them; regenerate them with the command there."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path


def keep(done: subprocess.CompletedProcess[str], where: Path) -> None:
    target = os.environ.get("SITEMAPKIT_SUMMARIES")
    if not target:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
    root = str(where)
    args = [str(a) for a in done.args]
    command = " ".join(["sitemapkit", *args[3:]]).replace(root + "/", "").replace(root, ".")
    printed = (done.stdout + done.stderr).replace(root + "/", "").replace(root, ".")
    with open(target, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"test": test, "command": command, "printed": printed}) + "\n")
