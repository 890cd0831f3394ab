"""Command line: ``sitemapkit write``, ``site``, ``validate``, ``index``, ``diff``,
``rules`` and ``doctor``,
one module per command (each has ``add(sub, formatter)`` and ``run(args)``).

Exit codes: 0 success, 1 invalid input or a failed write, 2 usage errors, 130 when
interrupted (Ctrl-C); an interrupted run leaves the previous sitemaps in place; 141
(as git and other Unix tools) when a reader closed the output pipe early (``| head``).
"""

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

__all__ = ["main", "progress_line"]
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


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        out = f" in {shown_path(args.out)}" if getattr(args, "out", None) else ""
        print(f"\nsitemapkit: interrupted; the previous sitemaps{out} are unchanged",
              file=sys.stderr)
        return 130
    except BrokenPipeError:  # `sitemapkit validate ... | head`: the reader has all it wants
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the exit's final flush cannot fail again
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
