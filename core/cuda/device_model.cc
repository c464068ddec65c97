#include "peverify/core/cuda/device_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "peverify/core/convert.h"
#include "peverify/core/cuda/direct_double.h"
#include "peverify/core/cuda/model_arith.h"
#include "peverify/core/cuda/shared_arith.h"
#include "peverify/core/precise/frequencies.h"
#include "peverify/core/recipe.h"
#include "peverify/core/row_writer.h"

namespace pev::core::cuda {

double DocumentedBounds::fast_sin_abs() { return std::exp2(-21.41); }
double DocumentedBounds::fast_cos_abs() { return std::exp2(-21.19); }
double DocumentedBounds::fast_log2_abs() { return 0x1p-22; }
double DocumentedBounds::fast_exp_ulps(double x) { return 2 + std::floor(std::fabs(1.173 * x)); }

float bound_edge(double y, double bound, int sign) {
  const double t = y + sign * bound;
  float f = static_cast<float>(t);
  if (sign > 0 && static_cast<double>(f) > t) f = std::nextafter(f, -INFINITY);
  if (sign < 0 && static_cast<double>(f) < t) f = std::nextafter(f, INFINITY);
  return f;
}

namespace {

using model::kPi;
using model::ModelArith;
using model::Push;
using model::RoundBF16;
using model::RoundF16;
using model::RoundF32;

// One row of the model as the device stores it: laid out, and rounded to nearest even to the
// output type (the device's cvt.rn; conversions_test.cc checks the two agree) by the RowWriter of
// the CPU strategies.
class ModelRow {
 public:
  ModelRow(const TableSpec& spec, Dtype output)
      : spec_(spec),
        output_(output),
        width_(table_width(spec)),
        floats_(spec, output, Conversion::kNearestEven),
        doubles_(spec, output, Conversion::kNearestEven),
        bytes_(static_cast<size_t>(width_) * element_size(output)),
        outside_(width_) {}
  template <class V>
  void set(const V* s, const V* c, const uint8_t* pair_outside) {
    if constexpr (std::is_same_v<V, float>)
      floats_.write(s, c, bytes_.data(), 0);
    else
      doubles_.write(s, c, bytes_.data(), 0);
    for (int k = 0; k < spec_.d_model / 2; ++k) {
      const Columns col = columns_of(spec_.layout, spec_.d_model / 2, k);
      for (int column : {col.sin0, col.sin1, col.cos0, col.cos1})
        if (column >= 0) outside_[column] = pair_outside[k];
    }
  }
  // The stored values, widened to double.
  void values(double* out) const {
    static const std::vector<float> kFromF16 = [] {  // every float16, widened once
      std::vector<float> t(1 << 16);
      for (uint32_t h = 0; h < t.size(); ++h) t[h] = f32_from_f16(static_cast<uint16_t>(h));
      return t;
    }();
    for (int i = 0; i < width_; ++i) {
      uint16_t h;
      float f;
      if (output_ == Dtype::kFloat32) {
        std::memcpy(&f, bytes_.data() + 4 * i, 4);
        out[i] = f;
      } else {
        std::memcpy(&h, bytes_.data() + 2 * i, 2);
        out[i] = output_ == Dtype::kFloat16 ? kFromF16[h] : f32_from_bf16(h);
      }
    }
  }
  bool outside(int column) const { return outside_[column]; }
  const char* bytes() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  int width() const { return width_; }

 private:
  TableSpec spec_;
  Dtype output_;
  int width_;
  RowWriter<float> floats_;
  RowWriter<double> doubles_;
  std::vector<char> bytes_;
  std::vector<uint8_t> outside_;
};

// Walks the model's rows; calls sink(row, const ModelRow&) for each.
template <class Sink>
class Walker {
 public:
  Walker(const Implementation& impl, const TableSpec& spec, uint64_t count, const double* exact,
         Sink& sink)
      : impl_(impl),
        spec_(spec),
        count_(count),
        exact_(exact),
        sink_(sink),
        half_(spec.d_model / 2),
        width_(table_width(spec)),
        row_(spec, impl.output),
        outside_(half_),
        recipe_(recipe_scalars(spec)) {}

