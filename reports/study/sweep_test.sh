#!/usr/bin/env bash
# `peverify sweep` on threads: its merged accuracy figures and verdicts equal `peverify report`'s
# on the same small study; `peverify report --from DIR` renders the same report; a sweep killed
# mid-way (or missing shard files) resumes, computing only the missing shards, to the identical
# result; bad usage is one line and exit 2.
set -u
peverify=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/study.json" <<'JSON'
{"d_models": [64], "bases": [10000], "exhaustive_positions": 256, "max_position": 65536,
 "sampled_blocks": 4, "filter": "glibc", "bench": false}
JSON
fail() { echo "FAIL: $*"; exit 1; }
same() {  # same accuracy figures and verdicts in every report.json given
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
def accuracy(path):
    r = json.load(open(path))
    return [(e["name"], e["accuracy"], e["bands"], e["properties"], e["fitted_c"], e["horizons"],
             e["error_curve"]) for e in r["implementations"]]
a = accuracy(sys.argv[1])
for p in sys.argv[2:]:
    assert accuracy(p) == a, "accuracy figures differ: %s vs %s" % (sys.argv[1], p)
print("accuracy figures identical:", " ".join(sys.argv[1:]))
PY
}
shards() { ls "$1/shards" | grep -c '\.json$'; }

"$peverify" report --config "$dir/study.json" --out "$dir/report" --quiet || fail "report exited $?"
"$peverify" sweep --config "$dir/study.json" --out "$dir/sweep" 2>"$dir/log" || fail "sweep exited $?"
total=$(shards "$dir/sweep")
grep -q "^peverify sweep: $total shards, 0 already recorded" "$dir/log" || fail "log: $(head -1 "$dir/log")"
same "$dir/report/report.json" "$dir/sweep/report.json" || fail "sweep differs from report"

"$peverify" report --from "$dir/sweep" --out "$dir/rendered" --quiet || fail "report --from exited $?"
cmp "$dir/sweep/report.json" "$dir/rendered/report.json" || fail "report --from changed report.json"
for f in report.md index.html implementations.csv bands.csv recommendations.csv; do
  [ -s "$dir/rendered/$f" ] || fail "report --from: $f missing"
done

# Missing shard files: only those are computed again, to the identical result.
cp -r "$dir/sweep" "$dir/resumed"
rm "$dir/resumed/report.json"
ls "$dir/resumed/shards" | head -n 7 | while read -r f; do rm "$dir/resumed/shards/$f"; done
"$peverify" sweep --config "$dir/study.json" --out "$dir/resumed" 2>"$dir/log" || fail "resume exited $?"
grep -q "^peverify sweep: $total shards, $((total - 7)) already recorded in .*, 7 to compute" \
  "$dir/log" || fail "resume log: $(head -1 "$dir/log")"
cmp "$dir/sweep/bands.csv" "$dir/resumed/bands.csv" || fail "resumed bands.csv differs"
same "$dir/sweep/report.json" "$dir/resumed/report.json" || fail "resumed sweep differs"

# Killed mid-way: the shards it recorded are kept, the rest computed on restart.
timeout -s KILL 2 "$peverify" sweep --config "$dir/study.json" --out "$dir/killed" --quiet
kept=$(shards "$dir/killed")
[ "$kept" -lt "$total" ] || echo "note: the sweep finished before it was killed"
"$peverify" sweep --config "$dir/study.json" --out "$dir/killed" 2>"$dir/log" || fail "restart exited $?"
grep -q "^peverify sweep: $total shards, $kept already recorded in .*, $((total - kept)) to compute" \
  "$dir/log" || fail "restart log: $(head -1 "$dir/log") (kept $kept)"
same "$dir/sweep/report.json" "$dir/killed/report.json" || fail "restarted sweep differs"
echo "resumed with $kept of $total shards recorded"

# Bad usage: one line, exit 2.
expect_usage() {
  "$@" 2>"$dir/err" >/dev/null; code=$?
  [ "$code" -eq 2 ] || fail "$*: exit $code"
  [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q '^peverify: error: ' "$dir/err" || fail "$*: $(cat "$dir/err")"
}
expect_usage "$peverify" sweep --config "$dir/study.json"
expect_usage "$peverify" sweep --config /nonexistent.json --out "$dir/x"
expect_usage "$peverify" report --from "$dir/nonexistent" --out "$dir/y"
expect_usage "$peverify" report --from "$dir/sweep" --config "$dir/study.json" --out "$dir/y"
sed 's/"sampled_blocks": 4/"sampled_blocks": 3/' "$dir/study.json" > "$dir/other.json"
expect_usage "$peverify" sweep --config "$dir/other.json" --out "$dir/sweep"
echo "PASS"
