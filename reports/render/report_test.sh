#!/usr/bin/env bash
# End to end: `peverify report` on a small study writes every output; report.json validates
# against reports/study/report.schema.json; the accuracy figures are identical bit for bit on a second
# run; index.html renders in headless Chromium without console errors (skipped, with the
# reason, where Chromium is not installed). Exit 77 = skipped.
set -u
peverify=$1
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/study.json" <<'JSON'
{"d_models": [64], "bases": [10000], "exhaustive_positions": 512, "max_position": 1048576,
 "sampled_blocks": 6, "filter": "glibc|precise", "bench": true}
JSON
fail() { echo "FAIL: $*"; exit 1; }
"$peverify" report --config "$dir/study.json" --out "$dir/a" --quiet || fail "report exited $?"
for f in report.json report.md index.html implementations.csv bands.csv recommendations.csv; do
  [ -s "$dir/a/$f" ] || fail "$f missing"
done
/usr/bin/python3 - "$repo/reports/study/report.schema.json" "$dir/a/report.json" <<'PY' || fail "report.json does not validate"
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
jsonschema.validate(report, schema)
print("report.json validates against", sys.argv[1])
PY
# recommend --from answers from this report, fast, with the report's own picks (one rule).
for dtype in float32 float16 bfloat16; do
  t0=$(date +%s%N)
  "$peverify" recommend --from "$dir/a" --dtype $dtype --positions 4096 --target 1e-4 \
    --target 1e-2 --target faithful >"$dir/rec-$dtype.txt" 2>"$dir/err"
  code=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  [ "$code" -le 1 ] || fail "recommend --from $dtype: exit $code: $(cat "$dir/err")"
  [ "$ms" -lt 1000 ] || fail "recommend --from $dtype took $ms ms"
done
/usr/bin/python3 - "$dir" <<'PY' || fail "recommend --from differs from the report's recommendations"
import json, sys
d = sys.argv[1]
report = json.load(open(d + "/a/report.json"))
for dtype in ["float32", "float16", "bfloat16"]:
    text = open("%s/rec-%s.txt" % (d, dtype)).read()
    assert text.startswith("answered from %s/a/report.json (" % d), text
    for r in report["recommendations"]:
        if r["model"] is None and r["dtype"] == dtype and r["context"] == 4096:
            line = "%s, 4096 positions, target %s: %s\n" % (dtype, r["target"],
                                                          r["implementation"] or "none")
            assert line in text, (line, text)
print("recommend --from gives the report's recommendations")
PY
"$peverify" report --config "$dir/study.json" --out "$dir/b" --quiet || fail "second report exited $?"
/usr/bin/python3 - "$dir/a/report.json" "$dir/b/report.json" <<'PY' || fail "accuracy differs between runs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def accuracy(r):
    return [(e["name"], e["accuracy"], e["bands"], e["properties"], e["fitted_c"], e["horizons"],
             e["error_curve"]) for e in r["implementations"]]
assert accuracy(a) == accuracy(b), "accuracy figures differ"
print("accuracy figures identical across runs")
PY
# Bad usage: one line, exit 2, nothing written.
"$peverify" report --config /nonexistent.json --out "$dir/c" 2>"$dir/err"; code=$?
[ "$code" -eq 2 ] || fail "missing config: exit $code"
[ ! -e "$dir/c/report.json" ] || fail "missing config wrote a report"
echo '{"d_models": [7]}' > "$dir/bad.json"
"$peverify" report --config "$dir/bad.json" --out "$dir/c" 2>"$dir/err"; code=$?
[ "$code" -eq 2 ] || fail "odd d in config: exit $code"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: Chromium is not installed (Debian package chromium); the HTML was not rendered"
  exit 77
fi
profile=$(mktemp -d)
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --enable-logging=stderr --v=0 --window-size=1200,2400 \
  --screenshot="$dir/index.png" "file://$dir/a/index.html" 2>"$dir/chromium.log"
rm -rf "$profile"
[ -s "$dir/index.png" ] || fail "Chromium made no screenshot"
if grep -E 'CONSOLE|Uncaught' "$dir/chromium.log"; then fail "console messages while rendering"; fi
mkdir -p "${PEV_ARTIFACTS:-$repo/build}" && cp "$dir/index.png" "${PEV_ARTIFACTS:-$repo/build}/report-screenshot.png"
echo "report: all checks passed (screenshot in ${PEV_ARTIFACTS:-$repo/build}/report-screenshot.png)"
