"""The consistency verdict (docs/mathematics.md §4.1) raises no false alarm on tables built outside the
project, the way frameworks build them: numpy float64 cast to each type, the PyTorch tutorial's
float32 table, Hugging Face-style float32 and bfloat16 rotary caches of every recipe, to position
131072. The registry's own tables are crosscheck/consistency_test.cc's."""
import json
import math

import numpy as np
import pytest

import peverify

torch = pytest.importorskip("torch")

# Windows of rows: from position 0, and ending at 131072.
WINDOWS = [(0, 4096), (131072 - 4096, 4096)]


def consistent(table, **spec):
    verdict = json.loads(peverify.verify(table, **spec).to_json())
    (c,) = [p for p in verdict["properties"] if p["property"] == "consistent"]
    return c


def assert_consistent(table, **spec):
    c = consistent(table, **spec)
    assert c["holds"], c["summary"]
    assert c["figures"]["worst_ratio"] < c["figures"]["factor"]


def bfloat16_bits(t):
    return t.to(torch.bfloat16).view(torch.int16).numpy()


def numpy_table(start, rows, d):
    """The first seed's get_position_angle_vec in float64 (interleaved sin, cos)."""
    pos = np.arange(start, start + rows, dtype=np.float64)[:, None]
    angle = pos / np.power(10000.0, 2 * (np.arange(d) // 2) / d)
    angle[:, 0::2] = np.sin(angle[:, 0::2])
    angle[:, 1::2] = np.cos(angle[:, 1::2])
    return angle


@pytest.mark.parametrize("start,rows", WINDOWS)
def test_numpy_float64_cast_to_each_type(start, rows):
    table = numpy_table(start, rows, 512)
    assert_consistent(table.astype(np.float32), start=start)
    assert_consistent(table.astype(np.float16), start=start)
    assert_consistent(bfloat16_bits(torch.from_numpy(table)), start=start, dtype="bfloat16")


@pytest.mark.parametrize("start,rows", WINDOWS)
def test_the_pytorch_tutorials_float32_table(start, rows):
    d = 512
    position = torch.arange(start, start + rows, dtype=torch.float32).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
    pe = torch.zeros(rows, d)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    assert_consistent(pe.numpy(), start=start)


def inv_freq(recipe, d, base, seq_len):
    """Hugging Face's modeling_rope_utils in float32, as it reads (the current definitions)."""
    theta = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    kind = recipe["rope_type"]
    if kind == "default":
        return theta, 1.0
    if kind == "linear":
        return theta / recipe["factor"], 1.0
    if kind == "dynamic":
        length = recipe["max_position_embeddings"]
        s = recipe["factor"]
        b = base * ((s * max(seq_len, length) / length) - (s - 1)) ** (d / (d - 2))
        return 1.0 / (b ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d)), 1.0
    if kind == "llama3":
        s, low, high = recipe["factor"], recipe["low_freq_factor"], recipe["high_freq_factor"]
        l0 = recipe["original_max_position_embeddings"]
        wavelen = 2 * math.pi / theta
        scaled = torch.where(wavelen > l0 / low, theta / s, theta)
        smooth = (l0 / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / s + smooth * scaled
        medium = ~(wavelen < l0 / high) * ~(wavelen > l0 / low)
        return torch.where(medium, smoothed, scaled), 1.0
    if kind == "yarn":
        s, l0 = recipe["factor"], recipe["original_max_position_embeddings"]

        def dim(r):
            return (d * math.log(l0 / (r * 2 * math.pi))) / (2 * math.log(base))

        low = max(math.floor(dim(32)), 0)
        high = min(math.ceil(dim(1)), d - 1)
        high = high + 0.001 if low == high else high
        ramp = torch.clamp((torch.arange(d // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
        extrapolation = 1 - ramp
        return (theta / s) * (1 - extrapolation) + theta * extrapolation, 0.1 * math.log(s) + 1.0
    if kind == "longrope":
        l0 = recipe["original_max_position_embeddings"]
        factors = recipe["long_factor"] if seq_len > l0 else recipe["short_factor"]
        t = recipe["max_position_embeddings"] / l0
        return theta / torch.tensor(factors, dtype=torch.float32), math.sqrt(
            1 + math.log(t) / math.log(l0))
    raise ValueError(kind)


RECIPES = [
    {"rope_type": "default"},
    {"rope_type": "linear", "factor": 4.0},
    {"rope_type": "dynamic", "factor": 2.0, "max_position_embeddings": 4096},
    {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
     "original_max_position_embeddings": 8192},
    {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
    {"rope_type": "longrope", "original_max_position_embeddings": 4096,
     "max_position_embeddings": 131072,
     "short_factor": [1.0 + 0.05 * j for j in range(64)],
     "long_factor": [1.0 + 1.25 * j for j in range(64)]},
]


@pytest.mark.parametrize("recipe", RECIPES, ids=[r["rope_type"] for r in RECIPES])
@pytest.mark.parametrize("start,rows", WINDOWS)
def test_hugging_face_rotary_caches_of_every_recipe(recipe, start, rows):
    d, base, length = 128, 500000.0, 131072
    # Hugging Face builds the cache for the sequence it has: positions up to the window's last.
    frequencies, attention = inv_freq(recipe, d, base, start + rows)
    positions = torch.arange(start, start + rows, dtype=torch.float32)
    freqs = positions[:, None] @ frequencies[None, :].float()
    emb = torch.cat((freqs, freqs), dim=-1)
    cos = emb.cos() * attention
    # The recipe as the cache was built for: max_position_embeddings sets the sequence length.
    scaling = dict(recipe)
    scaling.setdefault("max_position_embeddings", length)
    if recipe["rope_type"] == "dynamic":
        scaling["max_position_embeddings"] = 4096
    spec = dict(d_model=d, base=base, start=start, layout="rope-cos-dup",
                rope_scaling=json.dumps(scaling))
    assert_consistent(cos.numpy(), **spec)
    assert_consistent(bfloat16_bits(cos), dtype="bfloat16", **spec)


def tutorial_table(rows, d=512):
    position = torch.arange(0, rows, dtype=torch.float32).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
    pe = torch.zeros(rows, d)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe.numpy()


@pytest.mark.parametrize("row,column,added", [(600, 0, 1e-3), (1000, 10, 1e-3), (4000, 0, 7e-3)])
def test_errors_inside_the_model_budget_that_stand_out_fail_naming_the_element(row, column, added):
    # The cases: the table errs by at most 3.9e-4 anywhere and by under 1e-6 at these
    # elements; the model budget there is about 7.6e-3.
    table = tutorial_table(5000)
    table[row, column] += np.float32(added)
    verdict = json.loads(peverify.verify(table).to_json())
    assert not verdict["holds"]
    (c,) = [p for p in verdict["properties"] if p["property"] == "consistent"]
    (oracle,) = [p for p in verdict["properties"] if p["property"] == "oracle"]
    assert oracle["holds"], "inside the model budget: only the consistency check can see it"
    assert [(w["pos"], w["dim"]) for w in c["worst"]] == [(row, column)], c["worst"]
    assert c["worst"][0]["got"] == float(table[row, column])


def test_a_sign_flip_far_out_fails_where_the_model_budget_is_vacuous():
    start, rows, d = 118000, 4096, 128
    frequencies, _ = inv_freq(RECIPES[3], d, 500000.0, start + rows)
    freqs = torch.arange(start, start + rows, dtype=torch.float32)[:, None] @ frequencies[None, :]
    cos = torch.cat((freqs, freqs), dim=-1).cos().numpy()
    row = 120000 - start
    # A small value (as in the issue), still well above the table's own errors around it.
    small = np.flatnonzero((np.abs(cos[row, :64]) > 0.01) & (np.abs(cos[row, :64]) < 0.1))
    assert small.size, "this row holds a small value"
    column = int(small[0])
    cos[row, column] = -cos[row, column]
    verdict = json.loads(peverify.verify(cos, start=start, model_config="llama-3.1-8b",
                                         layout="rope-cos-dup").to_json())
    (c,) = [p for p in verdict["properties"] if p["property"] == "consistent"]
    assert not c["holds"]
    assert (c["worst"][0]["pos"], c["worst"][0]["dim"]) == (120000, column)
