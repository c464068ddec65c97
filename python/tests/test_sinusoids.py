"""The other sinusoidal tables models build (docs/features.md §16), each built the way the named
code builds it in PyTorch: diffusion timestep embeddings, multi-axis RoPE for images and video, and
ALiBi's slopes. Honest tables pass; the published bugs fail naming an element and their cause."""
import json
import math

import numpy as np
import pytest

import peverify

try:
    import torch
except ImportError:  # the tests that need it skip alone; the others run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch (Debian's python3-torch)")


# ---- Timestep embeddings -------------------------------------------------------------------

def diffusers_embedding(t, dim, flip=False, shift=1, scale=1, max_period=10000):
    """diffusers src/diffusers/models/embeddings.py get_timestep_embedding, float32."""
    half = dim // 2
    exponent = -math.log(max_period) * torch.arange(0, half, dtype=torch.float32)
    exponent = exponent / (half - shift)
    args = t[:, None].float() * torch.exp(exponent)[None, :]
    args = scale * args
    emb = torch.cat([torch.sin(args), torch.cos(args)], dim=-1)
    if flip:
        emb = torch.cat([emb[:, half:], emb[:, :half]], dim=-1)
    if dim % 2 == 1:
        emb = torch.nn.functional.pad(emb, (0, 1, 0, 0))
    return emb


