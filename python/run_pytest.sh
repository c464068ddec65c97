#!/usr/bin/env bash
# Runs pytest on one test file with the interpreter of the virtual environment the module is
# installed in (install_venv.sh), and says what it counted: passed, failed, skipped (with each
# reason). A test that needs PyTorch skips alone where PyTorch is missing (pytest.importorskip or
# the file's needs_torch mark), so the others still run. Exit 77 (ctest's skip) with the reason
# when the environment was not made, pytest is missing, or every test of the file skipped.
#   run_pytest.sh PYTHON FILE
set -u
python=$1
file=$2
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
report=$(mktemp)
trap 'rm -f "$report"' EXIT
"$python" -m pytest -q -rs -p no:cacheprovider --junitxml="$report" "$file"
code=$?
# The counts from pytest's own JUnit report: a file whose every test skipped is a skip, not a pass.
"$python" - "$report" "$file" "$code" <<'PY'
import sys
import xml.etree.ElementTree as ET
report, name, code = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    suite = ET.parse(report).getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    total, skipped = int(suite.get("tests")), int(suite.get("skipped"))
    failed = int(suite.get("failures")) + int(suite.get("errors"))
except (ET.ParseError, OSError, TypeError, AttributeError):
    sys.exit(code if code else 1)
print(f"pytest {name}: {total - skipped - failed} passed, {failed} failed, {skipped} skipped "
      f"of {total}")
if failed == 0 and total > 0 and skipped == total:
    print("SKIP: every test of the file skipped (the reasons above)")
    sys.exit(77)
sys.exit(code if total else 1)  # a file that collects no test is broken
PY
