#!/usr/bin/env python3
"""Fails when a code block of README.md would not work as printed: every ```cpp / ```c++ block is
compiled against an installed peverify the way a user's project builds (find_package(peverify)
with its gtest component, peverify::properties and peverify::properties_gtest, as
examples/own_kernel), every ```python block must parse, every ```json block
must load. Shell blocks are left alone: they run commands, some of them long.

Usage (ctest readme_code_blocks): check_readme_code.py REPO BUILD_DIR [CXX_FLAGS [LINK_FLAGS]]
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


def blocks(text):
    """(language, first line number, code) of each fenced block."""
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
        sys.exit(f"FAIL: README.md: the block opened at line {start - 1} is never closed")
    return found


def run(command, log, what):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log.write_text(done.stdout)
    if done.returncode != 0:
        print(done.stdout[-6000:])
        sys.exit(f"FAIL: {what}")


all_blocks = blocks((repo / "README.md").read_text())
cpp = [(start, code) for lang, start, code in all_blocks if lang in ("cpp", "c++")]
python = [(start, code) for lang, start, code in all_blocks if lang == "python"]
json_blocks = [(start, code) for lang, start, code in all_blocks if lang == "json"]
# A README without any would mean the fences changed under this test, not that all is well.
if not cpp or not python:
    sys.exit(f"FAIL: README.md: found {len(cpp)} C++ and {len(python)} Python blocks, expected some")

with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    problems = []
    for start, code in python:
        path = tmp / f"readme_line{start}.py"
        path.write_text(code)
        try:
            py_compile.compile(str(path), cfile=str(tmp / "out.pyc"), doraise=True)
        except py_compile.PyCompileError as e:
            problems.append(f"README.md:{start}: the python block does not parse: {e.msg}")
    for start, code in json_blocks:
        try:
            json.loads(code)
        except json.JSONDecodeError as e:
            problems.append(f"README.md:{start + e.lineno - 1}: the json block does not load: {e}")
    if problems:
        sys.exit("FAIL: " + "\n".join(problems))

    # A user's project against an install. Compiled, not linked: the README's snippet declares
    # the user's kernel and leaves its definition to them.
    prefix, project = tmp / "prefix", tmp / "project"
    run(["cmake", "--install", str(build), "--prefix", str(prefix)], tmp / "install.log",
        "cmake --install of the build did not succeed")
    project.mkdir()
    sources = []
    for start, code in cpp:
        name = f"readme_line{start}.cc"
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
        "a C++ block of README.md does not compile against the installed headers (the file name "
        "gives the block's first line)")
print(f"README.md: {len(cpp)} C++ blocks compile against an install, {len(python)} Python blocks "
      f"parse, {len(json_blocks)} JSON blocks load")
