"""``sitemapkit rules``: the protocol rules that messages cite, with their sources."""

from __future__ import annotations

import argparse
import re

from ..protocol_rules import RULES, describe
from ..rules.model import RULES as ENTRY_RULES
from .common import Subparsers, error, examples


def add(sub: Subparsers, formatter: type[argparse.HelpFormatter]) -> None:
    r = sub.add_parser("rules", formatter_class=formatter,
                       help="the protocol rules that messages cite, with their sources",
                       epilog=examples("sitemapkit rules", "sitemapkit rules 9",
                                       "sitemapkit rules loc-absolute lastmod-format"))
    r.add_argument("which", nargs="*", metavar="N_OR_ID",
                   help="rule numbers or ids, e.g. 10 or loc-too-long (default: all)")


def rule_ids() -> dict[int, list[str]]:
    """Rule number -> the ids that cite it: the writer's entry rules and the validator's."""
    ids: dict[int, set[str]] = {}
    for id_, text in ENTRY_RULES.items():
        cited = re.search(r"sitemapkit rules ([\d, -]+)", text)
        for part in cited.group(1).replace(" ", "").split(",") if cited else ():
            low, _, high = part.partition("-")
            for number in range(int(low), int(high or low) + 1):
                ids.setdefault(number, set()).add(id_)
    from ..validate.findings import RULE_OF  # on use: a faster CLI start

    for id_, number in RULE_OF.items():
        ids.setdefault(number, set()).add(id_)
    return {n: sorted(v) for n, v in ids.items()}


def run(args: argparse.Namespace) -> int:
    ids = rule_ids()
    wanted: list[int] = []
    for item in args.which:
        found = [int(item)] if item.isdigit() and int(item) in RULES else \
            [n for n, names in ids.items() if item in names]
        if not found:
            error(f"no rule {item!r}; rules are 1-{max(RULES)} or ids such as loc-too-long "
                  "(sitemapkit rules lists them)")
            return 2
        wanted += found
    for number in dict.fromkeys(wanted) if wanted else RULES:
        print(describe(number, ids.get(number)))
    return 0
