#!/usr/bin/env bash
# Installs the module as a Python user does (README, "From Python"): a virtual environment over
# Debian's packages, then `pip install --no-build-isolation` of this checkout, offline. The
# Python tests then import it from there, from outside the source tree. The wheel packs the module
# of this build tree (PEVERIFY_CMAKE_BUILD_DIR, setup.py) rather than compiling it a second time.
# Exit 77 (ctest's skip) with the reason when Debian's python3-venv or python3-wheel is missing
# (`scripts/setup --tests` installs them).
#   install_venv.sh PYTHON SOURCE_DIR BUILD_DIR VENV
set -euo pipefail
python=$1 source_dir=$2 build_dir=$3 venv=$4
rm -rf "$venv"  # a skip leaves no environment from an earlier run for the tests to use
if [ -n "${PEV_SANITIZED:-}" ]; then
  echo "SKIP: a sanitized build's module cannot load into an unsanitized $python"
  exit 77
fi
if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
  echo "SKIP: $python cannot make a virtual environment (Debian's python3-venv)"
  exit 77
fi
if ! "$python" -c 'import wheel' 2>/dev/null; then
  echo "SKIP: $python has no wheel package to build with (Debian's python3-wheel)"
  exit 77
fi
"$python" -m venv --system-site-packages "$venv"
PEVERIFY_CMAKE_BUILD_DIR=$build_dir "$venv/bin/pip" install --quiet --no-index \
  --no-build-isolation "$source_dir"
# Imported from / so that nothing but the environment can provide it.
cd /
"$venv/bin/python" - "$venv" <<'PY'
import pathlib, sys
import peverify
where = pathlib.Path(peverify.__file__).resolve()
venv = pathlib.Path(sys.argv[1]).resolve()
assert venv in where.parents, f"peverify was imported from {where}, not from {venv}"
print(f"installed: {where}")
PY
