#!/usr/bin/python3
"""Fails when a code block of README.md or of a page under docs/ would not work as printed: every
```cpp / ```c++ block is
compiled against an installed peverify the way a user's project builds (find_package(peverify)
with its gtest component, peverify::properties and peverify::properties_gtest, as
examples/own_kernel), every ```python block must parse, every ```json block
must load. Shell blocks are left alone: they run commands, some of them long.

Usage (ctest docs_code_blocks): docs_code.py REPO BUILD_DIR [CXX_FLAGS [LINK_FLAGS]]
The flags are the ones the install was built with (the asan preset's sanitizers), as in
examples/own_kernel/install_test.sh."""
import json
import pathlib
import py_compile
import re
import subprocess
import sys
import tempfile

repo = pathlib.Path(sys.argv[1]).resolve()
build = pathlib.Path(sys.argv[2]).resolve()
cxx_flags = sys.argv[3] if len(sys.argv) > 3 else ""
link_flags = sys.argv[4] if len(sys.argv) > 4 else ""


def blocks(text, name):
    """(language, first line number, code) of each fenced block of the page `name`."""
    found, lang, start, body = [], None, 0, []
    for n, line in enumerate(text.splitlines(), 1):
        fence = re.match(r"^```\s*([\w+-]*)\s*$", line)
        if lang is None and fence:
            lang, start, body = fence.group(1).lower(), n + 1, []
        elif lang is not None and line.strip() == "```":
            found.append((lang, start, "\n".join(body) + "\n"))
            lang = None
        elif lang is not None:
            body.append(line)
    if lang is not None:
        sys.exit(f"FAIL: {name}: the block opened at line {start - 1} is never closed")
    return found


def run(command, log, what):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log.write_text(done.stdout)
    if done.returncode != 0:
        print(done.stdout[-6000:])
        sys.exit(f"FAIL: {what}")


pages = [repo / "README.md"] + sorted((repo / "docs").rglob("*.md"))
all_blocks = []
for page in pages:
    name = page.relative_to(repo).as_posix()
    all_blocks += [(lang, f"{name}:{start}", code) for lang, start, code in
                   blocks(page.read_text(), name)]
cpp = [(where, code) for lang, where, code in all_blocks if lang in ("cpp", "c++")]
python = [(where, code) for lang, where, code in all_blocks if lang == "python"]
json_blocks = [(where, code) for lang, where, code in all_blocks if lang == "json"]
# No block at all would mean the fences changed under this test, not that all is well.
if not cpp or not python:
    sys.exit(f"FAIL: found {len(cpp)} C++ and {len(python)} Python blocks, expected some")

with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    problems = []
    for i, (where, code) in enumerate(python):
        path = tmp / f"block{i}.py"
        path.write_text(code)
        try:
            py_compile.compile(str(path), cfile=str(tmp / "out.pyc"), doraise=True)
        except py_compile.PyCompileError as e:
            problems.append(f"{where}: the python block does not parse: {e.msg}")
    for where, code in json_blocks:
        try:
            json.loads(code)
        except json.JSONDecodeError as e:
            problems.append(f"{where}: the json block does not load (its line {e.lineno}): {e}")
    if problems:
        sys.exit("FAIL: " + "\n".join(problems))

    # A user's project against an install. Compiled, not linked: the README's snippet declares
    # the user's kernel and leaves its definition to them.
    prefix, project = tmp / "prefix", tmp / "project"
    run(["cmake", "--install", str(build), "--prefix", str(prefix)], tmp / "install.log",
        "cmake --install of the build did not succeed")
    project.mkdir()
    sources = []
    for where, code in cpp:
        name = where.replace("/", "_").replace(".md:", "_line").replace(".", "_") + ".cc"
        (project / name).write_text(code)
        sources.append(name)
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(readme_blocks LANGUAGES CXX)\n"
        "find_package(peverify CONFIG REQUIRED COMPONENTS gtest)\n"
        f"add_library(readme_blocks OBJECT {' '.join(sources)})\n"
        "target_link_libraries(readme_blocks PRIVATE peverify::properties_gtest)\n")
    run(["cmake", "-S", str(project), "-B", str(tmp / "build"), "-G", "Ninja",
         "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DCMAKE_CXX_FLAGS={cxx_flags}", f"-DCMAKE_EXE_LINKER_FLAGS={link_flags}"],
        tmp / "configure.log", "find_package(peverify) did not configure")
    run(["cmake", "--build", str(tmp / "build")], tmp / "build.log",
        "a C++ block does not compile against the installed headers (the file name gives its page "
        "and first line)")
print(f"{len(pages)} pages: {len(cpp)} C++ blocks compile against an install, {len(python)} Python "
      f"blocks parse, {len(json_blocks)} JSON blocks load")
