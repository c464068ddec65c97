#include "peverify/encoding/sinusoids/timestep.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "peverify/encoding/config_json.h"
#include "peverify/encoding/format.h"
#include "peverify/encoding/model_config.h"

namespace pev {
namespace {

using config_json::json;

[[noreturn]] void fail(const std::string& message) { throw ConfigError(message); }

TimestepRecipe adm() {
  TimestepRecipe r;
  r.flip_sin_to_cos = true;
  r.downscale_freq_shift = 0;
  return r;
}
TimestepRecipe with(TimestepRecipe r, double scale, double time_factor, Dtype dtype) {
  r.scale = scale;
  r.time_factor = time_factor;
  r.timestep_dtype = dtype;
  return r;
}

// The largest finite value of a format.
double largest(Dtype t) {
  const FormatTraits f = traits_of(t);
  const int emax = t == Dtype::kFloat16 ? 15 : t == Dtype::kFloat64 ? 1023 : 127;
  return std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), emax);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(fmt::format("--timestep-recipe: '{}' is no preset, JSON object or readable file",
                     path.substr(0, 80)));
  constexpr std::streamsize kMax = 1 << 20;  // a recipe is a few lines
  std::string text(static_cast<size_t>(kMax) + 1, '\0');
  in.read(text.data(), kMax + 1);
  if (in.gcount() > kMax) fail(fmt::format("{} is larger than 1 MiB: not a timestep recipe", path));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

const TimestepPreset* find_preset(std::string_view name) {
  for (const TimestepPreset& p : timestep_presets())
    if (p.name == name) return &p;
  return nullptr;
}

TimestepRecipe read_object(const json& j) {
  static const std::vector<std::string> kKeys = {
      "preset", "max_period",  "downscale_freq_shift", "flip_sin_to_cos",
      "scale",  "time_factor", "timestep_dtype"};
  for (const auto& [key, value] : j.items())
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      fail(fmt::format("timestep recipe: unknown key '{}' (known: {})", key.substr(0, 40),
                       fmt::join(kKeys, ", ")));
  TimestepRecipe r;
  if (const json* p = config_json::find(j, "preset")) {
    if (!p->is_string())
      fail("timestep recipe: preset must be a name, got " + config_json::shown(*p));
    const TimestepPreset* preset = find_preset(p->get<std::string>());
    if (!preset)
      fail(fmt::format("timestep recipe: unknown preset {} (known: {})", config_json::shown(*p),
                       timestep_preset_names()));
    r = preset->recipe;
    r.preset = preset->name;
  }
  const std::string where = "timestep recipe: ";
  if (auto v = config_json::optional_number(j, "max_period", where)) r.max_period = *v;
  if (auto v = config_json::optional_number(j, "downscale_freq_shift", where)) {
    if (*v != std::floor(*v) || std::fabs(*v) > 1e6)
      fail(
          fmt::format("timestep recipe: downscale_freq_shift must be an integer (models use 0 or "
                      "1), got {}",
                      *v));
    r.downscale_freq_shift = static_cast<int>(*v);
  }
  if (config_json::find(j, "flip_sin_to_cos"))
    r.flip_sin_to_cos = config_json::bool_at(j, "flip_sin_to_cos", where);
  if (auto v = config_json::optional_number(j, "scale", where)) r.scale = *v;
  if (auto v = config_json::optional_number(j, "time_factor", where)) r.time_factor = *v;
  if (const json* d = config_json::find(j, "timestep_dtype")) {
    const auto dtype = d->is_string() ? parse_dtype(d->get<std::string>()) : std::nullopt;
    if (!dtype)
      fail("timestep recipe: timestep_dtype must be float64, float32, float16 or bfloat16, got " +
           config_json::shown(*d));
    r.timestep_dtype = *dtype;
  }
  if (!(std::isfinite(r.max_period) && r.max_period > 1))
    fail(fmt::format("timestep recipe: max_period must be a finite number > 1, got {}",
                     r.max_period));
  for (const auto& [name, v] : {std::pair{"scale", r.scale}, {"time_factor", r.time_factor}})
    if (!std::isfinite(v) || v == 0)
      fail(fmt::format("timestep recipe: {} must be a finite nonzero number, got {}", name, v));
  return r;
}

}  // namespace

