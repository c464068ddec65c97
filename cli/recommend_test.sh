#!/usr/bin/env bash
# `peverify recommend` answers from a report on disk (docs/architecture.md §8, docs/features.md §14): from --from DIR or
# ./peverify-report, in well under a second, by the report's rule (an entry failing a property
# within the context is never picked); a malformed or foreign report.json is exit 2, one line.
set -u
peverify=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # the test changes directory
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A small report: a fast recurrence entry that breaks bounded from position 30, a slower precise
# one that holds everything, a float16 entry that fails a property at no known position.
mkdir -p "$dir/small" "$dir/cwd/peverify-report"
/usr/bin/python3 - "$dir/small/report.json" <<'PY'
import json, sys
def entry(name, output, speed, max_abs, horizons, failures):
    props = []
    for p in ["bounded", "unique", "shift", "growth", "claim"]:
        props.append({"property": p, "holds": p not in failures, "summary": ""})
        if failures.get(p) is not None:  # None: fails at no known position
            props[-1]["first_position"] = failures[p]
    return {"name": name, "strategy": name.split("/")[1], "compute": "f32", "output": output,
            "backend": "glibc", "claim": "", "description": "", "max_position": 1 << 40,
            "available": True,
            "accuracy": {"max_abs": max_abs, "mean_abs": max_abs, "max_ulp": 1, "elements": 10},
            "bands": [], "properties": props, "fitted_c": 1, "horizons": horizons,
            "error_curve": [], "models": [], "values_per_s": speed,
            "values_per_s_min": speed * 0.95, "values_per_s_max": speed * 1.05,
            "roofline_ratio": 0.5}
far = (1 << 24) - 1
report = {
    "schema_version": 1, "generator": "peverify report", "seconds": 1,
    "date": "2026-01-02T03:04:05Z", "models": [],
    "study": {"d_models": [512], "bases": [10000], "exhaustive_positions": 8192,
              "exhaustive_values": 1 << 23, "max_position": 1 << 24, "sampled_blocks": 40,
              "filter": "", "bench": True, "rotary_models": [], "rotary_positions": 131072},
    "implementations": [
        entry("cpu/recurrence/f32>f32/glibc", "float32", 9e9, 2e-3,
              {"1e-4": 1039, "1e-2": 142938}, {"bounded": 30}),
        entry("cpu/precise/f64>f32/hwy", "float32", 5e9, 6e-8,
              {"1e-4": far, "1e-2": far, "faithful": far}, {}),
        entry("cpu/pow/f32>f16/glibc", "float16", 9e9, 3e-4, {"1e-2": far}, {"claim": None}),
    ],
    "recommendations": []}
json.dump(report, open(sys.argv[1], "w"), indent=1)
PY
cp "$dir/small/report.json" "$dir/cwd/peverify-report/report.json"

now() { date +%s%N; }
# recommend ARGS...: runs it, with its output in $out, exit status in $code, time in $ms.
recommend() {
  local t0
  t0=$(now)
  out=$("$peverify" recommend "$@" 2>"$dir/err")
  code=$?
  ms=$((($(now) - t0) / 1000000))
}

recommend --from "$dir/small" --dtype float32 --positions 4096 --target 1e-2
[ "$code" -eq 0 ] || fail "recommend --from: exit $code: $out $(cat "$dir/err")"
[ "$ms" -lt 1000 ] || fail "recommend --from took $ms ms"
[[ "$out" == "answered from $dir/small/report.json (2026-01-02T03:04:05Z, 3 implementations"* ]] ||
  fail "recommend --from does not say where and when: $out"
[[ "$out" == *"target 1e-2: cpu/precise/f64>f32/hwy"* ]] || fail "4096 positions: $out"
[ ! -s "$dir/err" ] || fail "recommend --from wrote to stderr: $(cat "$dir/err")"
echo "recommend --from answered in $ms ms"

# Positions 0 .. 15 never reach position 30, where recurrence's bounded fails.
recommend --from "$dir/small" --dtype float32 --positions 16 --target 1e-2
[[ "$out" == *"target 1e-2: cpu/recurrence/f32>f32/glibc"* ]] || fail "16 positions: $out"
# A failure at no known position rules an entry out of every context.
recommend --from "$dir/small" --dtype float16 --positions 1 --target 1e-2
[ "$code" -eq 1 ] && [[ "$out" == *"target 1e-2: none"* ]] || fail "unknown position: $code $out"
# Beyond the positions studied: none, and says how to study further.
recommend --from "$dir/small" --dtype float32 --positions 33554432 --target 1e-2
[ "$code" -eq 1 ] && [[ "$out" == *"--run studies up to 33554432"* ]] || fail "beyond: $out"

# Without --target, the targets the type can hold: float16 is asked 1e-2 and faithful, not 1e-4,
# and recommend exits 0 because it answered (here: none, its one entry is ruled out); asked 1e-4,
# it says why none can, and exits 1.
recommend --from "$dir/small" --dtype float16 --positions 4096
[ "$code" -eq 0 ] && [[ "$out" == *"target 1e-2: none"* ]] && [[ "$out" == *"target faithful"* ]] &&
  [[ "$out" != *"target 1e-4"* ]] || fail "float16 defaults: $code $out"
recommend --from "$dir/small" --dtype float16 --positions 4096 --target 1e-4
[ "$code" -eq 1 ] && [[ "$out" == *"below what float16 can hold"* ]] || fail "float16 1e-4: $code $out"

