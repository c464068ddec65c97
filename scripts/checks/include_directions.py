#!/usr/bin/python3
"""Fails when a source includes a room it may not, or opens a namespace that is not its room's:
docs/architecture.md §7's table says what each folder depends on, what its tests may also use, and its
namespace; a room may include what it depends on, directly or through the rooms those depend on,
and nothing above it. Also fails on a folder of sources the table does not list, and on a table
whose rooms depend on each other in a cycle.

    include_directions.py ROOT TARGETS_JSON              check the tree at ROOT
    include_directions.py ROOT TARGETS_JSON --self-test  also prove that planted faults fail

TARGETS_JSON is the build's pev-targets.json (cmake/PevTargetMap.cmake): every target with its
sources and links, and the roots that ship. A source is a test's when no target the roots link
compiles it (a test, a benchmark program, a fuzz target); a header is a test's when no product
source includes it, directly or through other headers. The name of a file decides nothing, except
for a source this configuration builds into no target at all (a CUDA file without nvcc, say):
those are judged as tests only when named *_test.* or *_testutil.*, and the count is printed.

Both spellings of a project include are read: "peverify/room/file.h" and <peverify/room/file.h>.
Run by ctest (include_directions) from the repository root."""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

SOURCE_SUFFIXES = {".cc", ".h", ".cu", ".cuh"}
SKIP = {".git", "Testing"}
INCLUDE = re.compile(r'^\s*#\s*(?:include|define\s+HWY_TARGET_INCLUDE)\s+(?:"([^"]+)"|<([^>]+)>)')
NAMESPACE = re.compile(r"^\s*namespace\s+(pev(?:::\w+)*)\s*\{")
NAMED_AS_TEST = re.compile(r"(^|/)[^/]+_(test|testutil)\.(cc|cu|h)$")


def read_table(design: pathlib.Path):
    """{room: (depends_on, tests_also_use, namespace)} from §7's table."""
    text = design.read_text()
    start = text.index("## 7. Components")
    end = text.index("\n## 8.", start)
    rooms = {}
    for line in text[start:end].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[0].startswith("`"):
            continue
        folder = lambda cell: [f.rstrip("/") for f in re.findall(r"`([a-z_/]+/)`", cell)]
        namespace = cells[1].strip("`") if cells[1] != "-" else None
        rooms[folder(cells[0])[0]] = (set(folder(cells[3])), set(folder(cells[4])), namespace)
    return rooms


def closure(rooms, start):
    seen, todo = set(), list(start)
    while todo:
        r = todo.pop()
        if r in seen:
            continue
        seen.add(r)
        todo.extend(rooms.get(r, (set(), set(), None))[0])
    return seen


def room_of(rooms, path: str):
    """The deepest room that holds `path` (verify/sinusoids/x.h -> verify/sinusoids), or None."""
    best = None
    for r in rooms:
        if path == r or path.startswith(r + "/"):
            if best is None or len(r) > len(best):
                best = r
    return best


def includes_of(text: str):
    """(line number, included path, whether it is a project include) for each include."""
    for n, line in enumerate(text.splitlines(), 1):
        m = INCLUDE.match(line)
        if m:
            quoted = m.group(1) is not None
            path = m.group(1) or m.group(2)
            yield n, path, quoted or path.startswith("peverify/")


def product_sources(targets_json: pathlib.Path):
    """(sources the roots' link closure compiles, every source some target or fuzz test compiles)."""
    data = json.loads(targets_json.read_text())
    targets = data["targets"]
    shipped, todo = set(), [r for r in data["roots"] if r in targets]
    while todo:
        t = todo.pop()
        if t in shipped:
            continue
        shipped.add(t)
        todo.extend(l for l in targets[t]["links"] if l in targets)
    product = {s for t in shipped for s in targets[t]["sources"]}
    built = {s for t in targets.values() for s in t["sources"]} | set(data["fuzz_sources"])
    return product, built


def classify(root: pathlib.Path, files, targets_json: pathlib.Path):
    """{file: 'product' | 'test'} and the files judged by name (built by no target here)."""
    product, built = product_sources(targets_json)
    kinds, by_name = {}, []
    for f in files:
        if f.suffix in {".cc", ".cu"}:
            name = f.relative_to(root).as_posix()
            if name in product:
                kinds[name] = "product"
            elif name in built:
                kinds[name] = "test"
            else:
                kinds[name] = "test" if NAMED_AS_TEST.search(name) else "product"
                by_name.append(name)
    # A header takes the strictest kind of the sources that reach it through project includes.
    texts = {f.relative_to(root).as_posix(): f.read_text(errors="replace") for f in files}

    def reach(start):
        seen, todo = set(start), list(start)
        while todo:
            for _, path, project in includes_of(texts[todo.pop()]):
                target = path.removeprefix("peverify/")
                if project and target in texts and target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen

    reached_by_product = reach([n for n, k in kinds.items() if k == "product"])
    reached = reach([n for n, k in kinds.items() if k == "test"])
    for name in texts:
        if name in kinds:
            continue
        if name in reached_by_product:
            kinds[name] = "product"
        elif name in reached:
            kinds[name] = "test"
        else:  # a header nothing here includes (an umbrella header for users, say)
            kinds[name] = "test" if NAMED_AS_TEST.search(name) else "product"
            by_name.append(name)
    return kinds, by_name


