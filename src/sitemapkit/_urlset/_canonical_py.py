"""What the pure twin's fast path accepts as already canonical, value by value: a loc
under the prefix (percent-encoded where needed), a lastmod, a priority. Each answers
with the emitted form or None (the slow path decides). Part of the reference twin
(``_urlset_py``); ``ext/_canonical.pxi`` does the same in C."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from ..protocol import (
    ENTITY_IN_URL,
    MAX_LOC_LENGTH,
    MAX_UTC_OFFSET_MINUTES,
    PRIORITY_DECIMALS,
    URL_ENCODED,
    canonical_tail_pattern,
)
from ..rules.dates import format_offset

# Already percent-encoded ASCII URL characters that need no change (RFC 3986).
_CANONICAL_TAIL = re.compile(canonical_tail_pattern())
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DATETIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{2}:[0-9]{2}"
)
_ENCODE = frozenset(URL_ENCODED)
# Priorities exactly as rules.fields.normalize_priority writes them (no trailing zero).
_PRIORITY = re.compile(rf"0\.(?:0|[0-9]{{0,{PRIORITY_DECIMALS - 1}}}[1-9])|1\.0")
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MINUTE = timedelta(minutes=1)
_MAX_OFFSET = timedelta(minutes=MAX_UTC_OFFSET_MINUTES)


def encode_tail(loc: str, prefix: str) -> str | None:
    """Percent-encode non-ASCII (UTF-8) and unsafe ASCII after the prefix.

    None sends the entry to the slow path: wrong prefix, control character, lone
    surrogate, fragment, or too long once encoded. '%' is left for the scan.
    """
    if not loc.startswith(prefix):
        return None
    out = [prefix]
    for ch in loc[len(prefix):]:
        o = ord(ch)
        if o < 0x20 or 0x7F <= o <= 0x9F or 0xD800 <= o <= 0xDFFF or ch == "#":
            return None
        if o > 0x7F or ch in _ENCODE:
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8")))
        else:
            out.append(ch)
    encoded = "".join(out)
    return encoded if len(encoded) <= MAX_LOC_LENGTH else None


def canonical_loc(loc: str, prefix: str) -> bool:
    return (
        len(loc) <= MAX_LOC_LENGTH
        and loc.startswith(prefix)
        and _CANONICAL_TAIL.fullmatch(loc, len(prefix)) is not None
        and "/." not in loc[len(prefix) - 1 :]
        and ("&" not in loc or not ENTITY_IN_URL.search(loc))
    )


def _valid_date(text: str) -> bool:
    year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    if year < 1 or not 1 <= month <= 12 or day < 1:
        return False
    leap = month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return day <= _DAYS[month - 1] + leap


def canonical_lastmod(value: object) -> str | None:
    """The emitted form if ``value`` needs no parsing, else None (slow path)."""
    if type(value) is str:
        if len(value) == 10:
            return value if _DATE.fullmatch(value) and _valid_date(value) else None
        if len(value) != 25 or not _DATETIME.fullmatch(value) or not _valid_date(value):
            return None
        hour, minute, second = int(value[11:13]), int(value[14:16]), int(value[17:19])
        off_h, off_m = int(value[20:22]), int(value[23:25])
        offset = off_h * 60 + off_m
        if hour > 23 or minute > 59 or second > 59 or off_m > 59 or offset > MAX_UTC_OFFSET_MINUTES:
            return None
        if offset == 0 and value[19] == "-":  # canonical zero offset is +00:00
            return None
        return value
    if isinstance(value, datetime):
        delta = value.utcoffset()
        if delta is None or delta % _MINUTE or abs(delta) > _MAX_OFFSET:
            return None
        return (
            f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{value.hour:02d}:"
            f"{value.minute:02d}:{value.second:02d}{format_offset(int(delta / _MINUTE))}"
        )
    if isinstance(value, date):
        return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    return None


def canonical_priority(value: object) -> str | None:
    """The emitted form of a priority that needs no Decimal arithmetic, else None: a
    canonical string ("0.5", "0.125", "1.0"), a float whose repr is one, or int 0/1."""
    if type(value) is str:
        return value if _PRIORITY.fullmatch(value) else None
    if type(value) is float:
        text = repr(value)
        return text if _PRIORITY.fullmatch(text) else None
    if type(value) is int and value in (0, 1):
        return f"{value}.0"
    return None
