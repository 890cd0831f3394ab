"""Peak RSS of one child process, measured honestly.

Linux keeps a process's peak RSS across exec, so a child forked straight from a
large pytest process starts with pytest's peak. A small launcher process runs the
command and reports the command's own peak from wait4.
"""

from __future__ import annotations

import subprocess
import sys

LAUNCHER = """
import os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(child.pid, 0)
print(f"{time.perf_counter() - started:.6f}", file=sys.stderr)
print(usage.ru_maxrss * 1024, file=sys.stderr)
sys.exit(os.waitstatus_to_exitcode(status))
"""
"""The last stderr line is the child's peak RSS in bytes; the one before, its wall time
in seconds from spawn to exit (the launcher's own start is not counted)."""


def launcher_argv(*command: str) -> list[str]:
    """argv that runs ``command`` and prints its peak RSS (bytes) as the last stderr line."""
    return [sys.executable, "-c", LAUNCHER, *command]


def measured(*command: str) -> tuple[str, int]:
    """(stdout, peak RSS in bytes) of ``command``, which must succeed."""
    done = subprocess.run(launcher_argv(*command), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout, int(done.stderr.strip().splitlines()[-1])
