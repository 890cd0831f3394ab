"""Run one differential harness under atheris (libFuzzer), coverage-guided over both the
C extension (when built with ``-fsanitize=fuzzer-no-link``: ``.ci/asan_build.sh``) and
the Python it is compared with.

    python tests/fuzz/run.py HARNESS [libFuzzer options and corpus dirs]
    python tests/fuzz/run.py --list

Give a scratch directory first and the seed corpus (tests/fuzz/corpus/HARNESS) after
it: libFuzzer writes the inputs it finds into the first directory only.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "helpers")]
# Python coverage feeds the fuzzer too, but only from the pure twin's modules: the rules,
# expat's handlers and the drivers would cost most of the executions for little news.
PURE_TWIN = [f"sitemapkit._urlset.{name}" for name in (
    "_urlset_py", "_rows_py", "_scan_py", "_canonical_py", "_locset_py", "_kernels_py",
    "_shards_py")]


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(2)
    import atheris

    with atheris.instrument_imports(include=PURE_TWIN):
        from harnesses import HARNESSES
    if sys.argv[1] == "--list":
        print("\n".join(HARNESSES))
        return
    name = sys.argv.pop(1)
    if name not in HARNESSES:
        sys.exit(f"run.py: no harness {name!r}; --list names them")
    import sitemapkit

    if not sitemapkit.USE_EXTENSIONS:
        sys.exit("run.py: the C extension is not active: nothing to compare")
    atheris.Setup(sys.argv, HARNESSES[name])
    atheris.Fuzz()


if __name__ == "__main__":
    main()
