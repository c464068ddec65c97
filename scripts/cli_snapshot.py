#!/usr/bin/python3
"""Runs a fixed set of peverify commands and writes what each printed, its exit code and the files
it wrote (JSON with times and speeds taken out, other files by their SHA-256) into one folder, so
that two builds can be compared with `diff -r`: the before/after check of a change that must not
change behaviour (a move of rooms, a refactoring).

    scripts/cli_snapshot.py PEVERIFY OUT_DIR

The cases cover every subcommand: honest and failing verdicts (tables, rotary caches at ids,
16-bit, the rotation, timesteps, multi-axis RoPE, ALiBi), the gate, a small report and sweep,
recommend, and the usage errors of the command contract. Needs numpy."""
import hashlib
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

# Figures that are times or speeds, or say when and where a run happened: they differ run to run.
VOLATILE_KEY = re.compile(r"(seconds|_s$|per_s|time|date|elapsed|wall|cpu|machine|threads|"
                          r"dispatch|commit|speed|rate|roofline|bench|throughput|ratio|speedup|"
                          r"handoff)", re.IGNORECASE)
VOLATILE_TEXT = [
    (re.compile(r"\d+(\.\d+)?(e[-+]?\d+)? ?(ms|s|G/s|M/s|GB/s|B/s|values/s)\b"), "<time>"),
    (re.compile(r"\d+(\.\d+)?(e[-+]?\d+)?x the time"), "<time ratio>"),
    (re.compile(r"\d+(\.\d+)?(e[-+]?\d+)? G values/s"), "<speed>"),
    (re.compile(r'time="[^"]*"'), 'time="<time>"'),
    (re.compile(r"\d+(\.\d+)?(e[-+]?\d+)? of roofline"), "<ratio> of roofline"),
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?Z?"), "<date>"),
]


