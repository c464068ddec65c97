#!/usr/bin/env bash
# A project of yours against an installed peverify, as the README says: `cmake --install` the
# build into a fresh prefix, then configure examples/own_kernel with find_package(peverify), build
# it and run its property suite. Checks that the install holds exactly the public headers (the
# umbrella headers' closure, under include/peverify/), that the plain example needs no test
# framework (GoogleTest is neither looked for nor linked) and links no part of the registry (SLEEF,
# quadmath), and that the GoogleTest form builds and passes when it asks for the gtest component.
set -eu
build=$1
# The flags the install was built with (the asan preset's sanitizers): a user's project must link
# the same runtimes as the libraries it links.
cxx_flags=${2:-}
link_flags=${3:-}
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$dir/prefix" >"$dir/install.log"
[ -x "$dir/prefix/bin/peverify" ] || fail "the peverify command was not installed"

# The installed headers are the closure of the two umbrella headers, computed here independently.
(cd "$dir/prefix/include" && find . -type f | sed 's|^\./||' | sort) >"$dir/installed.txt"
python3 - "$repo" >"$dir/closure.txt" <<'PY'
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
todo, seen = ["properties/peverify_properties.h", "properties/gtest/register_suite.h"], set()
while todo:
    h = todo.pop()
    if h in seen:
        continue
    seen.add(h)
    todo += re.findall(r'^\s*#\s*include\s+"peverify/([^"]+)"', (root / h).read_text(), re.M)
print("\n".join(sorted("peverify/" + h for h in seen)))
PY
diff "$dir/closure.txt" "$dir/installed.txt" >"$dir/headers.diff" ||
  { cat "$dir/headers.diff"; fail "the installed headers are not the public closure (< closure, > installed)"; }
grep -E 'testutil|arb_|-inl\.h|mpfr_var' "$dir/installed.txt" && fail "a private header was installed"

configure() {  # configure() BUILD_DIR [cmake args...]
  local out=$1; shift
  cmake -S "$repo/examples/own_kernel" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$dir/prefix" -DCMAKE_CXX_FLAGS="$cxx_flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$link_flags" "$@" >"$out.configure.log" 2>&1 ||
    { cat "$out.configure.log"; fail "find_package(peverify) did not configure"; }
  cmake --build "$out" >"$out.build.log" 2>&1 ||
    { tail -30 "$out.build.log"; fail "the example did not build"; }
}

configure "$dir/plain"
grep -q 'GTest' "$dir/plain/CMakeCache.txt" && fail "the plain example looked for GoogleTest"
nm -C "$dir/plain/own_kernel_properties" | grep -q 'testing::' &&
  fail "the plain example links GoogleTest"
ldd "$dir/plain/own_kernel_properties" | grep -Ei 'sleef|quadmath|gtest' &&
  fail "the example links the registry's math libraries or GoogleTest"
(cd "$repo" && "$dir/plain/own_kernel_properties" >"$dir/plain.log") ||
  { cat "$dir/plain.log"; fail "the example's property suite failed"; }

configure "$dir/gtest" -DOWN_KERNEL_GTEST=ON
(cd "$repo" && "$dir/gtest/own_kernel_gtest" --gtest_brief=1 >"$dir/gtest.log") ||
  { tail -30 "$dir/gtest.log"; fail "the example's GoogleTest suite failed"; }
echo "installed peverify: $(wc -l <"$dir/installed.txt") public headers under include/peverify;" \
  "the plain example builds without GoogleTest and passes; the gtest component builds and passes"
