#!/usr/bin/python3
"""docs/results.md, the page of dated figures: regenerated from the runs' JSON, never typed.

    scripts/results_page.py run PEVERIFY     run every command below on this machine, keep each
                                             one's JSON in docs/results/, and write the page
    scripts/results_page.py render PEVERIFY  write the page from the JSON already there
    scripts/results_page.py check PEVERIFY   fail when the page differs from what the JSON gives
                                             (ctest results_page)

Each kept file holds the command, the date, the commit and the machine beside the command's own
JSON, so that every figure on the page says what made it. The GPU's figures come from
reports/measured/<gpu>/cuda.json, which `peverify measure-cuda` writes on the GPU machine. The
report's findings and matrix are rendered from its report.json by `peverify report --from`, the
same renderer the report uses."""
import datetime
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"
PAGE = ROOT / "docs" / "results.md"

# name: (what it measures, the command after `peverify`, the JSON it writes, relative to a
# scratch directory). The report keeps its report.json alone.
RUNS = {
    "report": ("the default report (`peverify report`)", ["report", "--out", "report", "--quiet"],
               "report/report.json"),
    "bench-precise": (
        "the precise strategy beside the store roofline, three layouts, two tables",
        ["bench", "--filter", "precise", "--table", "131072x4096", "--table", "8192x512",
         "--layout", "interleaved", "--layout", "rope-cos-sin", "--layout", "rope-cos-dup",
         "--json", "bench-precise.json"], "bench-precise.json"),
    "bench-precise-dram": (
        "the precise strategy at 131072 x 512 (in DRAM), one thread and all",
        ["bench", "--filter", "precise", "--table", "131072x512", "--json",
         "bench-precise-dram.json"], "bench-precise-dram.json"),
    "bench-verify": ("`peverify verify` on a 2 GiB table beside the numpy check",
                     ["bench", "--verify", "--work-dir", ".", "--json", "bench-verify.json"],
                     "bench-verify.json"),
    "bench-verify-rotary": (
        "`peverify verify-rotary` on a long prefill's q beside the numpy check",
        ["bench", "--verify-rotary", "--work-dir", ".", "--json", "bench-verify-rotary.json"],
        "bench-verify-rotary.json"),
}


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def run_all(peverify: str):
    RESULTS.mkdir(parents=True, exist_ok=True)
    commit = git("rev-parse", "HEAD") + ("+changes" if git("status", "--porcelain") else "")
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next((l.split(":", 1)[1].strip() for l in cpu.splitlines()
                  if l.startswith("Model name")), "unknown")
    cores = os.cpu_count()
    with tempfile.TemporaryDirectory() as work:
        for name, (what, args, output) in RUNS.items():
            print(f"results: {name}: peverify {' '.join(args)}", file=sys.stderr)
            subprocess.run([peverify, *args], cwd=work, check=True, stdout=subprocess.DEVNULL)
            kept = {"what": what, "command": "peverify " + " ".join(args),
                    "date": datetime.datetime.now(datetime.timezone.utc).strftime(
                        "%Y-%m-%dT%H:%M:%SZ"),
                    "commit": commit, "cpu": model, "cores": cores,
                    "output": json.loads((pathlib.Path(work) / output).read_text())}
            (RESULTS / f"{name}.json").write_text(json.dumps(kept, indent=1) + "\n")
            if name == "report":
                keep_report_pictures(peverify, pathlib.Path(work) / "report")


PLOT = "report-error-vs-position-float32.svg"
SCREEN = "report-first-screen.png"


def keep_report_pictures(peverify: str, report: pathlib.Path):
    """The report's first screen as Chromium shows it (the test report_first_screen's own
    rendering, run on this report)."""
    subprocess.run([str(ROOT / "reports" / "render" / "report_view_test.sh"), peverify,
                    str(report)], env=dict(os.environ, PEV_ARTIFACTS=str(RESULTS)),
                   stdout=subprocess.DEVNULL, check=False)


def kept(name):
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def figure(x, digits=3):
    return "-" if x is None else f"{x:.{digits}g}"


