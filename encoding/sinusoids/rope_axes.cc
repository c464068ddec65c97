#include "peverify/encoding/sinusoids/rope_axes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>

#include "peverify/encoding/model_config.h"

namespace pev {
namespace {

[[noreturn]] void fail(const std::string& message) { throw ConfigError(message); }

// "16,56,56": each a positive even count of dims.
std::vector<int> parse_dims(const std::string& text) {
  std::vector<int> dims;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t end = std::min(text.find(',', at), text.size());
    int d = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + at, text.data() + end, d);
    if (ec != std::errc{} || ptr != text.data() + end || end == at)
      fail(fmt::format("--rope-axes: '{}' is no preset ({}) and no list of dims like 16,56,56",
                       text.substr(0, 40), rope_axes_preset_names()));
    if (d < 2 || d % 2 || d > 1 << 20)
      fail(fmt::format("--rope-axes: each axis needs an even number of dims >= 2, got {}", d));
    dims.push_back(d);
    at = end + 1;
  }
  if (dims.size() > 16) fail(fmt::format("--rope-axes: {} axes; at most 16", dims.size()));
  return dims;
}

}  // namespace

std::string rope_axes_preset_names() {
  std::vector<std::string_view> names;
  for (const RopeAxesPreset& p : rope_axes_presets()) names.push_back(p.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

const std::vector<RopeAxesPreset>& rope_axes_presets() {
  static const std::vector<RopeAxesPreset> presets = {
      {"flux",
       "FLUX.1: ids (0, row, col), text tokens 0",
       "black-forest-labs/flux src/flux/math.py rope, modules/layers.py EmbedND",
       {{16, 56, 56}, 10000, "flux"}},
      {"flux2",
       "FLUX.2: four axes",
       "diffusers transformer_flux2.py Flux2PosEmbed (axes_dims_rope 32,32,32,32, theta 2000)",
       {{32, 32, 32, 32}, 2000, "flux2"}},
      {"hunyuan-video",
       "HunyuanVideo: (frame, row, col)",
       "diffusers transformer_hunyuan_video.py HunyuanVideoRotaryPosEmbed (theta 256)",
       {{16, 56, 56}, 256, "hunyuan-video"}},
      {"qwen-image",
       "Qwen-Image: (frame, row, col), centred grids negative",
       "diffusers transformer_qwenimage.py QwenEmbedRope (axes_dim 16,56,56, scale_rope)",
       {{16, 56, 56}, 10000, "qwen-image"}},
  };
  return presets;
}

RopeAxes parse_rope_axes(const std::string& text, std::optional<double> base) {
  RopeAxes axes;
  bool preset = false;
  for (const RopeAxesPreset& p : rope_axes_presets())
    if (p.name == text) axes = p.axes, preset = true;
  if (!preset) axes.dims = parse_dims(text);
  if (base) {
    if (preset && *base != axes.base)
      fail(fmt::format("--base {:g} disagrees with --rope-axes {}'s theta {:g}", *base, text,
                       axes.base));
    axes.base = *base;
  }
  if (!(std::isfinite(axes.base) && axes.base > 1))
    fail(fmt::format("--base must be a finite number > 1, got {:g}", axes.base));
  return axes;
}

SinusoidTable rope_axes_table(const RopeAxes& axes, Layout layout) {
  SinusoidTable t;
  t.kind = "multi-axis RoPE";
  t.axes = static_cast<int>(axes.dims.size());
  for (int a = 0; a < t.axes; ++a) {
    const int d = axes.dims[static_cast<size_t>(a)], half = d / 2;
    const int first = static_cast<int>(t.frequencies.size());
    for (int j = 0; j < half; ++j) t.frequencies.push_back({axes.base, -2 * j, d});
    for (int c = 0; c < layout_width(layout, d); ++c) {
      const Column col = pair_of_column(layout, half, c);
      t.columns.push_back({col.is_sin ? Wave::kSin : Wave::kCos, a, first + col.pair});
    }
  }
  return t;
}

std::string describe(const RopeAxes& axes) {
  return fmt::format("{}axes {}, theta {:g}", axes.preset.empty() ? "" : axes.preset + ": ",
                     fmt::join(axes.dims, "+"), axes.base);
}

}  // namespace pev
