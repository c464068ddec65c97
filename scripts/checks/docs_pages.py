#!/usr/bin/python3
"""Keeps the reference pages true to the command they describe.

    docs_pages.py ROOT PEVERIFY            check
    docs_pages.py ROOT PEVERIFY --update   rewrite each page's options block from --help

1. Each subcommand has its page, docs/commands/<name>.md, and each page a subcommand; the page's
   "## Options" section holds one ```text block equal to `peverify <name> --help`, word for word
   (the program's path printed as `peverify`). --update rewrites those blocks.
2. Every ```console block of README.md and of docs/**/*.md is run and must print what it shows:
   each line starting "$ " is a command, run by bash in a working directory of the page's own
   (the blocks of a page share it, in order), with the built peverify first on PATH; the lines
   after it, up to the next "$ ", are its output (stdout; stderr where it printed nothing else,
   as an error), where a line "..." stands for any number of lines. A command's exit status is not checked: a failing verdict exits 1.
   Blocks tagged ```sh are shown, not run.
3. Every `peverify <name>` a shown command runs (a console block's "$ " lines, a sh block) names
   a subcommand, and every --flag written after it is one that --help lists.

Run by ctest (docs_pages) from the repository root."""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```\s*([\w+-]*)\s*$")


def help_text(peverify: str, sub: str) -> str:
    out = subprocess.run([peverify, sub, "--help"], capture_output=True, text=True, check=True)
    return out.stdout.replace(peverify, "peverify").rstrip("\n") + "\n"


def subcommands(peverify: str):
    text = subprocess.run([peverify, "--help"], capture_output=True, text=True).stdout
    section = text.split("Subcommands:", 1)[1] if "Subcommands:" in text else ""
    return [line.split()[0] for line in section.splitlines() if line.startswith("  ")]


def blocks(text: str):
    """(language, index of the opening fence's line, body lines) of each fenced block."""
    out, lang, start, body = [], None, 0, []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        fence = FENCE.match(line)
        if lang is None and fence:
            lang, start, body = fence.group(1).lower(), i, []
        elif lang is not None and line.strip() == "```":
            out.append((lang, start, body))
            lang = None
        elif lang is not None:
            body.append(line)
    return out


def options_block(text: str):
    """(first, last) line index of the body of the ```text block under '## Options', or None."""
    lines = text.splitlines()
    try:
        at = next(i for i, l in enumerate(lines) if l.strip() == "## Options")
    except StopIteration:
        return None
    for lang, start, body in blocks(text):
        if start > at and lang == "text":
            return start + 1, start + len(body)
    return None


def check_options(root: pathlib.Path, peverify: str, update: bool):
    problems = []
    subs = subcommands(peverify)
    pages = sorted((root / "docs" / "commands").glob("*.md"))
    for sub in subs:
        if not (root / "docs" / "commands" / f"{sub}.md").exists():
            problems.append(f"docs/commands/{sub}.md: missing (peverify {sub} has no page)")
    for page in pages:
        sub = page.stem
        if sub not in subs:
            problems.append(f"{page.relative_to(root)}: no subcommand '{sub}'")
            continue
        text = page.read_text()
        where = options_block(text)
        if where is None:
            problems.append(f"{page.relative_to(root)}: no ```text block under '## Options'")
            continue
        lines = text.splitlines()
        shown = "\n".join(lines[where[0]:where[1]]) + "\n"
        actual = help_text(peverify, sub)
        if shown != actual:
            if update:
                lines[where[0]:where[1]] = actual.rstrip("\n").split("\n")
                page.write_text("\n".join(lines) + "\n")
                print(f"{page.relative_to(root)}: options block rewritten from --help")
            else:
                problems.append(f"{page.relative_to(root)}: its options block differs from "
                                f"`peverify {sub} --help` (run scripts/checks/docs_pages.py "
                                f". build/bin/peverify --update)")
    return problems, subs


