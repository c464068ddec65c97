"""DeepSeek-V3's rotation as transformers' apply_rotary_pos_emb_interleave computes it: q read in
interleaved pairs (2j, 2j + 1) (q.view(..., d/2, 2).transpose(-1, -2).reshape), then rotate-half,
so pair j's outputs land at (j, j + d/2). Declared so (pairs='interleaved',
output_pairs='halves') it passes in float32 and bfloat16; declared as plain interleaved it fails
and the diagnosis names the output convention (docs/features.md §15.1)."""
import json

import pytest

import peverify

torch = pytest.importorskip("torch")

BASE, D = 10000.0, 64  # DeepSeek-V3's qk_rope_head_dim and rope_theta


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def deepseek_rotation(q, positions):
    """[batch, heads, seq, d] q: float32 inv_freq @ positions, cat(freqs, freqs), cos and sin cast
    to q's dtype, then the de-interleaved q rotated half, in q's dtype."""
    inv_freq = 1.0 / (BASE ** (torch.arange(0, D, 2, dtype=torch.int64).float() / D))
    freqs = positions.float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(q.dtype)[None, None], emb.sin().to(q.dtype)[None, None]
    b, h, s, d = q.shape
    q = q.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d)
    return q * cos + rotate_half(q) * sin


def q_and_y(dtype, seq=512, heads=4):
    g = torch.Generator().manual_seed(7)
    q = torch.randn(2, heads, seq, D, generator=g).to(dtype)
    return q, deepseek_rotation(q, torch.arange(seq))


COMPUTE = {torch.float32: "float32", torch.bfloat16: "bfloat16"}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_deepseek_rotation_passes_declared_interleaved_in_and_halves_out(dtype):
    q, y = q_and_y(dtype)
    verdict = peverify.verify_rotary(q, y, base=BASE, pairs="interleaved", output_pairs="halves",
                                     compute=COMPUTE[dtype])
    assert verdict, str(verdict)
    v = json.loads(verdict.to_json())
    assert (v["pairs"], v["output_pairs"]) == ("interleaved", "halves")
    assert "pairs interleaved in, halves out" in str(verdict)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_declared_as_plain_interleaved_it_fails_and_the_diagnosis_names_the_output(dtype):
    q, y = q_and_y(dtype)
    verdict = peverify.verify_rotary(q, y, base=BASE, pairs="interleaved", compute=COMPUTE[dtype])
    assert not verdict
    v = json.loads(verdict.to_json())
    worst = [w for p in v["properties"] if not p["holds"] for w in p["worst"]]
    assert worst and all({"batch", "seq", "head", "dim"} <= w.keys() for w in worst)
    assert (v["diagnosis"]["cause"], v["diagnosis"]["matches"]) == (
        "pairing", ["--output-pairs halves"]), v["diagnosis"]
    assert "pairs interleaved in and out" in str(verdict)


def test_an_unknown_output_convention_is_a_value_error():
    q, y = q_and_y(torch.float32, seq=8)
    with pytest.raises(ValueError, match="output-pairs must be halves"):
        peverify.verify_rotary(q, y, base=BASE, output_pairs="diagonal")
