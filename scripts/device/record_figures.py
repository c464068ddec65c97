#!/usr/bin/env python3
"""Records, in crosscheck/expectations.tsv, the figures a device run of cuda_device_test printed.

A rule written before the run with the value 0 (a placeholder: its pattern one entry's exact name)
fails there with "<property>'s <figure> is <value>, recorded 0"; this writes the tsv with each
such placeholder set to the printed value (17 digits), and prints, on stderr, what it filled and
the gtest filter that re-runs those tests to confirm them.
    scripts/device/record_figures.py TESTS_LOG TSV > NEW_TSV
"""
import re
import sys

# The suite's test names (properties/suite.cc) and the expectation key each is recorded under.
KEYS = {"Bounded": "bounded", "Unique": "unique", "ShiftIdentities": "shift", "Growth": "growth",
        "OracleAgreementExhaustive": "oracle", "OracleAgreementSampled": "oracle_sampled"}


def test_name_of(name):  # properties::test_name_of
    return "".join(c if c.isalnum() else "_" for c in name)


def printed_figures(log):
    """{(suite, test): value} for every figure a test printed against a recorded 0."""
    out, current = {}, None
    figure = re.compile(r"'s (\S+) is (\S+), recorded 0 within")
    for line in log:
        run = re.match(r"\[ RUN      \] (\S+)\.(\S+)", line)
        if run:
            current = (run.group(1), run.group(2))
        found = figure.search(line)
        if found and current:
            out[current] = (found.group(1), found.group(2))
    return out


def main():
    log = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
    figures = printed_figures(log)
    tests, lines = [], []
    for line in open(sys.argv[2], encoding="utf-8").read().splitlines():
        fields = line.split("\t")
        if line.startswith("#") or len(fields) != 7 or fields[4] != "0" or "*" in fields[0]:
            lines.append(line)
            continue
        suite = "device_" + test_name_of(fields[0])
        test = next((t for t, k in KEYS.items() if k == fields[1]), None)
        got = figures.get((suite, test))
        if got and got[0] == fields[3]:
            fields[4] = got[1]
            tests.append(f"{suite}.{test}")
            print(f"recorded {fields[0]} {fields[1]} {fields[3]} = {got[1]}", file=sys.stderr)
        else:
            print(f"NOT recorded: {fields[0]} {fields[1]} {fields[3]} (printed: {got})",
                  file=sys.stderr)
        lines.append("\t".join(fields))
    print("\n".join(lines))
    print("filter: " + ":".join(tests), file=sys.stderr)


if __name__ == "__main__":
    main()
