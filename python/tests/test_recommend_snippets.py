"""Every PyTorch snippet `peverify recommend` prints, run as printed (docs/features.md §14.1): for
each output type at 131072 positions, each cell's code is executed, its table is the recommended
entry's bit for bit, and `peverify verify` passes it at the cell's target, on the table the
recommendation was measured on (d 512, base 10^4: `recommend --run`'s study). A snippet that
does not meet its cell fails here."""
import json
import os
import subprocess

import numpy as np
import pytest

import peverify

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # the framework entries reproduce one thread's SLEEF lane grouping

CLI = os.environ.get("PEVERIFY", "build/bin/peverify")
POSITIONS, D, BASE = 131072, 512, 10000.0


def recommendations(dtype, tmp_path):
    out = tmp_path / f"recommend-{dtype}.json"
    subprocess.run([CLI, "recommend", "--dtype", dtype, "--positions", str(POSITIONS), "--run",
                    "--quiet", "--json", str(out)], check=True, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text())["recommendations"]


def as_array(table):
    if table.dtype == torch.bfloat16:
        return table.view(torch.int16).numpy(), "bfloat16"
    return table.numpy(), None


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_each_cells_pytorch_code_meets_its_target(dtype, tmp_path):
    cells = recommendations(dtype, tmp_path)
    assert cells and all("pytorch" in c for c in cells), cells
    for cell in cells:
        advice = cell["pytorch"]
        scope = {}
        exec(advice["code"], scope)  # as printed
        table = scope["sinusoidal_table"](POSITIONS, D, BASE)
        assert tuple(table.shape) == (POSITIONS, D) and str(table.dtype) == "torch." + dtype
        array, as_dtype = as_array(table)
        entry = peverify.generate(advice["implementation"], POSITIONS, d_model=D, base=BASE)
        assert np.array_equal(array.view(entry.dtype), entry), advice["implementation"]
        target = cell["target"]
        budget = "faithful" if target == "faithful" else "model"
        verdict = peverify.verify(array, d_model=D, base=BASE, budget=budget, dtype=as_dtype)
        assert verdict, f"{dtype} {target}: {verdict}"
        if target != "faithful":
            oracle = next(p for p in verdict.properties if p.property == "oracle")
            assert oracle.figures["max_abs"] <= float(target), (cell, oracle.summary)
        # What it replaces is measured, and worse wherever it is named.
        if advice["replaces"]:
            assert "cpu/pow/f32>" in advice["replaces"]


def test_the_recommended_rotations_pytorch_code_passes_verify_rotary(tmp_path):
    """The report's rotation section carries PyTorch code for the recommended rotations it can
    write in PyTorch; run as printed on a float32 q of 131072 tokens with the section's model
    (Llama 3.1) frequencies in float64, every element passes verify-rotary's float64 budget."""
    from test_frameworks import config, inv_freq_and_attention
    study = tmp_path / "study.json"
    study.write_text(json.dumps({"filter": "^cpu/pow/f64>f32/torch$", "bench": False,
                                 "d_models": [64], "bases": [10000], "rotary_models": []}))
    subprocess.run([CLI, "report", "--quiet", "--config", str(study), "--out",
                    str(tmp_path / "report")], check=True)
    section = json.loads((tmp_path / "report" / "report.json").read_text())["rotations"]
    assert [c["implementation"] for c in section["code"]] == ["cpu/rotate/fused-f64/f32/glibc"]
    scope = {}
    exec(section["code"][0]["pytorch"], scope)
    inv_freq64, attention = inv_freq_and_attention(config(section["model"]), torch.float64)
    tokens = 131072
    q = torch.randn(tokens, 128, generator=torch.Generator().manual_seed(7))
    positions = torch.arange(tokens)
    out = scope["apply_rope"](q, positions, inv_freq64, attention)
    assert out.dtype == torch.float32
    verdict = peverify.verify_rotary(q, out, model_config=section["model"], compute="float64")
    assert verdict, str(verdict)
