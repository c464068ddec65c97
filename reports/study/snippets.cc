#include "peverify/reports/study/snippets.h"

#include <fmt/format.h>

#include <string_view>

namespace pev::reports::study {
namespace {

struct Output {
  std::string_view short_name, dtype, torch, cuda_round;
};

constexpr Output kOutputs[] = {
    {"f32", "float32", "torch.float32", "__double2float_rn"},
    {"f16", "float16", "torch.float16", "__double2half_rn"},
    {"bf16", "bfloat16", "torch.bfloat16", "__double2bfloat16"},
};

// The angles in `angle_dtype` as the framework entries compute them (core/frameworks/
// torch_entries.cc): inv_freq = 1.0 / base ** (arange(0, d, 2) / d), angle = pos * inv_freq.
std::string torch_code(std::string_view angle_dtype, const Output& o, std::string_view what) {
  return fmt::format(
      "import torch\n"
      "\n"
      "def sinusoidal_table(n, d, base=10000.0):\n"
      "    \"\"\"Rows 0..n-1 of [sin p w_0, cos p w_0, sin p w_1, ...], w_k = base^(-2k/d):\n"
      "    {}.\"\"\"\n"
      "    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype={}) / d))\n"
      "    angles = torch.arange(n, dtype={})[:, None] * inv_freq[None, :]\n"
      "    table = torch.empty(n, d, dtype={})\n"
      "    table[:, 0::2] = angles.sin()\n"
      "    table[:, 1::2] = angles.cos()\n"
      "    return table.to({})\n",
      what, angle_dtype, angle_dtype, angle_dtype, o.torch);
}

std::string peverify_code(const Output& o) {
  const std::string entry = fmt::format("cpu/precise/f64>{}/hwy", o.short_name);
  const std::string to_tensor =
      o.short_name == "f32"
          ? "torch.from_numpy(table)"
          : fmt::format("torch.from_numpy(table.view(np.int16)).view({})", o.torch);
  return fmt::format(
      "import numpy as np\n"
      "import peverify\n"
      "import torch\n"
      "\n"
      "def sinusoidal_table(n, d, base=10000.0):\n"
      "    \"\"\"Rows 0..n-1 of [sin p w_0, cos p w_0, sin p w_1, ...], w_k = base^(-2k/d):\n"
      "    faithful {} from peverify's double-double strategy.\"\"\"\n"
      "    table = peverify.generate(\"{}\", n, d_model=d, base=base)\n"
      "    return {}\n",
      o.dtype, entry, to_tensor);
}

}  // namespace

std::optional<Snippet> rotation_snippet_of(const std::string& entry) {
  if (entry != "cpu/rotate/fused-f64/f32/glibc") return std::nullopt;
  return Snippet{
      entry,
      "import torch\n"
      "\n"
      "def apply_rope(x, positions, inv_freq64, attention=1.0):\n"
      "    \"\"\"x [..., tokens, d] rotated at positions [tokens] (rotate_half's pairs (i, i + "
      "d/2)):\n"
      "    inv_freq64 is your model's inv_freq computed with dtype=torch.float64; angles, cos, "
      "sin\n"
      "    and products in float64, rounded once to x's dtype.\"\"\"\n"
      "    angles = positions.to(torch.float64)[:, None] * inv_freq64[None, :]\n"
      "    cos = torch.cat((angles.cos(), angles.cos()), dim=-1) * attention\n"
      "    sin = torch.cat((angles.sin(), angles.sin()), dim=-1) * attention\n"
      "    x64 = x.to(torch.float64)\n"
      "    half = x.shape[-1] // 2\n"
      "    rotated = torch.cat((-x64[..., half:], x64[..., :half]), dim=-1)\n"
      "    return (x64 * cos + rotated * sin).to(x.dtype)\n",
      "in the fused kernel, sincos(double(pos) * inv_freq64[k], &s, &c), both products and their "
      "sum in double, one __double2float_rn per output",
      SnippetKind::kFloat64};
}

const std::vector<Framework>& frameworks() {
  static const std::vector<Framework> list = {
      {"hf", "Hugging Face's float32 code"},
      {"vllm", "vLLM's float32 cos_sin_cache (the same arithmetic as Hugging Face's)"},
      {"meta", "Meta's precompute_freqs_cis"},
      {"tutorial", "the PyTorch tutorial's PositionalEncoding"},
  };
  return list;
}

const Framework* find_framework(const std::string& name) {
  for (const Framework& f : frameworks())
    if (f.name == name) return &f;
  return nullptr;
}

std::string framework_entry_for(const std::string& dtype, const std::string& framework) {
  if (framework == "meta") return dtype == "float32" ? "cpu/pow/f32>f32/torch-polar" : "";
  if (framework == "tutorial") return dtype == "float32" ? "cpu/logspace/f32>f32/torch" : "";
  for (const Output& o : kOutputs)
    if (o.dtype == dtype) return fmt::format("cpu/pow/f32>{}/torch", o.short_name);
  return "";
}

std::optional<Snippet> snippet_of(const std::string& entry) {
  for (const Output& o : kOutputs) {
    if (entry == fmt::format("cpu/pow/f64>{}/torch", o.short_name))
      return Snippet{entry,
                     torch_code("torch.float64", o,
                                fmt::format("float64 throughout, rounded once to {}", o.dtype)),
                     fmt::format("sincos(double(pos) * inv_freq[k], &s, &c) with inv_freq in "
                                 "double, then {}(s), {}(c): one rounding",
                                 o.cuda_round, o.cuda_round)};
    if (entry == fmt::format("cpu/pow/f32>{}/torch", o.short_name))
      return Snippet{
          entry,
          torch_code(
              "torch.float32", o,
              fmt::format("float32 angles, as Hugging Face computes them, stored as {}", o.dtype)),
          "sincosf(float(pos) * inv_freq[k], &s, &c) with inv_freq in float32: the float32 "
          "angle's rounding grows with the position",
          SnippetKind::kFramework};
    if (entry == fmt::format("cpu/precise/f64>{}/hwy", o.short_name))
      return Snippet{entry, peverify_code(o),
                     fmt::format("read a cache built once (this table, or peverify's "
                                 "cuda/precise/f64>{}/accurate kernel on the device): no "
                                 "per-element sincos in the kernel is faithful",
                                 o.short_name),
                     SnippetKind::kPeverify};
  }
  return std::nullopt;
}

}  // namespace pev::reports::study
