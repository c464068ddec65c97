#include "peverify/verify/sinusoids/declarations.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "peverify/encoding/model_config.h"

namespace pev::verify::sinusoids {
namespace {

[[noreturn]] void fail(const std::string& message) { throw ConfigError(message); }

std::vector<uint64_t> without_ones(const std::vector<uint64_t>& shape) {
  std::vector<uint64_t> s;
  for (const uint64_t d : shape)
    if (d != 1) s.push_back(d);
  return s;
}

std::string shape_text(const std::vector<uint64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

std::string range_text(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return fmt::format("{:.9g} .. {:.9g}", *lo, *hi);
}

// The fields in which `r` differs from `base`, as JSON members ("\"scale\": 1000").
std::vector<std::string> differing(const TimestepRecipe& r, const TimestepRecipe& base) {
  std::vector<std::string> f;
  if (r.max_period != base.max_period) f.push_back(fmt::format("\"max_period\": {}", r.max_period));
  if (r.downscale_freq_shift != base.downscale_freq_shift)
    f.push_back(fmt::format("\"downscale_freq_shift\": {}", r.downscale_freq_shift));
  if (r.flip_sin_to_cos != base.flip_sin_to_cos)
    f.push_back(fmt::format("\"flip_sin_to_cos\": {}", r.flip_sin_to_cos));
  if (r.scale != base.scale) f.push_back(fmt::format("\"scale\": {}", r.scale));
  if (r.time_factor != base.time_factor)
    f.push_back(fmt::format("\"time_factor\": {}", r.time_factor));
  if (r.timestep_dtype != base.timestep_dtype)
    f.push_back(fmt::format("\"timestep_dtype\": \"{}\"", name_of(r.timestep_dtype)));
  return f;
}

// The flag that states a recipe: a preset's name where one is exactly it, else the preset it
// differs least from (the one it started from on a tie) with the fields that differ.
std::string recipe_flag(const TimestepRecipe& r) {
  const TimestepPreset* nearest = nullptr;
  std::vector<std::string> fields;
  for (const TimestepPreset& p : timestep_presets()) {
    std::vector<std::string> f = differing(r, p.recipe);
    const bool closer =
        !nearest || f.size() < fields.size() || (f.size() == fields.size() && p.name == r.preset);
    if (closer) nearest = &p, fields = std::move(f);
  }
  if (fields.empty()) return fmt::format("--timestep-recipe {}", nearest->name);
  return fmt::format("--timestep-recipe '{{\"preset\": \"{}\", {}}}'", nearest->name,
                     fmt::join(fields, ", "));
}

// Widths no model comes near (Flux's timestep embedding is 256 wide, a video head 128): beyond,
// the oracle's frequencies and the diagnosis's declarations would cost out of proportion.
constexpr int kMaxWidth = 1 << 16;

// Every angle scale x w the oracle can evaluate: |scale x| up to 2^53 (the positions any part of
// peverify takes), and a nonzero one at least 2^-1000 at the smallest frequency (below, cos is 1
// and sin is the angle in every format, but no precision ladder can prove it).
void check_angles(const SinusoidTable& t, const AxisPositions& p, const std::string& name) {
  double smallest = 1;
  for (const SinusoidFrequency& f : t.frequencies) smallest = std::min(smallest, f.value());
  for (size_t a = 0; a < p.axes.size(); ++a)
    for (uint64_t r = 0; r < p.axes[a].size(); ++r) {
      const double y = std::fabs(t.scale * p.axes[a][r]);
      if (!(y <= 0x1p53) || (y != 0 && y * smallest < 0x1p-1000))
        fail(
            fmt::format("{}: row {}'s position {} times scale {} makes an angle out of range "
                        "(|scale x| up to 2^53, and a nonzero angle at least 2^-1000)",
                        name, r, p.axes[a][r], t.scale));
    }
}

SinusoidAlternative timestep_alternative(const TimestepRecipe& r, int width, const Numbers& t,
                                         uint64_t rows, std::string cause, std::string detail) {
  return {std::move(cause), std::move(detail), timestep_declaration(r, width, t, rows)};
}

}  // namespace

SinusoidDeclaration timestep_declaration(const TimestepRecipe& r, int width, const Numbers& t,
                                         uint64_t rows) {
  const std::vector<uint64_t> shape = without_ones(t.shape);
  if (shape.size() > 1 || t.values.size() != rows)
    fail(fmt::format("{}: {} timesteps of shape {} for a table of {} rows: one per row, shape [N]",
                     t.name, t.values.size(), shape_text(t.shape), rows));
  if (width > kMaxWidth)
    fail(fmt::format("a timestep embedding of {} columns: at most {}", width, kMaxWidth));
  SinusoidDeclaration d;
  d.table = timestep_table(r, width);
  d.positions.axes.assign(1, {});
  for (const double x : t.values) d.positions.axes[0].push_back(timestep_argument(r, x));
  check_angles(d.table, d.positions, t.name);
  d.what = "timestep recipe " + describe(r);
  d.positions_text =
      fmt::format("{}: {} timesteps ({}), {}", t.name, rows, t.type, range_text(t.values));
  d.flags = {recipe_flag(r)};
  return d;
}

std::vector<SinusoidAlternative> timestep_alternatives(const TimestepRecipe& r, int width,
                                                       const Numbers& t, uint64_t rows) {
  std::vector<SinusoidAlternative> out;
  const auto add = [&](TimestepRecipe alt, std::string cause, std::string detail) {
    try {  // a field that leaves the recipe no table (h - s < 1) is no alternative
      out.push_back(timestep_alternative(alt, width, t, rows, std::move(cause), std::move(detail)));
    } catch (const ConfigError&) {
    }
  };
  TimestepRecipe a = r;
  a.flip_sin_to_cos = !r.flip_sin_to_cos;
  add(a, "layout",
      fmt::format("{} where {} was declared (flip_sin_to_cos {}; flashinfer#3819 built Wan's the "
                  "other way)",
                  a.flip_sin_to_cos ? "[cos|sin]" : "[sin|cos]",
                  r.flip_sin_to_cos ? "[cos|sin]" : "[sin|cos]", a.flip_sin_to_cos));
  a = r;
  a.downscale_freq_shift = r.downscale_freq_shift == 1 ? 0 : 1;
  add(a, "recipe",
      fmt::format("downscale_freq_shift {}, not {} (kohya-ss/sd-scripts#1187: SDXL trained with 1 "
                  "where its config says 0)",
                  a.downscale_freq_shift, r.downscale_freq_shift));
  for (const Dtype dt : {Dtype::kBFloat16, Dtype::kFloat16, Dtype::kFloat32})
    if (dt != r.timestep_dtype) {
      a = r;
      a.timestep_dtype = dt;
      add(a, "positions",
          fmt::format(
              "the timesteps reach the table rounded to {}{} (diffusers#9405)", name_of(dt),
              r.time_factor != 1 ? fmt::format(" and times {:g} in it", r.time_factor) : ""));
    }
  for (const auto& [field, value] :
       {std::pair{"time_factor", r.time_factor}, std::pair{"scale", r.scale}}) {
    a = r;
    double& f = std::string_view(field) == "time_factor" ? a.time_factor : a.scale;
    f = value == 1 ? 1000 : 1;
    add(a, "positions", fmt::format("{} {:g}, not {:g}", field, f, value));
  }
  for (const TimestepPreset& p : timestep_presets())
    if (!differing(p.recipe, r).empty())
      add(p.recipe, "recipe", fmt::format("the {} recipe ({})", p.name, p.models));
  return out;
}

SinusoidDeclaration axes_declaration(const RopeAxes& a, Layout layout, const Numbers& ids,
                                     uint64_t rows, uint64_t width) {
  int64_t columns = 0;
  for (const int d : a.dims) columns += layout_width(layout, d);
  if (static_cast<uint64_t>(columns) != width)
    fail(fmt::format("--rope-axes {} makes {} columns in layout {}, the table has {}",
                     fmt::join(a.dims, ","), columns, name_of(layout), width));
  if (columns > kMaxWidth) fail(fmt::format("{} columns: at most {}", columns, kMaxWidth));
  SinusoidDeclaration d;
  d.table = rope_axes_table(a, layout);
  const uint64_t n_axes = a.dims.size();
  const std::vector<uint64_t> shape = without_ones(ids.shape);
  const bool axes_first = shape.size() == 2 && shape[0] == n_axes && shape[1] == rows;
  const bool rows_first = shape.size() == 2 && shape[0] == rows && shape[1] == n_axes;
  const bool one_row = rows == 1 && shape.size() == 1 && shape[0] == n_axes;
  const bool one_axis = n_axes == 1 && shape.size() <= 1 && ids.values.size() == rows;
  if (!(axes_first || rows_first || one_row || one_axis))
    fail(fmt::format("{}: ids of shape {} for {} axes and {} rows: expected [{}, {}] (or [{}, {}])",
                     ids.name, shape_text(ids.shape), n_axes, rows, n_axes, rows, rows, n_axes));
  d.positions.axes.assign(n_axes, std::vector<double>(rows));
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t i = 0; i < n_axes; ++i)
      d.positions.axes[i][r] = ids.values[axes_first || one_axis ? i * rows + r : r * n_axes + i];
  check_angles(d.table, d.positions, ids.name);
  d.what = describe(a) + ", blocks in layout " + std::string(name_of(layout));
  std::vector<std::string> ranges;
  for (const auto& axis : d.positions.axes) ranges.push_back(range_text(axis));
  d.positions_text = fmt::format("{}: {} rows x {} axes ({}), ids {}", ids.name, rows, n_axes,
                                 ids.type, fmt::join(ranges, "; "));
  d.flags = {fmt::format("--rope-axes {}",
                         a.preset.empty() ? fmt::format("{}", fmt::join(a.dims, ",")) : a.preset),
             fmt::format("--base {}", a.base), fmt::format("--layout {}", name_of(layout))};
  return d;
}

std::vector<SinusoidAlternative> axes_alternatives(const RopeAxes& a, Layout layout,
                                                   const SinusoidDeclaration& declared) {
  std::vector<SinusoidAlternative> out;
  const size_t n = a.dims.size();
  // The ids in another order: H and W swapped (timm#2541), or any other permutation.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  while (n <= 4 && std::next_permutation(order.begin(), order.end())) {
    SinusoidDeclaration d = declared;
    for (size_t i = 0; i < n; ++i) d.positions.axes[i] = declared.positions.axes[order[i]];
    std::vector<size_t> moved;
    for (size_t i = 0; i < n; ++i)
      if (order[i] != i) moved.push_back(i);
    d.flags = {fmt::format("--positions with its axes in the order {}", fmt::join(order, ","))};
    out.push_back({"axes",
                   moved.size() == 2
                       ? fmt::format("axes {} and {}'s ids swapped (timm#2541: H and W swapped "
                                     "on non-square grids)",
                                     moved[0], moved[1])
                       : fmt::format("the ids' axes in the order {}", fmt::join(order, ", ")),
                   std::move(d)});
  }
  // Square ids ([N, N] with N axes) are read as [axes, N]; the data may be Flux's [N, axes].
  if (declared.positions.rows() == n) {
    SinusoidDeclaration d = declared;
    for (size_t i = 0; i < n; ++i)
      for (size_t r = 0; r < n; ++r) d.positions.axes[i][r] = declared.positions.axes[r][i];
    d.flags = {"--positions transposed (saved as [N, axes])"};
    out.push_back({"axes", "the ids read as [N, axes], not [axes, N]", std::move(d)});
  }
  // One axis's block built from another's ids (ncnn#6834 reused one block's values for another).
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j && a.dims[i] == a.dims[j]) {
        SinusoidDeclaration d = declared;
        d.positions.axes[i] = declared.positions.axes[j];
        d.flags.clear();  // no declaration states it: a bug to fix
        out.push_back({"axes",
                       fmt::format("axis {}'s block holds axis {}'s values (ncnn#6834)", i, j),
                       std::move(d)});
      }
  const auto other_layout = [&](Layout l, std::string detail) {
    try {
      SinusoidDeclaration d = declared;
      d.table = rope_axes_table(a, l);
      d.flags = {fmt::format("--layout {}", name_of(l))};
      out.push_back({"layout", std::move(detail), std::move(d)});
    } catch (const ConfigError&) {
    }
  };
  for (const Layout l : kAllLayouts)
    if (l != layout && layout_width(l, 2) == layout_width(layout, 2))
      other_layout(l, fmt::format("each block in layout {}", name_of(l)));
  for (const RopeAxesPreset& p : rope_axes_presets())
    if (p.axes.base != a.base) {
      RopeAxes b = a;
      b.base = p.axes.base;
      SinusoidDeclaration d = declared;
      d.table = rope_axes_table(b, layout);
      d.flags = {fmt::format("--base {}", b.base)};
      if (std::none_of(out.begin(), out.end(),
                       [&](const auto& x) { return x.declaration.flags == d.flags; }))
        out.push_back({"base", fmt::format("theta {:g} ({})", b.base, p.name), std::move(d)});
    }
  return out;
}

}  // namespace pev::verify::sinusoids
