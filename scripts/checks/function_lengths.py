#!/usr/bin/python3
"""Fails when a product function is longer than 80 lines (docs/architecture.md §7: a function
over ~80 lines is usually two steps that want names of their own, or a catalogue that wants to be
a table). Counted by matching braces over the sources with comments, string literals and
preprocessor lines blanked, from the line of a function's opening brace to its closing one. A
function is a brace at namespace or class scope that follows a parameter list (a lambda inside a
function is part of it). Product and test sources are told apart as the include guard tells them
(include_directions.py: by the CMake target they build into); tests are not held to it.

    function_lengths.py ROOT TARGETS_JSON [--self-test] [--limit N]

Written here rather than taken from a linter: clang-tidy's readability-function-size counts
statements or lines of a function body after preprocessing, which counts what a macro expands to
and needs a compile database of every configuration."""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import include_directions  # noqa: E402  (the product/test classification)

LIMIT = 80
RAW_STRING = re.compile(r'R"([^(\s]*)\(')
# What may follow a parameter list before a function's body.
AFTER_PARAMETERS = re.compile(
    r"\)\s*(?:const|volatile|noexcept(?:\s*\([^()]*\))?|override|final|mutable|&&?|"
    r"->\s*[\w:<>,\s*&]+|requires\b[^{]*|\s)*$")
CONTROL = re.compile(r"\b(if|for|while|switch|catch)\s*\(")


def blank(text: str) -> str:
    """The text with comments, string and character literals and preprocessor lines replaced by
    spaces, newlines kept, so that braces inside them do not count and line numbers hold."""
    out, i, n = [], 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            j = i
            while True:  # a directive, with its continuation lines
                k = text.find("\n", j)
                k = n if k < 0 else k
                if k > j and text[k - 1] == "\\" and k < n:
                    j = k + 1
                    continue
                break
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
            continue
        if c in " \t":
            out.append(c)
            i += 1
            continue
        at_line_start = c == "\n"
        if text.startswith("//", i):
            k = text.find("\n", i)
            k = n if k < 0 else k
            out.append(" " * (k - i))
            i = k
        elif text.startswith("/*", i):
            k = text.find("*/", i + 2)
            k = n if k < 0 else k + 2
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
        elif (m := RAW_STRING.match(text, i)) and (i == 0 or not text[i - 1].isalnum()):
            end = ")" + m.group(1) + '"'
            k = text.find(end, m.end())
            k = n if k < 0 else k + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            k = i + 1
            while k < n and text[k] != c and text[k] != "\n":
                k += 2 if text[k] == "\\" else 1
            out.append(" " * (min(k, n) + 1 - i))
            i = k + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text: str):
    """(first line, last line, name) of every function body at namespace or class scope."""
    s = blank(text)
    stack = []  # (kind, line, name) of each open brace
    head_start = 0
    for m in re.finditer(r"[{};]", s):
        ch, pos = m.group(), m.start()
        if ch == "{":
            head = s[head_start:pos].strip()
            kind = "block"
            if all(k in ("namespace", "class") for k, _, _ in stack):
                if re.search(r"\bnamespace\b[^()]*$", head) or head.startswith("extern"):
                    kind = "namespace"
                elif re.search(r"\b(class|struct|union|enum)\b[^()=]*$", head):
                    kind = "class"
                elif AFTER_PARAMETERS.search(head) and not CONTROL.match(head.split("\n")[-1].strip()):
                    kind = "function"
            name = ""
            if kind == "function":
                found = re.findall(r"([~\w:<>]+)\s*\(", head.replace("\n", " "))
                name = found[0] if found else ""
            stack.append((kind, s.count("\n", 0, pos) + 1, name))
        elif ch == "}" and stack:
            kind, first, name = stack.pop()
            if kind == "function":
                yield first, s.count("\n", 0, pos) + 1, name
        head_start = pos + 1


def check(root: pathlib.Path, targets_json: pathlib.Path, limit: int):
    files = list(include_directions.sources(root))
    kinds, _ = include_directions.classify(root, files, targets_json)
    long = []
    for path in files:
        name = path.relative_to(root).as_posix()
        if kinds.get(name) != "product":
            continue
        for first, last, fn in functions(path.read_text(errors="replace")):
            if last - first + 1 > limit:
                long.append(f"{name}:{first}: {fn or 'a function'} is {last - first + 1} lines "
                            f"(limit {limit})")
    return long, sum(1 for f in files if kinds.get(f.relative_to(root).as_posix()) == "product")


def self_test(root: pathlib.Path, targets_json: pathlib.Path, limit: int) -> bool:
    """A product source given one function of limit + 1 lines must fail; of limit lines, pass."""
    ok = True
    for lines, must_fail in ((limit + 1, True), (limit, False)):
        body = "".join(f"  x += {i};  // {{ }}\n" for i in range(lines - 4))
        planted_fn = f'int planted(int x) {{\n  const char* s = "}}";\n{body}  return x;\n}}\n'
        with tempfile.TemporaryDirectory() as tmp:
            copy = pathlib.Path(tmp) / "tree"
            shutil.copytree(root, copy, symlinks=True,
                            ignore=lambda d, names: [n for n in names if n == ".git"
                                                     or n.startswith("build")])
            planted = copy / "verify" / "verify.cc"
            planted.write_text(planted.read_text() + "\nnamespace pev::verify {\n" + planted_fn +
                               "}\n")
            r = subprocess.run([sys.executable, __file__, str(copy), str(targets_json),
                                "--limit", str(limit)], capture_output=True, text=True)
            failed = r.returncode != 0 and "planted is" in r.stdout
            good = failed == must_fail
            print(f"self-test: a planted function of {lines} lines "
                  + ("fails" if failed else "passes") + (", as it must" if good else
                                                         ": the check is broken"))
            ok = ok and good
    return ok


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    limit = LIMIT
    if "--limit" in sys.argv:
        limit = int(sys.argv[sys.argv.index("--limit") + 1])
        args.remove(str(limit))
    if len(args) != 2:
        sys.exit("usage: function_lengths.py ROOT TARGETS_JSON [--self-test] [--limit N]")
    root, targets_json = pathlib.Path(args[0]).resolve(), pathlib.Path(args[1]).resolve()
    long, product = check(root, targets_json, limit)
    for line in long:
        print(line)
    print(f"{product} product sources; {len(long)} functions over {limit} lines")
    ok = not long
    if "--self-test" in sys.argv:
        ok = self_test(root, targets_json, limit) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
