#!/usr/bin/env bash
# Runs pytest on one folder with the interpreter of the virtual environment the module is installed
# in (install_venv.sh); exit 77 (ctest's skip) with the reason when that environment was not made,
# or pytest, or the PyTorch an example needs, is not installed (`scripts/setup --tests` installs
# python3-venv, python3-pytest and python3-torch).
set -u
python=$1
dir=$2
if [ -n "${PEV_SANITIZED:-}" ]; then
  # The sanitizer runtime must be the first library a process loads; Debian's python is not built
  # with it, so a sanitized module cannot be imported. The default build runs these tests.
  echo "SKIP: a sanitized build's module cannot load into an unsanitized $python"
  exit 77
fi
if [ ! -x "$python" ]; then
  echo "SKIP: no environment with the module installed ($python; see the python_install test)"
  exit 77
fi
if ! "$python" -c 'import pytest' 2>/dev/null; then
  echo "SKIP: pytest is not installed for $python (Debian's python3-pytest)"
  exit 77
fi
if grep -rqs '^import torch' "$dir" && ! "$python" -c 'import torch' 2>/dev/null; then
  echo "SKIP: PyTorch is not installed for $python (Debian's python3-torch)"
  exit 77
fi
exec "$python" -m pytest -q -p no:cacheprovider "$dir"
