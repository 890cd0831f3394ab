"""JavaScript configs, loaded by the generator's own loader. A JS config is code
(presets, imports, ``process.env``), so a regular expression over it guesses. A small
script shipped in ``sitemapkit/data/<generator>/`` imports the generator's loader from
the project's own ``node_modules`` (the site was just built, so it is there), runs it
with this run's environment, and prints the resolved values as one JSON line."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from ...errors import ConfigError

DATA = Path(__file__).resolve().parents[2] / "data"
LOAD_SECONDS = 60  # a config and what it imports, loaded by the generator's own loader


def load(generator: str, script: str, config: Path, *args: str) -> dict[str, Any] | str:
    """The values ``DATA/script`` prints for ``config`` (run with ``args``, from the
    config's folder), or why the generator could not be asked (no node, the generator
    not installed, a deadline). A config that throws is an error naming it: the build
    would have failed on it too. Each config is loaded once a process."""
    try:
        stamp = config.stat().st_mtime
    except OSError:
        stamp = 0.0
    return _load(generator, script, str(config), stamp, args)


@functools.cache
def _load(generator: str, script: str, config: str, stamp: float, args: tuple[str, ...]
          ) -> dict[str, Any] | str:
    node = shutil.which("node")
    if node is None:
        return "no node on PATH to load it with"
    try:
        done = subprocess.run([node, str(DATA / script), *args], cwd=Path(config).parent,
                              capture_output=True, timeout=LOAD_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        return f"loading it took over {LOAD_SECONDS} s"
    except OSError as exc:
        return f"node could not be run ({exc})"
    answer: dict[str, Any] = {}
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, dict):
            answer = found
    if "error" in answer:
        raise ConfigError(f"{generator} could not load {config}: {answer['error']}; nothing "
                          "was written (the build fails on it too)")
    if "missing" in answer:
        return f"{generator} is not installed where {Path(args[-1])} finds its packages"
    if not answer:
        words = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"node failed ({words[-1] if words else done.returncode})"
    return answer


def read_as_written(generator: str, config: Path, why: str, keys: str) -> str:
    """The warning for a config read as written: what the generator could not be
    asked, and what the file as written misses."""
    return f"{generator} could not be asked for its config ({why}): {keys} are read from " \
        f"{config.name} as written, which misses presets, imports and environment variables"