  void run(const Perturbation& p) {
    if (impl_.strategy == Strategy::kPrecise) return precise();
    switch (impl_.compute) {
      case Dtype::kFloat16:
        return by_strategy(ModelArith<RoundF16>(impl_.backend, p.none), p);
      case Dtype::kBFloat16:
        return by_strategy(ModelArith<RoundBF16>(impl_.backend, p.none), p);
      default:
        return by_strategy(ModelArith<RoundF32>(impl_.backend, p.none), p);
    }
  }

 private:
  template <class A>
  void by_strategy(const A& a, const Perturbation& p) {
    if (impl_.strategy == Strategy::kPow || impl_.strategy == Strategy::kLogspace)
      direct(a, p);
    else
      rotation(a, p);
  }

  double step() const {
    return -std::log(strategy_base(spec_)) /
           static_cast<double>(frequency_exponent(spec_, 1).denominator);
  }

  // The kernels' store_scaled: A s and A c in the compute type.
  template <class A>
  void scale(const A& a, std::vector<float>& s, std::vector<float>& c) const {
    scale_values(a, recipe_, s.data(), s.size());
    scale_values(a, recipe_, c.data(), c.size());
  }

  template <class V>
  void emit(uint64_t row, const V* s, const V* c) {
    row_.set(s, c, outside_.data());
    sink_(row, row_);
  }

  // Pushes a sin or cos result away from its exact value, when known (the stored value is A
  // times it).
  Push away(uint64_t row, int column) const {
    Push push;
    if (exact_ && column >= 0) {
      push.away = true;
      push.from = exact_[row * width_ + column] / recipe_.attention;
    }
    return push;
  }

  template <class A>
  void direct(const A& a, const Perturbation& p) {
    const bool is_pow = impl_.strategy == Strategy::kPow;
    std::vector<float> f(half_), s(half_), c(half_);
    a.op = Push{p.frequency};
    for (int k = 0; k < half_; ++k) {
      const Exponent e = exponent_of(spec_.d_model, spec_.schedule, k);
      f[k] =
          is_pow ? pow_denominator(a, strategy_base(spec_), e) : logspace_frequency(a, step(), e);
      f[k] = recipe_frequency(a, recipe_, k, f[k], is_pow);
    }
    const bool divide = angle_divides(is_pow, recipe_);
    a.op = Push{p.angle};
    for (uint64_t r = 0; r < count_; ++r) {
      const float pos = a.from_position(spec_.start + r);
      for (int k = 0; k < half_; ++k) {
        const float angle = direct_angle(a, divide, pos, f[k]);
        const Columns col = columns_of(spec_.layout, half_, k);
        a.sin_push = away(r, col.sin0);
        a.cos_push = away(r, col.cos0);
        a.sincos(angle, s[k], c[k]);
        outside_[k] = a.fast() && std::fabs(angle) > kPi;
      }
      scale(a, s, c);
      emit(r, s.data(), c.data());
    }
  }

