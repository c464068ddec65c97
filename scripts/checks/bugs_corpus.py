#!/usr/bin/python3
"""Fails when the published-bug corpus (bugs/README.md) leaves a cause without a case, or a case
without its test: every cause of encoding/vocabulary.json's diagnosis_causes but `none` must be
the cause of a row of the README's table; each row's test must exist (a GoogleTest TEST in bugs/,
or a pytest function) and assert that cause; each row's control (the same test, or the one named
in the last column) must show a fix passing (expect_named, which asserts the fixed data holds, or
a pytest assertion that a verdict holds).

    bugs_corpus.py ROOT              check the tree at ROOT
    bugs_corpus.py ROOT --self-test  also prove that planted faults fail

Run by ctest (bugs_corpus) from the repository root."""
import json
import pathlib
import re
import sys

ROW = re.compile(r"^\|(?P<cells>.+)\|\s*$")
NOT_A_BUG = {"none"}  # the diagnosis could not run: no data's cause


def cells(line):
    return [c.strip() for c in ROW.match(line).group("cells").split("|")]


def table(readme):
    """The corpus table's rows as dicts of its header's columns."""
    lines = [l for l in readme.splitlines() if l.startswith("| ")]
    if len(lines) < 2:
        return []
    header = cells(lines[0])
    return [dict(zip(header, cells(l))) for l in lines[2:]]


def ticked(cell):
    m = re.search(r"`([^`]+)`", cell)
    return m.group(1) if m else None


def cpp_body(sources, name):
    """The body of TEST(Suite, Name) for name 'Suite.Name' in the sources, or None."""
    suite, _, test = name.partition(".")
    pattern = re.compile(r"^TEST\(\s*%s\s*,\s*%s\s*\)\s*\{" % (re.escape(suite), re.escape(test)),
                         re.M)
    for text in sources:
        m = pattern.search(text)
        if m:
            end = text.find("\n}\n", m.end())
            return text[m.end():end if end >= 0 else len(text)]
    return None


def py_body(root, name):
    """The body of pytest function 'path::function', or None."""
    path, _, function = name.partition("::")
    f = root / path
    if not f.is_file():
        return None
    text = f.read_text()
    m = re.search(r"^def %s\(.*?\n" % re.escape(function), text, re.M)
    if not m:
        return None
    rest = text[m.end():]
    end = re.search(r"^\S", rest, re.M)
    return rest[:end.start() if end else len(rest)]


def body_of(root, sources, name):
    return py_body(root, name) if "::" in name else cpp_body(sources, name)


def shows_a_pass(body, python):
    if python:
        return bool(re.search(r'\["holds"\]|assert peverify\.verify\(|assert verdict\b|'
                              r'assert v\b|\.holds\(\)', body))
    return "expect_named(" in body or "holds()" in body


def problems(root, readme_text, vocabulary):
    causes = set(vocabulary["diagnosis_causes"]["causes"]) - NOT_A_BUG
    sources = [p.read_text() for p in sorted((root / "bugs").glob("*_test.cc"))]
    rows = table(readme_text)
    out = []
    if not rows:
        return ["bugs/README.md: no corpus table"]
    covered = set()
    for row in rows:
        cause, test = ticked(row.get("cause named", "")), ticked(row.get("test", ""))
        control = ticked(row.get("fix passes in", "")) or test
        where = f"bugs/README.md: {row.get('case', '?')}"
        if cause not in causes:
            out.append(f"{where}: cause {cause!r} is no cause of the vocabulary")
            continue
        body = body_of(root, sources, test) if test else None
        if body is None:
            out.append(f"{where}: test {test!r} not found")
            continue
        if f'"{cause}"' not in body:
            out.append(f"{where}: {test} does not assert the cause \"{cause}\"")
            continue
        control_body = body if control == test else body_of(root, sources, control)
        if control_body is None or not shows_a_pass(control_body, "::" in control):
            out.append(f"{where}: control {control!r} shows no fix passing")
            continue
        covered.add(cause)
    for cause in sorted(causes - covered):
        out.append(f"bugs/README.md: the cause {cause!r} has no corpus case")
    return out


def self_test(root, readme_text, vocabulary):
    """Planted faults: a cause with no row, a test that does not exist, a wrong cause."""
    rows = [l for l in readme_text.splitlines() if l.startswith("| ") and "`sign`" in l]
    assert rows, "self-test: no sign row to plant faults in"
    planted = {
        "a cause left without a case": readme_text.replace(rows[0] + "\n", ""),
        "a test that does not exist": readme_text.replace(rows[0], rows[0].replace(
            "Lalamo268", "NoSuchTest")),
        "a test that asserts another cause": readme_text.replace(rows[0], rows[0].replace(
            "`sign`", "`layout`")),
    }
    failed = []
    for what, text in planted.items():
        if not problems(root, text, vocabulary):
            failed.append(what)
    return failed


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit("usage: bugs_corpus.py ROOT [--self-test]")
    root = pathlib.Path(args[0])
    readme_text = (root / "bugs" / "README.md").read_text()
    vocabulary = json.loads((root / "encoding" / "vocabulary.json").read_text())
    found = problems(root, readme_text, vocabulary)
    for p in found:
        print(p)
    if "--self-test" in sys.argv:
        missed = self_test(root, readme_text, vocabulary)
        for what in missed:
            print(f"self-test: {what} was not caught")
        found += missed
    rows = table(readme_text)
    print(f"{len(rows)} corpus cases; {len(found)} problems")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