std::string timestep_preset_names() {
  std::vector<std::string_view> names;
  for (const TimestepPreset& p : timestep_presets()) names.push_back(p.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

const std::vector<TimestepPreset>& timestep_presets() {
  static const std::vector<TimestepPreset> presets = {
      {"ddpm", "DDPM; diffusers' get_timestep_embedding defaults",
       "hojonathanho/diffusion diffusion_tf/nn.py get_timestep_embedding", TimestepRecipe{}},
      {"diffusers", "diffusers' get_timestep_embedding / Timesteps defaults (= ddpm)",
       "diffusers src/diffusers/models/embeddings.py get_timestep_embedding", TimestepRecipe{}},
      {"adm", "ADM, LDM, Stable Diffusion 1-2, SDXL, SD3, DiT, HunyuanVideo",
       "openai/guided-diffusion guided_diffusion/nn.py timestep_embedding", adm()},
      {"flux", "FLUX.1 (timestep and guidance inputs)",
       "black-forest-labs/flux src/flux/modules/layers.py timestep_embedding (time_factor 1000)",
       with(adm(), 1, 1000, Dtype::kFloat32)},
      {"wan", "Wan2.1 (the reference computes in float64)",
       "Wan-Video/Wan2.1 wan/modules/model.py sinusoidal_embedding_1d",
       with(adm(), 1, 1, Dtype::kFloat64)},
      {"qwen-image", "Qwen-Image",
       "diffusers transformer_qwenimage.py QwenTimestepProjEmbeddings (Timesteps(scale=1000))",
       with(adm(), 1000, 1, Dtype::kFloat32)},
  };
  return presets;
}

TimestepRecipe parse_timestep_recipe(const std::string& text) {
  if (const TimestepPreset* p = find_preset(text)) {
    TimestepRecipe r = p->recipe;
    r.preset = p->name;
    return r;
  }
  const size_t first = text.find_first_not_of(" \t\r\n");
  const bool inline_json = first != std::string::npos && text[first] == '{';
  if (!inline_json && text.find_first_of("/.") == std::string::npos)
    fail(fmt::format("--timestep-recipe: unknown preset '{}' (known: {}; or a JSON object or file)",
                     text.substr(0, 40), timestep_preset_names()));
  const json j = config_json::parse(inline_json ? text : read_file(text), "the timestep recipe");
  if (!j.is_object()) fail("the timestep recipe must be a JSON object");
  return read_object(j);
}

SinusoidTable timestep_table(const TimestepRecipe& r, int width) {
  if (width < 2)
    fail(fmt::format("a timestep embedding needs at least 2 columns, the table has {}", width));
  const int h = width / 2, s = r.downscale_freq_shift;
  if (h - s < 1)
    fail(
        fmt::format("downscale_freq_shift {} leaves no exponent denominator (h - s = {}) at width "
                    "{}",
                    s, h - s, width));
  SinusoidTable t;
  t.kind = "timestep embedding";
  t.scale = r.scale;
  for (int k = 0; k < h; ++k) t.frequencies.push_back({r.max_period, -k, h - s});
  const Wave first = r.flip_sin_to_cos ? Wave::kCos : Wave::kSin;
  const Wave second = r.flip_sin_to_cos ? Wave::kSin : Wave::kCos;
  for (int k = 0; k < h; ++k) t.columns.push_back({first, 0, k});
  for (int k = 0; k < h; ++k) t.columns.push_back({second, 0, k});
  if (width % 2) t.columns.push_back({Wave::kZero, 0, 0});  // diffusers' F.pad(emb, (0, 1))
  return t;
}

double round_to(double hi, double lo, Dtype t) {
  if (t == Dtype::kFloat64 || hi == 0 || !std::isfinite(hi)) return hi;
  const FormatTraits f = traits_of(t);
  const int q = std::max(std::ilogb(hi), f.min_exponent) - f.precision + 1;
  const double m = std::ldexp(hi, -q);  // exact: a power-of-two scaling of a normal double
  double r = std::nearbyint(m);         // the default rounding mode: to nearest, ties to even
  if (std::fabs(m - std::trunc(m)) == 0.5 && lo != 0)  // a tie in hi alone: lo decides
    r = (lo > 0) == (hi > 0) ? std::trunc(m) + std::copysign(1.0, m) : std::trunc(m);
  const double v = std::ldexp(r, q);
  return std::fabs(v) > largest(t) ? std::copysign(std::numeric_limits<double>::infinity(), v) : v;
}

double timestep_argument(const TimestepRecipe& r, double t) {
  double x = round_to(t, 0, r.timestep_dtype);
  if (r.time_factor != 1) {
    const double p = x * r.time_factor;
    x = round_to(p, std::fma(x, r.time_factor, -p), r.timestep_dtype);  // x f exactly: p + lo
  }
  if (!std::isfinite(x))
    fail(fmt::format("timestep {} times time_factor {} leaves {}'s range", t, r.time_factor,
                     name_of(r.timestep_dtype)));
  return x;
}

std::string describe(const TimestepRecipe& r) {
  std::string s = r.preset.empty() ? "" : r.preset + ": ";
  s += fmt::format("{}, max_period {:g}, downscale_freq_shift {}",
                   r.flip_sin_to_cos ? "[cos|sin]" : "[sin|cos]", r.max_period,
                   r.downscale_freq_shift);
  if (r.scale != 1) s += fmt::format(", scale {:g}", r.scale);
  if (r.time_factor != 1) s += fmt::format(", time_factor {:g}", r.time_factor);
  return s + fmt::format(", timesteps in {}", name_of(r.timestep_dtype));
}

}  // namespace pev
