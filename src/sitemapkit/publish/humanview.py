"""A sitemap people can read: plain HTML beside the sitemaps, since browsers are
removing XSLT (an XSL-styled sitemap already gets a red banner in Chromium 156).

``sitemap.html`` lists every URL with its lastmod and language alternates, grouped by
the first folder of its path, with a filter box and sortable columns. It needs nothing
outside itself (no script, style or font is fetched), so it works from ``file://`` as
on the site. A set of several shards gets one page per shard (``sitemap-view-NNNNN.html``,
at most 50,000 URLs each, quick to open) and ``sitemap.html`` becomes their index.
When an earlier set was read, each URL says whether it is new or re-dated, and the
URLs removed are listed. The pages are noindex and carry a generator mark, so ``site``
never takes them for pages of the site; nothing links to them unless the user does.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from pathlib import Path

from .._display import count
from .._files import HUMAN_VIEW_MARK, atomic_write
from .readback import Listed, Record
from .setdiff import SetDiff

VIEW = "sitemap.html"
SHARD_VIEW = "sitemap-view-{:05d}.html"
_SHARD_GLOB = "sitemap-view-*.html"

MARK_WITHIN = 1 << 12  # a view page's mark is in its first bytes (the head)
CHUNK = 250  # rows per table: off-screen chunks are not laid out (content-visibility)
ROW_PX = 27  # a row's height, for the size an unrendered chunk takes

# One table per chunk of rows, each in a box the browser skips while it is off screen:
# 50,000 rows in one table take Chromium 3.2 s to show, in chunks 0.5 s (measured on
# the benchmark's page). The columns are fixed, so every chunk lines up with the header.
_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:78rem;padding:0 1rem;
color:#1b1b1b;background:#fff}
h1{font-size:1.35rem;margin:0 0 .3rem}h2{font-size:1.05rem;margin:1.4rem 0 .3rem}
p.meta{color:#555;margin:.2rem 0 .8rem}
input{font:inherit;padding:.35rem .5rem;width:24rem;max-width:100%;margin:.4rem .6rem .4rem 0}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{text-align:left;padding:.18rem .45rem;border-bottom:1px solid #e4e4e4;
overflow-wrap:anywhere;vertical-align:top;height:1.2rem}
th{cursor:pointer;background:#f4f4f4;user-select:none}th[data-dir]::after{content:" \\2195"}
col.u{width:58%}col.d{width:17%}col.l{width:14%}col.c{width:11%}
.k{content-visibility:auto}
a{color:#0b57d0;text-decoration:none}a:hover{text-decoration:underline}
tr.new td:last-child{color:#137333}tr.redated td:last-child{color:#b06000}
.removed li{color:#a50e0e}
@media (prefers-color-scheme:dark){body{background:#151515;color:#e6e6e6}
th{background:#262626}th,td{border-color:#333}a{color:#8ab4f8}p.meta{color:#aaa}}
"""

# Filter on any text of a row (a chunk, and a section, with no row left is hidden);
# sort a section's rows by the column clicked, then deal them back into its chunks.
_SCRIPT = """
(function(){
var q=document.getElementById("q"),only=document.getElementById("changed"),
shown=document.getElementById("shown");
function apply(){var t=q.value.toLowerCase(),c=only&&only.checked,n=0,
ks=document.querySelectorAll(".k");for(var i=0;i<ks.length;i++){var rs=ks[i].
getElementsByTagName("tr"),m=0;for(var j=0;j<rs.length;j++){var r=rs[j],ok=(!t||r.
textContent.toLowerCase().indexOf(t)>=0)&&(!c||r.className);r.hidden=!ok;if(ok)m++}
ks[i].hidden=!m;n+=m}var s=document.querySelectorAll("section.rows");for(i=0;i<s.length;i++)
s[i].hidden=!s[i].querySelector(".k:not([hidden])");shown.textContent=n.toLocaleString()}
q.addEventListener("input",apply);if(only)only.addEventListener("change",apply);
document.addEventListener("click",function(e){var th=e.target.closest("th");if(!th)return;
var sec=th.closest("section"),k=th.cellIndex,up=th.dataset.dir!=="a",
bs=sec.querySelectorAll(".k tbody"),rs=[];th.dataset.dir=up?"a":"d";
for(var i=0;i<bs.length;i++)rs.push.apply(rs,bs[i].rows);
rs.sort(function(a,b){var x=a.cells[k].textContent,y=b.cells[k].textContent;
return up?x.localeCompare(y):y.localeCompare(x)});
for(i=0;i<rs.length;i++)bs[Math.floor(i/CHUNK)].appendChild(rs[i]);
var all=th.parentNode.cells;for(i=0;i<all.length;i++)if(all[i]!==th)
all[i].removeAttribute("data-dir")});
})();
""".replace("CHUNK", str(CHUNK))


