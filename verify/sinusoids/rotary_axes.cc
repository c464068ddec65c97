// The pass of verify-rotary over several position axes: every row of head_dim values (one token's
// head) read once, each rotated pair's two outputs against u C - v S and v C + u S rounded once
// (C, S of the pair's axis position, computed once per distinct id), the dims beyond the axes
// against their input; then, on a failure, the declarations one field away on sampled tokens.
#include "peverify/verify/sinusoids/rotary_axes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <numeric>
#include <set>

#include "peverify/encoding/model_config.h"
#include "peverify/encoding/sinusoids/timestep.h"
#include "peverify/measure/error.h"
#include "peverify/oracle/sinusoid_rotation.h"
#include "peverify/support/parallel.h"
#include "peverify/verify/diagnosis.h"
#include "peverify/verify/sinusoids/exact_values.h"

namespace pev::verify::sinusoids {
namespace {

using Angle = oracle::SinusoidRotation::Angle;
constexpr uint64_t kBlockRows = 2048;

struct Tally {
  SinusoidProperty rotation{"rotation"}, pass{"pass-through"};
  double max_abs = 0, max_ulp = 0;
  std::set<uint64_t> failing_tokens;
  void add(SinusoidProperty& p, SinusoidFinding f) {
    failing_tokens.insert(f.row);
    record_failure(p, std::move(f));
  }
  void merge(Tally& o) {
    for (auto [mine, theirs] : {std::pair{&rotation, &o.rotation}, std::pair{&pass, &o.pass}}) {
      mine->judged += theirs->judged;
      mine->failed += theirs->failed;
      mine->holds = mine->failed == 0;
      for (SinusoidFinding& f : theirs->worst) keep_worst(*mine, std::move(f));
    }
    max_abs = std::max(max_abs, o.max_abs);
    max_ulp = std::max(max_ulp, o.max_ulp);
    failing_tokens.insert(o.failing_tokens.begin(), o.failing_tokens.end());
  }
};

// One declaration's exact rotation: the angles of every (axis, distinct id, pair of the axis).
class Pass {
 public:
  Pass(const AxesRotation& d, Dtype output, int threads)
      : d_(d),
        table_(rope_axes_table(d.axes, Layout::kRopeCos)),  // column k: pair k, its axis
        rotation_(table_, output),
        budget_(d.rotary.spec, d.rotary.compute, output),
        cache_claim_(Claim::model(d.rotary.compute.cache == Dtype::kFloat64 ? Dtype::kFloat64
                                                                            : Dtype::kFloat32)),
        claim_(d.rotary.claim),
        output_(output),
        pairs_(table_.width()),
        local_(static_cast<size_t>(pairs_)),
        axes_(static_cast<size_t>(table_.axes)) {
    for (int k = 0; k < pairs_; ++k) {
      Axis& a = axes_[static_cast<size_t>(table_.columns[static_cast<size_t>(k)].axis)];
      local_[static_cast<size_t>(k)] = static_cast<int>(a.pairs.size());
      a.pairs.push_back(k);
    }
    for (const SinusoidFrequency& f : table_.frequencies) w_.push_back(f.value());
    for (size_t i = 0; i < axes_.size(); ++i) {
      Axis& a = axes_[i];
      a.ids = sinusoids::distinct_positions(d.ids.axes[i]);
      const std::vector<double>& distinct = a.ids.values;
      a.angles.resize(distinct.size() * a.pairs.size());
      parallel_for(distinct.size(), threads, [&](uint64_t j) {
        for (size_t k = 0; k < a.pairs.size(); ++k)
          a.angles[j * a.pairs.size() + k] = rotation_.angle(distinct[j], a.pairs[k]);
      });
    }
  }

