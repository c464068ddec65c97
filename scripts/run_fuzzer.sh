#!/usr/bin/env bash
# Builds one reader's libFuzzer target with clang++ (ASan + UBSan) straight from its sources and
# fuzzes it for a bounded time from its seed corpora. ctest runs it as <folder>_fuzz_<name>
# (pev_fuzz_test in cmake/PevHelpers.cmake); exit 77 (ctest's SKIP_RETURN_CODE) when clang++ or
# libFuzzer is missing.
#
#   run_fuzzer.sh NAME SOURCE_DIR WORK_DIR "INCLUDE_DIRS;..." SEED_DIR... -- SOURCE...
#   SOURCE: the target first, then what it links, relative to SOURCE_DIR or absolute.
#   PEV_FUZZ_SECONDS (default 20) bounds the run; PEV_FUZZ_CXX picks the compiler.
set -euo pipefail

name=${1:?target name}
src=${2:?source dir}
work=${3:?work dir}
includes=${4:-}
shift 4
seed_dirs=()
while [[ $# -gt 0 && $1 != -- ]]; do seed_dirs+=("$1"); shift; done
[[ $# -gt 1 ]] || { echo "usage: run_fuzzer.sh NAME SOURCE_DIR WORK_DIR INCLUDES SEEDS... -- SOURCES..."; exit 2; }
shift
seconds=${PEV_FUZZ_SECONDS:-20}

cxx=${PEV_FUZZ_CXX:-}
if [[ -z $cxx ]]; then
  for c in clang++ clang++-16 clang++-15 clang++-14; do
    if command -v "$c" >/dev/null; then cxx=$c; break; fi
  done
fi
if [[ -z $cxx ]]; then
  echo "SKIP: clang++ not found; the fuzzers need clang's libFuzzer"
  exit 77
fi

mkdir -p "$work"
flags=(-std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -fno-omit-frame-pointer)
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
    "$cxx" "${flags[@]}" -x c++ - -o "$work/probe" 2>"$work/probe.log"; then
  echo "SKIP: $cxx cannot link -fsanitize=fuzzer (libFuzzer missing?):"
  head -3 "$work/probe.log"
  exit 77
fi

# The project's headers are included as "peverify/...": INCLUDE_DIRS holds the build's include
# root, where that prefix leads to the sources.
inc=()
IFS=';' read -r -a dirs <<<"$includes"
# A system folder passed with -I would reorder the standard headers' #include_next.
for d in "${dirs[@]}"; do [[ -n $d && $d != /usr/include ]] && inc+=(-I"$d"); done

sources=()
for s in "$@"; do [[ $s = /* ]] && sources+=("$s") || sources+=("$src/$s"); done

exe="$work/${name}_fuzz"
echo "building $exe with $cxx"
"$cxx" "${flags[@]}" "${inc[@]}" "${sources[@]}" -lfmt -o "$exe"

# libFuzzer adds what it finds to the first corpus folder: a scratch copy, never the seeds.
corpus="$work/${name}_corpus"
mkdir -p "$corpus"
log="$work/${name}_fuzz.log"
echo "fuzzing for ${seconds}s (log: $log)"
status=0
"$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 -error_exitcode=99 -artifact_prefix="$work/${name}_" \
  "$corpus" "${seed_dirs[@]}" >"$log" 2>&1 || status=$?
grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
echo "corpus: $(ls "$corpus" | wc -l) inputs"
if [[ $status -ne 0 ]]; then
  echo "FAILED: the fuzzer found a problem (exit $status):"
  grep -E 'ERROR|SUMMARY|inconsistent|message is not|empty error|terminate|what\(\)|Test unit written' "$log" | head -20
  exit 1
fi
