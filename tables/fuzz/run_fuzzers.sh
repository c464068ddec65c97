#!/usr/bin/env bash
# Builds one table reader's libFuzzer target with clang++ (ASan + UBSan) straight from the
# sources and fuzzes it for a bounded time from its seed corpus. ctest runs it as
# tables_fuzz_npy / tables_fuzz_safetensors; exit 77 (ctest's SKIP_RETURN_CODE) when clang++ or
# libFuzzer is missing.
#
#   run_fuzzers.sh npy|safetensors SOURCE_DIR WORK_DIR [INCLUDE_DIRS;...]
#   PEV_FUZZ_SECONDS (default 20) bounds the run; PEV_FUZZ_CXX picks the compiler.
set -euo pipefail

format=${1:?format: npy or safetensors}
src=${2:?source dir}
work=${3:?work dir}
includes=${4:-}
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

inc=(-I"$src")
IFS=';' read -r -a dirs <<<"$includes"
# A system folder passed with -I would reorder the standard headers' #include_next.
for d in "${dirs[@]}"; do [[ -n $d && $d != /usr/include ]] && inc+=(-I"$d"); done

exe="$work/${format}_fuzz"
echo "building $exe with $cxx"
"$cxx" "${flags[@]}" "${inc[@]}" "$src/tables/fuzz/${format}_fuzz.cc" \
  "$src/tables/table_file.cc" "$src/tables/npy_reader.cc" \
  "$src/tables/safetensors_reader.cc" "$src/encoding/format.cc" "$src/encoding/spec.cc" "$src/encoding/rope.cc" \
  -lfmt -o "$exe"

# libFuzzer adds what it finds to the first corpus folder: a scratch copy, never the seeds.
corpus="$work/${format}_corpus"
mkdir -p "$corpus"
log="$work/${format}_fuzz.log"
echo "fuzzing for ${seconds}s (log: $log)"
status=0
"$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 -error_exitcode=99 -artifact_prefix="$work/${format}_" \
  "$corpus" "$src/tables/fuzz/corpus/$format" >"$log" 2>&1 || status=$?
grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
echo "corpus: $(ls "$corpus" | wc -l) inputs"
if [[ $status -ne 0 ]]; then
  echo "FAILED: the fuzzer found a problem (exit $status):"
  grep -E 'ERROR|SUMMARY|inconsistent|message is not|Test unit written' "$log" | head -20
  exit 1
fi