def short_commit(commit: str) -> str:
    return commit[:12] + ("+changes" if commit.endswith("+changes") else "")


def provenance(k):
    return (f"`{k['command']}`, {k['date'][:10]}, {k['cpu']} ({k['cores']} cores), commit "
            f"`{short_commit(k['commit'])}`")


def report_section(peverify: str, write_pictures: bool):
    k = kept("report")
    if not k:
        return ["No report run is kept yet (`scripts/results_page.py run build/bin/peverify`)."]
    with tempfile.TemporaryDirectory() as work:
        source = pathlib.Path(work) / "from"
        source.mkdir()
        (source / "report.json").write_text(json.dumps(k["output"]))
        subprocess.run([peverify, "report", "--from", str(source), "--out",
                        str(pathlib.Path(work) / "out"), "--quiet"], check=True,
                       stdout=subprocess.DEVNULL)
        md = (pathlib.Path(work) / "out" / "report.md").read_text()
        if write_pictures:
            # The float32 error-versus-position plot, drawn again from the same JSON.
            for svg in sorted((pathlib.Path(work) / "out").glob("plot-*.svg")):
                if "float32" in svg.read_text():
                    (RESULTS / PLOT).write_bytes(svg.read_bytes())
                    break
    # The report's opening: what it studied, its findings and the recommendation matrix.
    sections = md.split("\n## ")
    kept_sections = [sections[0]] + [x for x in sections[1:]
                                      if x.startswith(("Findings", "Recommendation"))]
    opening = "\n## ".join(kept_sections)
    lines = opening.splitlines()
    while lines and lines[0].startswith("# "):
        lines.pop(0)
    shifted = [("#" + l if l.startswith("## ") else l) for l in lines]
    pictures = []
    if (RESULTS / SCREEN).exists():
        pictures += [f"Its first screen in Chromium at 1400 x 900:", "",
                     f"![the first screen of the report](results/{SCREEN})", ""]
    if (RESULTS / PLOT).exists():
        pictures += ["Its error-versus-position plot for float32 outputs:", "",
                     f"![max abs error versus position, float32 outputs](results/{PLOT})", ""]
    return [f"Made by {provenance(k)}; rendered from its `report.json`, kept as "
            "`docs/results/report.json`.", ""] + pictures + shifted


def bench_rows(output):
    """(what, table, threads, bytes a value, values/s, bytes/s, roofline ratio, the streamed
    fills in the precise fill's order: name -> ratio to the roofline) of each figure."""
    rows = []
    for r in output.get("roofline", []):
        best = r["bytes_per_s"]["median"]
        runs = {f: v["median"] / best for f, v in r.get("fills", {}).items() if "runs" in f}
        rows.append((f"roofline ({r['best']}, {r['columns']} columns)", r["table"], r["threads"],
                     r["element_bytes"], best / r["element_bytes"], best, 1.0, runs))
    for r in output.get("results", []):
        layout = "" if r.get("layout", "interleaved") == "interleaved" else " " + r["layout"]
        rows.append((r["impl"] + layout, r["table"], r["threads"], r["element_bytes"],
                     r["values_per_s"], r["bytes_per_s"], r["roofline_ratio"], {}))
    return rows


