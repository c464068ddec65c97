"""A user's pytest file: PyTorch builds the tables, peverify proves them.

Run: .venv/bin/python -m pytest examples/pytest (after `pip install .`, README "From Python")
"""
import math
import re

import pytest

import peverify

torch = pytest.importorskip("torch")  # every test here builds a PyTorch table


def sinusoidal_table(max_len, d_model, dtype=torch.float32):
    """The PyTorch tutorial's PositionalEncoding buffer, computed in `dtype`."""
    position = torch.arange(max_len, dtype=dtype).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=dtype) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, d_model, dtype=dtype)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def llama3_cos_cache(positions, head_dim=128, base=500000.0, factor=8.0, low_freq_factor=1.0,
                     high_freq_factor=4.0, original_max_position=8192):
    """Hugging Face's LlamaRotaryEmbedding with the llama3 recipe, in float32: cos, [N, head_dim]."""
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
    low_freq_wavelen = original_max_position / low_freq_factor
    high_freq_wavelen = original_max_position / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (original_max_position / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * inv_freq_llama / factor + smooth * inv_freq_llama
    is_medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    inv_freq_llama = torch.where(is_medium, smoothed, inv_freq_llama)
    freqs = torch.outer(torch.arange(positions).float(), inv_freq_llama)
    return torch.cat((freqs, freqs), dim=-1).cos()


def test_pytorch_positional_encoding_is_within_its_float32_budget():
    peverify.assert_table(sinusoidal_table(4096, 512).numpy())


def test_llama31_cos_cache_in_float32_and_bfloat16():
    cos = llama3_cos_cache(8192)
    peverify.assert_table(cos.numpy(), model_config="llama-3.1-8b", layout="rope-cos-dup")
    stored = cos.to(torch.bfloat16).view(torch.int16).numpy()  # the bfloat16 cache, as bits
    peverify.assert_table(stored, dtype="bfloat16", model_config="llama-3.1-8b",
                          layout="rope-cos-dup")


def test_a_table_computed_in_bfloat16_fails_and_says_where():
    pe = sinusoidal_table(4096, 512, dtype=torch.bfloat16)
    with pytest.raises(AssertionError) as failure:
        peverify.assert_table(pe.view(torch.int16).numpy(), dtype="bfloat16")
    message = str(failure.value)
    print(message)  # pytest -s shows the verdict a user would read
    assert re.search(r"unique +FAILS", message) and "verdict: FAIL" in message
    # The verdict as an object: its attributes are the keys of `peverify verify --json`.
    verdict = peverify.verify(pe.view(torch.int16).numpy(), dtype="bfloat16")
    assert not verdict.holds
    repeat = verdict.result("unique").worst[0]
    assert repeat.pos == 257 and repeat.what == "same row as position 256"
    worst = verdict.result("oracle").worst[0]
    assert worst.abs_error > worst.budget
