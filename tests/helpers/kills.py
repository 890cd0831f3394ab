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
