"""Rows at given position ids (docs/mathematics.md §1.4): positions=, M-RoPE's three streams, and the
bugs of each. Caches are built the way transformers builds them, in PyTorch: Qwen2-VL's
apply_multimodal_rotary_pos_emb (sections of the pairs, section i from stream i % 3) and Qwen3-VL's
apply_interleaved_mrope (height and width pairs interleaved with the temporal ones)."""
import json
import re

import numpy as np
import pytest

import peverify

try:
    import torch
except ImportError:  # the tests that need it skip alone; the others run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch (Debian's python3-torch)")

D, BASE = 128, 1e6


def verdict(table, **spec):
    return json.loads(peverify.verify(table, **spec).to_json())


def prop(v, name):
    (p,) = [p for p in v["properties"] if p["property"] == name]
    return p


def image_and_text_positions():
    """get_rope_index's ids for 40 text tokens, a 2 x 8 x 12 grid of image patches, 300 text
    tokens, a 4 x 6 x 6 video grid and 100 text tokens: [3, N]."""
    t, h, w, parts, next_id = [], [], [], [], 0

    def text(n):
        nonlocal next_id
        ids = np.arange(next_id, next_id + n)
        for s in (t, h, w):
            s.append(ids)
        next_id += n

    def grid(gt, gh, gw):
        nonlocal next_id
        tt, hh, ww = np.meshgrid(np.arange(gt), np.arange(gh), np.arange(gw), indexing="ij")
        t.append(next_id + tt.ravel())
        h.append(next_id + hh.ravel())
        w.append(next_id + ww.ravel())
        next_id += max(gt, gh, gw)

    text(40)
    grid(2, 8, 12)
    text(300)
    grid(4, 6, 6)
    text(100)
    return np.stack([np.concatenate(t), np.concatenate(h), np.concatenate(w)]).astype(np.int64)


def stream_freqs(positions):
    """Per stream, float32 as transformers: inv_freq @ position_ids, [3, N, d/2]."""
    inv_freq = 1.0 / (BASE ** (torch.arange(0, D, 2, dtype=torch.int64).float() / D))
    pos = torch.from_numpy(positions).float()[:, None, :]  # [3, 1, N]
    freqs = inv_freq[None, :, None].expand(3, -1, 1) @ pos  # [3, d/2, N]
    return freqs.transpose(1, 2)


def sectioned_cos(positions, section):
    emb = torch.cat([stream_freqs(positions)] * 2, dim=-1)  # [3, N, d]
    chunks = emb.cos().split(section * 2, dim=-1)
    return torch.cat([m[i % 3] for i, m in enumerate(chunks)], dim=-1).numpy()


def interleaved_cos(positions, section):
    freqs = stream_freqs(positions)
    out = freqs[0].clone()
    for stream, offset in ((1, 1), (2, 2)):
        idx = slice(offset, section[stream] * 3, 3)
        out[..., idx] = freqs[stream][..., idx]
    return torch.cat([out, out], dim=-1).cos().numpy()


def failing_element(v):
    assert not v["holds"]
    named = [w for p in v["properties"] if not p["holds"] for w in p["worst"]]
    assert named, v
    assert all("row" in w for w in named), named
    return named


QWEN25_VL = "qwen2.5-vl-7b-instruct"


@needs_torch
def test_an_honest_qwen25_vl_cache_of_image_and_text_passes():
    positions = image_and_text_positions()
    cos = sectioned_cos(positions, [16, 24, 24])
    v = verdict(cos, layout="rope-cos-dup", model_config=QWEN25_VL, positions=positions)
    assert v["holds"], [p["summary"] for p in v["properties"]]
    assert "3 streams" in v["spec"]["positions"]
    assert v["spec"]["rope"]["mrope_section"] == [16, 24, 24]
    assert prop(v, "oracle")["checked"] == cos.size  # every element, none sampled


@needs_torch
def test_the_sections_in_the_wrong_order_fail_naming_an_image_element():
    positions = image_and_text_positions()
    cos = sectioned_cos(positions, [24, 24, 16])
    v = verdict(cos, layout="rope-cos-dup", model_config=QWEN25_VL, positions=positions)
    named = failing_element(v)
    text_rows = set(np.flatnonzero((positions[0] == positions[1]) & (positions[1] == positions[2])))
    assert all(w["row"] not in text_rows for w in named)  # text rows are the default recipe's
    worst = prop(v, "oracle")["worst"][0]
    assert worst["got"] == float(cos[worst["row"], worst["dim"]])
    # Each names the stream whose position it prints: the one its pair takes its angle from.
    for w in named:
        assert positions["thw".index(w["stream"]), w["row"]] == w["pos"], w
    text = str(peverify.verify(cos, layout="rope-cos-dup", model_config=QWEN25_VL,
                               positions=positions))
    assert re.search(r"row \d+ pos \d+ \([thw]\) dims? ", text), text
    assert v["diagnosis"]["cause"] == "sections"
    assert v["diagnosis"]["matches"] == [
        """--rope-scaling '{"mrope_section": [24, 24, 16], "mrope_interleaved": false}'"""
    ]