  template <class A>
  void rotation(const A& a, const Perturbation& p) {
    std::vector<float> w(half_), s1(half_), c1(half_), s(half_), c(half_), as, ac;
    std::vector<uint8_t> step_outside(half_);
    a.op = Push{p.frequency};
    a.sin_push = Push{p.step_sin};
    a.cos_push = Push{p.step_cos};
    for (int k = 0; k < half_; ++k) {
      w[k] = logspace_frequency(a, step(), exponent_of(spec_.d_model, spec_.schedule, k));
      w[k] = recipe_frequency(a, recipe_, k, w[k], false);
      a.sincos(w[k], s1[k], c1[k]);
      step_outside[k] = a.fast() && std::fabs(w[k]) > kPi;
    }
    a.sin_push = Push{p.anchor_sin};
    a.cos_push = Push{p.anchor_cos};
    const uint64_t interval =
        impl_.strategy == Strategy::kAnchored ? impl_.anchor_interval : uint64_t{0};
    const uint64_t end = spec_.start + count_;
    // The device's segments (kernels.cuh rotation_rows): from each anchor to the next.
    for (uint64_t anchor = interval ? spec_.start - spec_.start % interval : 0; anchor < end;
         anchor = interval ? anchor + interval : end) {
      const uint64_t stop = interval ? std::min(anchor + interval, end) : end;
      const float pos = a.from_position(anchor);
      for (int k = 0; k < half_; ++k) {
        const float angle = a.mul(pos, w[k]);
        a.sincos(angle, s[k], c[k]);
        outside_[k] = step_outside[k] || (a.fast() && std::fabs(angle) > kPi);
      }
      for (uint64_t q = anchor; q < stop; ++q) {
        if (q >= spec_.start) {
          as = s;
          ac = c;
          scale(a, as, ac);
          emit(q - spec_.start, as.data(), ac.data());
        }
        for (int k = 0; k < half_; ++k) rotate(a, s[k], c[k], s1[k], c1[k]);
      }
    }
  }

  // kernels_precise.cu: direct values times A (in __float128, rounded to double), in double.
  void precise() {
    const std::vector<precise::DoubleDouble> w = precise::double_double_frequencies(spec_);
    const double attention = precise::attention_in_double(spec_);
    std::vector<double> s(half_), c(half_);
    for (uint64_t r = 0; r < count_; ++r) {
      const double pos = double_of_position(spec_.start + r);
      for (int k = 0; k < half_; ++k) {
        precise_direct::direct_sincos(pos, w[k].hi, w[k].lo, s[k], c[k]);
        if (attention != 1) {
          s[k] = mul_rn(s[k], attention);
          c[k] = mul_rn(c[k], attention);
        }
      }
      emit(r, s.data(), c.data());
    }
  }

