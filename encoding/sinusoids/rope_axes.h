// RoPE over several position axes (docs/features.md §16.2), the axial form image and video
// transformers use (BFL Flux's EmbedND, diffusers' Flux2 / HunyuanVideo / Qwen-Image / Wan
// embeddings, EVA-02): axis i owns d_i of the head's dims with its own ladder theta^(-2j/d_i),
// j < d_i/2, the axes' blocks in order, each block in the table's layout (Flux: rope-cos-pairs).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/layout.h"
#include "peverify/encoding/sinusoids/table.h"

namespace pev {

struct RopeAxes {
  std::vector<int> dims;  // d_i, each even
  double base = 10000;    // theta
  std::string preset;     // or empty
};

struct RopeAxesPreset {
  std::string_view name;
  std::string_view models;
  std::string_view source;
  RopeAxes axes;
};
const std::vector<RopeAxesPreset>& rope_axes_presets();
// Their names, comma-separated: what help texts and messages list.
std::string rope_axes_preset_names();

// A preset's name or "d0,d1,...". `base`: --base where given (a preset's must agree with it).
// Throws ConfigError with one line.
RopeAxes parse_rope_axes(const std::string& text, std::optional<double> base);

// The table of the axes in `layout`: its width is the sum of each block's (ConfigError for a
// layout no block can take).
SinusoidTable rope_axes_table(const RopeAxes& axes, Layout layout);

// "flux: axes 16+56+56, theta 10000".
std::string describe(const RopeAxes& axes);

}  // namespace pev