def scrub_json(value):
    if isinstance(value, dict):
        return {k: ("<volatile>" if VOLATILE_KEY.search(k) else scrub_json(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_json(v) for v in value]
    return value


def scrub_text(text: str, work: pathlib.Path) -> str:
    text = text.replace(str(work), "<work>")
    for pattern, replacement in VOLATILE_TEXT:
        text = pattern.sub(replacement, text)
    return text


def snapshot_file(path: pathlib.Path, work: pathlib.Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".json":
        try:
            return scrub_text(json.dumps(scrub_json(json.loads(data)), indent=1, sort_keys=True),
                              work)
        except ValueError:
            pass
    if path.suffix in {".md", ".csv", ".xml", ".txt"}:
        return scrub_text(data.decode(errors="replace"), work)
    return "sha256 " + hashlib.sha256(data).hexdigest()


def make_inputs(peverify: str, work: pathlib.Path):
    """The tables the cases read: exact ones from the oracle, and the same with one slip."""
    run = lambda *a: subprocess.run([peverify, *a], check=True, capture_output=True)
    run("oracle", "--d-model", "64", "--positions", "300", "-o", str(work / "honest.npy"))
    t = np.load(work / "honest.npy")
    t[123, 17] += 3e-5
    np.save(work / "corrupt.npy", t)
    run("oracle", "--d-model", "64", "--positions", "300", "--base", "20000",
        "-o", str(work / "base20000.npy"))
    run("oracle", "--model-config", "llama-3.1-8b", "--layout", "rope-cos-dup", "--positions",
        "2048", "--dtype", "bfloat16", "-o", str(work / "llama_cos.npy"))
    np.save(work / "ids.npy", np.array([0, 5, 17, 100, 4095, 3, 3, 9000], dtype=np.int64))
    run("oracle", "--model-config", "qwen2.5-7b-yarn", "--layout", "rope-cos-sin", "--positions",
        str(work / "ids.npy"), "-o", str(work / "qwen_ids.npy"))
    run("generate", "--impl", "cpu/recurrence/f32>f32/glibc", "--d-model", "64", "--positions",
        "20000", "-o", str(work / "drift.npy"))
    rng = np.random.default_rng(7)
    q = rng.standard_normal((64, 4, 32)).astype(np.float32)
    np.save(work / "q.npy", q)
    pos = np.arange(64, dtype=np.float64)[:, None]
    inv = 10000.0 ** (-np.arange(0, 32, 2, dtype=np.float64) / 32)
    ang = pos * inv
    cos = np.concatenate([np.cos(ang)] * 2, axis=1)[:, None, :]
    sin = np.concatenate([np.sin(ang)] * 2, axis=1)[:, None, :]
    qd = q.astype(np.float64)
    rot = np.concatenate([-qd[..., 16:], qd[..., :16]], axis=-1)
    np.save(work / "q_rot.npy", (qd * cos + rot * sin).astype(np.float32))
    np.save(work / "q_wrong.npy", (qd * cos - rot * sin).astype(np.float32))
    steps = np.array([0, 1, 10, 100, 999], dtype=np.float64)
    np.save(work / "t.npy", steps)
    half = 8
    freqs = np.exp(-np.log(10000.0) * np.arange(half) / half)
    args = steps[:, None] * freqs[None, :]
    np.save(work / "emb.npy", np.concatenate([np.cos(args), np.sin(args)], 1).astype(np.float32))
    slopes = 2.0 ** (-8.0 * np.arange(1, 9) / 8)
    np.save(work / "slopes.npy", slopes.astype(np.float32))
    (work / "small.json").write_text(json.dumps(
        {"d_models": [64], "bases": [10000], "exhaustive_positions": 256, "max_position": 65536,
         "sampled_blocks": 4, "filter": "glibc", "bench": False}))
    (work / "gate").mkdir()
    shutil.copy(work / "honest.npy", work / "gate" / "pe.npy")
    (work / "gate" / "budgets.json").write_text(json.dumps(
        {"subjects": [{"table": "pe.npy", "d_model": 64, "layout": "interleaved",
                       "budgets": {}}]}))


def cases(w: pathlib.Path):
    """(name, arguments, files it writes)."""
    yield "help", ["--help"], []
    for sub in ["report", "list", "oracle", "generate", "verify", "verify-rotary", "check",
                "bench", "recommend", "sweep", "measure-cuda"]:
        yield f"help-{sub}", [sub, "--help"], []
    yield "no-subcommand", [], []
    yield "unknown-subcommand", ["frobnicate"], []
    yield "list", ["list"], []
    yield "list-json", ["list", "--json"], []
    yield "list-models", ["list", "--models"], []
    yield "list-encodings", ["list", "--encodings"], []
    for dtype in ["float32", "float16", "bfloat16", "float64"]:
        yield f"oracle-{dtype}", ["oracle", "--d-model", "16", "--positions", "40", "--start",
                                  "1000", "--dtype", dtype, "-o", str(w / f"o-{dtype}.npy")], \
            [f"o-{dtype}.npy"]
    yield "oracle-polar-complex64", ["oracle", "--d-model", "16", "--positions", "20", "--layout",
                                     "polar", "--dtype", "complex64", "-o", str(w / "cis.npy")], \
        ["cis.npy"]
    yield "oracle-odd-d", ["oracle", "--d-model", "7", "--positions", "4", "-o",
                           str(w / "bad.npy")], ["bad.npy"]
    yield "generate", ["generate", "--impl", "cpu/logspace/f32>f32/sleef-u10", "--d-model", "32",
                       "--positions", "50", "--layout", "halves", "-o", str(w / "g.npy")], ["g.npy"]
    yield "generate-unknown", ["generate", "--impl", "cpu/nope/f32>f32/glibc", "--d-model", "4",
                               "--positions", "2", "-o", str(w / "bad.npy")], ["bad.npy"]
    for name, table, extra in [
            ("honest", "honest.npy", []),
            ("corrupt", "corrupt.npy", []),
            ("wrong-base", "base20000.npy", []),
            ("drift", "drift.npy", []),
            ("strict", "honest.npy", ["--budget", "strict"]),
            ("faithful", "honest.npy", ["--budget", "faithful"]),
            ("llama-bf16", "llama_cos.npy", ["--model-config", "llama-3.1-8b", "--layout",
                                             "rope-cos-dup", "--dtype", "bfloat16"]),
            ("llama-bf16-wrong-layout", "llama_cos.npy", ["--model-config", "llama-3.1-8b",
                                                          "--layout", "rope-cos-pairs",
                                                          "--dtype", "bfloat16"]),
            ("qwen-ids", "qwen_ids.npy", ["--model-config", "qwen2.5-7b-yarn", "--layout",
                                          "rope-cos-sin", "--positions", str(w / "ids.npy")]),
            ("qwen-no-ids", "qwen_ids.npy", ["--model-config", "qwen2.5-7b-yarn", "--layout",
                                             "rope-cos-sin"]),
            ("timesteps-adm", "emb.npy", ["--timesteps", str(w / "t.npy"), "--timestep-recipe",
                                          "adm"]),
            ("timesteps-diffusers", "emb.npy", ["--timesteps", str(w / "t.npy")]),
            ("alibi", "slopes.npy", ["--alibi"]),
            ("missing", "nope.npy", []),
            ("bad-width", "honest.npy", ["--d-model", "128"])]:
        out = f"verify-{name}.json"
        yield f"verify-{name}", ["verify", str(w / table), "--threads", "2", *extra, "--json",
                                 str(w / out)], [out]
    for name, output, extra in [("honest", "q_rot.npy", []), ("wrong-sign", "q_wrong.npy", []),
                                ("identity", "q.npy", []),
                                ("faithful", "q_rot.npy", ["--budget", "faithful"])]:
        out = f"rotary-{name}.json"
        yield f"verify-rotary-{name}", ["verify-rotary", "--input", str(w / "q.npy"), "--output",
                                        str(w / output), "--base", "10000", "--threads", "2",
                                        *extra, "--json", str(w / out)], [out]
    yield "check-empty", ["check", "--budgets", str(w / "gate" / "budgets.json")], []
    yield "check-update", ["check", "--budgets", str(w / "gate" / "budgets.json"), "--update"], \
        ["gate/budgets.json"]
    yield "check", ["check", "--budgets", str(w / "gate" / "budgets.json"), "--junit",
                    str(w / "junit.xml")], ["junit.xml"]
    yield "check-missing", ["check", "--budgets", str(w / "none.json")], []
    report_files = ["report.json", "report.md", "implementations.csv", "bands.csv",
                    "recommendations.csv"]
    yield "report-small", ["report", "--config", str(w / "small.json"), "--out", str(w / "r"),
                           "--quiet"], [f"r/{f}" for f in report_files]
    yield "recommend", ["recommend", "--dtype", "float32", "--positions", "4096", "--from",
                        str(w / "r"), "--json", str(w / "rec.json")], ["rec.json"]
    yield "recommend-bad-target", ["recommend", "--dtype", "float32", "--positions", "100",
                                   "--target", "1e-9"], []
    yield "sweep-small", ["sweep", "--config", str(w / "small.json"), "--out", str(w / "s"),
                          "--threads", "2", "--quiet"], ["s/report.json"]
    yield "bench-bad-regex", ["bench", "--filter", "(", "--json", str(w / "b.json")], ["b.json"]
    yield "measure-cuda-no-out", ["measure-cuda"], []


def main():
    peverify, out = sys.argv[1], pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        make_inputs(peverify, work)
        for name, args, files in cases(work):
            r = subprocess.run([peverify, *args], capture_output=True, text=True,
                               env={"PATH": "/usr/bin:/bin", "HOME": tmp})
            lines = [f"exit {r.returncode}", "--- stdout",
                     scrub_text(r.stdout, work).replace(peverify, "peverify"), "--- stderr",
                     scrub_text(r.stderr, work).replace(peverify, "peverify")]
            for f in files:
                p = work / f
                lines += [f"--- {f}", snapshot_file(p, work) if p.exists() else "(not written)"]
            (out / f"{name}.txt").write_text("\n".join(lines) + "\n")
            print(f"{name}: exit {r.returncode}")


if __name__ == "__main__":
    main()
