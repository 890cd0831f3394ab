"""Deterministic synthetic data for the benchmarks (built outside the timed region).

The issue's mix: about 10% of locs need XML escaping, 5% are non-ASCII (raw, so
they need percent-encoding), every entry has a lastmod (half aware datetimes
as git gives them, half W3C strings as files give them).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

from sitemapkit import UrlEntry

BASE = "https://docs.example.com/project/"
ZONES = [timezone.utc, timezone(timedelta(hours=-5)), timezone(timedelta(hours=5, minutes=30))]


def make_entries(n: int, seed: int = 42) -> list[UrlEntry]:
    return list(iter_entries(n, seed))


def iter_entries(n: int, seed: int = 42) -> Iterator[UrlEntry]:
    """The same entries, made lazily (for memory measurements)."""
    rng = random.Random(seed)
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    for i in range(n):
        roll = rng.random()
        section = f"section-{i % 97}/topic-{i % 1013}"
        if roll < 0.10:
            path = f"{section}/search?q=page-{i}&lang=en&o'k=1"
        elif roll < 0.15:
            path = f"{section}/über-straße-{i}.html"
        else:
            path = f"{section}/page-{i}.html"
        when = (start + timedelta(seconds=rng.randrange(150_000_000))).astimezone(
            ZONES[i % 3])
        lastmod = when if i % 2 else when.isoformat(timespec="seconds")
        yield UrlEntry(BASE + path, lastmod)