def write_human_view(out: Path, base: str, written: Record, diff: SetDiff | None) -> list[str]:
    """Write the view of the set just written into ``out`` (``written``: read back,
    file by file); return the notes to show. View pages of an earlier, larger set are
    removed, but only files that carry the view's generator mark."""
    changes = _changes(diff)
    shards = [(name, urls) for name, urls in written.by_file() if urls]
    pages: list[str] = []
    if len(shards) <= 1:
        _write(out / VIEW, _page(base, written.urls, changes, diff, None))
        pages.append(VIEW)
    else:
        rows = []
        for number, (name, urls) in enumerate(shards, 1):
            page = SHARD_VIEW.format(number)
            _write(out / page, _page(base, urls, changes, diff, (number, name)))
            pages.append(page)
            rows.append((page, name, urls))
        _write(out / VIEW, _index(base, rows, changes, diff))
        pages.insert(0, VIEW)
    stale = _stale_pages(out, set(pages))
    for path in stale:
        path.unlink()
    return [f"human view: {VIEW} ({count(len(pages), 'page')}) beside the sitemaps; link it "
            "from your site if people should find it" +
            (f"; {len(stale):,} older view pages removed" if stale else "")]


def _changes(diff: SetDiff | None) -> dict[str, str]:
    """loc -> what changed, for the rows' last column."""
    if diff is None:
        return {}
    found = dict.fromkeys(diff.added, "new")
    for loc, before, _after in diff.redated:
        found[loc] = f"re-dated (was {before or 'none'})"
    return found


def _write(path: Path, text: str) -> None:
    atomic_write(path, text.encode("utf-8"))


def _stale_pages(out: Path, keep: set[str]) -> list[Path]:
    """Shard view pages of an earlier run: ours by name and by the mark in their head."""
    stale = []
    for path in sorted(out.glob(_SHARD_GLOB)):
        if path.name in keep or not path.is_file() or path.is_symlink():
            continue
        with open(path, "rb") as fh:
            if HUMAN_VIEW_MARK.encode() in fh.read(MARK_WITHIN):
                stale.append(path)
    return stale


def _head(title: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            f"<meta name=\"robots\" content=\"noindex\">{HUMAN_VIEW_MARK}"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>\n")


def _section_of(loc: str, base: str) -> str:
    path = loc[len(base):] if loc.startswith(base) else loc.split("://", 1)[-1]
    first, slash, _rest = path.partition("/")
    return f"/{first}/" if slash and first else "/"


def _shown(loc: str, base: str) -> str:
    return "/" + loc[len(base):] if loc.startswith(base) else loc


def _page(base: str, urls: dict[str, Listed], changes: dict[str, str],
          diff: SetDiff | None, shard: tuple[int, str] | None) -> str:
    """One page: the URLs of a whole set, or of one shard (the URLs removed are then
    on the index page)."""
    dated = sum(listed.lastmod is not None for listed in urls.values())
    where = f"shard {shard[0]} ({shard[1]})" if shard else "sitemap"
    title = f"{where} of {base}: {count(len(urls), 'URL')}"
    out = [_head(title), f"<h1>{html.escape(title)}</h1>",
           f"<p class=\"meta\">{dated:,} with a last-modified date"
           + (f" &middot; <a href=\"{VIEW}\">all shards</a>" if shard else "")
           + (f" &middot; {html.escape(_change_line(diff))}" if diff and not shard else "")
           + "</p>",
           _controls(bool(changes), len(urls))]
    sections: dict[str, list[str]] = {}
    with_changes = diff is not None or bool(changes)
    for loc, listed in urls.items():
        sections.setdefault(_section_of(loc, base), []).append(
            _row(loc, listed, changes.get(loc, ""), base, with_changes))
    heads = ["URL", "Last modified", "Languages"] + (["Change"] if with_changes else [])
    for name in sorted(sections):
        out.append(_section(f"{html.escape(name)} <small>({len(sections[name]):,})</small>",
                            sections[name], heads))
    if diff is not None and diff.removed and shard is None:
        out.append(_removed(diff.removed, base))
    out.append(f"<script>{_SCRIPT}</script></body></html>\n")
    return "\n".join(out)


def _section(title: str, rows: list[str], heads: list[str]) -> str:
    """A header table, then the rows in chunks of ``CHUNK``, each its own table (the
    columns' widths fixed by class, so that they line up)."""
    cols = "<colgroup>" + "".join(f"<col class={c}>" for c in "udlc"[:len(heads)]) + \
        "</colgroup>"
    head = "".join(f"<th>{h}" for h in heads)
    out = [f"<section class=rows><h2>{title}</h2><table>{cols}<thead><tr>{head}</thead>"
           "</table>"]
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start:start + CHUNK]
        out.append(f"<div class=k style=\"contain-intrinsic-size:auto {len(chunk) * ROW_PX}px\">"
                   f"<table>{cols}<tbody>" + "".join(chunk) + "</tbody></table></div>")
    out.append("</section>")
    return "\n".join(out)


