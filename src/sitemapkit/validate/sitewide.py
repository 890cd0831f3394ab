"""Checks over a whole output directory rather than one file: whether it is a built
site, whether a .gz holds exactly its plain twin, and hreflang clusters across files."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

from ..protocol import MAX_BYTES
from .state import RunState


def has_html(root: Path) -> bool:
    """Whether a directory is a built site (any .html below it), stopping at the first."""
    for _, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        if any(name.endswith((".html", ".htm")) for name in filenames):
            return True
    return False


def same_content(gz_path: Path, plain: Path) -> bool:
    try:
        if gz_path.stat().st_size > MAX_BYTES:
            return False
        with gzip.open(gz_path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
        return data == plain.read_bytes()
    except (OSError, EOFError):
        return False


def check_clusters(state: RunState) -> None:
    """Rule 36 across files: every member carries the same set and lists the others."""
    clusters, report = state.clusters, state.report
    agreed: dict[int, bool] = {}  # id of a (pooled) cluster -> every href is its member
    for member, cluster in clusters.items():
        ok = agreed.get(id(cluster))
        if ok is None:
            ok = agreed[id(cluster)] = all(clusters.get(href) is cluster for _, href in cluster)
        if ok:  # equal clusters are one object (RunState.add_cluster): nothing to say
            continue
        name, line = state.cluster_line(member)
        for href in dict.fromkeys(href for _, href in cluster):  # x-default often repeats one
            if href == member:
                continue
            other = clusters.get(href)
            if other is None:
                if href in state.seen:
                    report.add("error", "hreflang-cluster", name, line,
                               f"{member} lists {href} as an alternate, but {href} is in the "
                               "sitemaps without alternates; both must point to each other")
                else:
                    report.add("warning", "hreflang-unlisted", name, line,
                               f"alternate {href} is in no sitemap here; reciprocity cannot "
                               "be checked")
            elif other != cluster:
                report.add("error", "hreflang-cluster", name, line,
                           f"{member} and its alternate {href} list different alternates; "
                           "every member must carry the same set")