  const Implementation& impl_;
  const TableSpec& spec_;
  uint64_t count_;
  const double* exact_;
  Sink& sink_;
  int half_, width_;
  ModelRow row_;
  std::vector<uint8_t> outside_;  // per pair: an argument left the documented range
  RecipeScalars recipe_;          // points into spec_ (longrope)
};

template <class Sink>
void walk(const Implementation& impl, const TableSpec& spec, uint64_t count, const double* exact,
          const Perturbation& p, Sink& sink) {
  Walker<Sink>(impl, spec, count, exact, sink).run(p);
}

// ulp of the output type at x, clamped at its smallest subnormal (oracle/error_measure.h's
// definition; core may not include the oracle).
double ulp_out(double x, Dtype output) {
  const int precision = output == Dtype::kFloat16 ? 11 : output == Dtype::kBFloat16 ? 8 : 24;
  const int min_exponent = output == Dtype::kFloat16 ? -14 : -126;
  int e = min_exponent + 1;
  if (x != 0) std::frexp(std::fabs(x), &e);  // |x| in [2^(e-1), 2^e)
  return std::ldexp(1.0, std::max(e - 1, min_exponent) - (precision - 1));
}

}  // namespace

std::vector<Perturbation> perturbations(const Implementation& impl) {
  if (impl.strategy == Strategy::kPrecise) return {Perturbation{true}};
  const bool rotation =
      impl.strategy == Strategy::kRecurrence || impl.strategy == Strategy::kAnchored;
  const bool fast_division = impl.strategy == Strategy::kPow && impl.backend == Backend::kCudaFast;
  // The recurrence's only anchor is position 0, where sin and cos are exact (special values).
  const int bits = impl.strategy == Strategy::kRecurrence ? 3
                   : rotation                             ? 5
                   : fast_division                        ? 2
                                                          : 1;
  std::vector<Perturbation> out;
  for (int m = 0; m < (1 << bits); ++m) {
    const auto sign = [m](int bit) { return (m >> bit) & 1 ? -1 : +1; };
    Perturbation p;
    p.frequency = sign(0);
    if (rotation) {
      p.step_sin = sign(1);
      p.step_cos = sign(2);
      p.anchor_sin = sign(3);
      p.anchor_cos = sign(4);
    } else if (fast_division) {
      p.angle = sign(1);
    }
    out.push_back(p);
  }
  return out;
}

bool has_device_model(const Implementation& impl) { return impl.device == Device::kCuda; }

ModelledError modelled_error(const Implementation& impl, const TableSpec& spec, uint64_t count,
                             const std::vector<double>& exact) {
  ModelledError worst;
  const int width = table_width(spec);
  std::vector<double> ulp(exact.size());
  for (size_t i = 0; i < exact.size(); ++i) ulp[i] = ulp_out(exact[i], impl.output);
  std::vector<double> got(width);
  for (const Perturbation& p : perturbations(impl)) {
    uint64_t out_of_range = 0;
    auto sink = [&](uint64_t row, const ModelRow& m) {
      m.values(got.data());
      const size_t first = row * width;
      for (int column = 0; column < width; ++column) {
        const double x = exact[first + column];
        const double err = std::isnan(got[column]) ? INFINITY : std::fabs(got[column] - x);
        worst.assumed_max_abs = std::max(worst.assumed_max_abs, err);
        if (m.outside(column)) {
          ++out_of_range;
          continue;
        }
        worst.max_ulp = std::max(worst.max_ulp, err / ulp[first + column]);
        if (err > worst.max_abs) {
          worst.max_abs = err;
          worst.pos = spec.start + row;
          worst.column = column;
          worst.got = got[column];
          worst.exact = x;
        }
      }
    };
    walk(impl, spec, count, exact.data(), p, sink);
    worst.out_of_range = std::max(worst.out_of_range, out_of_range);
  }
  worst.elements = count * static_cast<uint64_t>(width);
  return worst;
}

bool fast_argument_out_of_range(const Implementation& impl, const TableSpec& spec, uint64_t count) {
  if (impl.backend != Backend::kCudaFast || count == 0) return false;
  // Arguments grow with the position: the last row (direct) or its anchor (anchored) has the
  // largest; the recurrence takes sin w, cos w and sin 0, cos 0 only, whatever the row.
  TableSpec last = spec;
  last.start = impl.strategy == Strategy::kRecurrence ? 0 : spec.start + count - 1;
  bool outside = false;
  auto sink = [&](uint64_t, const ModelRow& m) {
    for (int column = 0; column < m.width(); ++column) outside = outside || m.outside(column);
  };
  walk(impl, last, 1, nullptr, Perturbation{true}, sink);
  return outside;
}

ModelTable model_table(const Implementation& impl, const TableSpec& spec, uint64_t count,
                       const Perturbation& p, const double* exact) {
  ModelTable m;
  GeneratedTable& t = m.table;
  t.output = impl.output;
  t.rows = count;
  t.width = table_width(spec);
  const bool narrow = impl.output == Dtype::kFloat16 || impl.output == Dtype::kBFloat16;
  if (narrow)
    t.halves.resize(t.size());
  else
    t.floats.resize(t.size());
  m.out_of_range.resize(t.size());
  char* base =
      narrow ? reinterpret_cast<char*>(t.halves.data()) : reinterpret_cast<char*>(t.floats.data());
  auto sink = [&](uint64_t row, const ModelRow& r) {
    std::memcpy(base + row * r.size(), r.bytes(), r.size());
    for (int column = 0; column < t.width; ++column)
      m.out_of_range[row * t.width + column] = r.outside(column);
  };
  walk(impl, spec, count, exact, p, sink);
  return m;
}

}  // namespace pev::core::cuda
