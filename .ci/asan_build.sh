#!/usr/bin/env bash
# Build the C twin with AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's
# coverage (clang), as a copy of the package in OUT (default build/asan) that shadows the
# normal install when OUT is first on PYTHONPATH. Prints the lines to export.
#   bash .ci/asan_build.sh [OUT]
# Then run it inside a normal CPython with the sanitizer runtime preloaded (see README,
# "Sanitizers and fuzzing"); atheris brings its own runtime with libFuzzer in it.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build/asan}
CLANG=${CLANG:-$(command -v clang-14 || command -v clang || true)}
if [ -z "$CLANG" ]; then
    echo "asan_build: clang is needed (Debian: apt-get install clang-14 libclang-rt-14-dev)" >&2
    exit 1
fi
FLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined,fuzzer-no-link"
FLAGS="$FLAGS -fno-sanitize-recover=undefined -fno-sanitize=function,vptr"
rm -rf "$OUT"
CC="$CLANG" LDSHARED="$CLANG -shared" CFLAGS="$FLAGS" LDFLAGS="-fsanitize=address,undefined" \
    SITEMAPKIT_REQUIRE_EXTENSIONS=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    "${PYTHON:-.venv/bin/python}" -m pip install -q --no-deps --no-compile --target "$OUT" . >&2
ls "$OUT"/sitemapkit/_urlset/_urlset_c*.so >/dev/null
RUNTIME=$("$CLANG" -print-file-name=libclang_rt.asan-x86_64.so)
echo "export PYTHONPATH=$(cd "$OUT" && pwd)"
echo "export SITEMAPKIT_ASAN_RUNTIME=$RUNTIME"