def bench_section(name):
    k = kept(name)
    if not k:
        return []
    out = [f"### {k['what'][0].upper() + k['what'][1:]}", "", f"Made by {provenance(k)}.", "",
           "| implementation | table | threads | bytes a value | values/s | bytes/s | of the roofline |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for impl, table, threads, b, vps, bps, ratio, runs in bench_rows(k["output"]):
        out.append(f"| `{impl}` | {table} | {threads} | {b} | {figure(vps)} | {figure(bps)} | "
                   f"{ratio:.3f} |")
        for fill, r in sorted(runs.items()):
            out.append(f"| &nbsp;&nbsp;{fill} (reported, not the roofline) | {table} | {threads} | "
                       f"{b} | | | {r:.3f} |")
    return out + [""]


SECONDS = {"seconds": "peverify, wall", "cpu_seconds": "peverify, CPU",
           "numpy_seconds": "the numpy check, wall", "numpy_cpu_seconds": "the numpy check, CPU",
           "read_seconds": "reading both files (the floor)"}


def verify_bench_section(name):
    k = kept(name)
    if not k:
        return []
    o = k["output"]
    lines = [f"### {k['what'][0].upper() + k['what'][1:]}", "", f"Made by {provenance(k)}.", "",
             f"{o['elements']} elements ({figure(o['bytes'] / 2**30)} GiB), {o['threads']} "
             f"threads; verdict {'PASS' if o['holds'] else 'FAIL'}; peverify over numpy "
             f"{figure(o['verify_over_numpy'])} of the time. {o.get('numpy_note', '')}.", "",
             "| what | seconds (median) | range |", "| --- | --- | --- |"]
    for key, label in SECONDS.items():
        if key in o:
            v = o[key]
            lines.append(f"| {label} | {figure(v['median'])} | {figure(v['min'])} - "
                         f"{figure(v['max'])} |")
    if "share" in o:
        lines += ["", "Where peverify's time goes: " + ", ".join(
            f"{stage} {figure(100 * share, 2)}%" for stage, share in sorted(
                o["share"].items(), key=lambda x: -x[1])) + "."]
    return lines + [""]


def cuda_section():
    out = []
    for path in sorted((ROOT / "reports" / "measured").glob("*/cuda.json")):
        m = json.loads(path.read_text())
        d = m["device"]
        out += [f"### {d['name']} ({path.relative_to(ROOT)})", "",
                f"Made by `{m['command']}` on {m['date'][:10]} (commit `{short_commit(m['commit'])}`), "
                f"driver {d['driver']}, runtime {d['runtime']}. Each kernel alone, writing to "
                f"device memory, timed with CUDA events (median of {m['roofline']['repetitions']}), "
                f"beside the device's store roofline measured in the same run: "
                f"{figure(m['roofline']['bytes_per_s'] / 1e9, 4)} GB/s.", "",
                "| kernel | values/s | bytes/s | of the store roofline |",
                "| --- | --- | --- | --- |"]
        for e in m["entries"] + m["rotations"]:
            s = e.get("speed", e)
            out.append(f"| `{e['name']}` | {figure(s['values_per_s']['median'])} | "
                       f"{figure(s['bytes_per_s']['median'])} | {s['roofline_ratio']:.2f} |")
        out.append("")
    return out


def page(peverify: str, write_pictures: bool) -> str:
    lines = ["# Results", "",
             "Dated figures from runs on real machines. This page is generated: "
             "`scripts/results_page.py run build/bin/peverify` runs the commands on this machine "
             "and keeps their JSON in `docs/results/`; `render` writes the page from it; ctest "
             "`results_page` fails when the page and the JSON disagree. Speeds are medians "
             "measured in the same run as their roofline; a VM's store bandwidth moves from run "
             "to run, so a ratio is only as good as its run.", "", "## The report", ""]
    lines += report_section(peverify, write_pictures)
    lines += ["", "## Benchmarks", ""]
    for name in ("bench-precise-dram", "bench-precise"):
        lines += bench_section(name)
    for name in ("bench-verify", "bench-verify-rotary"):
        lines += verify_bench_section(name)
    lines += ["## CUDA, measured on a GPU", ""] + cuda_section()
    return "\n".join(lines).rstrip("\n") + "\n"


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("run", "render", "check"):
        sys.exit(__doc__)
    mode, peverify = sys.argv[1], str(pathlib.Path(sys.argv[2]).resolve())
    if mode == "run":
        run_all(peverify)
    text = page(peverify, write_pictures=mode != "check")
    if mode == "check":
        if PAGE.read_text() != text:
            sys.exit("docs/results.md differs from what docs/results/*.json give: run "
                     "scripts/results_page.py render build/bin/peverify")
        print("docs/results.md is what its JSON gives")
        return
    PAGE.write_text(text)
    print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
