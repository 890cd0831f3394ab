"""Property tests across the twins (yarl-style): identical bytes, exact round trip."""

from __future__ import annotations

import tempfile
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sitemap_check import read_set

from conftest import BASE, snapshot
from sitemapkit import EntryError, NoUrlsError, UrlEntry
from sitemapkit.protocol import CHANGEFREQS
from sitemapkit.rules import normalize_entry

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
FUTURE_LIMIT = int(NOW.timestamp()) + 86_400

SPECIALS = ["&", "'", "<", ">", '"', "%", "#", "/", ".", "..", "?", "=", " ", "\x00", "\x1f",
            "\x7f", "\x85", "é", "ü", "€", "😀", "\ufeff", "\ufffe", "\uffff", "\ud800",
            "%C3%BC", "%c3", "]]>", "/./", "/../", "&amp;", "\t"]
pieces = st.one_of(st.sampled_from(SPECIALS),
                   st.text(st.characters(codec=None, exclude_categories=()), max_size=6),
                   st.text("abcXYZ019-_~", min_size=1, max_size=8))
paths = st.lists(pieces, max_size=8).map("".join)
locs = st.one_of(
    paths.map(lambda p: BASE + p),
    paths.map(lambda p: "https://EXAMPLE.com:443/docs/" + p),
    paths.map(lambda p: "https://other.example/" + p),
    paths,
)
offsets = st.integers(-14 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m)))


@st.composite
def w3c_strings(draw):
    """Near-canonical W3C strings: every component just inside or just outside its range."""
    def two(lo, hi):
        return f"{draw(st.integers(lo, hi)):02d}"

    text = f"{draw(st.integers(0, 2026)):04d}-{two(0, 13)}-{two(0, 32)}"
    if draw(st.booleans()):
        text += f"T{two(0, 24)}:{two(0, 60)}:{two(0, 60)}"
        text += draw(st.sampled_from(["", ".5", ".123456"]))
        text += draw(st.one_of(st.just("Z"), st.just(""),
                               st.tuples(st.sampled_from("+-"),
                                         st.sampled_from([0, 0, 1, 5, 13, 14, 15]),
                                         st.sampled_from([0, 0, 1, 30, 45, 59, 60])).map(
                                   lambda t: f"{t[0]}{t[1]:02d}:{t[2]:02d}")))
    return text


lastmods = st.one_of(
    st.none(),
    w3c_strings(),
    w3c_strings(),
    st.dates(min_value=date(1, 1, 1), max_value=date(2026, 1, 1)),
    st.datetimes(max_value=datetime(2026, 1, 1), timezones=offsets),
    st.datetimes(max_value=datetime(2026, 1, 1)),  # naive: an error
    st.datetimes(max_value=datetime(2026, 1, 1), timezones=offsets).map(
        lambda d: d.isoformat(timespec="seconds")),
    st.text(max_size=30),
    st.sampled_from(["2024-02-29", "2023-02-29", "2024-01-02T03:04:05Z", "2024-01-02Z",
                     "2024-01-02T03:04:05-00:00", "2027-01-01", "2026-01-02T00:00:00+00:00",
                     "2026-01-02T00:00:01+00:00"]),
)
# Mostly-canonical paths reach the fast path; the rest exercise the slow path.
safe_paths = st.text("abcXYZ019-_~/.&'%ACF=?", max_size=20)
priorities = st.one_of(
    st.none(), st.floats(-0.5, 1.5), st.integers(-1, 2), st.booleans(),
    st.sampled_from(["0.5", "x", "0.50", "1.0", "1", "0", "0.0", "0.125", "0.1250", "1.00",
                     "0.05", " 0.5", "-0.0", "0.", ".5", "0.5e0", "٠.٥"]),
    st.floats(0, 1).map(lambda f: round(f, 3)), st.decimals(0, 1, places=3))
