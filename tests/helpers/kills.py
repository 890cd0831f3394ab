"""A command killed in its commit: ``python -c KILLER K MODULE ARGS...`` runs MODULE as
``python -m`` would, with ``os.replace`` sending SIGKILL to the process before its
K-th rename of a sitemapkit temp file (K counted from 0; K < 0: never), so the kill
lands after exactly K files went into place."""

from __future__ import annotations

KILLER = """
import os, runpy, signal, sys
k = int(sys.argv.pop(1))
module = sys.argv.pop(1)
if k >= 0:
    real, done = os.replace, [0]
    def replace(src, dst, *a, **kw):
        if os.path.basename(str(src)).startswith(".sitemapkit-tmp-"):
            if done[0] == k:
                os.kill(os.getpid(), signal.SIGKILL)
            done[0] += 1
        return real(src, dst, *a, **kw)
    os.replace = replace
sys.argv[0] = module
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""

SIGNALLER = """
import os, runpy, sys
sig, at = int(sys.argv.pop(1)), int(sys.argv.pop(1))
module = sys.argv.pop(1)
seen, staged = [0], [-1]
def hook(event, args):
    if event not in ("import", "open", "os.rename", "os.replace") \
            or not hasattr(sys.modules.get("sitemapkit.cli"), "__getattr__"):  # its last line
        return
    if event in ("os.rename", "os.replace") and staged[0] < 0 \\
            and ".sitemapkit-staged-" in str(args[0]):
        staged[0] = seen[0]
    seen[0] += 1
    if seen[0] - 1 == at:  # counted first: the stop may raise right here
        os.kill(os.getpid(), sig)
sys.addaudithook(hook)
sys.argv[0] = module
try:
    runpy.run_module(module, run_name="__main__", alter_sys=True)
finally:
    if at < 0:
        os.write(2, f"EVENTS {seen[0]} {staged[0]}\\n".encode())
"""
"""``python -c SIGNALLER SIG AT MODULE ARGS...`` runs MODULE as ``python -m`` would and
sends itself signal SIG at its AT-th import, open or rename (the audit events of the
interpreter, counted from the import of the entry point ``sitemapkit.cli``, which
imports nothing else before it guards the signals: a moment in the run named by what
the run has done, never by a clock). AT < 0 sends nothing and prints ``EVENTS N S`` last on stderr:
the run's event count and the event at which the first staged shard was moved into
place (-1: none), from which the moments are chosen."""