@needs_torch
def test_one_streams_positions_for_every_section_fails():
    """sglang#35345: M-RoPE applied with the temporal positions only."""
    positions = image_and_text_positions()
    temporal_only = np.stack([positions[0]] * 3)
    cos = sectioned_cos(temporal_only, [16, 24, 24])
    v = verdict(cos, layout="rope-cos-dup", model_config=QWEN25_VL, positions=positions)
    failing_element(v)
    assert v["diagnosis"]["cause"] == "sections" and v["diagnosis"]["matches"] == []
    assert "sglang#35345" in v["diagnosis"]["detail"]


@needs_torch
def test_interleaved_m_rope_as_qwen3_vl_computes_it():
    positions = image_and_text_positions()
    recipe = {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": True}
    spec = dict(layout="rope-cos-dup", d_model=D, base=BASE, rope_scaling=recipe)
    assert verdict(interleaved_cos(positions, [24, 20, 20]), positions=positions, **spec)["holds"]
    # The sectioned layout where the interleaved one is meant fails, and says so.
    v = verdict(sectioned_cos(positions, [24, 20, 20]), positions=positions, **spec)
    failing_element(v)
    assert v["diagnosis"]["cause"] == "sections"
    assert '"mrope_interleaved": false' in v["diagnosis"]["matches"][0]


def packed_and_gathered_positions():
    rng = np.random.default_rng(5)
    packed = np.concatenate([np.arange(0, 3000), np.arange(0, 700), np.arange(0, 1500)])
    gathered = rng.integers(0, 131072, 600)  # a batch's rows, any order, some repeated
    return np.concatenate([packed, gathered, gathered[:50]]).astype(np.int64)


def llama_cos(positions):
    inv_freq = 1.0 / (500000.0 ** (torch.arange(0, D, 2, dtype=torch.int64).float() / D))
    freqs = torch.from_numpy(positions).float()[:, None] * inv_freq[None, :]
    return torch.cat([freqs, freqs], dim=-1).cos().numpy()


@needs_torch
def test_packed_sequences_and_a_gathered_batch_pass_and_an_off_by_one_fails():
    positions = packed_and_gathered_positions()
    spec = dict(layout="rope-cos-dup", d_model=D, base=500000.0)
    v = verdict(llama_cos(positions), positions=positions, **spec)
    assert v["holds"], [p["summary"] for p in v["properties"]]
    assert "longest run of consecutive positions" in " ".join(prop(v, "growth")["notes"])
    # Positions off by one in the second packed sequence only.
    shifted = positions.copy()
    shifted[3000:3700] += 1
    v = verdict(llama_cos(shifted), positions=positions, **spec)
    failing_element(v)
    # A shift of one sequence among several is not one field of the declaration: nothing guessed.
    assert v["diagnosis"]["cause"] != "positions"
    # Every id off by one (a cache indexed from 1) is.
    v = verdict(llama_cos(positions + 1), positions=positions, **spec)
    assert v["diagnosis"]["cause"] == "positions" and "off by +1" in v["diagnosis"]["detail"]


@needs_torch
def test_a_corrupted_row_whose_file_neighbours_are_far_in_position_is_named_by_its_row():
    """Row 3699 ends the second packed sequence (position 699; the file's next row is position 0):
    the consistency check compares it with the rows near 699 in position, wherever they are."""
    positions = packed_and_gathered_positions()
    cos = llama_cos(positions)
    row = 3699
    cos[row, 7] += np.float32(1e-4)  # 10x its neighbours' errors, inside the model budget
    v = verdict(cos, layout="rope-cos-dup", d_model=D, base=500000.0, positions=positions)
    assert (row, 7) in [(w["row"], w["dim"]) for w in failing_element(v)]
    assert prop(v, "oracle")["holds"]  # the consistency check alone catches it
    assert v["diagnosis"]["cause"] == "isolated"  # one element: no declaration is guessed


def test_oracle_and_generate_at_position_ids_match_the_rows():
    positions = packed_and_gathered_positions()[:4000]
    spec = dict(layout="rope-cos-dup", d_model=D, base=500000.0)
    exact = peverify.oracle(positions, **spec)
    assert exact.shape == (4000, D)
    one = peverify.oracle(1, start=int(positions[3500]), **spec)
    assert np.array_equal(exact[3500], one[0])
    made = peverify.generate("cpu/pow/f32>f32/sleef-u10", positions, **spec)
    assert verdict(made, positions=positions, **spec)["holds"]


@pytest.mark.parametrize(
    "ids,message",
    [
        (np.arange(10, dtype=np.float32), "integers"),
        (np.array([0, -1, 2]), "negative"),
        (np.zeros((2, 10), dtype=np.int64), "shape"),
        (np.arange(5), "one id per row"),
        (np.zeros((3, 10), dtype=np.int64), "M-RoPE"),
    ],
)
def test_bad_position_ids_are_a_value_error(ids, message):
    with pytest.raises(ValueError, match=message):
        peverify.verify(np.zeros((10, 8), np.float32), layout="rope-cos-dup", positions=ids)
