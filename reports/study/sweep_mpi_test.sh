#!/usr/bin/env bash
# `mpirun -np 1/2/3 peverify sweep` (loopback only) give byte-identical accuracy figures, equal to
# the threaded sweep's; shard files deleted from an MPI sweep are recomputed, and only those.
# Exit 77 = skipped: peverify built without MPI, or no mpirun.
set -u
peverify=$1 have_mpi=$2 mpirun=${3:-}
[ "$have_mpi" = ON ] || { echo "SKIP: peverify built without MPI (PEV_ENABLE_MPI)"; exit 77; }
[ -n "$mpirun" ] && [ -x "$mpirun" ] || { echo "SKIP: mpirun not found"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/study.json" <<'JSON'
{"d_models": [64], "bases": [10000], "exhaustive_positions": 256, "max_position": 65536,
 "sampled_blocks": 4, "filter": "glibc", "bench": false}
JSON
fail() { echo "FAIL: $*"; exit 1; }
run() {  # run NP DIR [log]
  "$mpirun" --allow-run-as-root --oversubscribe --mca btl self,vader --mca oob_tcp_if_include lo \
    -np "$1" "$peverify" sweep --config "$dir/study.json" --out "$2" 2>"$dir/log-$1" >/dev/null
}
"$peverify" sweep --config "$dir/study.json" --out "$dir/threads" --quiet || fail "threads: exit $?"
for np in 1 2 3; do
  run $np "$dir/np$np" || { cat "$dir/log-$np"; fail "mpirun -np $np: exit $?"; }
  cmp "$dir/threads/bands.csv" "$dir/np$np/bands.csv" || fail "-np $np: bands.csv differs"
  cmp "$dir/threads/implementations.csv" "$dir/np$np/implementations.csv" ||
    fail "-np $np: implementations.csv differs"
done
/usr/bin/python3 - "$dir"/threads/report.json "$dir"/np{1,2,3}/report.json <<'PY' || fail "figures differ"
import json, sys
def accuracy(path):
    r = json.load(open(path))
    return json.dumps([(e["name"], e["accuracy"], e["bands"], e["properties"], e["fitted_c"],
                        e["horizons"], e["error_curve"]) for e in r["implementations"]])
a = accuracy(sys.argv[1])
for p in sys.argv[2:]:
    assert accuracy(p) == a, "accuracy figures differ: %s" % p
print("accuracy figures byte-identical for threads and -np 1, 2, 3")
PY
total=$(ls "$dir/np2/shards" | wc -l)
ls "$dir/np2/shards" | tail -n 5 | while read -r f; do rm "$dir/np2/shards/$f"; done
run 2 "$dir/np2" || fail "resume: exit $?"
grep -q "^peverify sweep: $total shards, $((total - 5)) already recorded in .*, 5 to compute" \
  "$dir/log-2" || fail "resume log: $(head -1 "$dir/log-2")"
[ "$(grep -c '^peverify sweep: \[' "$dir/log-2")" -eq 5 ] || fail "resume computed other shards"
cmp "$dir/threads/bands.csv" "$dir/np2/bands.csv" || fail "resumed: bands.csv differs"
echo "PASS"
