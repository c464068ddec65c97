#!/usr/bin/env python3
"""Fails when a source includes a room it may not: docs/design.md §7's table says what each folder
depends on (and what its tests may also use); a room may include what it depends on, directly or
through the rooms those depend on, and nothing above it. Also fails on a folder of sources the
table does not list, and on a table whose rooms depend on each other in a cycle.

    check_include_directions.py ROOT            check the tree at ROOT
    check_include_directions.py ROOT --self-test  also prove that a planted upward include fails

Run by ctest (include_directions) from the repository root."""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

SOURCE_SUFFIXES = {".cc", ".h", ".cu", ".cuh"}
SKIP = {".git", "Testing"}
# A test's own files: the test, its helpers, its fuzz targets.
TEST_FILE = re.compile(r"(_test\.(cc|cu)|_testutil\.(h|cc|cu)|(^|/)fuzz/)")
INCLUDE = re.compile(r'^\s*#\s*(?:include|define\s+HWY_TARGET_INCLUDE)\s+"([^"]+)"')


def read_table(design: pathlib.Path):
    """{room: (depends_on, tests_also_use)} from §7's table; rooms are folders like 'reports/gate'."""
    text = design.read_text()
    start = text.index("## 7. Components")
    end = text.index("\n## 8.", start)
    rooms = {}
    for line in text[start:end].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        folder = lambda cell: [f.rstrip("/") for f in re.findall(r"`([a-z_/]+/)`", cell)]
        rooms[folder(cells[0])[0]] = (set(folder(cells[2])), set(folder(cells[3])))
    return rooms


def closure(rooms, start):
    seen, todo = set(), list(start)
    while todo:
        r = todo.pop()
        if r in seen:
            continue
        seen.add(r)
        todo.extend(rooms.get(r, (set(), set()))[0])
    return seen


def room_of(rooms, path: str):
    """The deepest room that holds `path` (reports/gate/gate.h -> reports/gate), or None."""
    best = None
    for r in rooms:
        if path == r or path.startswith(r + "/"):
            if best is None or len(r) > len(best):
                best = r
    return best


def check(root: pathlib.Path):
    rooms = read_table(root / "docs" / "design.md")
    problems = []
    if not rooms:
        return ["docs/design.md §7: no table of rooms found"]
    for r, (deps, tests) in rooms.items():
        for d in deps | tests:
            if d not in rooms:
                problems.append(f"docs/design.md §7: {r}/ names {d}/, which is not a room")
        if r in closure(rooms, deps):
            problems.append(f"docs/design.md §7: {r}/ depends on itself through {sorted(deps)}")
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(p in SKIP or p.startswith("build") for p in rel.parts):
            continue
        if not path.is_file() or path.suffix not in SOURCE_SUFFIXES:
            continue
        name = rel.as_posix()
        room = room_of(rooms, name)
        if room is None:
            problems.append(f"{name}: its folder is not a room of docs/design.md §7's table")
            continue
        deps, tests = rooms[room]
        allowed = closure(rooms, deps | (tests if TEST_FILE.search(name) else set()))
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            path = m.group(1)
            if room_of(rooms, path) is not None:
                problems.append(f"{name}:{n}: includes {path} without its prefix: write "
                                f'"peverify/{path}", the path it has when installed')
                continue
            target = room_of(rooms, path.removeprefix("peverify/"))
            if target is None or target == room or target in allowed:
                continue
            kind = "test" if TEST_FILE.search(name) else "source"
            problems.append(f"{name}:{n}: includes {path}, but {room}/ (a {kind}) may not "
                            f"include {target}/ (docs/design.md §7)")
    return problems


def self_test(root: pathlib.Path) -> bool:
    """A copy of the tree where the renderer includes the study (a room above it) must fail."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "tree"
        shutil.copytree(root, copy, symlinks=True,
                        ignore=lambda d, names: [n for n in names
                                                 if n in SKIP or n.startswith("build")])
        planted = copy / "reports" / "render" / "render.cc"
        planted.write_text('#include "peverify/reports/study/study.h"\n' + planted.read_text())
        result = subprocess.run([sys.executable, __file__, str(copy)], capture_output=True,
                                text=True)
        caught = result.returncode != 0 and "reports/render/render.cc:1" in result.stdout
        print("self-test: an include of reports/study/ from reports/render/ "
              + ("fails, as it must" if caught else "PASSED: the check is broken"))
        return caught


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--")
                        else ".").resolve()
    problems = check(root)
    for p in problems:
        print(p)
    print(f"{len(read_table(root / 'docs' / 'design.md'))} rooms; {len(problems)} problems")
    ok = not problems
    if "--self-test" in sys.argv:
        ok = self_test(root) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
