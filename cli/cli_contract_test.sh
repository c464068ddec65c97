#!/usr/bin/env bash
# The command's contract (docs/architecture.md §8), end to end: exit codes, one-line errors that begin
# "peverify: error:", and no output file when the command fails.
set -u
peverify=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

expect_exit() {  # expect_exit CODE DESCRIPTION ARGS...
  local want=$1 what=$2
  shift 2
  local err
  err=$("$peverify" "$@" 2>&1 >/dev/null)
  local got=$?
  last_error=$err
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, want $want ($err)"
    failures=$((failures + 1))
  elif [ "$want" -eq 2 ]; then
    if [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [[ "$err" != "peverify: error: "* ]]; then
      echo "FAIL: $what: error is not one 'peverify: error:' line: $err"
      failures=$((failures + 1))
    fi
  fi
}

expect_message() {  # expect_message TEXT DESCRIPTION ARGS...: exit 2, and the error line holds TEXT
  local text=$1 what=$2
  shift 2
  expect_exit 2 "$what" "$@"
  if [[ "$last_error" != *"$text"* ]]; then
    echo "FAIL: $what: the error does not say '$text': $last_error"
    failures=$((failures + 1))
  fi
}

expect_no_file() {
  if [ -e "$1" ] || ls "$dir"/.*.tmp-* >/dev/null 2>&1; then
    echo "FAIL: $2: left a file behind"
    failures=$((failures + 1))
  fi
}

out=$dir/t.npy
expect_exit 0 "help" --help
expect_exit 0 "oracle help" oracle --help
expect_exit 2 "no subcommand"
expect_exit 2 "unknown subcommand" frobnicate
# measure-cuda runs on the GPU it measures: elsewhere one line before anything is written.
if ! nvidia-smi >/dev/null 2>&1; then
  expect_message "no CUDA device" "measure-cuda without a GPU" measure-cuda --out "$dir/cuda.json"
  expect_no_file "$dir/cuda.json" "measure-cuda without a GPU"
fi
expect_exit 2 "measure-cuda without --out" measure-cuda
expect_exit 2 "measure-cuda with 0 repetitions" measure-cuda --out "$dir/cuda.json" --repetitions 0
expect_exit 2 "odd d" oracle --d-model 7 --positions 4 -o "$out"; expect_no_file "$out" "odd d"
expect_exit 2 "d = 0" oracle --d-model 0 --positions 4 -o "$out"; expect_no_file "$out" "d = 0"
expect_exit 2 "negative d" oracle --d-model -4 --positions 4 -o "$out"
expect_exit 2 "negative positions" oracle --d-model 4 --positions -3 -o "$out"
expect_exit 2 "zero positions" oracle --d-model 4 --positions 0 -o "$out"
expect_exit 2 "overflowing positions" oracle --d-model 4 --positions 99999999999999999999999 -o "$out"
expect_exit 2 "start beyond 2^53" oracle --d-model 4 --positions 2 --start 9007199254740993 -o "$out"
expect_exit 2 "negative start" oracle --d-model 4 --positions 2 --start -1 -o "$out"
# Enum options: CLI11's message names the option and the bad value.
expect_message "--dtype: float8 not in" "unknown dtype" oracle --d-model 4 --positions 4 --dtype float8 -o "$out"
expect_message "--layout: diagonal not in" "unknown layout" oracle --d-model 4 --positions 4 --layout diagonal -o "$out"
expect_message "--layout: 2 not in" "a number for a layout" oracle --d-model 4 --positions 4 --layout 2 -o "$out"
expect_message "--schedule: t5 not in" "unknown schedule" oracle --d-model 4 --positions 4 --schedule t5 -o "$out"
expect_exit 2 "base <= 1" oracle --d-model 4 --positions 4 --base 1 -o "$out"
expect_exit 2 "base not a number" oracle --d-model 4 --positions 4 --base ten -o "$out"
expect_message "--engine: abacus not in" "unknown engine" oracle --d-model 4 --positions 4 --engine abacus -o "$out"
expect_exit 2 "missing output" oracle --d-model 4 --positions 4
expect_exit 2 "unwritable output" oracle --d-model 4 --positions 4 -o /nonexistent/dir/t.npy
expect_exit 2 "output is a directory" oracle --d-model 4 --positions 4 -o "$dir"
expect_exit 2 "huge table" oracle --d-model 8192 --positions 9007199254740992 -o "$out"
expect_no_file "$out" "bad arguments"

expect_exit 0 "a valid table" oracle --d-model 4 --positions 11 -o "$out"
[ -s "$out" ] || { echo "FAIL: valid table not written"; failures=$((failures + 1)); }
expect_exit 0 "the last position" oracle --d-model 4 --positions 1 --start 9007199254740991 -o "$out"

# The fast and the MPFR oracle engines write byte-identical tables.
for dtype in float32 float16 bfloat16 float64; do
  "$peverify" oracle --d-model 64 --positions 64 --start 16777000 --dtype $dtype --engine fast -o "$dir/f.npy" 2>/dev/null
  "$peverify" oracle --d-model 64 --positions 64 --start 16777000 --dtype $dtype --engine mpfr -o "$dir/m.npy" 2>/dev/null
  cmp -s "$dir/f.npy" "$dir/m.npy" || { echo "FAIL: fast and mpfr engines differ ($dtype)"; failures=$((failures + 1)); }
done

# complex64: Meta's freqs_cis ([N, d/2] '<c8'), only for the polar layout; it verifies as written.
rm -f "$out"
expect_message "needs --layout polar" "complex64 without polar" oracle --d-model 8 --positions 4 --dtype complex64 -o "$out"
expect_no_file "$out" "complex64 without polar"
expect_exit 0 "complex64" oracle --d-model 64 --positions 300 --layout polar --dtype complex64 -o "$dir/cis.npy"
"$peverify" oracle --d-model 64 --positions 300 --layout polar -o "$dir/pairs.npy" 2>/dev/null
if ! /usr/bin/python3 -c '
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
assert a.dtype == np.complex64 and a.shape == (300, 32), (a.dtype, a.shape)
assert np.array_equal(a.view(np.float32), b)' "$dir/cis.npy" "$dir/pairs.npy"; then
  echo "FAIL: complex64 is not the polar layout's pairs as [N, d/2] <c8"; failures=$((failures + 1))
fi
expect_exit 0 "verify a complex64 table" verify "$dir/cis.npy" --layout polar --budget strict
expect_exit 2 "verify a complex64 table without polar" verify "$dir/cis.npy"

# list and generate
expect_exit 0 "list" list
expect_exit 0 "list --json" list --json
if ! "$peverify" list --json | python3 -c 'import json,sys; e=json.load(sys.stdin); assert e and all("name" in x for x in e)'; then
  echo "FAIL: list --json is not a JSON array of entries"; failures=$((failures + 1))
fi
first=$("$peverify" list | head -n 1 | cut -d' ' -f1)
expect_exit 2 "generate unknown impl" generate --impl 'cpu/nope/f32>f32/glibc' --d-model 4 --positions 2 -o "$out"
rm -f "$out"
expect_exit 2 "generate odd d" generate --impl "$first" --d-model 5 --positions 2 -o "$out"
expect_no_file "$out" "generate odd d"
expect_exit 2 "generate missing impl" generate --d-model 4 --positions 2 -o "$out"
expect_exit 0 "generate" generate --impl "$first" --d-model 8 --positions 16 --start 5 --layout halves -o "$out"
[ -s "$out" ] || { echo "FAIL: generate wrote nothing"; failures=$((failures + 1)); }

# verify: an honest table passes, a defective one fails with exit 1, bad files and flags exit 2.
honest=$dir/honest.npy
"$peverify" oracle --d-model 64 --positions 300 --dtype float32 -o "$honest" 2>/dev/null
expect_exit 0 "verify an exact table" verify "$honest"
expect_exit 0 "verify with --json" verify "$honest" --json "$dir/v.json"
[ -s "$dir/v.json" ] || { echo "FAIL: verify --json wrote nothing"; failures=$((failures + 1)); }
"$peverify" generate --impl 'cpu/recurrence/f32>f32/glibc' --d-model 64 --positions 20000 -o "$dir/drift.npy" 2>/dev/null
expect_exit 1 "verify a drifting recurrence" verify "$dir/drift.npy"
expect_exit 2 "verify a missing file" verify "$dir/nope.npy"
head -c 100 "$honest" > "$dir/truncated.npy"
expect_exit 2 "verify a truncated file" verify "$dir/truncated.npy"
head -c 4096 /dev/urandom > "$dir/random.npy"
expect_exit 2 "verify a random file" verify "$dir/random.npy"
: > "$dir/empty.npy"
expect_exit 2 "verify an empty file" verify "$dir/empty.npy"
expect_exit 2 "verify with a width that disagrees" verify "$honest" --d-model 128
expect_message "--budget: tight not in" "verify with an unknown budget" verify "$honest" --budget tight
expect_message "--layout: diagonal not in" "verify with an unknown layout" verify "$honest" --layout diagonal
expect_message "--compute: half not in" "verify with an unknown compute type" verify "$honest" --compute half
expect_exit 0 "verify with every enum option" verify "$honest" --layout interleaved --schedule paper --compute float64 --dtype float32 --budget strict
expect_exit 2 "verify into an unwritable json" verify "$honest" --json "$honest/v.json"
expect_message "--model-c" "verify --model-c with --budget strict" verify "$honest" --model-c 40 --budget strict
expect_message "--model-c must be a positive number" "verify --model-c 0" verify "$honest" --model-c 0
expect_exit 0 "verify --model-c 40" verify "$honest" --model-c 40 --json "$dir/c.json"
if ! python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["claim"]["c"] == 40 and "vacuous_budget" in j' "$dir/c.json"; then
  echo "FAIL: verify --json does not record the model constant"
  failures=$((failures + 1))
fi

# check: a malformed budget file is bad input; recommend and bench reject bad flags.
echo '{"version": 1}' > "$dir/budgets.json"
expect_exit 2 "check a malformed budget file" check --budgets "$dir/budgets.json"
expect_exit 2 "check a missing budget file" check --budgets "$dir/none.json"
echo '{"subjects": [{"table": "pe.npy", "d_model": "512"}]}' > "$dir/budgets.json"
expect_message '"d_model" must be a number, not a string' "check a budget file with a string d_model" check --budgets "$dir/budgets.json"

# check: the README's hand-written budget file; --update fills in the rest, then it gates.
mkdir "$dir/gate"
"$peverify" oracle --d-model 512 --positions 4096 -o "$dir/gate/pe.npy" 2>/dev/null
echo '{"subjects": [{"table": "pe.npy", "d_model": 512, "layout": "interleaved", "budgets": {}}]}' > "$dir/gate/budgets.json"
expect_exit 1 "check a budget file with no records yet" check --budgets "$dir/gate/budgets.json"
expect_exit 0 "check --update fills in version, grid and records" check --budgets "$dir/gate/budgets.json" --update
expect_exit 0 "check the recorded budgets" check --budgets "$dir/gate/budgets.json"
python3 -c 'import json,sys
p=sys.argv[1]; j=json.load(open(p)); r=j["subjects"][0]["budgets"]["0-4095"]
assert j["version"] == 1 and len(j["grid"]["bands"]) == 4, j
r["max_abs"] = r["max_abs"] * 0.9
json.dump(j, open(p, "w"))' "$dir/gate/budgets.json"
expect_exit 1 "check with a lowered record" check --budgets "$dir/gate/budgets.json"
# A rotary table's subject: the recipe from a model config, relative to the budget file.
cp "$(dirname "$0")/../models/llama-3.1-8b.json" "$dir/gate/config.json"
"$peverify" oracle --model-config "$dir/gate/config.json" --layout rope-cos-dup --positions 512 -o "$dir/gate/rope.npy" 2>/dev/null
echo '{"subjects": [{"table": "rope.npy", "model_config": "config.json", "layout": "rope-cos-dup"}]}' > "$dir/gate/rope.json"
expect_exit 0 "check --update a model_config subject" check --budgets "$dir/gate/rope.json" --update
expect_exit 0 "check a model_config subject" check --budgets "$dir/gate/rope.json"
echo '{"subjects": [{"table": "rope.npy", "model_config": "nope.json", "layout": "rope-cos-dup"}]}' > "$dir/gate/bad.json"
expect_message "nope.json" "check a subject whose model config is missing" check --budgets "$dir/gate/bad.json"
expect_message "--dtype: float8 not in" "recommend an unknown dtype" recommend --dtype float8 --positions 100
expect_message "--dtype: float64 not in" "recommend float64" recommend --dtype float64 --positions 100
expect_message "--target: 1e-9 not in" "recommend an unknown target" recommend --dtype float32 --positions 100 --target 1e-9
expect_exit 2 "bench with a bad regex" bench --filter '(' --json "$dir/b.json"
# Numbers libstdc++'s regex compiler would overflow on (undefined behaviour), escaped or not.
expect_message "a count beyond 9999" "bench with a huge repetition count" bench --filter 'a{66666666666666666666}' --json "$dir/b.json"
expect_message "a count beyond 9999" "bench with a count after an escaped backslash" bench --filter 'a\\{1234567890123456789}' --json "$dir/b.json"
expect_message "a count beyond 9999" "bench with a huge back-reference" bench --filter '(a)\12345678901234567890' --json "$dir/b.json"
echo '{"filter": "a{1,99999}"}' > "$dir/count.json"
expect_message "filter is not a usable regular expression" "report with a huge count" report --config "$dir/count.json" --out "$dir/r-count" --quiet
expect_message "--table must be POSITIONSxD_MODEL" "bench an odd width" bench --table 64x7 --json "$dir/b.json"
expect_exit 2 "report into an unwritable place" report --out "$honest/r"

# A filter that selects nothing is bad input, said before any directory is made (issue 25).
echo '{"filter": "nomatch"}' > "$dir/nomatch.json"
expect_message "the filter 'nomatch' matches no implementation" "report with an empty selection" report --config "$dir/nomatch.json" --out "$dir/r-empty" --quiet
[ -e "$dir/r-empty" ] && { echo "FAIL: report with an empty selection left $dir/r-empty"; failures=$((failures + 1)); }
expect_message "the filter 'nomatch' matches no implementation" "sweep with an empty selection" sweep --config "$dir/nomatch.json" --out "$dir/w-empty" --quiet
[ -e "$dir/w-empty" ] && { echo "FAIL: sweep with an empty selection left $dir/w-empty"; failures=$((failures + 1)); }
expect_message "the filter 'nomatch' matches no implementation" "bench with an empty selection" bench --filter nomatch --quick --json "$dir/b-empty.json"
expect_no_file "$dir/b-empty.json" "bench with an empty selection"

# JSON the parser cannot hold (found by the readers' fuzzers): bad input, not an internal error.
echo '{"head_dim": 1e999999, "rope_theta": 10000}' > "$dir/overflow.json"
expect_message "not valid JSON" "a model config with a number beyond double" oracle --model-config "$dir/overflow.json" --positions 2 -o "$out"
expect_message "not JSON" "a budget file with a number beyond double" check --budgets "$dir/overflow.json"
echo '{"d_models": [1e30], "bases": [10000]}' > "$dir/huge.json"
expect_message "d_models must be a whole number" "a study config with d_models 1e30" report --config "$dir/huge.json" --out "$dir/r-huge" --quiet

# Negative counts and positions are refused in words, not read as 2^64 - 1 (issue 25).
rm -f "$out"
expect_message "--start must be >= 0, got -1" "oracle --start -1" oracle --d-model 4 --positions 2 --start -1 -o "$out"
expect_message "--positions must be at least 1, got -3" "oracle --positions -3" oracle --d-model 4 --positions -3 -o "$out"
expect_message "--start must be >= 0, got -5" "generate --start -5" generate --impl "$first" --d-model 4 --positions 2 --start -5 -o "$out"
expect_message "--positions must be at least 1, got -1" "generate --positions -1" generate --impl "$first" --d-model 4 --positions -1 -o "$out"
expect_message "--start must be >= 0, got -1" "verify --start -1" verify "$honest" --start -1
expect_message "--positions must be in [1, 2^40]" "recommend --positions -1" recommend --dtype float32 --positions -1
expect_message "--verify-rows must be >= 0, got -1" "bench --verify-rows -1" bench --verify --verify-rows -1 --json "$dir/b.json"
expect_no_file "$out" "negative numbers"

# --threads: 1..1024 when given, in every command that takes it.
for t in 0 -1 100000; do
  expect_message "--threads must be in 1..1024" "oracle --threads $t" oracle --d-model 4 --positions 2 --threads "$t" -o "$out"
  expect_message "--threads must be in 1..1024" "generate --threads $t" generate --impl "$first" --d-model 4 --positions 2 --threads "$t" -o "$out"
  expect_message "--threads must be in 1..1024" "verify --threads $t" verify "$honest" --threads "$t"
  expect_message "--threads must be in 1..1024" "sweep --threads $t" sweep --out "$dir/w-threads" --threads "$t" --quiet
  expect_message "--threads must be in 1..1024" "bench --threads $t" bench --verify --threads "$t" --json "$dir/b.json"
done
expect_no_file "$out" "bad --threads"
[ -e "$dir/w-threads" ] && { echo "FAIL: sweep with bad --threads left $dir/w-threads"; failures=$((failures + 1)); }
expect_exit 0 "oracle --threads 2" oracle --d-model 4 --positions 2 --threads 2 -o "$out"

# --positions FILE: position ids, one per row ([3, N] for M-RoPE), as hostile input.
ids_npy() {  # ids_npy PATH DESCR SHAPE VALUES...: a .npy of 8-byte integers or doubles
  local path=$1 descr=$2 shape=$3
  shift 3
  python3 - "$path" "$descr" "$shape" "$@" <<'PY'
import struct, sys
path, descr, shape, values = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
header += " " * (63 - (10 + len(header)) % 64) + "\n"
fmt = "<d" if descr == "<f8" else "<q"
data = b"".join(struct.pack(fmt, (float if fmt == "<d" else int)(v)) for v in values)
open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)
PY
}
ids_npy "$dir/ids4.npy" '<i8' '(4,)' 0 7 7 3
ids_npy "$dir/ids_zero.npy" '<i8' '(4,)' 0 0 0 0
ids_npy "$dir/float_ids.npy" '<f8' '(4,)' 0 1 2 3
ids_npy "$dir/negative_ids.npy" '<i8' '(4,)' 0 -1 2 3
ids_npy "$dir/wide_ids.npy" '<i8' '(2, 2)' 0 1 2 3
ids_npy "$dir/three_ids.npy" '<i8' '(3, 4)' 0 1 2 3 0 1 2 3 0 1 2 3
expect_exit 0 "oracle at ids" oracle --d-model 4 --positions "$dir/ids4.npy" -o "$out"
expect_exit 0 "verify at ids" verify "$out" --positions "$dir/ids4.npy"
expect_message "must be integers" "float ids" oracle --d-model 4 --positions "$dir/float_ids.npy" -o "$dir/x.npy"
expect_message "is negative" "negative ids" verify "$out" --positions "$dir/negative_ids.npy"
expect_message "shape [N] or [3, N]" "ids of shape [2, 2]" verify "$out" --positions "$dir/wide_ids.npy"
expect_message "need an M-RoPE recipe" "three streams without M-RoPE" verify "$out" --positions "$dir/three_ids.npy"
expect_message "one id per row" "ids for another table" verify "$honest" --positions "$dir/ids4.npy"
expect_message "both say where" "--start and ids" verify "$out" --start 3 --positions "$dir/ids4.npy"
expect_message "No such file" "missing ids" verify "$out" --positions "$dir/none.npy"
expect_message "is out of range" "a count past int64" oracle --d-model 4 --positions 99999999999999999999999 -o "$dir/x.npy"
expect_no_file "$dir/x.npy" "bad ids"