def _controls(with_changes: bool, rows: int) -> str:
    changed = ("<label><input type=\"checkbox\" id=\"changed\" style=\"width:auto\"> "
               "only new and re-dated</label> ") if with_changes else ""
    return ("<p><input type=\"search\" id=\"q\" placeholder=\"Filter URLs, dates, languages\" "
            f"aria-label=\"Filter\"> {changed}<span id=\"shown\">{rows:,}</span> shown</p>")


def _row(loc: str, listed: Listed, change: str, base: str, with_changes: bool) -> str:
    href = html.escape(loc)
    langs = " ".join(f"<a href=\"{html.escape(h)}\" hreflang=\"{html.escape(lang)}\">"
                     f"{html.escape(lang)}</a>" for lang, h in listed.alternates)
    kind = change.split(" ", 1)[0].replace("-", "") if change else ""
    return (f"<tr{f' class={kind}' if kind else ''}><td><a href=\"{href}\">"
            f"{html.escape(_shown(loc, base))}</a><td>{listed.lastmod or ''}<td>{langs}"
            + (f"<td>{html.escape(change)}" if with_changes else ""))


def _removed(removed: Iterable[str], base: str) -> str:
    items = "".join(f"<li>{html.escape(_shown(loc, base))}</li>" for loc in removed)
    return f"<section class=\"removed\"><h2>Removed since the earlier set</h2><ul>{items}</ul>" \
           "</section>"


def _change_line(diff: SetDiff) -> str:
    return (f"against {diff.old}: {len(diff.added):,} new, {len(diff.redated):,} re-dated, "
            f"{len(diff.removed):,} removed")


def _index(base: str, rows: list[tuple[str, str, dict[str, Listed]]],
           changes: dict[str, str], diff: SetDiff | None) -> str:
    """The view of a set of several shards: one line per shard page."""
    total = sum(len(urls) for _, _, urls in rows)
    title = f"sitemap of {base}: {count(total, 'URL')} in {count(len(rows), 'shard')}"
    out = [_head(title), f"<h1>{html.escape(title)}</h1>"]
    if diff is not None:
        out.append(f"<p class=\"meta\">{html.escape(_change_line(diff))}</p>")
    out.append(_controls(False, len(rows)))
    body = []
    for page, name, urls in rows:
        locs = list(urls)
        moved = sum(loc in changes for loc in locs)
        span = f"{_shown(locs[0], base)} … {_shown(locs[-1], base)}" if locs else ""
        body.append(f"<tr><td><a href=\"{page}\">{html.escape(name)}</a><td>{len(locs):,}"
                    f"<td>{html.escape(span)}<td>{moved:,}")
    out.append(_section("Shards", body, ["Shard", "URLs", "From … to", "Changed"]))
    if diff is not None and diff.removed:
        out.append(_removed(diff.removed, base))
    out.append(f"<script>{_SCRIPT}</script></body></html>\n")
    return "\n".join(out)

