"""What the replacement does against the generator's own sitemaps: every URL they
listed that sitemapkit leaves out, with its reason, and every page listed that they
did not. Written to the ``report`` file as JSON Lines, summed up on the terminal."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Collection
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import unquote

from ..._display import count
from ...errors import OutputError
from ...heads.meta import page_identity
from .floor import OldSitemap
from .scan import SINGULAR, UNREAD, Scan

NOT_IN_OUTPUT = "no page in the output at this URL"
# a file the generator's sitemap lists that the output holds but that is no HTML page
# (Eleventy's starter lists its feed.xml): sitemapkit lists pages, and says so
NOT_A_PAGE = "a file of the output that is no HTML page (a feed, a download)"
EXCLUDED = "excluded (exclude)"
UNSOURCED = "no source file (drop_unsourced)"
OTHER_BASE = "outside the base URL"
SIGNALS = frozenset(SINGULAR) - {UNREAD}  # a page that says it is not a page: not worse


@dataclass(frozen=True)
class Difference:
    url: str
    change: str  # "left out" (the generator listed it), "added" (it did not), or
    # "undated" (listed by both; the generator gave a lastmod, sitemapkit has none).
    # Beside those, on every run: "not listed" (a page of the output that no sitemap
    # lists, with its reason) and "undated" for every other URL without lastmod.
    reason: str
    page: str = ""  # its file in the output
    detail: str = ""  # the canonical it points to


KEPT = "listed by keep_unlisted; the generator's config leaves it out of its sitemap"


def differences(old: OldSitemap, listed: dict[str, str], found: Scan, base: str,
                unlisted: dict[str, tuple[str, str]], undated: dict[str, str],
                kept: Collection[str] = (), out: Path | None = None) -> list[Difference]:
    """``listed``: URL -> output path of each page written; ``unlisted``: page URL ->
    (output path, reason) for pages the scan kept that the options left out
    (``exclude``, ``drop_unsourced``); ``undated``: URL written without lastmod -> why;
    ``kept``: URLs listed by ``keep_unlisted`` that the generator built and left out;
    ``out``: the output folder, where a listed URL with no page may be another file."""
    unmatched = [loc for loc in old.locs if loc not in listed]  # exact first: the usual case
    ours = {page_identity(url) for url in listed} if unmatched else set()
    why = {page_identity(item.url): (item.path, item.reason, item.detail) for item in found.left}
    why.update({page_identity(url): (path, reason, "") for url, (path, reason) in
                unlisted.items()})
    result = []
    for loc in sorted(unmatched):
        key = page_identity(loc)
        if key in ours:
            continue
        if key not in why and not loc.endswith("/"):  # served as x.html (Jekyll's /404)
            key = page_identity(loc + ".html")
        path, reason, detail = why.get(key, ("", OTHER_BASE if not loc.startswith(base)
                                             else NOT_IN_OUTPUT, ""))
        if reason == NOT_IN_OUTPUT and out is not None and (file := _other_file(loc, base, out)):
            path, reason = file, NOT_A_PAGE
        result.append(Difference(loc, "left out", reason, path, detail))
    theirs: dict[object, bool] | None = None
    for url, path in listed.items():
        dated = old.locs.get(url)
        if dated is None:
            theirs = theirs or {page_identity(loc): d for loc, d in old.locs.items()}
            dated = theirs.get(page_identity(url))
        if dated is None:
            result.append(Difference(url, "added", KEPT if url in kept else
                                     "not in the generator's sitemap", path))
        elif dated and url in undated:
            result.append(Difference(url, "undated", f"{undated[url] or NO_SOURCE}"
                                     f"{FLOOR_DATED}", path))
    return result


FLOOR_DATED = "; the generator's sitemap gave one"


def _other_file(loc: str, base: str, out: Path) -> str:
    """The output file at ``loc`` when it is one and no HTML page, else ""."""
    relative = unquote(loc[len(base):].split("?", 1)[0].split("#", 1)[0])
    if not relative or relative.endswith((".html", ".htm", "/")) or ".." in relative.split("/"):
        return ""
    return relative if (out / relative).is_file() else ""


NO_SOURCE = "no source file found, so no lastmod"
NOT_LISTED = "not listed"  # a page of the output no sitemap lists, the generator's neither


def without_floor(found: Scan, unlisted: dict[str, tuple[str, str]],
                  undated: dict[str, tuple[str, str]]) -> list[Difference]:
    """What the report says beside the comparison with the generator's sitemap (all of
    it, where there is none: mdBook, or sitemapkit's own set): every page of the
    output not listed, and every URL written without lastmod, each with its reason.
    ``undated``: URL -> (output path, why)."""
    result = [Difference(item.url, NOT_LISTED, SINGULAR.get(item.reason, item.reason),
                         item.path, item.detail) for item in found.left]
    result += [Difference(url, NOT_LISTED, reason, path)
               for url, (path, reason) in unlisted.items()]
    result += [Difference(url, "undated", reason, path)
               for url, (path, reason) in undated.items()]
    return result


def summary(found: list[Difference], old: OldSitemap, generator: str, listed: int,
            report: str | None) -> tuple[list[str], list[str]]:
    """(notes, warnings). Fewer URLs than the generator listed, for reasons other than
    a page's own signals or the user's ``exclude``, is a warning; so is any URL it gave
    a lastmod that goes out without one."""
    notes: list[str] = []
    warnings: list[str] = []
    owner = possessive(generator)
    left = [d for d in found if d.change == "left out"]
    added = [d for d in found if d.change == "added" and d.reason != KEPT]
    where = f"; every one in {report}" if report else "; --report FILE lists every one"
    if left:
        by_reason = Counter(d.reason for d in left)
        parts = ", ".join(f"{n:,} {_label(reason, n)} (e.g. {_example(left, reason)})"
                          for reason, n in by_reason.most_common())
        text = f"{len(left):,} of the {len(old.locs):,} URLs {owner} {old.name} listed are left " \
               f"out: {parts}{where}"
        worse = [d for d in left if d.reason not in SIGNALS and
                 d.reason not in (EXCLUDED, NOT_A_PAGE)]
        (warnings if worse else notes).append(text)
    if added:
        verb = "is" if len(added) == 1 else "are"
        warnings.append(f"{count(len(added), 'page')} in the output {verb} not in {owner} "
                        f"{old.name}, e.g. {added[0].page}: stale files from an earlier "
                        f"build? (they are listed; build into a clean directory to drop "
                        f"them){where}")
    undated = [d for d in found if d.change == "undated"]
    if undated:
        why = undated[0].reason.removesuffix(FLOOR_DATED)
        fix = " (give --source, or --map)" if why == NO_SOURCE else ""
        warnings.append(f"{count(len(undated), 'URL')} that {owner} {old.name} gave a lastmod "
                        f"{'goes' if len(undated) == 1 else 'go'} out without one, e.g. "
                        f"{undated[0].page}: {why}{fix}{where}")
    if listed < len(old.locs) and not warnings:
        notes.append(f"{listed:,} URLs written where {owner} {old.name} listed {len(old.locs):,}, "
                     "each left out for its page's own signal or your exclude")
    return notes, warnings


def possessive(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


def _label(reason: str, n: int) -> str:
    return SINGULAR.get(reason, reason) if n == 1 and reason in SINGULAR else reason


def _example(left: list[Difference], reason: str) -> str:
    return next(d.page or d.url for d in left if d.reason == reason)


def write_report(path: str | os.PathLike[str], found: list[Difference]) -> None:
    """JSON Lines, one object per difference; written whole, then renamed in."""
    _write_lines(path, [json.dumps(asdict(d), ensure_ascii=False) for d in found])


def merge_reports(path: str | os.PathLike[str], parts: list[tuple[str, Path]]) -> None:
    """One report of a versioned run: every row of each version's report (``parts``:
    the version's name and its report file, if written), each with its ``version``."""
    lines = []
    for version, part in parts:
        if not part.is_file():
            continue
        for line in part.read_text(encoding="utf-8").splitlines():
            lines.append(json.dumps({"version": version, **json.loads(line)},
                                    ensure_ascii=False))
    _write_lines(path, lines)


def _write_lines(path: str | os.PathLike[str], lines: list[str]) -> None:
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(line + "\n")
        os.replace(temporary, target)
    except OSError as exc:
        raise OutputError(f"cannot write the report {path}: {exc.strerror or exc}") from None