def matches(expected, actual) -> bool:
    """Whether `actual` lines fit `expected`, where a line '...' stands for any lines."""
    # can[j]: expected[:i] can match actual[:j], row by row over i.
    can = [True] + [False] * len(actual)
    for e in expected:
        if e == "...":
            for j in range(1, len(can)):
                can[j] = can[j] or can[j - 1]
        else:
            can = [False] + [can[j] and actual[j] == e for j in range(len(actual))]
    return can[-1]


def console_commands(body):
    """(command, expected output lines) of a console block. A command continued with a trailing
    backslash, or feeding a here-document (<<'END' ... END), runs whole."""
    out, heredoc = [], None
    for line in body:
        if heredoc is not None:
            out[-1][0] += "\n" + line
            if line == heredoc:
                heredoc = None
        elif line.startswith("$ "):
            out.append([line[2:], []])
            m = re.search(r"<<-?\s*'?\"?(\w+)", line)
            heredoc = m.group(1) if m else None
        elif out and out[-1][0].endswith("\\"):
            out[-1][0] = out[-1][0][:-1] + line.strip()
        elif out:
            out[-1][1].append(line)
    return [(command, expected) for command, expected in out]


def check_consoles(root: pathlib.Path, peverify: str):
    problems, ran = [], 0
    pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    # The built peverify first, then Debian's python3 (the one with numpy that the pages use).
    path = f"{pathlib.Path(peverify).resolve().parent}:/usr/bin:{os.environ['PATH']}"
    env = dict(os.environ, PATH=path, PEV_REPO=str(root))
    for page in pages:
        consoles = [(start, body) for lang, start, body in blocks(page.read_text())
                    if lang == "console"]
        if not consoles:
            continue
        with tempfile.TemporaryDirectory() as work:
            for start, body in consoles:
                for command, expected in console_commands(body):
                    ran += 1
                    r = subprocess.run(["bash", "-c", command], cwd=work, env=env,
                                       capture_output=True, text=True, timeout=600)
                    shown = r.stdout if r.stdout else r.stderr  # progress goes to stderr
                    actual = shown.replace(work + "/", "").splitlines()
                    if not matches(expected, actual):
                        problems.append(f"{page.relative_to(root)}:{start + 1}: `{command}` "
                                        f"printed:\n" + "\n".join(actual[:60]))
    return problems, ran


def check_mentions(root: pathlib.Path, peverify: str, subs):
    """Every `peverify <sub> ... --flag` of a shown command (a console block's "$ " lines, a sh
    block's lines) names a subcommand, and a flag its --help lists."""
    problems = []
    flags = {s: set(re.findall(r"(--[\w-]+)", help_text(peverify, s))) for s in subs}
    command = re.compile(r"\bpeverify ([a-z][\w-]*)((?:\s+(?:\"[^\"]*\"|'[^']*'|[^\s|;&#]+))*)")
    pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    for page in pages:
        for lang, start, body in blocks(page.read_text()):
            if lang == "console":
                lines = [l[2:] for l in body if l.startswith("$ ")]
            elif lang in ("sh", "bash"):
                lines = body
            else:
                continue
            where = f"{page.relative_to(root)}:{start + 1}"
            for line in lines:
                for m in command.finditer(line.split(" #", 1)[0]):
                    sub, rest = m.group(1), m.group(2)
                    if sub not in subs:
                        problems.append(f"{where}: `peverify {sub}` is no subcommand")
                        continue
                    for flag in re.findall(r"(?<![\w-])(--[\w-]+)", rest):
                        if flag not in flags[sub]:
                            problems.append(f"{where}: `peverify {sub}` has no {flag}")
    return problems


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit("usage: docs_pages.py ROOT PEVERIFY [--update]")
    root, peverify = pathlib.Path(args[0]).resolve(), str(pathlib.Path(args[1]).resolve())
    update = "--update" in sys.argv
    problems, subs = check_options(root, peverify, update)
    problems += check_mentions(root, peverify, subs)
    console_problems, ran = check_consoles(root, peverify)
    problems += console_problems
    for p in problems:
        print(p)
    print(f"{len(subs)} subcommands, each with its page; {ran} shown commands run; "
          f"{len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