# A report written before the spread and the date were kept: the median alone, undated.
mkdir -p "$dir/older"
/usr/bin/python3 - "$dir/small/report.json" "$dir/older/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
del r["date"]
for e in r["implementations"]:
    del e["values_per_s_min"], e["values_per_s_max"]
json.dump(r, open(sys.argv[2], "w"))
PY
recommend --from "$dir/older" --dtype float32 --positions 4096 --target 1e-2
[ "$code" -eq 0 ] && [[ "$out" == "answered from $dir/older/report.json (undated, 3 implementations"* ]] &&
  [[ "$out" == *"target 1e-2: cpu/precise/f64>f32/hwy"* ]] || fail "older report: $code $out"

# Without --from: ./peverify-report, the report's default directory.
(cd "$dir/cwd" && "$peverify" recommend --dtype float32 --positions 4096 >"$dir/out" 2>"$dir/err")
code=$?
[ "$code" -eq 0 ] && grep -q "^answered from peverify-report/report.json (2026-01-02" "$dir/out" ||
  fail "default report: exit $code: $(cat "$dir/out" "$dir/err")"

# Each cell in code (docs/features.md §14.1): float64 PyTorch where it meets the target, whatever
# is fastest; peverify's generator only where nothing in PyTorch does; what it replaces named.
mkdir -p "$dir/code"
/usr/bin/python3 - "$dir/small/report.json" "$dir/code/report.json" <<'PY'
import copy, json, sys
r = json.load(open(sys.argv[1]))
precise = r["implementations"][1]
far = (1 << 24) - 1
def like(name, speed, max_abs, horizons):
    e = copy.deepcopy(precise)
    e.update(name=name, values_per_s=speed, values_per_s_min=speed * 0.95,
             values_per_s_max=speed * 1.05, horizons=horizons)
    e["accuracy"]["max_abs"] = max_abs
    return e
r["implementations"] = [precise,
    like("cpu/pow/f64>f32/torch", 2e8, 6e-8, {"1e-4": far, "1e-2": far, "faithful": 1000}),
    like("cpu/pow/f32>f32/torch", 9e9, 8e-3, {"1e-4": 926, "1e-2": 97630})]
json.dump(r, open(sys.argv[2], "w"))
PY
recommend --from "$dir/code" --dtype float32 --positions 131072 --json "$dir/code/answer.json"
[ "$code" -eq 0 ] && [[ "$out" == *"in PyTorch (cpu/pow/f64>f32/torch"* ]] &&
  [[ "$out" == *"    def sinusoidal_table(n, d, base=10000.0):"* ]] &&
  [[ "$out" == *"replaces Hugging Face's float32 code stored as float32 (\`cpu/pow/f32>f32/torch\`), which meets 1e-4 only up to position 926"* ]] ||
  fail "code: $code $out"
/usr/bin/python3 - "$dir/code/answer.json" <<'PY' || fail "recommend --json: $(cat "$dir/code/answer.json")"
import json, sys
cells = json.load(open(sys.argv[1]))["recommendations"]
assert [c["target"] for c in cells] == ["1e-4", "faithful"], cells
assert cells[0]["pytorch"]["implementation"] == "cpu/pow/f64>f32/torch"
assert "torch.float64" in cells[0]["pytorch"]["code"]
assert cells[1]["pytorch"]["implementation"] == "cpu/precise/f64>f32/hwy"
assert "peverify.generate" in cells[1]["pytorch"]["code"]
PY
recommend --from "$dir/code" --dtype float32 --positions 131072 --framework tutorial
[ "$code" -eq 0 ] && [[ "$out" != *"replaces"* ]] || fail "tutorial: no entry, no replaces: $out"

# Bad input: exit 2, one line.
expect_bad() {  # expect_bad TEXT ARGS...
  local text=$1
  shift
  recommend "$@"
  [ "$code" -eq 2 ] || fail "recommend $*: exit $code, want 2"
  [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q '^peverify: error: ' "$dir/err" ||
    fail "recommend $*: not one error line: $(cat "$dir/err")"
  grep -qF -- "$text" "$dir/err" || fail "recommend $*: error does not say '$text': $(cat "$dir/err")"
}
mkdir -p "$dir/bad"
echo '{"implementations": [' >"$dir/bad/report.json"
expect_bad "malformed" --from "$dir/bad" --dtype float32 --positions 4096
echo '{"hello": "world"}' >"$dir/bad/report.json"
expect_bad "is not a peverify report" --from "$dir/bad" --dtype float32 --positions 4096
sed 's/"horizons"/"horizon"/' "$dir/small/report.json" >"$dir/bad/report.json"
expect_bad "implementations[0].horizons is missing" --from "$dir/bad" --dtype float32 --positions 4096
expect_bad "holds no report.json" --from "$dir/nonexistent" --dtype float32 --positions 4096
expect_bad "exclude each other" --from "$dir/small" --run --dtype float32 --positions 4096
expect_bad "not in {hf,vllm,meta,tutorial}" --from "$dir/small" --dtype float32 --positions 4096 \
  --framework pytorch
expect_bad "$dir/nonexistent" --from "$dir/small" --dtype float32 --positions 4096 \
  --json "$dir/nonexistent/answer.json"
echo "PASS"
