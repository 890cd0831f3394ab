"""Command line: ``sitemapkit write``, ``site``, ``validate``, ``index``, ``diff``,
``rules`` and ``doctor``, one module per command (each has ``add(sub, formatter)`` and
``run(args)``; ``app`` parses and dispatches).

Exit codes: 0 success, 1 invalid input or a failed write, 2 usage errors, 130 when
interrupted (Ctrl-C), 143 when terminated (SIGTERM, what CI runners send on cancel);
a stopped run removes its temporary files and leaves the previous sitemaps in place;
141 (as git and other Unix tools) when a reader closed the output pipe early
(``| head``).

This module imports nothing heavy: ``main`` turns SIGTERM into the same unwinding as
Ctrl-C before the commands are imported, so a stop at any moment from the first
import on is one line and its exit code, never a traceback.
"""

from __future__ import annotations

import gc
import signal
import sys
from collections.abc import Sequence
from types import FrameType
from typing import Any

__all__ = ["Terminated", "main"]
STOP_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would be: every cleanup that runs for an interrupt
    (temp files, worker threads, the lock) runs for it too."""

    signum = signal.SIGTERM


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def main(argv: Sequence[str] | None = None) -> int:
    try:
        previous: Any = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # called from another thread than the main one: no handler
        previous = None
    kept = "nothing was changed"
    try:
        # A process of its own (not a caller's call): the imports make ~10**5 objects and
        # no garbage, and collecting them took ~40 ms, a fifth of a small run's time.
        quiet_gc = argv is None and gc.isenabled()
        if quiet_gc:
            gc.disable()
        try:
            from .app import Stopped, run
        finally:
            if quiet_gc:
                gc.freeze()  # they live as long as the process: never scanned again
                gc.enable()

        try:
            return run(argv)
        except Stopped as stopped:
            kept, stop = stopped.kept, stopped.stop
            raise stop from None
    except KeyboardInterrupt as stop:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the one line below is the last word
        signum = stop.signum if isinstance(stop, Terminated) else signal.SIGINT
        what = "terminated (SIGTERM)" if signum == signal.SIGTERM else "interrupted"
        print(f"\nsitemapkit: {what}; {kept}", file=sys.stderr)
        return STOP_CODES[signum]
    finally:
        if previous is not None and signal.getsignal(signal.SIGTERM) in (_terminate,
                                                                          signal.SIG_IGN):
            signal.signal(signal.SIGTERM, previous)


def __getattr__(name: str) -> Any:
    """``progress_line`` and ``_parser`` from ``app``, on use."""
    if name in ("progress_line", "_parser"):
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module 'sitemapkit.cli' has no attribute {name!r}")
