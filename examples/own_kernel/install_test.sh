#!/usr/bin/env bash
# A project of yours against an installed peverify, as the README says: `cmake --install` the
# build into a fresh prefix, then configure examples/own_kernel with find_package(peverify),
# build it and run its property suite. Also checks that it links no part of the registry (SLEEF,
# quadmath).
set -eu
build=$1
# The flags the install was built with (the asan preset's sanitizers): a user's project must link
# the same runtimes as the libraries it links.
cxx_flags=${2:-}
link_flags=${3:-}
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cmake --install "$build" --prefix "$dir/prefix" >"$dir/install.log"
[ -x "$dir/prefix/bin/peverify" ] || { echo "FAIL: the peverify command was not installed"; exit 1; }
cmake -S "$repo/examples/own_kernel" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$dir/prefix" -DCMAKE_CXX_FLAGS="$cxx_flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$link_flags" >"$dir/configure.log" ||
  { cat "$dir/configure.log"; echo "FAIL: find_package(peverify) did not configure"; exit 1; }
cmake --build "$dir/build" >"$dir/build.log" ||
  { tail -30 "$dir/build.log"; echo "FAIL: the example did not build"; exit 1; }
if ldd "$dir/build/own_kernel_properties" | grep -Ei 'sleef|quadmath'; then
  echo "FAIL: the example links the registry's math libraries"; exit 1
fi
(cd "$repo" && "$dir/build/own_kernel_properties" --gtest_brief=1) ||
  { echo "FAIL: the example's property suite failed"; exit 1; }
echo "installed peverify: find_package + peverify::properties build and pass"