def adm_embedding(t, dim, max_period=10000):
    """openai/guided-diffusion guided_diffusion/nn.py timestep_embedding (and LDM, SGM, DiT)."""
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(0, half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    if dim % 2:
        emb = torch.cat([emb, torch.zeros_like(emb[:, :1])], dim=-1)
    return emb


def ddpm_embedding(t, dim):
    """hojonathanho/diffusion diffusion_tf/nn.py get_timestep_embedding: the quotient rounded once."""
    half = dim // 2
    step = math.log(10000) / (half - 1)
    emb = torch.exp(torch.arange(half, dtype=torch.float32) * -step)
    emb = t.float()[:, None] * emb[None, :]
    return torch.cat([torch.sin(emb), torch.cos(emb)], dim=1)


def flux_embedding(t, dim=256, time_factor=1000.0):
    """black-forest-labs/flux src/flux/modules/layers.py timestep_embedding."""
    t = time_factor * t
    return adm_embedding(t, dim)


def wan_embedding(t, dim=256):
    """Wan-Video/Wan2.1 wan/modules/model.py sinusoidal_embedding_1d: float64 throughout."""
    half = dim // 2
    position = t.type(torch.float64)
    sinusoid = torch.outer(position, torch.pow(10000, -torch.arange(half).to(position).div(half)))
    return torch.cat([torch.cos(sinusoid), torch.sin(sinusoid)], dim=1)


if torch is not None:
    STEPS = torch.arange(1000)
    SIGMAS = torch.rand(200, generator=torch.Generator().manual_seed(7))


@needs_torch
@pytest.mark.parametrize("dim", [320, 321, 256])
def test_diffusers_defaults_pass_as_the_ddpm_and_diffusers_presets(dim):
    table = diffusers_embedding(STEPS, dim).numpy()
    for recipe in ("ddpm", "diffusers"):
        verdict = peverify.verify(table, timesteps=STEPS, timestep_recipe=recipe)
        assert verdict, str(verdict)
    assert peverify.verify(table, timesteps=STEPS.numpy())  # the default recipe: diffusers'


@needs_torch
def test_tensorflow_ddpm_with_its_own_order_of_operations_passes():
    assert peverify.verify(ddpm_embedding(STEPS, 128).numpy(), timesteps=STEPS,
                           timestep_recipe="ddpm")


@needs_torch
@pytest.mark.parametrize("dim", [320, 1281])
def test_adm_ldm_sdxl_dit_tables_pass_as_adm(dim):
    table = adm_embedding(STEPS, dim).numpy()
    verdict = peverify.verify(table, timesteps=STEPS, timestep_recipe="adm")
    assert verdict, str(verdict)
    same = diffusers_embedding(STEPS, dim, flip=True, shift=0).numpy()
    assert peverify.verify(same, timesteps=STEPS, timestep_recipe="adm")
    if dim % 2:
        assert "the pad column 0" in str(verdict)


@needs_torch
def test_flux_multiplies_the_timesteps_by_1000_first():
    table = flux_embedding(SIGMAS).numpy()
    assert peverify.verify(table, timesteps=SIGMAS, timestep_recipe="flux")
    assert peverify.verify(table.astype(np.float16), timesteps=SIGMAS, timestep_recipe="flux")


@needs_torch
def test_qwen_image_scales_after_the_product():
    table = diffusers_embedding(SIGMAS, 256, flip=True, shift=0, scale=1000).numpy()
    assert peverify.verify(table, timesteps=SIGMAS, timestep_recipe="qwen-image")


@needs_torch
def test_wan_in_float64_is_faithful_and_its_float64_table_within_a_float64_model():
    table = wan_embedding(STEPS)
    assert peverify.verify(table.float().numpy(), timesteps=STEPS, timestep_recipe="wan",
                           budget="faithful")
    assert peverify.verify(table.numpy(), timesteps=STEPS, timestep_recipe="wan",
                           compute="float64")


@needs_torch
def test_a_custom_recipe_is_a_dict_of_diffusers_names():
    table = diffusers_embedding(STEPS, 64, flip=True, shift=0, max_period=5000).numpy()
    recipe = {"preset": "adm", "max_period": 5000}
    verdict = peverify.verify(table, timesteps=STEPS, timestep_recipe=recipe)
    assert verdict and "max_period 5000" in verdict.declared


@needs_torch
def test_sdxl_trained_with_shift_1_fails_naming_an_element_and_the_shift():
    # kohya-ss/sd-scripts#1187: the U-Net's default shift 1 where SDXL's config says 0.
    table = diffusers_embedding(STEPS, 320, flip=True, shift=1).numpy()
    verdict = peverify.verify(table, timesteps=STEPS, timestep_recipe="adm")
    assert not verdict
    worst = next(p for p in verdict.properties if p["property"] == "oracle")["worst"][0]
    assert {"row", "column", "got", "exact", "allowed", "positions"} <= worst.keys()
    assert worst["abs_error"] > worst["allowed"]
    assert table[worst["row"], worst["column"]] == np.float32(worst["got"])
    assert verdict.diagnosis["cause"] == "recipe"
    assert "downscale_freq_shift 1" in verdict.diagnosis["detail"]


@needs_torch
def test_wan_built_sin_first_is_a_layout_fault():
    # flashinfer#3819: [cos, sin] built before the flip, giving [sin, cos].
    table = wan_embedding(STEPS)
    swapped = torch.cat([table[:, 128:], table[:, :128]], dim=1).float().numpy()
    verdict = peverify.verify(swapped, timesteps=STEPS, timestep_recipe="wan")
    assert not verdict and verdict.diagnosis["cause"] == "layout"


@needs_torch
def test_the_sigma_rounded_through_bfloat16_is_named_and_declarable():
    # diffusers#9405: timestep.to(bfloat16) * 1000 turns 0.75 into 752, not 750.
    rounded = (SIGMAS.to(torch.bfloat16) * 1000).float()
    table = adm_embedding(rounded, 256).numpy()
    verdict = peverify.verify(table, timesteps=SIGMAS, timestep_recipe="flux")
    assert not verdict and verdict.diagnosis["cause"] == "positions"
    assert "bfloat16" in verdict.diagnosis["detail"]
    declared = {"preset": "flux", "timestep_dtype": "bfloat16"}
    assert peverify.verify(table, timesteps=SIGMAS, timestep_recipe=declared)


@needs_torch
def test_one_corrupted_element_inside_the_budget_stands_out():
    table = adm_embedding(STEPS, 320).numpy().copy()
    # Column 0 is cos(t): at t = 600 the model budget is 32 u (1 + 600) = 1.1e-3, the column's
    # own errors ~3e-5 (the angle's rounding).
    table[600, 0] += np.float32(5e-4)
    verdict = peverify.verify(table, timesteps=STEPS, timestep_recipe="adm")
    assert not verdict
    oracle = next(p for p in verdict.properties if p["property"] == "oracle")
    assert oracle["holds"], "the corruption is inside the worst-case budget"
    consistent = next(p for p in verdict.properties if p["property"] == "consistent")
    assert not consistent["holds"]
    assert (consistent["worst"][0]["row"], consistent["worst"][0]["column"]) == (600, 0)
    assert verdict.diagnosis["cause"] == "isolated"


@needs_torch
def test_bad_timestep_arguments_are_value_errors():
    table = adm_embedding(STEPS, 64).numpy()
    with pytest.raises(ValueError, match="one per row"):
        peverify.verify(table, timesteps=STEPS[:10], timestep_recipe="adm")
    with pytest.raises(ValueError, match="unknown preset"):
        peverify.verify(table, timesteps=STEPS, timestep_recipe="sdxxl")
    with pytest.raises(ValueError, match="unknown key"):
        peverify.verify(table, timesteps=STEPS, timestep_recipe={"max_perod": 10})
    with pytest.raises(ValueError, match="float16's range"):
        peverify.verify(table, timesteps=STEPS,
                        timestep_recipe={"preset": "flux", "timestep_dtype": "float16"})


# ---- Multi-axis RoPE -----------------------------------------------------------------------

def diffusers_axis(pos, dim, theta, freqs_dtype=None):
    """diffusers embeddings.py get_1d_rotary_pos_embed(use_real=True, repeat_interleave_real)."""
    freqs_dtype = freqs_dtype or torch.float64
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=freqs_dtype)[: dim // 2] / dim))
    freqs = torch.outer(pos.to(freqs_dtype), freqs)
    cos = freqs.cos().repeat_interleave(2, dim=1).float()
    sin = freqs.sin().repeat_interleave(2, dim=1).float()
    return cos, sin


def axial_cache(ids, axes, theta, freqs_dtype=None):
    """diffusers FluxPosEmbed and its kin: each axis's table, concatenated in axis order."""
    parts = [diffusers_axis(ids[:, i], d, theta, freqs_dtype) for i, d in enumerate(axes)]
    return torch.cat([c for c, _ in parts], -1), torch.cat([s for _, s in parts], -1)


def bfl_cache(ids, axes, theta):
    """black-forest-labs/flux src/flux/math.py rope: float32 ids and frequencies (flux#195)."""
    cos, sin = [], []
    for i, d in enumerate(axes):
        scale = torch.arange(0, d, 2, dtype=ids.dtype) / d
        omega = 1.0 / (theta ** scale)
        out = torch.einsum("n,d->nd", ids[:, i], omega)
        cos.append(torch.cos(out).repeat_interleave(2, dim=1))
        sin.append(torch.sin(out).repeat_interleave(2, dim=1))
    return torch.cat(cos, -1), torch.cat(sin, -1)


def flux_ids(h, w, text=512):
    img = torch.zeros(h, w, 3)
    img[..., 1] = torch.arange(h)[:, None]
    img[..., 2] = torch.arange(w)[None, :]
    return torch.cat([torch.zeros(text, 3), img.reshape(-1, 3)], 0)


if torch is not None:
    IDS = flux_ids(64, 56)  # 4096 tokens, a non-square grid


@needs_torch
def test_flux_tables_pass_from_diffusers_float64_and_bfl_float32():
    cos, sin = axial_cache(IDS, (16, 56, 56), 10000)
    assert peverify.verify(cos.numpy(), rope_axes="flux", positions=IDS, layout="rope-cos-pairs",
                           budget="faithful")
    assert peverify.verify(sin.numpy(), rope_axes="flux", positions=IDS.T, layout="rope-sin-pairs",
                           budget="faithful")
    cos32, sin32 = bfl_cache(IDS, (16, 56, 56), 10000)
    verdict = peverify.verify(cos32.numpy(), rope_axes=[16, 56, 56], base=10000, positions=IDS,
                              layout="rope-cos-pairs")
    assert verdict, str(verdict)
    assert peverify.verify(sin32.numpy(), rope_axes="flux", positions=IDS, layout="rope-sin-pairs")


@needs_torch
@pytest.mark.parametrize("preset,axes,theta", [("flux2", (32, 32, 32, 32), 2000),
                                               ("hunyuan-video", (16, 56, 56), 256)])
def test_the_other_presets(preset, axes, theta):
    ids = torch.stack([torch.arange(8).repeat_interleave(64).float()]
                      + [torch.arange(64).repeat(8).float()] * (len(axes) - 1), 1)
    cos, _ = axial_cache(ids, axes, theta)
    assert peverify.verify(cos.numpy(), rope_axes=preset, positions=ids, layout="rope-cos-pairs")


@needs_torch
def test_qwen_image_negative_centred_ids_and_eva_fractional_ids():
    h, w = 32, 48
    rows = (torch.arange(h)[:, None] - h // 2).expand(h, w).reshape(-1).float()
    cols = (torch.arange(w)[None, :] - w // 2).expand(h, w).reshape(-1).float()
    ids = torch.stack([torch.zeros(h * w), rows, cols], 1)
    cos, _ = axial_cache(ids, (16, 56, 56), 10000)
    assert peverify.verify(cos.numpy(), rope_axes="qwen-image", positions=ids,
                           layout="rope-cos-pairs", budget="faithful")
    grid = torch.arange(64) / 64 * 16  # EVA-02 interpolates a 16-patch grid to 64
    eva = torch.stack([grid.repeat_interleave(64), grid.repeat(64)], 1)
    cos, _ = axial_cache(eva, (32, 32), 10000)
    assert peverify.verify(cos.numpy(), rope_axes=[32, 32], positions=eva, layout="rope-cos-pairs",
                           budget="faithful")


@needs_torch
def test_height_and_width_swapped_on_a_non_square_grid_is_named():
    # timm#2541: xy indexing swaps H and W, invisible on square grids.
    cos, _ = axial_cache(IDS[:, [0, 2, 1]], (16, 56, 56), 10000)
    verdict = peverify.verify(cos.numpy(), rope_axes="flux", positions=IDS, layout="rope-cos-pairs")
    assert not verdict and verdict.diagnosis["cause"] == "axes"
    assert "swapped" in verdict.diagnosis["detail"]


@needs_torch
def test_one_axis_block_reused_for_another_is_named():
    # ncnn#6834: the second image axis's block built from the first's.
    cos, _ = axial_cache(IDS, (16, 56, 56), 10000)
    reused, _ = axial_cache(IDS[:, [0, 1, 1]], (16, 56, 56), 10000)
    cos[:, 72:] = reused[:, 72:]
    verdict = peverify.verify(cos.numpy(), rope_axes="flux", positions=IDS, layout="rope-cos-pairs")
    assert not verdict and verdict.diagnosis["cause"] == "axes"
    assert "ncnn#6834" in verdict.diagnosis["detail"]


@needs_torch
def test_axes_that_do_not_make_the_width_are_refused():
    cos, _ = axial_cache(IDS, (16, 56, 56), 10000)
    with pytest.raises(ValueError, match="makes 120 columns"):
        peverify.verify(cos.numpy(), rope_axes=[16, 48, 56], positions=IDS,
                        layout="rope-cos-pairs")
    with pytest.raises(ValueError, match="disagrees"):
        peverify.verify(cos.numpy(), rope_axes="flux", base=256, positions=IDS,
                        layout="rope-cos-pairs")


# ---- ALiBi ---------------------------------------------------------------------------------

def fairseq_slopes(n):
    """ofirpress/attention_with_linear_biases fairseq/models/transformer.py get_slopes."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    c = 2 ** math.floor(math.log2(n))
    return power_of_2(c) + fairseq_slopes(2 * c)[0::2][: n - c]


def bloom_slopes(n):
    """transformers models/bloom/modeling_bloom.py build_alibi_tensor: float32 pow of a rounded base."""
    c = 2 ** math.floor(math.log2(n))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(c) - 3))), dtype=torch.float32)
    slopes = torch.pow(base, torch.arange(1, 1 + c, dtype=torch.int32))
    if c != n:
        extra = torch.tensor(2 ** (-(2 ** -(math.log2(2 * c) - 3))), dtype=torch.float32)
        remaining = min(c, n - c)
        slopes = torch.cat([slopes, torch.pow(extra, torch.arange(1, 1 + 2 * remaining, 2,
                                                                 dtype=torch.int32))])
    return slopes


@needs_torch
@pytest.mark.parametrize("heads", [8, 12, 16, 40, 64, 71, 96])
def test_the_authors_and_bloom_slopes_pass(heads):
    exact = np.array(fairseq_slopes(heads))
    assert peverify.verify(exact.astype(np.float32), alibi=True, budget="faithful")
    # In double, start * start**i is not faithful (start is rounded, then raised to the power i),
    # but it is an honest float64 computation.
    assert peverify.verify(exact, alibi=True, compute="float64")
    verdict = peverify.verify(bloom_slopes(heads), alibi=True)
    assert verdict, str(verdict)
    assert peverify.verify(torch.tensor(exact).to(torch.bfloat16), alibi=True, budget="strict")


def test_geometric_slopes_for_a_non_power_of_two_count_are_named():
    # mlx#3071: 2^(-8(h+1)/n) for every n.
    slopes = np.array([2 ** (-8 * (h + 1) / 12) for h in range(12)], dtype=np.float32)
    verdict = peverify.verify(slopes, alibi=True)
    assert not verdict and verdict.diagnosis["cause"] == "recipe"
    assert "mlx#3071" in verdict.diagnosis["detail"]
    assert peverify.verify(np.array(fairseq_slopes(16), np.float32), alibi=True, budget="strict")


def test_an_exponent_one_step_early_is_named():
    # aprender#2143: head 0's slope 1.
    slopes = np.array([2 ** (-8 * h / 16) for h in range(16)], dtype=np.float32)
    verdict = peverify.verify(slopes, alibi=True)
    assert not verdict and verdict.diagnosis["cause"] == "positions"


def test_the_verdict_as_json():
    verdict = peverify.verify(np.array(fairseq_slopes(12), np.float32), alibi=True)
    j = json.loads(verdict.to_json())
    assert j["holds"] and j["kind"] == "ALiBi slopes" and j["elements"] == 12


# ---- Edges a review found -------------------------------------------------------------------

def test_signed_zero_timesteps_are_two_positions():
    t = np.array([0.0, -0.0], dtype=np.float32)
    right = np.array([[0.0, 0.0, 1.0, 1.0], [-0.0, -0.0, 1.0, 1.0]], dtype=np.float32)
    assert peverify.verify(right, timesteps=t, timestep_recipe="ddpm", budget="strict")
    wrong = np.array([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]], dtype=np.float32)
    assert not peverify.verify(wrong, timesteps=t, timestep_recipe="ddpm", budget="strict")


def test_alibi_faithful_float64_accepts_either_neighbour_and_an_underflowed_slope():
    slopes = np.array([2.0 ** -(h + 1) for h in range(8)] + [2 ** -0.5, 2 ** -1.5, 2 ** -2.5,
                                                           2 ** -3.5])
    # 2^-0.5 = 0.70710678118654752...: the double nearest is ...476, the one below it faithful too.
    slopes[8] = np.nextafter(slopes[8], 0.0)
    assert not peverify.verify(slopes, alibi=True, budget="strict")
    assert peverify.verify(slopes, alibi=True, budget="faithful")
    assert peverify.verify(np.array([0.0], dtype=np.float16), alibi=True, alibi_max_bias=30,
                           budget="strict")


@needs_torch
def test_square_ids_saved_rows_first_are_named():
    ids = torch.tensor([[0.0, 1, 2], [3, 4, 5], [6, 7, 8]])  # [N, axes], N = axes = 3
    cos, _ = axial_cache(ids, (2, 2, 2), 10000)
    verdict = peverify.verify(cos.numpy(), rope_axes=[2, 2, 2], positions=ids.numpy(),
                              layout="rope-cos-pairs")
    assert not verdict and verdict.diagnosis["cause"] == "axes"
    assert "[N, axes]" in verdict.diagnosis["detail"]
    assert peverify.verify(cos.numpy(), rope_axes=[2, 2, 2], positions=ids.T.contiguous().numpy(),
                           layout="rope-cos-pairs")


@needs_torch
def test_keywords_of_another_kind_of_table_are_refused():
    slopes = np.array(fairseq_slopes(8), np.float32)
    with pytest.raises(ValueError, match="does not take positions="):
        peverify.verify(slopes, alibi=True, positions=[0])
    with pytest.raises(ValueError, match="does not take alibi_max_bias="):
        peverify.verify(adm_embedding(STEPS, 64).numpy(), timesteps=STEPS, alibi_max_bias=4)
    with pytest.raises(ValueError, match="must be a number"):
        peverify.verify(slopes, alibi=True, alibi_max_bias="8")
    with pytest.raises(ValueError, match="real numbers"):
        peverify.verify(adm_embedding(STEPS, 64).numpy(), timesteps=STEPS.to(torch.complex64))
    with pytest.raises(ValueError, match="out of range"):
        peverify.verify(np.ones((1, 4), np.float32), timesteps=np.array([2.0 ** -149], np.float32),
                        timestep_recipe={"max_period": 1e300})


# ---- verify-rotary over several axes -----------------------------------------------------------

def bfl_rope_matrices(ids, axes=(16, 56, 56), theta=10000):
    """BFL flux src/flux/math.py rope and modules/layers.py EmbedND: [B, 1, L, D/2, 2, 2]."""
    parts = []
    for i, d in enumerate(axes):
        scale = torch.arange(0, d, 2, dtype=torch.float64) / d
        omega = 1.0 / (theta ** scale)
        out = torch.einsum("...n,d->...nd", ids[..., i].double(), omega)
        out = torch.stack([torch.cos(out), -torch.sin(out), torch.sin(out), torch.cos(out)], -1)
        parts.append(out.reshape(*out.shape[:-1], 2, 2).float())
    return torch.cat(parts, dim=-3).unsqueeze(1)


def bfl_apply_rope(xq, freqs_cis):
    """BFL flux src/flux/math.py apply_rope: each pair (2j, 2j+1) by its 2x2 rotation."""
    xq_ = xq.float().reshape(*xq.shape[:-1], -1, 1, 2)
    out = freqs_cis[..., 0] * xq_[..., 0] + freqs_cis[..., 1] * xq_[..., 1]
    return out.reshape(*xq.shape).type_as(xq)


if torch is not None:
    ROT_IDS = flux_ids(16, 12, text=64)[None]  # [1, 256, 3]
    Q = torch.randn(1, 4, ROT_IDS.shape[1], 128, generator=torch.Generator().manual_seed(3))


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_flux_apply_rope_passes_verify_rotary(dtype):
    q = Q.to(getattr(torch, dtype))
    out = bfl_apply_rope(q, bfl_rope_matrices(ROT_IDS))
    verdict = peverify.verify_rotary(q, out, rope_axes="flux", positions=ROT_IDS[0],
                                     pairs="interleaved", axes="batch,heads,seq,dim")
    assert verdict, str(verdict)
    assert verdict.kind == "multi-axis rotation"


@needs_torch
def test_a_rotation_with_h_and_w_swapped_or_declared_rotate_half_is_named():
    out = bfl_apply_rope(Q, bfl_rope_matrices(ROT_IDS[..., [0, 2, 1]]))
    verdict = peverify.verify_rotary(Q, out, rope_axes="flux", positions=ROT_IDS[0],
                                     pairs="interleaved", axes="batch,heads,seq,dim")
    assert not verdict and verdict.diagnosis["cause"] == "axes"
    worst = verdict.properties[0]["worst"][0]
    assert {"row", "head", "column", "got", "exact", "allowed"} <= worst.keys()
    honest = bfl_apply_rope(Q, bfl_rope_matrices(ROT_IDS))
    halves = peverify.verify_rotary(Q, honest, rope_axes="flux", positions=ROT_IDS[0],
                                    axes="batch,heads,seq,dim")
    assert not halves and halves.diagnosis["cause"] == "pairing"
    assert halves.diagnosis["matches"] == ["--pairs interleaved"]
    with pytest.raises(ValueError, match="does not take rotary_dim="):
        peverify.verify_rotary(Q, honest, rope_axes="flux", positions=ROT_IDS[0], rotary_dim=64)
    with pytest.raises(ValueError, match="rotate 136 dims"):
        peverify.verify_rotary(Q, honest, rope_axes=[16, 64, 56], positions=ROT_IDS[0])
    with pytest.raises(ValueError, match="base must be a number, not str"):
        peverify.verify_rotary(Q, honest, rope_axes="flux", positions=ROT_IDS[0], base="1e4")


def test_mae_dit_sd3_2d_sincos_table_is_two_axes_in_halves():
    """MAE util/pos_embed.py get_2d_sincos_pos_embed (DiT, SD3): [emb_h | emb_w], each [sin|cos]
    of 10000^(-k/(D/4)) in float64: two axes of D/2 dims in the halves layout."""
    def one_axis(dim, pos):
        omega = np.arange(dim // 2, dtype=np.float64) / (dim / 2.0)
        out = np.einsum("m,d->md", pos.reshape(-1), 1.0 / 10000 ** omega)
        return np.concatenate([np.sin(out), np.cos(out)], axis=1)
    size, dim = 14, 768
    grid = np.stack(np.meshgrid(np.arange(size, dtype=np.float32),
                                np.arange(size, dtype=np.float32)), 0).reshape(2, -1)
    table = np.concatenate([one_axis(dim // 2, grid[0]), one_axis(dim // 2, grid[1])], axis=1)
    assert peverify.verify(table.astype(np.float32), rope_axes=[dim // 2, dim // 2],
                           positions=grid, layout="halves", budget="faithful")
