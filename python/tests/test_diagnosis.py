"""What a failing verdict says of its cause in Python (docs/architecture.md §8.1), one API for both
verdicts, and a config key one edit from a rotary key warned of."""
import json
import warnings

import numpy as np
import pytest

import peverify


def test_a_table_of_another_base_is_diagnosed_with_the_flags_it_matches():
    table = peverify.oracle(4096, d_model=64, base=500000.0)
    verdict = peverify.verify(table, d_model=64)
    assert not verdict
    assert verdict.diagnosis["cause"] == "base"
    assert verdict.diagnosis["matches"] == ["--base 500000"]
    assert verdict.diagnosis["explains"] >= 0.99
    assert json.loads(verdict.to_json())["diagnosis"] == verdict.diagnosis
    assert "diagnosis: base: " in str(verdict)


def test_a_passing_verdict_has_no_diagnosis():
    verdict = peverify.verify(peverify.oracle(512, d_model=64), d_model=64)
    assert verdict and verdict.diagnosis is None


def test_one_isolated_corruption_is_never_given_a_systematic_cause():
    table = peverify.oracle(4096, d_model=64).copy()
    table[1234, 7] += np.float32(3e-3)
    verdict = peverify.verify(table, d_model=64)
    assert verdict.diagnosis["cause"] == "isolated"
    assert verdict.diagnosis["matches"] == []
    assert "pos 1234 dim 7" in verdict.diagnosis["detail"]


def test_both_verdicts_answer_result_by_property_name():
    q = np.random.default_rng(3).standard_normal((1, 2, 64, 32)).astype(np.float32)
    rotary = peverify.verify_rotary(q, q)  # batch, heads, seq, dim
    assert rotary.result("rotation").property == "rotation"
    table = peverify.verify(peverify.oracle(64, d_model=64), d_model=64)
    assert table.result("oracle").property == "oracle"
    for verdict in (rotary, table):
        with pytest.raises(ValueError, match="no property 'nosuch'"):
            verdict.result("nosuch")


def test_a_config_key_one_edit_from_a_rotary_key_is_warned_of_and_read_as_transformers_does():
    config = {"hidden_size": 4096, "num_attention_heads": 32, "rope_thetaa": 500000}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = peverify.oracle(64, model_config=config, layout="rope-cos-dup")
    assert any("did you mean rope_theta?" in str(w.message) for w in caught), caught
    # Read as transformers reads it: rope_thetaa ignored, the default base.
    assert np.array_equal(table, peverify.oracle(64, d_model=128, base=10000.0,
                                                 layout="rope-cos-dup"))


def test_a_rotary_verdict_shows_the_tensors_shape_as_given():
    q = np.random.default_rng(5).standard_normal((1, 2, 64, 32)).astype(np.float32)
    assert "[1, 2, 64, 32]" in str(peverify.verify_rotary(q, q))


def gemma3_cos(base, factor=1.0, rows=4096, d=128):
    """Gemma 3's cache as transformers builds it in float32: inv_freq (divided by the linear
    factor of the full-attention layers) @ positions, cat(freqs, freqs), cos."""
    torch = pytest.importorskip("torch")
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d)) / factor
    freqs = torch.arange(rows).float()[:, None] * inv_freq[None, :]
    return torch.cat([freqs, freqs], dim=-1).cos().numpy()


@pytest.mark.parametrize(
    "built, declared, named",
    [
        # The local layers' cache checked as the global one (the default layer type), and back.
        ((10000.0, 1.0), None, "sliding_attention"),
        ((1e6, 8.0), "sliding_attention", "full_attention"),
    ],
)
def test_the_other_layer_types_cache_names_its_layer_type(built, declared, named):
    table = gemma3_cos(*built)
    spec = dict(layout="rope-cos-dup", model_config="gemma-3-27b-it")
    if declared:
        spec["layer_type"] = declared
    verdict = peverify.verify(table, **spec)
    assert verdict.diagnosis["cause"] == "layer-type", verdict.diagnosis
    assert verdict.diagnosis["matches"] == ["--layer-type " + named]
    assert peverify.verify(table, layout="rope-cos-dup", model_config="gemma-3-27b-it",
                           layer_type=named)


def test_a_layer_type_peverify_cannot_read_does_not_fail_the_one_asked_for():
    """The other layer types are read only for the diagnosis: one of a recipe peverify does not
    know leaves the verdict of the layer type asked for as it was."""
    config = {"head_dim": 64, "num_attention_heads": 8, "hidden_size": 512,
              "layer_types": ["sliding_attention", "full_attention"],
              "rope_parameters": {
                  "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                  "full_attention": {"rope_type": "no-such-recipe", "rope_theta": 1e6}}}
    table = peverify.oracle(1024, d_model=64, layout="rope-cos-dup")
    assert peverify.verify(table, layout="rope-cos-dup", model_config=config,
                           layer_type="sliding_attention")
