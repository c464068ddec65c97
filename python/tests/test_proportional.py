"""Gemma 4's proportional RoPE (docs/mathematics.md §12.1) as transformers builds it: the
full-attention layers' cache over global_head_dim passes, and pegainfer#820's exponent over the
rotated part fails naming an element and its cause."""
import numpy as np
import pytest

import peverify

torch = pytest.importorskip("torch")

PRESET = "gemma-4-26b-a4b-it"


def gemma4_full_cache(rows=4096, head_dim=512, base=1e6, share=0.25, over_rotated=False):
    """_compute_proportional_rope_parameters, then Gemma4TextRotaryEmbedding.forward in float32:
    inv_freq @ positions, cat(freqs, freqs), cos and sin. over_rotated: pegainfer#820's exponent
    over the 2a rotated dims instead of head_dim."""
    angles = int(share * head_dim // 2)
    width = 2 * angles if over_rotated else head_dim
    rotated = 1.0 / (base ** (torch.arange(0, 2 * angles, 2, dtype=torch.int64).float() / width))
    inv_freq = torch.cat([rotated, torch.zeros(head_dim // 2 - angles, dtype=torch.float32)])
    freqs = (inv_freq[None, :, None] @ torch.arange(rows).float()[None, None, :]).transpose(1, 2)
    emb = torch.cat([freqs, freqs], dim=-1)[0]
    return emb.cos().numpy(), emb.sin().numpy()


def test_the_full_attention_cache_passes_and_its_tail_is_exactly_cos_1_sin_0():
    cos, sin = gemma4_full_cache()
    for table, layout in ((cos, "rope-cos-dup"), (sin, "rope-sin-dup")):
        verdict = peverify.verify(table, layout=layout, model_config=PRESET,
                                  layer_type="full_attention")
        assert verdict, str(verdict)
    exact = peverify.oracle(64, model_config=PRESET, layer_type="full_attention",
                            layout="rope-cos-dup")
    assert exact.shape == (64, 512)
    assert np.all(exact[:, 64:256] == 1) and np.all(exact[:, 320:] == 1)


def test_the_exponent_over_the_rotated_part_fails_naming_an_element_and_the_cause():
    cos, _ = gemma4_full_cache(over_rotated=True)
    verdict = peverify.verify(cos, layout="rope-cos-dup", model_config=PRESET,
                              layer_type="full_attention")
    assert not verdict
    assert "pos " in str(verdict) and "worst elements" in str(verdict)
    assert verdict.diagnosis["cause"] == "rotary-dim", verdict.diagnosis
    assert "pegainfer#820" in verdict.diagnosis["detail"]


def test_the_sliding_layers_cache_checked_as_the_full_ones_names_its_layer_type():
    d = 256
    inv_freq = 1.0 / (1e4 ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    freqs = torch.arange(2048).float()[:, None] * inv_freq[None, :]
    table = torch.cat([freqs, freqs], dim=-1).cos().numpy()
    assert peverify.verify(table, layout="rope-cos-dup", model_config=PRESET,
                           layer_type="sliding_attention")
    with pytest.raises(ValueError, match="512"):  # the full layers' table is 512 wide
        peverify.verify(table, layout="rope-cos-dup", model_config=PRESET)
