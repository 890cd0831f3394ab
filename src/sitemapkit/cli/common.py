"""What every command shares: the one mapping from typed errors to a message and an
exit code (0 success, 1 invalid input or a failed write, 2 usage, 130 interrupted)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, InputError, NoUrlsError, SitemapkitError, UsageError
from ..options import CLI, INDEXNOW_OPTIONS, OPTIONS, Option, for_host
from ..protocol import FETCH_DEADLINE
from ..rules.model import EntryError

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    Subparsers = argparse._SubParsersAction


def error(message: str) -> None:
    print(f"sitemapkit: error: {message}", file=sys.stderr)


def fail(exc: SitemapkitError) -> int:
    """Print ``exc`` in one line and return its exit code."""
    if isinstance(exc, EntryError):
        error(f"{exc.located()}; nothing was written")
    elif isinstance(exc, (InputError, NoUrlsError)):
        error(f"{exc}; nothing was written")
    else:
        error(str(exc))
    return 2 if isinstance(exc, (ConfigError, UsageError)) else 1


def add_flag(group: Any, option: Option, dest: str, host: str = CLI) -> None:
    """One declared option as a flag: booleans switch away from their default, lists
    repeat, everything else takes a value of the declared type."""
    default = option.default_for(host)
    flag = option.flag_for(host)
    words = [c for c in option.choices if isinstance(c, str)]
    if default is False and words:  # a switch that may name a mode: --validate [strict]
        group.add_argument(flag, dest=dest, default=False, nargs="?", const=True,
                           choices=words, help=option.help)
        return
    if (default is True or default is False) and option.flag is None:
        # both forms on every command that takes it: --robots-txt / --no-robots-txt
        action = group.add_argument(f"--{option.name.replace('_', '-')}", dest=dest,
                                    default=default, action=argparse.BooleanOptionalAction)
        action.help = f"{option.help} (default: {'yes' if default else 'no'})"
        return
    if default is True or default is False:  # a named switch: --dry-run
        group.add_argument(flag, dest=dest, default=default, help=option.help,
                           action="store_false" if default else "store_true")
        return
    if option.item is not None:
        group.add_argument(flag, dest=dest, action="append", default=[],
                           metavar=option.cli_metavar, help=option.help)
        return
    kind = next(t for t in option.types if t is not type(None))
    group.add_argument(flag, dest=dest, type=kind, default=default,
                       choices=option.choices or None, metavar=option.cli_metavar
                       if not option.choices else None, help=option.help)


def add_fetch_deadline(parser: Any) -> None:
    """``--fetch-deadline``: the seconds one URL may take, whole, retries included."""
    parser.add_argument("--fetch-deadline", type=_seconds, default=FETCH_DEADLINE,
                        metavar="SECONDS", help="seconds one fetched URL may take from the "
                        f"first request to its last byte, retries included "
                        f"(default {FETCH_DEADLINE:g})")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is no number of seconds above 0")
    return value


def examples(*lines: str) -> str:
    """A command's help epilog: its examples, one command a line."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def declared(name: str) -> Option:
    """A declared option by name, for commands that share it (``--max-bytes``)."""
    return next(option for option in OPTIONS if option.name == name)


def add_declared(parser: argparse.ArgumentParser, host: str) -> None:
    """Every declared option of ``host`` as a flag, the IndexNow keys as --indexnow-*."""
    publishing = parser.add_argument_group("telling search engines (off by default)")
    for option in for_host(host):
        add_flag(publishing if option.section == "publish" else parser, option, option.name,
                 host)
    for option in for_host(CLI, INDEXNOW_OPTIONS):
        add_flag(publishing, option, "indexnow_" + option.name)


def declared_values(args: argparse.Namespace, host: str
                    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(option values, the indexnow mapping or None when no key was given)."""
    values = {option.name: getattr(args, option.name) for option in for_host(host)}
    asked = args.indexnow_key or args.indexnow_key_file
    indexnow = {option.name: getattr(args, "indexnow_" + option.name)
                for option in for_host(CLI, INDEXNOW_OPTIONS)} if asked else None
    if indexnow is not None and values.get("dry_run"):
        indexnow["dry_run"] = True  # a dry run submits nothing either
    return values, indexnow
