"""The scale-out suites' data: 16 partitions of URLs where every 20th row of a
partition repeats a URL that lives in the next partition (5% duplicated across
partitions), so only a global duplicate check writes each URL once. 320,000 rows: each
partition spans a shard boundary and the set has several shards, which is all the
properties need; SITEMAPKIT_SCALEOUT_ROWS runs them at any size (2,000,000 before)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

BASE = "https://shop.example.com/"
PARTITIONS = 16


def rows_per_partition() -> int:
    """320,000 rows in all unless SITEMAPKIT_SCALEOUT_ROWS says (a multiple of 20)."""
    total = int(os.environ.get("SITEMAPKIT_SCALEOUT_ROWS", 320_000))
    return max(20, total // PARTITIONS // 20 * 20)


def _own(part: int, row: int) -> str:
    return f"{BASE}item/{part}/{row}?c=a&d='x'" if row % 7 == 0 else f"{BASE}item/{part}/{row}"


def loc(part: int, row: int) -> str:
    """Row 0, 20, 40 ... repeat the next partition's row 1, 21, 41 ..."""
    if row % 20 == 0:
        return _own((part + 1) % PARTITIONS, row + 1)
    return _own(part, row)


def frame(part: int) -> Any:
    """One partition as a pandas DataFrame (lastmod tz-aware for some partitions)."""
    import pandas as pd

    n = rows_per_partition()
    data = pd.DataFrame({"loc": [loc(part, r) for r in range(n)],
                         "changefreq": ["daily" if r % 3 else None for r in range(n)]})
    data["lastmod"] = pd.Timestamp(f"2024-02-{part + 1:02d}T08:00:00", tz="UTC")
    return data[["loc", "lastmod", "changefreq"]]


def expected_urls() -> int:
    n = rows_per_partition()
    return PARTITIONS * (n - len(range(0, n, 20)))


def expected_duplicates() -> int:
    return PARTITIONS * len(range(0, rows_per_partition(), 20))


class KillsItsWorker(Mapping[str, Any]):
    """An entry whose loc, read for the first time anywhere, kills the process reading
    it (a worker lost mid-task); ``always`` kills every attempt."""

    def __init__(self, loc: str, marker: str, always: bool = False) -> None:
        self.loc, self.marker, self.always = loc, marker, always

    def __getitem__(self, key: str) -> Any:
        if key != "loc":
            raise KeyError(key)
        if self.always or not os.path.exists(self.marker):
            with open(self.marker, "a") as fh:
                fh.write("killed\n")
            os._exit(1)
        return self.loc

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(("loc",))

    def __len__(self) -> int:
        return 1
