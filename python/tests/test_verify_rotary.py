"""peverify.verify_rotary on a Hugging Face style apply_rotary_pos_emb written here (q * cos +
rotate_half(q) * sin, in the tensors' dtype), on PyTorch tensors directly: the honest float32 and
bfloat16 paths pass under the budgets that describe them, and each bug of an applied rotation
fails naming an element (docs/features.md §15)."""
import json

import numpy as np
import pytest

import peverify

torch = pytest.importorskip("torch")

BASE, D = 500000.0, 128


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def cos_sin(positions, dim=D, base=BASE):
    """LlamaRotaryEmbedding.forward: float32 inv_freq @ positions, cat(freqs, freqs)."""
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    freqs = positions.float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def apply_rotary_pos_emb(q, cos, sin):
    """[batch, heads, seq, head_dim] q; cos and sin [seq, dim], cast to q's dtype."""
    cos, sin = cos.to(q.dtype)[None, None], sin.to(q.dtype)[None, None]
    return q * cos + rotate_half(q) * sin


def q_and_positions(seq=1024, heads=4, dtype=torch.float32, start=0):
    g = torch.Generator().manual_seed(11)
    q = torch.randn(2, heads, seq, D, generator=g).to(dtype)
    return q, torch.arange(start, start + seq)


def verdict(x, y, **kw):
    return json.loads(peverify.verify_rotary(x, y, base=BASE, **kw).to_json())


def named(v):
    assert not v["holds"]
    worst = [w for p in v["properties"] if not p["holds"] for w in p["worst"]]
    assert worst and all({"batch", "seq", "head", "dim"} <= w.keys() for w in worst), worst
    return worst


@pytest.mark.parametrize("start", [0, 126976])
def test_an_honest_float32_rotation_passes(start):
    q, pos = q_and_positions(start=start)
    cos, sin = cos_sin(pos)
    v = verdict(q, apply_rotary_pos_emb(q, cos, sin), start=start)
    assert v["holds"], [p["summary"] for p in v["properties"]]
    assert v["properties"][0]["checked"] == q.numel()
    assert v["axes"] == "batch,heads,seq,dim" and v["axes_assumed"]


def test_hugging_faces_bfloat16_path_passes_under_its_budget_and_fails_float32s():
    q, pos = q_and_positions(dtype=torch.bfloat16)
    cos, sin = cos_sin(pos)
    y = apply_rotary_pos_emb(q, cos, sin)  # bfloat16 tensors, passed as they are
    assert verdict(q, y, compute="bfloat16")["holds"]
    # A bfloat16 cache and bfloat16 products are beyond what a float32 kernel may make.
    named(verdict(q, y, compute="float32"))


@pytest.mark.parametrize(
    "bug, cause, matches",
    [
        ("sin sign flipped", "sign", []),
        ("positions off by one", "positions", ["--start 1"]),
        ("interleaved pairs", "pairing", ["--pairs halves"]),
        ("another base", "base", ["--base 10000"]),
        ("bfloat16 claimed as float32", "compute", ["--compute bfloat16"]),
        ("partial rotary claimed as whole", "rotary-dim", ["--rotary-dim 64"]),
        # q rotated with the positions of k, 100 tokens further in a prefix cache: the offset
        # the data's own angles give, judged like the others.
        ("k's positions", "positions", ["--start 100"]),
        # No common base matches; the read-back fits the one the frequencies were built with.
        ("an uncommon base", "base", ["--base 123457"]),
    ],
)
def test_each_bug_of_an_applied_rotation_fails_naming_an_element_and_its_cause(bug, cause, matches):
    q, pos = q_and_positions()
    cos, sin = cos_sin(pos)
    kw = {}
    if bug == "sin sign flipped":
        y = q * cos[None, None] - rotate_half(q) * sin[None, None]
    elif bug == "positions off by one":
        y = apply_rotary_pos_emb(q, *cos_sin(pos + 1))
    elif bug == "interleaved pairs":  # rotate-half applied, GPT-J's (2j, 2j + 1) declared
        y = apply_rotary_pos_emb(q, cos, sin)
        kw["pairs"] = "interleaved"
    elif bug == "another base":
        y = apply_rotary_pos_emb(q, *cos_sin(pos, base=10000.0))
    elif bug == "bfloat16 claimed as float32":  # Hugging Face's bfloat16 model path
        q = q.to(torch.bfloat16)
        y = apply_rotary_pos_emb(q, cos, sin)
    elif bug == "an uncommon base":
        y = apply_rotary_pos_emb(q, *cos_sin(pos, base=123457.0))
    elif bug == "partial rotary claimed as whole":  # Phi-style: the last 64 dims pass through
        c, s = cos_sin(pos, dim=64)
        y = torch.cat((apply_rotary_pos_emb(q[..., :64], c, s), q[..., 64:]), dim=-1)
    else:
        y = apply_rotary_pos_emb(q, *cos_sin(pos + 100))
    v = verdict(q, y, **kw)
    named(v)
    d = v["diagnosis"]
    assert (d["cause"], d["matches"]) == (cause, matches), d["detail"]
    assert d["explains"] >= 0.99 if cause != "isolated" else d["explains"] == 0
    assert "diagnosis: " + cause + ": " in str(peverify.verify_rotary(q, y, base=BASE, **kw))


def test_a_changed_pass_through_dimension_of_a_partial_rotary_fails():
    q, pos = q_and_positions()
    rotary = 64  # Phi-style partial rotary: the last 64 dims pass through
    cos, sin = cos_sin(pos, dim=rotary)
    y = torch.cat((apply_rotary_pos_emb(q[..., :rotary], cos, sin), q[..., rotary:]), dim=-1)
    assert verdict(q, y, rotary_dim=rotary)["holds"]
    y[1, 2, 500, 100] += 1e-3
    v = verdict(q, y, rotary_dim=rotary)
    worst = named(v)
    assert (worst[0]["batch"], worst[0]["head"], worst[0]["seq"], worst[0]["dim"]) == (1, 2, 500, 100)
    assert v["diagnosis"]["cause"] == "isolated" and "head 2 dim 100" in v["diagnosis"]["detail"]
    # Python names the element as the command line does, and both property forms agree.
    r = peverify.verify_rotary(q, y, base=BASE, rotary_dim=rotary)
    element = r.result("pass-through").worst[0]
    assert isinstance(element, peverify.Element)
    assert (element.batch, element.seq, element.head, element.dim) == (1, 500, 2, 100)
    assert r.properties[1].worst[0].head == 2 and "head=2" in repr(element)


def test_position_ids_and_numpy_arrays():
    q, pos = q_and_positions(seq=512)
    ids = torch.randperm(100000, generator=torch.Generator().manual_seed(2))[:512]
    cos, sin = cos_sin(ids)
    y = apply_rotary_pos_emb(q, cos, sin)
    assert verdict(q.numpy(), y.numpy(), positions=ids.numpy())["holds"]
    named(verdict(q.numpy(), y.numpy(), positions=np.sort(ids.numpy())))


def test_bad_inputs_are_a_value_error():
    q, pos = q_and_positions(seq=8)
    with pytest.raises(ValueError, match="same shape"):
        peverify.verify_rotary(q, q[..., :64])
    with pytest.raises(ValueError, match="pairs"):
        peverify.verify_rotary(q, q, pairs="diagonal")
    bad = q.clone()
    bad[0, 0, 3, 5] = float("nan")
    with pytest.raises(ValueError, match="not finite|NaN|nan"):
        peverify.verify_rotary(bad, q)
