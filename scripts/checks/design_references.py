#!/usr/bin/env python3
"""Fails when code, tests or docs cite a section of docs/design.md that does not exist, or still
cite the old "DESIGN §n" form. Run by ctest (design_references) from the repository root."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
design = root / "docs" / "design.md"
sections = set()
for line in design.read_text().splitlines():
    m = re.match(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", line)
    if m:
        sections.add(m.group(1))

skip_dirs = {".git", "Testing"}
suffixes = {".cc", ".h", ".cu", ".cuh", ".md", ".sh", ".py", ".txt", ".cmake", ".json", ".tsv",
            ".in", ".toml"}
cite = re.compile(r"design\.md §(\d+(?:\.\d+)*)")
inner = re.compile(r"§(\d+(?:\.\d+)*)")
problems = []
for path in sorted(root.rglob("*")):
    rel = path.relative_to(root)
    if any(p in skip_dirs or p.startswith("build") for p in rel.parts):
        continue
    if not path.is_file() or (path.suffix not in suffixes and path.name != "CMakeLists.txt"):
        continue
    if rel == pathlib.Path("scripts/checks/design_references.py"):
        continue
    text = path.read_text(errors="replace")
    for n, line in enumerate(text.splitlines(), 1):
        if "DESIGN §" in line or "DESIGN.md §" in line:
            problems.append(f"{rel}:{n}: cites the old DESIGN §; use docs/design.md §n")
        pattern = inner if path == design else cite
        for m in pattern.finditer(line):
            if m.group(1) not in sections:
                problems.append(f"{rel}:{n}: docs/design.md has no §{m.group(1)}")
if not sections:
    problems.append("docs/design.md: no numbered sections found")
for p in problems:
    print(p)
print(f"{len(sections)} sections; {len(problems)} bad citations")
sys.exit(1 if problems else 0)