def sources(root: pathlib.Path):
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(p in SKIP or p.startswith("build") for p in rel.parts):
            continue
        if path.is_file() and path.suffix in SOURCE_SUFFIXES:
            yield path


def check(root: pathlib.Path, targets_json: pathlib.Path):
    rooms = read_table(root / "docs" / "architecture.md")
    if not rooms:
        return ["docs/architecture.md §7: no table of rooms found"], []
    problems = []
    for r, (deps, tests, _) in rooms.items():
        for d in deps | tests:
            if d not in rooms:
                problems.append(f"docs/architecture.md §7: {r}/ names {d}/, which is not a room")
        if r in closure(rooms, deps):
            problems.append(f"docs/architecture.md §7: {r}/ depends on itself through {sorted(deps)}")
    files = list(sources(root))
    kinds, by_name = classify(root, files, targets_json)
    for path in files:
        name = path.relative_to(root).as_posix()
        room = room_of(rooms, name)
        if room is None:
            problems.append(f"{name}: its folder is not a room of docs/architecture.md §7's table")
            continue
        deps, tests, namespace = rooms[room]
        kind = kinds[name]
        allowed = closure(rooms, deps | (tests if kind == "test" else set()))
        text = path.read_text(errors="replace")
        for n, included, project in includes_of(text):
            if not project:
                continue
            if room_of(rooms, included) is not None:
                problems.append(f"{name}:{n}: includes {included} without its prefix: write "
                                f'"peverify/{included}", the path it has when installed')
                continue
            target = room_of(rooms, included.removeprefix("peverify/"))
            if target is None or target == room or target in allowed:
                continue
            problems.append(f"{name}:{n}: includes {included}, but {room}/ (a {kind} source) may "
                            f"not include {target}/ (docs/architecture.md §7)")
        if kind == "product" and namespace:
            for n, line in enumerate(text.splitlines(), 1):
                m = NAMESPACE.match(line)
                if m and not (m.group(1) == namespace or m.group(1).startswith(namespace + "::")):
                    problems.append(f"{name}:{n}: opens namespace {m.group(1)}, but {room}/'s is "
                                    f"{namespace} (docs/architecture.md §7)")
    return problems, by_name


# Each planted fault: (file, line to put first, what the failure must name). The first two are the
# holes the guard once had: a product source whose name looks like a test's, and an angle-bracket
# include.
PLANTS = [
    ("adapters/table_entry.cc", '#include "peverify/verify/verify.h"\n',
     "adapters/table_entry.cc:1"),
    ("properties/under_test.cc", '#include "peverify/verify/verify.h"\n',
     "properties/under_test.cc:1"),
    ("reports/render/render.cc", "#include <peverify/reports/study/study.h>\n",
     "reports/render/render.cc:1"),
    ("reports/render/render.cc", '#include "peverify/reports/study/study.h"\n',
     "reports/render/render.cc:1"),
    ("gate/gate.cc", "namespace pev::verify {}\n", "gate/gate.cc:1"),
]


def self_test(root: pathlib.Path, targets_json: pathlib.Path) -> bool:
    """Each planted fault, in a copy of the tree, must fail the check and be named."""
    ok = True
    for planted_file, line, named in PLANTS:
        with tempfile.TemporaryDirectory() as tmp:
            copy = pathlib.Path(tmp) / "tree"
            shutil.copytree(root, copy, symlinks=True,
                            ignore=lambda d, names: [n for n in names
                                                     if n in SKIP or n.startswith("build")])
            planted = copy / planted_file
            planted.write_text(line + planted.read_text())
            result = subprocess.run([sys.executable, __file__, str(copy), str(targets_json)],
                                    capture_output=True, text=True)
            caught = result.returncode != 0 and named in result.stdout
            print(f"self-test: {line.strip()} in {planted_file} "
                  + ("fails, as it must" if caught else "PASSED: the check is broken"))
            ok = ok and caught
    return ok


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit("usage: include_directions.py ROOT TARGETS_JSON [--self-test]")
    root, targets_json = pathlib.Path(args[0]).resolve(), pathlib.Path(args[1]).resolve()
    problems, by_name = check(root, targets_json)
    for p in problems:
        print(p)
    if by_name:
        print(f"{len(by_name)} sources built by no target of this configuration, judged by their "
              f"names: {', '.join(by_name)}")
    print(f"{len(read_table(root / 'docs' / 'architecture.md'))} rooms; {len(problems)} problems")
    ok = not problems
    if "--self-test" in sys.argv:
        ok = self_test(root, targets_json) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
