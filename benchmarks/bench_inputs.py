"""Input files for the CLI benchmarks, written once per run (outside the timed region).

The issue's mix: about 10% of locs carry '&', 4% an apostrophe, 5% a non-ASCII path
segment (raw, so it needs percent-encoding), 2% a comma (so the CSV quotes the loc,
as csv.writer does), 10% a full datetime lastmod with an offset, the rest a date. The
same rows in every format.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

BASE = "https://example.com/"
CHANGEFREQS = ("daily", "weekly", "monthly")


def _rows(n: int, seed: int = 7):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    for i in range(n):
        roll = rng.random()
        path = f"catalog/{i % 101}/item-{i}"
        if roll < 0.10:
            path += "?a=1&b=2"
        elif roll < 0.14:
            path += "/o'neil"
        elif roll < 0.19:
            path += "/über-straße"
        elif roll < 0.21:
            path += "/red,blue"
        lastmod = ("2024-05-01T10:20:30+02:00" if i % 10 == 0
                   else f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}")
        yield BASE + path, lastmod, CHANGEFREQS[i % 3], f"0.{i % 10}"


def write_inputs(folder: Path, n: int, alternates: bool = True) -> dict[str, Path]:
    """urls.tsv (loc, lastmod), urls.csv (all four columns), urls.jsonl (all four keys),
    urls-2keys.jsonl (loc, lastmod: the TSV's rows, so the same output), urls.txt (loc),
    loc-only / loc+priority / loc+changefreq TSVs, and (``alternates``) n/5 rows of JSON
    Lines with hreflang alternates."""
    names = ["tsv", "csv", "jsonl", "txt", "loc", "priority", "changefreq", "jsonl-2keys"]
    paths = {k: folder / (f"urls.{k}" if k in ("tsv", "csv", "jsonl", "txt")
                          else "urls-2keys.jsonl" if k == "jsonl-2keys"
                          else f"urls-{k}.tsv") for k in names}
    files = {k: open(p, "w", encoding="utf-8", newline="") for k, p in paths.items()}
    table = csv.writer(files["csv"], lineterminator="\n")  # quotes a loc with a comma
    try:
        files["tsv"].write("loc\tlastmod\n")
        files["csv"].write("loc,lastmod,changefreq,priority\n")
        files["loc"].write("loc\n")
        files["priority"].write("loc\tpriority\n")
        files["changefreq"].write("loc\tchangefreq\n")
        for loc, lastmod, changefreq, priority in _rows(n):
            files["tsv"].write(f"{loc}\t{lastmod}\n")
            table.writerow((loc, lastmod, changefreq, priority))
            files["jsonl"].write(json.dumps({"loc": loc, "lastmod": lastmod,
                                             "changefreq": changefreq,
                                             "priority": float(priority)},
                                            ensure_ascii=False) + "\n")
            files["jsonl-2keys"].write(json.dumps({"loc": loc, "lastmod": lastmod},
                                                  ensure_ascii=False) + "\n")
            files["txt"].write(loc + "\n")
            files["loc"].write(loc + "\n")
            files["priority"].write(f"{loc}\t{priority}\n")
            files["changefreq"].write(f"{loc}\t{changefreq}\n")
    finally:
        for fh in files.values():
            fh.close()
    if alternates:
        paths["alternates"] = folder / "urls-alternates.jsonl"
        write_alternates(paths["alternates"], max(n // 5, 3))
        paths["alternates-by-language"] = folder / "urls-alternates-by-language.jsonl"
        write_alternates(paths["alternates-by-language"], max(n // 5, 3), by_language=True)
    return paths


def write_alternates(path: Path, n: int, by_language: bool = False) -> None:
    """JSON Lines of a translated site: n rows, each page in en/de/fr, every row listing
    its cluster (3 alternates) as a multilingual export does: each cluster's rows
    together, or (``by_language``) every en row, then every de row, then every fr row."""
    langs = ("en", "de", "fr")
    with open(path, "w", encoding="utf-8") as fh:
        for first, last in ([(0, 3)] if not by_language else [(0, 1), (1, 2), (2, 3)]):
            for i in range(n // 3):
                urls = {lang: f"{BASE}{lang}/catalog/{i % 101}/item-{i}" for lang in langs}
                alternates = [[lang, url] for lang, url in urls.items()]
                for lang in langs[first:last]:
                    fh.write(json.dumps({"loc": urls[lang], "lastmod": f"2024-{1 + i % 12:02d}-01",
                                         "alternates": alternates}) + "\n")
