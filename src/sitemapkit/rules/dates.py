"""lastmod rules: W3C Datetime forms, a UTC offset with any time, the future limit
(rules 16-18); ``lastmod_key`` orders canonical values in UTC seconds."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from ..protocol import MAX_UTC_OFFSET_MINUTES
from .model import EntryError

_W3C = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
    r"(?:T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:(Z)|([+-])([0-9]{2}):([0-9]{2})))?"
)
_MAX_OFFSET = MAX_UTC_OFFSET_MINUTES


def format_offset(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _format_datetime(dt: datetime, value: object) -> str:
    offset = dt.utcoffset()
    if offset is None:
        raise EntryError("lastmod-timezone", "lastmod", value, "naive datetime")
    seconds = int(offset.total_seconds())
    if offset % timedelta(minutes=1) or abs(seconds) > _MAX_OFFSET * 60:
        raise EntryError("lastmod-format", "lastmod", value, f"UTC offset {offset}")
    return (
        f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:"
        f"{dt.second:02d}{format_offset(seconds // 60)}"
    )


def _parse_w3c(text: str, value: object) -> str:
    m = _W3C.fullmatch(text)
    if not m:
        detail = "no UTC offset" if re.fullmatch(r"[0-9-]+T[0-9:.]+", text) else ""
        raise EntryError("lastmod-timezone" if detail else "lastmod-format", "lastmod", value,
                         detail)
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    try:
        date(year, month, day)
    except ValueError as exc:
        raise EntryError("lastmod-format", "lastmod", value, str(exc)) from None
    if m[4] is None:
        return text
    hour, minute, second = int(m[4]), int(m[5]), int(m[6])
    if hour > 23 or minute > 59 or second > 59:
        raise EntryError("lastmod-format", "lastmod", value, "time out of range")
    offset = 0
    if m[7] is None:
        oh, om = int(m[9]), int(m[10])
        offset = (oh * 60 + om) * (-1 if m[8] == "-" else 1)
        if om > 59 or abs(offset) > _MAX_OFFSET:
            raise EntryError("lastmod-format", "lastmod", value, "UTC offset out of range")
    return f"{text[:19]}{format_offset(offset)}"


def normalize_lastmod(value: object, future_limit: int | None) -> str | None:
    """Canonical 'YYYY-MM-DD' or 'YYYY-MM-DDThh:mm:ss+hh:mm'; checks the future limit."""
    if value is None:
        return None
    if isinstance(value, datetime):
        text = _format_datetime(value, value)
    elif isinstance(value, date):
        text = f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    elif isinstance(value, str):
        text = _parse_w3c(value.strip(" \t"), value)
    else:
        raise EntryError("lastmod-type", "lastmod", value)
    if future_limit is not None and lastmod_key(text) > future_limit:
        raise EntryError("lastmod-future", "lastmod", value)
    return text


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 (H. Hinnant's algorithm; the C twin uses the same)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def lastmod_key(text: str) -> int:
    """UTC seconds of a canonical lastmod (a date counts as its midnight UTC)."""
    days = days_from_civil(int(text[0:4]), int(text[5:7]), int(text[8:10]))
    if len(text) == 10:
        return days * 86400
    secs = int(text[11:13]) * 3600 + int(text[14:16]) * 60 + int(text[17:19])
    offset = (int(text[20:22]) * 60 + int(text[23:25])) * 60
    return days * 86400 + secs - (offset if text[19] == "+" else -offset)


@dataclass
class DateSpread:
    """A file's lastmods as rule 17 reads them: how many, whether they fall on more than
    one calendar day (one day for all looks like a build date), and the newest."""

    dated: int = 0
    day: str | None = None  # the day of every lastmod so far, while there is only one
    many_days: bool = False
    newest_key: int = -(2**62)
    newest: str | None = None

    def add(self, canonical: str, key: int) -> bool:
        """Count one canonical lastmod (``key``: its UTC seconds); True if it is the newest."""
        self.dated += 1
        if self.day is None:
            self.day = canonical[:10]
        elif not self.many_days and canonical[:10] != self.day:
            self.many_days = True
        if key <= self.newest_key:
            return False
        self.newest_key, self.newest = key, canonical
        return True

    def fields(self) -> tuple[int, str | None, bool, int, str | None]:
        """What the hot unit's scan carries on from (``UrlScan.load``) and hands back."""
        return self.dated, self.day, self.many_days, self.newest_key, self.newest
