"""Checks over a whole output directory rather than one file: whether it is a built
site, whether a .gz holds exactly its plain twin, and hreflang clusters across files."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from .._files import open_unpacked, read_regular
from ..protocol import MAX_BYTES
from .clusters import ClusterRecall, ClusterRecord
from .findings import Report
from .state import RunState
from .xmlfile import XmlCheck


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
        with open_unpacked(gz_path, True) as fh:
            data = fh.read(MAX_BYTES + 1)
        return data == read_regular(plain, MAX_BYTES + 1)
    except (OSError, EOFError, zlib.error):
        return False


def check_clusters(state: RunState) -> None:
    """Rule 36 across files: every member carries the same set and lists the others.
    The record says which sets are broken; the files with clusters are read again
    (findings of that reading dropped) for the members and hrefs to name."""
    record = state.clusters
    assert isinstance(record, ClusterRecord)
    broken = record.broken()
    if not broken:
        return
    recall = ClusterRecall(record, broken)
    again = RunState(Report(), state.max_bytes, state.future_limit, state.allow_namespaces,
                     scan_unit=state.scan_unit, clusters=recall)
    if state.scan_unit is not None:
        again.seen = state.scan_unit.LocSet(tagged=True)
    for file_no in sorted(record.file_nos):
        path, scope = state.sources[file_no]
        recall.name = state.file_names[file_no]
        urls = XmlCheck(path, recall.name, again, scope).run().urls
        first = state.report.results.get(path)
        if first is None or first.urls != urls:  # never a silent gap in the findings
            state.report.notes.append(f"{recall.name} changed while it was validated "
                                      f"({first.urls if first else 0:,} URLs, then {urls:,}): "
                                      "its hreflang cluster findings (rule 36) may be "
                                      "incomplete; validate again")
    report, members = state.report, record.members
    for member, (cluster, d, name, line) in recall.members():
        for href in dict.fromkeys(href for _, href in cluster):  # x-default often repeats one
            if href == member:
                continue
            other = members.get(href)
            if other < 0:
                if href in state.seen:
                    report.add("error", "hreflang-cluster", name, line,
                               f"{member} lists {href} as an alternate, but {href} is in the "
                               "sitemaps without alternates; both must point to each other")
                else:
                    report.add("warning", "hreflang-unlisted", name, line,
                               f"alternate {href} is in no sitemap here; reciprocity cannot "
                               "be checked")
            elif other >> 1 != d:
                report.add("error", "hreflang-cluster", name, line,
                           f"{member} and its alternate {href} list different alternates; "
                           "every member must carry the same set")
