#!/usr/bin/env bash
# The budgets schema (gate/budgets.schema.json) and the reader agree: the committed
# budgets and what `check --update` writes validate against it; every key it lists is one the
# reader takes (a file holding them all is read), and a key it does not list is refused with one
# line (exit 2). Exit 77 = skipped.
set -u
peverify=$1
repo=$(cd "$(dirname "$0")/.." && pwd)
schema=$repo/gate/budgets.schema.json
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null ||
  { echo "SKIP: python3-jsonschema is not installed"; exit 77; }
validate() {
  /usr/bin/python3 - "$schema" "$1" <<'PY' || fail "$1 does not validate"
import json, sys
import jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
}
validate "$repo/gate/budgets.json"

# A table at position ids and one from a model config, recorded by --update.
"$peverify" oracle --model-config gemma-3-27b-it --layer-type sliding_attention --positions 2048 \
  --layout rope-cos-dup -o "$dir/cos.npy" >/dev/null || fail "oracle cos"
/usr/bin/python3 -c 'import numpy as np, sys; np.save(sys.argv[1], np.arange(4096)[::-1].copy())' \
  "$dir/ids.npy" || fail "ids"
"$peverify" oracle --d-model 64 --positions "$dir/ids.npy" -o "$dir/pe.npy" >/dev/null ||
  fail "oracle"
cat > "$dir/b.json" <<'JSON'
{"subjects": [
  {"table": "pe.npy", "d_model": 64, "layout": "interleaved", "positions": "ids.npy",
   "budgets": {}},
  {"table": "cos.npy", "model_config": "gemma-3-27b-it", "layer_type": "sliding_attention",
   "layout": "rope-cos-dup", "schedule": "paper", "start": 0, "budgets": {}},
  {"impl": "cpu/pow/f64>f32/glibc", "budgets": {}}]}
JSON
"$peverify" check --budgets "$dir/b.json" --update >"$dir/out" 2>&1 ||
  fail "check --update: $(cat "$dir/out")"
validate "$dir/b.json"
/usr/bin/python3 - "$dir/b.json" <<'PY' || fail "--update wrote no column_max_abs"
import json, sys
subjects = json.load(open(sys.argv[1]))["subjects"]
assert all("column_max_abs" in r for r in subjects[0]["budgets"].values()), subjects[0]
PY

# Every subject key of the schema is read (a wrong value is refused naming it, never as
# unknown); a key the schema does not list is refused as unknown.
keys=$(/usr/bin/python3 -c 'import json, sys
print(" ".join(json.load(open(sys.argv[1]))["$defs"]["subject"]["properties"]))' "$schema")
for key in $keys not_a_key; do
  printf '{"subjects": [{"table": "pe.npy", "%s": [[]]}]}' "$key" >"$dir/k.json"
  "$peverify" check --budgets "$dir/k.json" >"$dir/out" 2>&1
  code=$?
  unknown=$(grep -c "unknown field" "$dir/out")
  if [ "$key" = not_a_key ]; then
    [ "$code" -eq 2 ] && [ "$unknown" -eq 1 ] || fail "an unknown key: exit $code: $(cat "$dir/out")"
  else
    [ "$code" -eq 2 ] && [ "$unknown" -eq 0 ] ||
      fail "key $key: exit $code: $(cat "$dir/out") (the schema lists it; is it read?)"
  fi
  [ "$(wc -l <"$dir/out")" -eq 1 ] || fail "key $key: more than one line: $(cat "$dir/out")"
done
echo "budgets schema: the committed file, --update's output and every key agree with the reader"
