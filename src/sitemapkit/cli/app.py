"""The parser and the dispatch to each command's module (``cli/__init__.py`` is the
light entry point that guards the signals first)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from .._display import shown_path
from .._urlset import build_description
from .._version import __version__
from . import diff, doctor, index, rules, site, validate, write
from .write import progress_line

__all__ = ["Stopped", "progress_line", "run"]
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "write": write.run, "site": site.run, "validate": validate.run, "index": index.run,
    "rules": rules.run, "doctor": doctor.run, "diff": diff.run}


class _Help(argparse.RawDescriptionHelpFormatter):
    """Every option's help as a sentence, with its default when it has a value one; the
    examples epilog as written, a command a line."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if "(default" not in text and default not in (None, False, True, [],
                                                      argparse.SUPPRESS) \
                and action.option_strings:
            text = f"{text} (default: {default})"
        return _sentence(text)


def _sentence(text: str) -> str:
    """``add the line (default: yes)`` -> ``Add the line (default: yes).``"""
    if not text or text == argparse.SUPPRESS:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "?", "!", ":")) else text + "."


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sitemapkit", formatter_class=_Help,
        description="Fast, correct sitemaps (sitemaps.org 0.9): write them from a URL list "
        "or a built site, validate any sitemap, index per-version sitemaps, compare two "
        "sets.",
        epilog="Exit codes: 0 success, 1 invalid input or a failed write, 2 usage errors, "
        "130 interrupted, 141 output pipe closed. `sitemapkit rules N` explains the rule a "
        "message cites.")
    parser.add_argument("--version", action="version",
                        version=f"sitemapkit {__version__} ({build_description()})")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (write, site, validate, index, diff, rules, doctor):
        module.add(sub, _Help)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    """Parse and run one command; the entry point (``main``) maps the stops."""
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt as stop:
        out = f" in {shown_path(args.out)}" if getattr(args, "out", None) else ""
        kept = (f"the new sitemaps{out} were already in place" if getattr(
            stop, "committed", False) else f"the previous sitemaps{out} are unchanged")
        raise Stopped(stop, kept) from None
    except BrokenPipeError:  # `sitemapkit validate ... | head`: the reader has all it wants
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the exit's final flush cannot fail again
        return 141


class Stopped(Exception):
    """A run stopped by Ctrl-C or SIGTERM, with what it left as it was."""

    def __init__(self, stop: KeyboardInterrupt, kept: str) -> None:
        super().__init__(kept)
        self.stop, self.kept = stop, kept
