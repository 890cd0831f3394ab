"""changefreq and priority rules, and ``normalize_entry``: the slow path both writer
twins send every entry that is not already canonical."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from ..protocol import CHANGEFREQS, PRIORITY_DECIMALS
from .dates import normalize_lastmod
from .hreflang import check_cluster, normalize_alternates
from .model import EntryError, Normalized, as_url_entry
from .urls import normalize_loc

_QUANTUM = Decimal(1).scaleb(-PRIORITY_DECIMALS)  # the finest priority step kept


def normalize_changefreq(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in CHANGEFREQS:
        raise EntryError("changefreq", "changefreq", value)
    return value


def normalize_priority(value: object) -> str | None:
    """Canonical decimal text: '0.5', '1.0', '0.85' (at most 3 decimals kept as given)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        raise EntryError("priority", "priority", value)
    try:
        number = Decimal(value.strip() if isinstance(value, str) else str(value))
    except InvalidOperation:
        raise EntryError("priority", "priority", value) from None
    if not number.is_finite() or not 0 <= number <= 1:
        raise EntryError("priority", "priority", value)
    if number != number.quantize(_QUANTUM):
        raise EntryError("priority", "priority", value, f"more than {PRIORITY_DECIMALS} decimals")
    text = format(number.normalize(), "f")
    return text if "." in text else text + ".0"


def normalize_entry(entry: object, base_prefix: str, future_limit: int | None) -> Normalized:
    """The slow path: validate every field and return canonical strings."""
    e = as_url_entry(entry)
    loc = normalize_loc(e.loc, base_prefix)
    alternates = normalize_alternates(e.alternates)
    check_cluster(loc, alternates)
    return Normalized(
        loc,
        normalize_lastmod(e.lastmod, future_limit),
        normalize_changefreq(e.changefreq),
        normalize_priority(e.priority),
        alternates,
    )