  // Judges file row `row` (x its input, y its output) into `t`.
  void judge(uint64_t row, const double* x, const double* y, Tally& t) const {
    const TensorGeometry& g = d_.rotary.geometry;
    const TensorGeometry::Place place = g.place(row);
    const uint64_t token = place.batch * g.seq + place.seq;
    const uint64_t id = d_.ids.rows() == g.seq ? place.seq : token;
    const auto finding = [&](int dim, double got, double exact, double error, double allowed,
                             std::string what) {
      std::vector<double> positions;
      for (const auto& axis : d_.ids.axes) positions.push_back(axis[id]);
      return SinusoidFinding{token,           dim,
                             positions,       got,
                             exact,           error,
                             allowed,         measure::floored_ulps(error, exact, output_),
                             std::move(what), static_cast<int64_t>(place.head)};
    };
    const RotationSpec& spec = d_.rotary.spec;
    for (int k = 0; k < pairs_; ++k) {
      const int axis = table_.columns[static_cast<size_t>(k)].axis;
      const Axis& a = axes_[static_cast<size_t>(axis)];
      const Angle& angle = a.angles[a.ids.index[id] * a.pairs.size() +
                                    static_cast<size_t>(local_[static_cast<size_t>(k)])];
      const auto [ia, ib] = rotated_dims(spec, k);
      const auto [oa, ob] = output_dims(spec, k);
      const double u = x[ia], v = x[ib];
      if (!std::isfinite(u) || !std::isfinite(v))
        throw ConfigError(fmt::format("the input's token {} head {} dim {} is not finite", token,
                                      place.head, std::isfinite(u) ? ib : ia));
      // The cache's errors under the model depend on the pair's angle alone, not on the output.
      measure::RotationBudget::CacheErrors cache{0, 0};
      if (claim_ == Claim::Kind::kModel) {
        const double magnitude =
            std::fabs(table_.scale * d_.ids.axes[static_cast<size_t>(axis)][id]) *
            w_[static_cast<size_t>(k)];
        cache = {cache_claim_.allowed(angle.c_hi, magnitude, 0, d_.rotary.compute.cache),
                 cache_claim_.allowed(angle.s_hi, magnitude, 0, d_.rotary.compute.cache)};
      }
      for (const auto& [dim, own, other, sign] :
           {std::tuple{oa, u, v, -1}, std::tuple{ob, v, u, 1}}) {
        const oracle::SinusoidRotation::Rotated r = rotation_.combine(angle, own, other, sign);
        const double got = y[dim];
        ++t.rotation.judged;
        const double error = std::isfinite(got) ? std::fabs(got - r.exact) : INFINITY;
        const double allowed =
            claim_ == Claim::Kind::kModel
                ? budget_.allowed(cache, own, other, angle.c_hi, sign * angle.s_hi, r.exact)
                : 0;
        const bool ok = measure::within_claim(claim_, got, r.exact, r.rounded, error, allowed,
                                              output_, angle.zero);
        if (std::isfinite(got)) {
          t.max_abs = std::max(t.max_abs, error);
          t.max_ulp = std::max(t.max_ulp, measure::floored_ulps(error, r.exact, output_));
        }
        if (!ok)
          t.add(t.rotation, finding(dim, got, r.exact, error, allowed,
                                    std::isfinite(got) ? "number" : "not finite"));
      }
    }
    for (int dim = 2 * pairs_; dim < spec.head_dim; ++dim) {  // passed through unchanged
      const double rounded = round_to(x[dim], 0, output_);
      ++t.pass.judged;
      if (!measure::same_encoding(y[dim], rounded))
        t.add(t.pass,
              finding(dim, y[dim], rounded, std::fabs(y[dim] - rounded), 0, "not the input"));
    }
  }

