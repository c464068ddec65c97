#!/usr/bin/env bash
# The default report as a person sees it: index.html rendered in headless Chromium at 1400 x 900.
# Checks that the findings and the recommendation matrix are on the first screen and that no
# element reaches past the page's width, and saves the first screen (PEV_ARTIFACTS or build/,
# report-first-screen.png; scripts/results_page.py keeps one for the results page). Exit 77 =
# skipped (no Chromium).
#   report_view_test.sh PEVERIFY [REPORT_DIR]   REPORT_DIR: a report already made (default: make one)
set -u
peverify=$1
report=${2:-}
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: Chromium is not installed (Debian package chromium); the page was not rendered"
  exit 77
fi
if [ -n "$report" ]; then
  cp -r "$report" "$dir/report" || fail "cannot read $report"
else
  "$peverify" report --out "$dir/report" --quiet || fail "peverify report exited $?"
fi
chrome() {
  local profile
  profile=$(mktemp -d)
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$profile" --window-size=1400,900 "$@" 2>"$dir/chromium.log"
  local status=$?
  rm -rf "$profile"
  return $status
}
chrome --screenshot="$dir/first-screen.png" "file://$dir/report/index.html" ||
  fail "Chromium could not render the page"
[ -s "$dir/first-screen.png" ] || fail "Chromium made no screenshot"
# The same page with a probe that measures the layout once it is loaded.
sed 's|</body>|<script>addEventListener("load", () => { const w = document.documentElement.clientWidth; const over = []; for (const el of document.querySelectorAll("body *")) { const r = el.getBoundingClientRect(); if (r.width > 0 \&\& r.right > w + 0.5) over.push(el.tagName + (el.id ? "#" + el.id : "") + "@" + Math.round(r.right)); } const box = id => document.getElementById(id).getBoundingClientRect(); document.body.setAttribute("data-layout", JSON.stringify({width: w, findings_top: box("findings").top, findings_bottom: box("findings").bottom, matrix_bottom: box("recommendation").bottom, overflow: over.slice(0, 8)})); });</script></body>|' \
  "$dir/report/index.html" >"$dir/report/probe.html"
chrome --virtual-time-budget=5000 --dump-dom "file://$dir/report/probe.html" >"$dir/dom.html" ||
  fail "Chromium could not load the probe page"
/usr/bin/python3 - "$dir/dom.html" <<'PY' || exit 1
import html, json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'data-layout="([^"]*)"', dom)
if not m:
    sys.exit("FAIL: the layout probe did not run")
layout = json.loads(html.unescape(m.group(1)))
print("layout:", layout)
problems = []
if layout["findings_bottom"] > 900:
    problems.append(f"the findings end at {layout['findings_bottom']:.0f} px, below the first screen (900)")
if layout["matrix_bottom"] > 900:
    problems.append(f"the recommendation matrix ends at {layout['matrix_bottom']:.0f} px, below the first screen (900)")
if layout["overflow"]:
    problems.append(f"elements reach past the page width {layout['width']}: {layout['overflow']}")
if problems:
    sys.exit("FAIL: " + "; ".join(problems))
print("the findings and the matrix are on the first screen; nothing overflows the page width")
PY
mkdir -p "${PEV_ARTIFACTS:-$repo/build}"
cp "$dir/first-screen.png" "${PEV_ARTIFACTS:-$repo/build}/report-first-screen.png"
echo "report view: all checks passed (first screen in ${PEV_ARTIFACTS:-$repo/build}/report-first-screen.png)"
