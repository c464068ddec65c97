#!/usr/bin/env bash
# Every writer on a full filesystem and on a read-only one (docs/architecture.md §8): one line on
# stderr beginning "peverify: error:", exit 2, and nothing left behind (no file, no temporary, no
# directory the run made), a file that was there kept byte for byte. The filesystems are small
# tmpfs mounts: as root, or in a user and mount namespace of our own (unshare -rm) where the
# kernel allows one; elsewhere the test is skipped (exit 77) with the reason. The writers' failure
# paths are also tested in-process without a filesystem (support_test: atomic files, file sets).
#   full_disk_test.sh PEVERIFY
set -u
peverify=$(readlink -f "$1")
if [ -z "${PEV_IN_NAMESPACE:-}" ] && [ "$(id -u)" -ne 0 ]; then
  if unshare -rm true 2>/dev/null; then
    exec env PEV_IN_NAMESPACE=1 unshare -rm "$0" "$@"
  fi
  echo "SKIP: mounting a small tmpfs needs root or an unprivileged user namespace (unshare -rm)"
  exit 77
fi
work=$(mktemp -d)
full=$work/full
readonly_dir=$work/readonly
mkdir -p "$full" "$readonly_dir"
cleanup() {
  umount "$full" 2>/dev/null
  umount "$readonly_dir" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
if ! mount -t tmpfs -o size=256k tmpfs "$full" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs here (a container without CAP_SYS_ADMIN?)"
  exit 77
fi
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Inputs, made before the filesystems fill: a table, a budget file with its records, a report.
"$peverify" oracle --d-model 64 --positions 300 -o "$work/t.npy" 2>/dev/null || fail "oracle"
cp "$work/t.npy" "$full/t.npy"
echo '{"subjects": [{"table": "t.npy", "d_model": 64, "budgets": {}}]}' > "$full/budgets.json"
"$peverify" check --budgets "$full/budgets.json" --update >/dev/null 2>&1 || fail "check --update"
cp "$full/budgets.json" "$work/budgets.before"
echo '{"d_models": [64], "bases": [10000], "exhaustive_positions": 64, "max_position": 4096,
 "sampled_blocks": 2, "filter": "^cpu/pow/f64>f32/glibc$", "bench": false}' > "$work/small.json"
"$peverify" report --config "$work/small.json" --out "$work/report" --quiet || fail "report"
/usr/bin/python3 -c 'import numpy as np; q = np.ones((4, 1, 8), np.float32); np.save("'"$work"'/q.npy", q)'
# Fill what is left of the small filesystem.
dd if=/dev/zero of="$full/fill" bs=4k 2>/dev/null
mount -t tmpfs -o size=256k,ro tmpfs "$readonly_dir" || fail "mount a read-only tmpfs"

# expect_refused WHERE DESCRIPTION ARGS...: exit 2 with one error line (the last on stderr, after
# any progress), and WHERE's listing as before (the budget file, when it is there, byte for byte).
expect_refused() {
  local where=$1 what=$2
  shift 2
  local before after err code
  before=$(ls -A "$where")
  err=$("$peverify" "$@" 2>&1 >/dev/null)
  code=$?
  after=$(ls -A "$where")
  if [ "$code" -ne 2 ]; then
    fail "$what: exit $code, want 2 ($err)"
  elif [ "$(printf '%s\n' "$err" | grep -c '^peverify: error: ')" -ne 1 ] ||
    [[ "$(printf '%s\n' "$err" | tail -n 1)" != "peverify: error: "* ]]; then
    fail "$what: not one 'peverify: error:' line, last: $err"
  fi
  [ "$before" = "$after" ] || fail "$what: left behind: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
  cmp -s "$work/budgets.before" "$full/budgets.json" || fail "$what: changed the budget file"
}

for target in "$full" "$readonly_dir"; do
  kind=$([ "$target" = "$full" ] && echo "a full disk" || echo "a read-only directory")
  expect_refused "$target" "oracle -o on $kind" oracle --d-model 64 --positions 300 -o "$target/o.npy"
  expect_refused "$target" "generate -o on $kind" generate --impl 'cpu/pow/f64>f32/glibc' \
    --d-model 64 --positions 300 -o "$target/g.npy"
  expect_refused "$target" "verify --json on $kind" verify "$work/t.npy" --json "$target/v.json"
  expect_refused "$target" "verify-rotary --json on $kind" verify-rotary --input "$work/q.npy" \
    --output "$work/q.npy" --json "$target/r.json"
  expect_refused "$target" "check --junit on $kind" check --budgets "$full/budgets.json" \
    --junit "$target/junit.xml"
  expect_refused "$target" "report --out on $kind" report --config "$work/small.json" \
    --out "$target/report" --quiet
  expect_refused "$target" "report --out a nested new directory on $kind" report \
    --config "$work/small.json" --out "$target/a/b/report" --quiet
  expect_refused "$target" "report --from on $kind" report --from "$work/report" \
    --out "$target/rendered" --quiet
  expect_refused "$target" "recommend --json on $kind" recommend --dtype float32 --positions 1024 \
    --from "$work/report" --json "$target/rec.json"
  expect_refused "$target" "sweep --out on $kind" sweep --config "$work/small.json" \
    --out "$target/sweep" --threads 1 --quiet
  expect_refused "$target" "bench --json on $kind" bench --quick --filter '^cpu/pow/f64>f32/glibc$' \
    --repetitions 1 --json "$target/b.json"
done
# --update of a budget file on a full disk: refused, the records kept byte for byte.
expect_refused "$full" "check --update on a full disk" check --budgets "$full/budgets.json" --update

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "full disk and read-only directory: every writer refused in one line and left nothing behind"