# verify-rotary: q before and after, hostile shapes and names.
expect_exit 0 "verify-rotary of the identity at position 0" verify-rotary --input "$out" --output "$out" --positions "$dir/ids_zero.npy"
expect_message "same shape" "verify-rotary shapes differ" verify-rotary --input "$out" --output "$honest"
expect_message "--pairs must be" "verify-rotary --pairs" verify-rotary --input "$out" --output "$out" --pairs diagonal
expect_message "--axes must be" "verify-rotary --axes" verify-rotary --input "$out" --output "$out" --axes heads,tokens,dim
expect_message "--compute must be" "verify-rotary --compute" verify-rotary --input "$out" --output "$out" --compute float8
expect_message "smaller than the rotary dimension" "verify-rotary --rotary-dim" verify-rotary --input "$out" --output "$out" --rotary-dim 8
expect_message "No such file" "verify-rotary missing input" verify-rotary --input "$dir/none.npy" --output "$out"

# The other sinusoidal tables (docs/features.md §16): timesteps, multi-axis ids and ALiBi slopes.
"$peverify" oracle --d-model 4 --positions 4 -o "$dir/emb.npy" >/dev/null 2>&1
ids_npy "$dir/steps.npy" '<f8' '(4,)' 0 0.5 1 2
ids_npy "$dir/steps3.npy" '<f8' '(3,)' 0 1 2
ids_npy "$dir/axes_ids.npy" '<f8' '(2, 4)' 0 -1 0.5 3 0 0 1 1
expect_exit 1 "a Transformer table is no diffusers timestep embedding" verify "$dir/emb.npy" --timesteps "$dir/steps.npy"
expect_message "one per row" "timesteps for another table" verify "$dir/emb.npy" --timesteps "$dir/steps3.npy"
expect_message "unknown preset" "unknown timestep recipe" verify "$dir/emb.npy" --timesteps "$dir/steps.npy" --timestep-recipe sdxxl
expect_message "unknown key" "a misspelled recipe key" verify "$dir/emb.npy" --timesteps "$dir/steps.npy" --timestep-recipe '{"max_perod": 10}'
expect_message "needs --timesteps" "a recipe without timesteps" verify "$dir/emb.npy" --timestep-recipe adm
expect_message "does not take --layout" "timesteps with a layout" verify "$dir/emb.npy" --timesteps "$dir/steps.npy" --layout halves
expect_message "three kinds of table" "timesteps and axes" verify "$dir/emb.npy" --timesteps "$dir/steps.npy" --rope-axes 2,2
expect_message "needs --positions" "axes without ids" verify "$dir/emb.npy" --rope-axes 2,2
expect_message "makes 6 columns" "axes that do not make the width" verify "$dir/emb.npy" --rope-axes 2,4 --positions "$dir/axes_ids.npy" --layout interleaved
expect_message "ids of shape [4]" "ids for one axis of two" verify "$dir/emb.npy" --rope-axes 2,2 --positions "$dir/steps.npy"
expect_message "even number of dims" "an odd axis" verify "$dir/emb.npy" --rope-axes 3,1 --positions "$dir/axes_ids.npy"
expect_message "disagrees" "a preset's theta and --base" verify "$dir/emb.npy" --rope-axes flux --base 256 --positions "$dir/axes_ids.npy"
expect_exit 1 "axes at real and negative ids" verify "$dir/emb.npy" --rope-axes 2,2 --positions "$dir/axes_ids.npy"
expect_message "does not take --d-model" "alibi with a d_model" verify "$dir/emb.npy" --alibi --d-model 4
expect_message "--alibi-max-bias must be" "a negative max_bias" verify "$dir/emb.npy" --alibi --alibi-max-bias -1
expect_message "needs --alibi" "max_bias without --alibi" verify "$dir/emb.npy" --alibi-max-bias 4
expect_message "does not take --layout" "alibi with a layout" verify "$dir/emb.npy" --alibi --layout halves
expect_message "(0, 1024]" "a huge max_bias" verify "$dir/emb.npy" --alibi --alibi-max-bias 2000000000.5
python3 -c "print('{\"max_period\": ' + '[' * 100000 + ']' * 100000 + '}')" > "$dir/deep.json"
expect_message "must be a number" "a recipe nested 100000 deep" verify "$dir/emb.npy" --timesteps "$dir/steps.npy" --timestep-recipe "$dir/deep.json"
ids_npy "$dir/tiny_step.npy" '<f8' '(4,)' 1e-40 0 0 0
expect_message "out of range" "an angle below 2^-1000" verify "$dir/emb.npy" --timesteps "$dir/tiny_step.npy" --timestep-recipe '{"max_period": 1e300}'
expect_message "needs --positions" "verify-rotary --rope-axes without ids" verify-rotary --input "$dir/emb.npy" --output "$dir/emb.npy" --rope-axes 2,2
expect_message "does not take --rotary-dim" "verify-rotary --rope-axes with a rotary dim" verify-rotary --input "$dir/emb.npy" --output "$dir/emb.npy" --rope-axes 2,2 --rotary-dim 4 --positions "$dir/axes_ids.npy"
expect_message "rotate 6 dims" "verify-rotary axes wider than the head" verify-rotary --input "$dir/emb.npy" --output "$dir/emb.npy" --rope-axes 2,4 --positions "$dir/axes_ids.npy"
expect_exit 0 "list --encodings" list --encodings
expect_message "two lists" "list --models --encodings" list --models --encodings
expect_exit 1 "a table is no slope vector" verify "$dir/emb.npy" --alibi --json "$dir/alibi.json"
if [ ! -s "$dir/alibi.json" ]; then
  echo "FAIL: verify --alibi --json wrote no JSON"
  failures=$((failures + 1))
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures contract failure(s)"
  exit 1
fi
echo "cli contract: all checks passed"