 private:
  struct Axis {
    sinusoids::DistinctPositions ids;  // the axis's ids, each once, and each id's place
    std::vector<int> pairs;            // the global pairs of this axis
    std::vector<Angle> angles;         // [distinct id][pair of the axis]
  };
  const AxesRotation& d_;
  SinusoidTable table_;
  oracle::SinusoidRotation rotation_;
  measure::RotationBudget budget_;
  Claim cache_claim_;
  Claim::Kind claim_;
  Dtype output_;
  int pairs_;
  std::vector<int> local_;
  std::vector<double> w_;  // each pair's frequency in double: the angle a model budget grows with
  std::vector<Axis> axes_;
};

// Judges `rows` (file rows, in blocks) of the tensors under `d`.
Tally run(const RotaryTensor& in, const RotaryTensor& out, const AxesRotation& d,
          const std::vector<uint64_t>* rows) {
  const Pass pass(d, out.dtype, d.rotary.threads);
  const TensorGeometry& g = d.rotary.geometry;
  const uint64_t n = rows ? rows->size() : g.rows();
  const uint64_t width = static_cast<uint64_t>(g.head_dim);
  Tally total;
  std::mutex m;
  parallel_for((n + kBlockRows - 1) / kBlockRows, d.rotary.threads, [&](uint64_t b) {
    const uint64_t first = b * kBlockRows, count = std::min(kBlockRows, n - first);
    std::vector<double> x(count * width), y(count * width);
    Tally t;
    if (rows) {
      for (uint64_t i = 0; i < count; ++i) {
        in.read((*rows)[first + i], 1, x.data() + i * width);
        out.read((*rows)[first + i], 1, y.data() + i * width);
      }
    } else {
      in.read(first, count, x.data());
      out.read(first, count, y.data());
    }
    for (uint64_t i = 0; i < count; ++i)
      pass.judge(rows ? (*rows)[first + i] : first + i, x.data() + i * width, y.data() + i * width,
                 t);
    std::lock_guard lock(m);
    total.merge(t);
  });
  return total;
}

}  // namespace

AxesRotation axes_rotation(const RopeAxes& axes, const VerifyRotaryOptions& rotary,
                           const Numbers& ids) {
  int sum = 0;
  for (const int d : axes.dims) sum += d;
  if (sum > rotary.geometry.head_dim)
    throw ConfigError(fmt::format("--rope-axes {} rotate {} dims; the head has {}",
                                  fmt::join(axes.dims, ","), sum, rotary.geometry.head_dim));
  const TensorGeometry& g = rotary.geometry;
  const uint64_t tokens = g.batch * g.seq;
  // The ids' layout as a table's (declarations.h): [axes, N] or [N, axes], N tokens or seq.
  const uint64_t n = ids.values.size() / std::max<size_t>(axes.dims.size(), 1);
  if (n != tokens && n != g.seq)
    throw ConfigError(
        fmt::format("{}: {} ids for {} axes; one per token ({}) or per sequence "
                    "index ({}) on each axis",
                    ids.name, ids.values.size(), axes.dims.size(), tokens, g.seq));
  const SinusoidDeclaration d =
      axes_declaration(axes, Layout::kRopeCos, ids, n, static_cast<uint64_t>(sum / 2));
  AxesRotation a{axes, rotary, d.positions, d.positions_text};
  a.rotary.spec.table = grid_spec(sum, axes.base);
  a.rotary.spec.table.layout = Layout::kRopeCosSin;
  if (auto err = validate(a.rotary.spec)) throw ConfigError(*err);
  return a;
}

namespace {

// The declarations one field away a multi-axis rotation's diagnosis tries: the ids' axes in
// another order, the other pairings, and each preset's theta; `named[i]` says `rotations[i]`.
struct AxesAlternatives {
  std::vector<diagnosis::Alternative> named;
  std::vector<AxesRotation> rotations;
};

AxesAlternatives rotation_alternatives(const AxesRotation& d) {
  AxesAlternatives out;
  const size_t n = d.axes.dims.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  while (n <= 4 && std::next_permutation(order.begin(), order.end())) {
    AxesRotation a = d;
    for (size_t i = 0; i < n; ++i) a.ids.axes[i] = d.ids.axes[order[i]];
    out.named.push_back(
        {"axes",
         fmt::format("the ids' axes in the order {} (timm#2541 swaps H and W)",
                     fmt::join(order, ", ")),
         {fmt::format("--positions with its axes in the order {}", fmt::join(order, ","))}});
    out.rotations.push_back(std::move(a));
  }
  for (Pairing& p : other_pairings(d.rotary.spec)) {
    AxesRotation a = d;
    a.rotary.spec.pairs = p.pairs;
    a.rotary.spec.output_pairs = p.output;
    out.named.push_back({"pairing",
                         fmt::format("pairs {} in, {} out", name_of(p.pairs), name_of(p.output)),
                         std::move(p.flags)});
    out.rotations.push_back(std::move(a));
  }
  for (const RopeAxesPreset& p : rope_axes_presets())
    if (p.axes.base != d.axes.base) {
      AxesRotation a = d;
      a.axes.base = p.axes.base;
      out.named.push_back({"base",
                           fmt::format("theta {} ({})", p.axes.base, p.name),
                           {fmt::format("--base {}", p.axes.base)}});
      out.rotations.push_back(std::move(a));
    }
  return out;
}

// The rows a failing verdict's diagnosis judges: every head of the failing tokens' rows, and 48
// spread over the tensor.
std::vector<uint64_t> diagnosis_rows(const SinusoidVerdict& v, const TensorGeometry& g) {
  std::set<uint64_t> rows;
  for (const SinusoidProperty& p : v.properties)
    for (const SinusoidFinding& f : p.worst)
      for (uint64_t h = 0; h < g.heads; ++h) rows.insert(g.row(f.row / g.seq, f.row % g.seq, h));
  for (uint64_t i = 0; i < 48 && i < g.rows(); ++i)
    rows.insert(i * g.rows() / std::min<uint64_t>(48, g.rows()));
  return {rows.begin(), rows.end()};
}

Diagnosis diagnose_axes(const RotaryTensor& in, const RotaryTensor& out, const AxesRotation& d,
                        const SinusoidVerdict& v) {
  const std::vector<uint64_t> sample = diagnosis_rows(v, d.rotary.geometry);
  const auto failing = [&](const AxesRotation& alt) {
    const Tally s = run(in, out, alt, &sample);
    return s.rotation.failed + s.pass.failed;
  };
  const AxesAlternatives alternatives = rotation_alternatives(d);
  try {
    const uint64_t as_declared = failing(d);
    return diagnosis::choose(
        alternatives.named, std::max<uint64_t>(as_declared, 1),
        [&](size_t i, uint64_t) {
          return std::optional<uint64_t>(failing(alternatives.rotations[i]));
        },
        fmt::format("in {} sampled rows", sample.size()),
        [&](std::string why) {
          Diagnosis dg;
          dg.cause = diagnosis::documented("isolated");
          dg.detail = std::move(why);
          return dg;
        });
  } catch (const std::exception& e) {
    return Diagnosis{"none", e.what(), {}, 0, 0};
  }
}

// The verdict's header: what was judged, under which declaration and claim.
SinusoidVerdict described(const RotaryTensor& in, const RotaryTensor& out, const AxesRotation& d) {
  const RotationSpec& spec = d.rotary.spec;
  SinusoidVerdict v;
  v.table = in.name + " -> " + out.name;
  v.description = in.description + " -> " + out.description;
  v.kind = "multi-axis rotation";
  v.declaration =
      fmt::format("{}, pairs {} in, {} out, {} heads of {} dims, compute {}", describe(d.axes),
                  name_of(spec.pairs), name_of(output_convention(spec)), d.rotary.geometry.heads,
                  d.rotary.geometry.head_dim, d.rotary.compute.name);
  v.positions = d.ids_text;
  v.dtype = out.dtype;
  v.claim = d.rotary.claim == Claim::Kind::kModel    ? Claim::model(d.rotary.compute.products)
            : d.rotary.claim == Claim::Kind::kStrict ? Claim::strict()
                                                     : Claim::faithful();
  return v;
}

}  // namespace

SinusoidVerdict verify_rotary_axes(const RotaryTensor& in, const RotaryTensor& out,
                                   const AxesRotation& d) {
  const auto t0 = std::chrono::steady_clock::now();
  SinusoidVerdict v = described(in, out, d);
  Tally t = run(in, out, d, nullptr);
  v.elements = t.rotation.judged + t.pass.judged;
  v.max_abs_error = t.max_abs;
  v.max_ulp = t.max_ulp;
  t.rotation.note = fmt::format(
      "max abs error {:.3g}, max {:.3g} ulp; {} of {} rotated elements outside the budget "
      "({}){}",
      t.max_abs, t.max_ulp, t.rotation.failed, t.rotation.judged,
      d.rotary.claim == Claim::Kind::kModel ? "model of a " + d.rotary.compute.describe()
                                            : v.claim.describe(),
      t.failing_tokens.empty() ? std::string()
                               : fmt::format(", in {} tokens", t.failing_tokens.size()));
  v.properties.push_back(t.rotation);
  if (t.pass.judged) {
    t.pass.note = fmt::format("{} of {} dims beyond the axes differ from their input",
                              t.pass.failed, t.pass.judged);
    v.properties.push_back(t.pass);
  }
  if (!v.holds()) v.diagnosis = diagnose_axes(in, out, d, v);
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return v;
}

}  // namespace pev::verify::sinusoids