changefreqs = st.one_of(st.none(), st.sampled_from(sorted(CHANGEFREQS) + ["Daily", ""]))
mappings = st.fixed_dictionaries(
    {"loc": st.one_of(locs, safe_paths.map(lambda p: BASE + p))},
    optional={"lastmod": lastmods, "changefreq": changefreqs, "priority": priorities,
              "alternates": st.just([]), "unknown": st.just(1)})
entries = st.lists(
    st.one_of(
        locs,
        safe_paths.map(lambda p: BASE + p),
        st.builds(UrlEntry, locs, lastmods, changefreqs, priorities),
        st.builds(UrlEntry, safe_paths.map(lambda p: BASE + p), st.none(), changefreqs,
                  priorities),
        mappings,
        st.builds(UrlEntry, safe_paths.map(lambda p: BASE + p), lastmods,
                  st.one_of(st.none(), st.none(), st.sampled_from(sorted(CHANGEFREQS)))),
    ),
    max_size=12,
)
FAST = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def outcome(impl, items, on_invalid):
    """Files written (or the error text) by one twin."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        try:
            result = impl.write(items, out, BASE, max_urls=4, now=NOW, on_invalid=on_invalid)
        except (EntryError, NoUrlsError) as exc:
            return ("error", str(exc))
        files = {k: v for k, v in snapshot(out).items() if not k.startswith(".")}
        locs = read_set(out, BASE, max_urls=4).locs
        report = [(e.position, e.rule, str(e)) for e in result.skipped]
        return ("ok", files, locs, report, result.duplicates)


def expected_locs(items):
    seen, out = set(), []
    for item in items:
        try:
            loc = normalize_entry(item, BASE, FUTURE_LIMIT).loc
        except EntryError:
            continue
        if loc not in seen:
            seen.add(loc)
            out.append(loc)
    return out


@FAST
@given(items=entries)
def test_twins_give_identical_bytes_or_identical_errors(both_impls, items):
    for on_invalid in ("error", "skip"):
        results = [outcome(impl, items, on_invalid) for impl in both_impls]
        assert all(r == results[0] for r in results)


@FAST
@given(items=entries)
def test_round_trip_gives_the_normalised_locs_in_order(impl, items):
    result = outcome(impl, items, "skip")
    if result[0] == "error":
        assert not expected_locs(items)
    else:
        assert result[2] == expected_locs(items)


def fast_and_slow(impl, item):
    """Bytes from the fast path and from the shared rules, or None if not fast."""
    m = impl.module
    fast = m.UrlsetBuffer(BASE, 10, 100_000, m.LocSet(), FUTURE_LIMIT)
    status = fast.offer(item)
    if status != m.ADDED:
        return status, None
    slow = m.UrlsetBuffer(BASE, 10, 100_000, m.LocSet(), FUTURE_LIMIT)
    assert slow.add(*normalize_entry(item, BASE, FUTURE_LIMIT)) == m.ADDED
    assert fast.getvalue() == slow.getvalue()
    return status, fast.getvalue()


MANY = settings(max_examples=3000, deadline=None)


@MANY
@given(lastmod=lastmods)
def test_lastmod_fast_path_is_identical_across_twins(both_impls, lastmod):
    item = UrlEntry(BASE + "page", lastmod)
    results = [fast_and_slow(impl, item) for impl in both_impls]
    assert all(r == results[0] for r in results)


@MANY
@given(loc=st.one_of(locs, safe_paths.map(lambda p: BASE + p)))
def test_loc_fast_path_is_identical_across_twins(both_impls, loc):
    results = [fast_and_slow(impl, loc) for impl in both_impls]
    assert all(r == results[0] for r in results)


@settings(max_examples=1000, deadline=None)
@given(item=entries.filter(bool).map(lambda e: e[0]))
def test_fast_path_accepts_only_what_the_rules_leave_unchanged(both_impls, item):
    results = [fast_and_slow(impl, item) for impl in both_impls]
    assert all(r == results[0] for r in results)
