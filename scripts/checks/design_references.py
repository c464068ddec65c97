#!/usr/bin/python3
"""Fails when code, tests or docs cite a section of the design that its page does not have. The
design is three pages whose sections are numbered across them (docs/design.md is their index):
a citation names its page, `docs/architecture.md §7`; a bare `§n` inside a design page must be a
section of one of them. Also fails on a citation of the index by section (`docs/design.md §n`,
the form before the split) and on the old "DESIGN §n". Run by ctest (design_references) from the
repository root."""
import pathlib
import re
import sys

PAGES = ("mathematics", "architecture", "features")
SKIP_DIRS = {".git", "Testing"}
SUFFIXES = {".cc", ".h", ".cu", ".cuh", ".md", ".sh", ".py", ".txt", ".cmake", ".json", ".tsv",
            ".in", ".toml"}
SECTION = re.compile(r"§|\\u00a7")
# A citation: the page, then (across a line break in a comment) its first section.
CITE = re.compile(r"docs/(\w+)\.md(?:\s|//|#)*(?:§|\\u00a7)(\d+(?:\.\d+)*)")
BARE = re.compile(r"§(\d+(?:\.\d+)*)")


def sections_of(page: pathlib.Path):
    found = set()
    for line in page.read_text().splitlines():
        m = re.match(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", line)
        if m:
            found.add(m.group(1))
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    docs = root / "docs"
    sections = {p: sections_of(docs / f"{p}.md") for p in PAGES}
    everywhere = set().union(*sections.values())
    problems = [f"docs/{p}.md: no numbered sections found" for p, s in sections.items() if not s]
    for a in PAGES:
        for b in PAGES:
            if a < b and sections[a] & sections[b]:
                problems.append(f"docs/{a}.md and docs/{b}.md both number "
                                f"§{sorted(sections[a] & sections[b])[0]}")
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(p in SKIP_DIRS or p.startswith("build") for p in rel.parts):
            continue
        if not path.is_file() or (path.suffix not in SUFFIXES and path.name != "CMakeLists.txt"):
            continue
        if rel == pathlib.Path("scripts/checks/design_references.py"):
            continue
        text = path.read_text(errors="replace")
        design_page = rel.parent == pathlib.Path("docs") and path.stem in PAGES
        for m in CITE.finditer(text):
            n = text.count("\n", 0, m.start()) + 1
            page, section = m.group(1), m.group(2)
            if page == "design":
                problems.append(f"{rel}:{n}: cites docs/design.md §{section}, the index: cite the "
                                f"page that holds it (docs/<page>.md §{section})")
            elif page in sections and section not in sections[page]:
                problems.append(f"{rel}:{n}: docs/{page}.md has no §{section}")
        for n, line in enumerate(text.splitlines(), 1):
            if "DESIGN §" in line or "DESIGN.md §" in line:
                problems.append(f"{rel}:{n}: cites the old DESIGN §; use docs/<page>.md §n")
            if design_page:
                for m in BARE.finditer(line):
                    if m.group(1) not in everywhere:
                        problems.append(f"{rel}:{n}: no design page has §{m.group(1)}")
    for p in problems:
        print(p)
    print(f"{len(everywhere)} sections in {len(PAGES)} pages; {len(problems)} bad citations")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
