// Diffusion timestep embeddings (docs/features.md §16.1): row i embeds timestep t_i as
//   [sin | cos] (or [cos | sin]) of scale * tau_i * P^(-k/(h - s)), k < h = D/2,
// with a zero column after them when D is odd. tau_i is t_i as the model hands it to the table:
// rounded to `timestep_dtype`, then multiplied by `time_factor` in that type (Flux's
// `timestep.to(dtype) * 1000`). Names and defaults are diffusers' get_timestep_embedding
// (src/diffusers/models/embeddings.py), whose defaults are DDPM's table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/sinusoids/table.h"
#include "peverify/encoding/spec.h"

namespace pev {

struct TimestepRecipe {
  double max_period = 10000;     // P
  int downscale_freq_shift = 1;  // s: the exponent's denominator is h - s
  bool flip_sin_to_cos = false;  // false: [sin | cos]; true: [cos | sin]
  double scale = 1;              // multiplies t * f, after it is rounded (Qwen-Image: 1000)
  double time_factor = 1;        // multiplies t before the table, in timestep_dtype (Flux: 1000)
  Dtype timestep_dtype = Dtype::kFloat32;  // what t is rounded to first (float32: t.float())
  std::string preset;                      // the preset it started from, or empty
};

struct TimestepPreset {
  std::string_view name;
  std::string_view models;  // who builds this table
  std::string_view source;  // the file the recipe was read from
  TimestepRecipe recipe;
};
const std::vector<TimestepPreset>& timestep_presets();
// Their names, comma-separated: what help texts and messages list.
std::string timestep_preset_names();

// A preset's name, a JSON object (diffusers' names, "preset" plus overrides) or a path to a JSON
// file holding one. Throws ConfigError with one line naming the field for anything else.
TimestepRecipe parse_timestep_recipe(const std::string& text);

// The table of a recipe at `width` columns (ConfigError when it has none: width < 2, h - s < 1).
SinusoidTable timestep_table(const TimestepRecipe& r, int width);

// tau: t rounded to timestep_dtype and multiplied by time_factor in it, each step rounded once to
// nearest even; ConfigError when it leaves the type's range (t = 70 in float16 times 1000).
double timestep_argument(const TimestepRecipe& r, double t);

// Round to nearest, ties to even, of hi + lo (|lo| below half an ulp of hi in double) to `t`,
// with subnormals and overflow to an infinity: exact, with no double rounding. Declarations use it
// for the roundings a model makes before its table, and the oracle's rotation at real ids
// (oracle/sinusoid_rotation.cc) for values it knows exactly as hi + lo.
double round_to(double hi, double lo, Dtype t);

// "adm: [cos|sin], max_period 10000, downscale_freq_shift 0, timesteps in float32".
std::string describe(const TimestepRecipe& r);

}  // namespace pev
