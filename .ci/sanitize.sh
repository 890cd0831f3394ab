#!/usr/bin/env bash
# The C twin under AddressSanitizer + UndefinedBehaviorSanitizer: the twin and property
# tests against the sanitizer build, then every atheris harness for FUZZ_SECONDS each
# (default 20) on the same build. A finding fails the run and names the input file.
#   bash .ci/sanitize.sh            (from the repo root, with .venv set up)
# The long run (the scheduled job in .github/workflows/fuzz.yml, one harness a job):
#   FUZZ_SECONDS=1800 FUZZ_ONLY=scan FUZZ_NO_TESTS=1 bash .ci/sanitize.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
SECONDS_EACH=${FUZZ_SECONDS:-20}
# the input parsers' harnesses (CSV/TSV quoting, JSON string escapes) run at least 20 s
PARSERS=",table_quoting,json_string,"
PARSER_SECONDS=$(( SECONDS_EACH > 20 ? SECONDS_EACH : 20 ))
WORK=${FUZZ_WORK:-build/fuzz}

cc=$(command -v clang-14 || command -v clang || true)
runtime=$([ -n "$cc" ] && "$cc" -print-file-name=libclang_rt.asan-x86_64.so || true)
if [ ! -f "$runtime" ]; then  # clang and its sanitizer runtime
    (apt-get update -qq && apt-get install -y -qq clang-14 libclang-rt-14-dev) >/dev/null \
        || sudo sh -c 'apt-get update -qq && apt-get install -y -qq clang-14 libclang-rt-14-dev' >/dev/null
fi
.venv/bin/pip install -q -e '.[fuzz]'
eval "$(bash .ci/asan_build.sh build/asan)"   # exports PYTHONPATH and SITEMAPKIT_ASAN_RUNTIME
ATHERIS=$("$PY" -c "import atheris; print(atheris.path())")
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 PYTHONMALLOC=malloc

if [ -z "${FUZZ_NO_TESTS:-}" ]; then
echo "-- twin and property tests on the sanitizer build"
LD_PRELOAD="$SITEMAPKIT_ASAN_RUNTIME" "$PY" -c \
    "import sitemapkit, sitemapkit._urlset._urlset_c as c; assert sitemapkit.USE_EXTENSIONS and \
'build/asan' in c.__file__, c.__file__; print('sanitizer build:', c.__file__)"
# --no-pure-twin: a test of the pure twin alone runs no C code (tests comparing the
# twins still run)
SITEMAPKIT_FUZZ_EXAMPLES=2000 LD_PRELOAD="$SITEMAPKIT_ASAN_RUNTIME" "$PY" -m pytest -q \
    -n auto --dist loadfile -p no:cacheprovider --no-pure-twin \
    tests/test_hot_unit.py tests/test_line_reader.py tests/test_line_alternates.py \
    tests/test_validate_scan.py tests/test_properties.py tests/test_fuzz_corpus.py \
    tests/test_arrow_columns.py tests/test_head_scan.py \
    tests/reliability/test_fuzz.py
fi

echo "-- atheris harnesses, ${SECONDS_EACH} s each (seeds: tests/fuzz/corpus)"
rm -rf "$WORK"
mkdir -p "$WORK"
status=0
for name in $(LD_PRELOAD="$ATHERIS/asan_with_fuzzer.so" "$PY" tests/fuzz/run.py --list); do
    case ",${FUZZ_ONLY:-$name}," in *",$name,"*) ;; *) continue ;; esac
    mkdir -p "$WORK/$name"
    each=$SECONDS_EACH
    case "$PARSERS" in *",$name,"*) each=$PARSER_SECONDS ;; esac
    if LD_PRELOAD="$ATHERIS/asan_with_fuzzer.so" "$PY" tests/fuzz/run.py "$name" \
        "$WORK/$name" "tests/fuzz/corpus/$name" -max_total_time="$each" \
        -artifact_prefix="$WORK/crash-$name-" -print_final_stats=1 >"$WORK/$name.log" 2>&1; then
        echo "$name: $(grep -E '^#[0-9]+.*DONE' "$WORK/$name.log" | tail -1)"
    else
        status=1
        echo "$name: FAILED; the last lines of its log, and the input:"
        tail -40 "$WORK/$name.log"
        for crash in "$WORK"/crash-"$name"-*; do
            [ -e "$crash" ] && { echo "$crash"; base64 "$crash"; }
        done
    fi
done
exit $status
