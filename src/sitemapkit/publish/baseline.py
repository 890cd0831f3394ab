"""The earlier set a run is compared with, to say what changed and what IndexNow is
sent: the folder, file or URL the user names (``changes_from``), else the lastmod record
this machine kept, else the live site (the entry point at the base URL). A CI build
from a fresh checkout has no record; the deployed site is the one always there."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import FetchError, InputError
from ..write.changes import LastmodRecord
from .readback import Listed, Record, read_record
from .settings import PublishSettings

LIVE, LOCAL = "live", "local"  # changes_from's two words; anything else names a record
NOT_PUBLISHED = (404, 410)  # the live site has no set yet: a first deploy


@dataclass
class Baseline:
    """What was read (None when nothing could be) and where it was looked for."""

    tried: str
    record: Record | None = None
    why: str = ""  # why nothing was read
    first: bool = False  # nothing there yet (HTTP 404/410, no local record): no failure
    local: bool = False  # the local lastmod record, which the writer compares with itself

    def lastmods(self) -> dict[str, str]:
        return {loc: listed.lastmod or "" for loc, listed in
                (self.record.urls.items() if self.record else ())}

    def note(self) -> str:
        """Where the comparison came from, or why there was none."""
        if self.record is not None:
            return f"compared with {self.tried} ({len(self.record.urls):,} URLs)"
        return self.why


def wanted(settings: PublishSettings) -> bool:
    """Something in this run needs an earlier set (the human view shows what changed
    only when one is read for these: it never fetches the live site alone)."""
    return bool(settings.indexnow or settings.changes_report or
                settings.changes_from not in (None, LOCAL))


def read_baseline(settings: PublishSettings, entry_url: str,
                  local: LastmodRecord | None) -> Baseline | None:
    """The earlier set, read before this run writes anything (a folder named may be the
    output itself); None when nothing needs one or only the local record is wanted and
    there is none."""
    source = settings.changes_from
    if not wanted(settings):
        return None
    if source in (None, LOCAL):
        previous = local.previous() if local is not None else None
        if local is not None and previous is not None:
            record = Record(str(local.path), alternates_known=False)
            record.urls = {loc: Listed(lastmod or None) for loc, lastmod in previous.items()}
            return Baseline(record.where, record, local=True)
        if source == LOCAL:
            return Baseline("", why="first run here, so the lastmod record was started",
                            first=True)
    where = entry_url if source in (None, LIVE) else str(source)
    try:
        return Baseline(where, read_record(where))
    except FetchError as exc:
        first = exc.status in NOT_PUBLISHED
        return Baseline(where, why=f"no earlier set: {exc}" +
                        (" (nothing published there yet: a first deploy)" if first else ""),
                        first=first)
    except InputError as exc:
        return Baseline(where, why=f"no earlier set: {exc}")
