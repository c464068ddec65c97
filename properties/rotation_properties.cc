#include "peverify/properties/rotation_properties.h"

#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "peverify/encoding/format.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/positioned.h"
#include "peverify/oracle/rotation.h"
#include "peverify/properties/generators.h"

namespace pev::properties {
namespace {

// The slack for evaluating each side in double (sums of a few hundred terms): far below any
// compute type's budget, far above double's own error.
constexpr double kDoubleSlack = 0x1p-48;

struct RotationCase {
  RotationSpec spec;
  int heads = 1;
};

RotationCase draw_case() {
  RotationCase c;
  const int d = *rc::gen::element(4, 8, 64, 128, 256);
  TableSpec t = grid_spec(d, *gen::base());
  const RopeType type = *rc::gen::element(RopeType::kDefault, RopeType::kLlama3, RopeType::kYarn);
  t.rope = *gen::recipe(type, d);
  c.spec = {t, d + *rc::gen::element(0, 0, 32),
            *rc::gen::element(PairConvention::kHalves, PairConvention::kInterleaved)};
  c.heads = *rc::gen::inRange(1, 3);
  return c;
}

// Values of q exactly representable in `t`: a signed integer of t's precision times 2^e.
std::vector<double> draw_values(size_t n, Dtype t) {
  const int bits = traits_of(t).precision;
  std::vector<double> x(n);
  for (double& v : x) {
    const int64_t m = *rc::gen::inRange<int64_t>(-(int64_t{1} << bits) + 1, int64_t{1} << bits);
    v = std::ldexp(static_cast<double>(m), *rc::gen::inRange(-12, 3) - bits);
  }
  return x;
}

// Positions for the case (the sequence length of recipes that need one comes from them all).
RowPositions with_positions(RotationCase& c, std::vector<uint64_t> ids) {
  RowPositions p;
  p.streams = {std::move(ids)};
  set_sequence_length(c.spec.table, p);
  return p;
}

std::vector<uint64_t> iota(uint64_t n) {
  std::vector<uint64_t> t(n);
  for (uint64_t i = 0; i < n; ++i) t[i] = i;
  return t;
}

// The kernel's output on every row of `p` and each element's allowance (0 on pass-through dims),
// from the exact A cos, A sin and the exact rotation.
struct Applied {
  std::vector<double> out, allowance, exact;
};
Applied apply_with_allowances(const RotationUnderTest& k, const RotationCase& c,
                              const RowPositions& p, const std::vector<double>& x) {
  const RotationSpec& s = c.spec;
  const uint64_t n = p.rows();
  const std::vector<uint64_t> tokens = iota(n);
  Applied r;
  r.out.assign(x.size(), 0.0);
  k.apply(s, p, tokens.data(), n, c.heads, x.data(), r.out.data());
  const oracle::RotationOracle exact(s, k.output, oracle::EngineKind::kFast);
  oracle::RotatedValues rotated;
  exact.rotate(p, tokens.data(), n, c.heads, x.data(), rotated);
  r.exact = rotated.exact;
  oracle::TileValues cs;
  oracle::evaluate_rows(*oracle::make_fast_engine(s.table, Dtype::kFloat64), s.table, p,
                        tokens.data(), n, cs);
  const measure::RotationBudget budget(s, k.compute, k.output);
  const int pairs = s.table.d_model / 2, hd = s.head_dim;
  r.allowance.assign(x.size(), 0.0);
  for (uint64_t i = 0; i < n; ++i)
    for (int h = 0; h < c.heads; ++h) {
      const uint64_t o = (i * c.heads + h) * hd;
      for (int j = 0; j < pairs; ++j) {
        const auto [a, b] = rotated_dims(s, j);
        const double cj = cs.cos_exact[i * pairs + j], sj = cs.sin_exact[i * pairs + j];
        const auto e = budget.cache_errors(p.of_pair(s.table, i, j), j, cj, sj);
        r.allowance[o + a] = budget.allowed(e, x[o + a], -x[o + b], cj, sj, r.exact[o + a]);
        r.allowance[o + b] = budget.allowed(e, x[o + b], x[o + a], cj, sj, r.exact[o + b]);
      }
    }
  return r;
}

uint64_t draw_position() { return *gen::position(uint64_t{1} << 22); }

// Rows 2i (queries) and 2i + 1 (keys) of one head: each score's error against the exact score and
// its allowance from the element budgets.
struct Scores {
  std::vector<double> error, allowed, scale;
};
Scores scores_of(const RotationCase& c, const Applied& y, const std::vector<double>& x) {
  const int hd = c.spec.head_dim;
  const double A = attention_factor(c.spec.table);
  Scores r;
  for (size_t qo = 0; qo + 2 * hd <= x.size(); qo += 2 * hd) {
    const size_t ko = qo + hd;
    double got = 0, want = 0, bound = 0, magnitude = 0, qq = 0, kk = 0;
    for (int i = 0; i < hd; ++i) {
      const double eq = y.allowance[qo + i], ek = y.allowance[ko + i];
      const double q = y.exact[qo + i], k = y.exact[ko + i];
      got += y.out[qo + i] * y.out[ko + i];
      want += q * k;
      bound += eq * (std::fabs(k) + ek) + std::fabs(q) * ek;
      magnitude += std::fabs(y.out[qo + i] * y.out[ko + i]) + std::fabs(q * k);
      qq += x[qo + i] * x[qo + i];
      kk += x[ko + i] * x[ko + i];
    }
    r.error.push_back(std::fabs(got - want));
    r.allowed.push_back(bound + kDoubleSlack * magnitude);
    r.scale.push_back(A * A * std::sqrt(qq * kk));
  }
  return r;
}

}  // namespace

void rotation_score_property(const RotationUnderTest& k) {
  RotationCase c = draw_case();
  c.heads = 1;
  const uint64_t m = draw_position(), n = draw_position();
  const RowPositions p = with_positions(c, {m, n});
  const std::vector<double> x = draw_values(2 * c.spec.head_dim, k.input);
  const Scores s = scores_of(c, apply_with_allowances(k, c, p, x), x);
  if (!(s.error[0] <= s.allowed[0]))
    RC_LOG() << "<K(" << m << ")q, K(" << n << ")k> is off by " << s.error[0] << ", allowed "
             << s.allowed[0] << "\n";
  RC_ASSERT(s.error[0] <= s.allowed[0]);
}

ScoreError score_error(const RotationUnderTest& k, const RotationSpec& spec, uint64_t context,
                       uint64_t samples, uint64_t seed) {
  RotationCase c{spec, 1};
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < samples; ++i) {
    // The first query at the context's last position: recipes that read the sequence length
    // (dynamic) see the whole context.
    ids.push_back(context - 1 - (i == 0 ? 0 : rng() % std::min<uint64_t>(64, context)));
    ids.push_back(rng() % context);
  }
  const RowPositions p = with_positions(c, ids);
  // Values exactly representable in the input type: a signed integer of its precision times 2^e
  // for |values| in about [2^-2, 2).
  const int bits = traits_of(k.input).precision;
  std::vector<double> x(2 * samples * spec.head_dim);
  for (double& v : x) {
    const int64_t m =
        static_cast<int64_t>(rng() % (uint64_t{1} << (bits + 1))) - (int64_t{1} << bits);
    v = std::ldexp(static_cast<double>(m), static_cast<int>(rng() % 3) - 1 - bits);
  }
  const Scores s = scores_of(c, apply_with_allowances(k, c, p, x), x);
  ScoreError r{context, samples};
  std::vector<double> relative;
  for (size_t i = 0; i < s.error.size(); ++i) {
    relative.push_back(s.scale[i] > 0 ? s.error[i] / s.scale[i] : 0);
    r.budget_ratio = std::max(r.budget_ratio, s.allowed[i] > 0 ? s.error[i] / s.allowed[i] : 0);
  }
  if (!relative.empty()) {
    std::sort(relative.begin(), relative.end());
    r.max = relative.back();
    r.median = relative[relative.size() / 2];
  }
  return r;
}

void rotation_norm_property(const RotationUnderTest& k) {
  RotationCase c = draw_case();
  const RowPositions p = with_positions(c, {draw_position(), draw_position()});
  const std::vector<double> x = draw_values(2 * c.heads * c.spec.head_dim, k.input);
  const Applied y = apply_with_allowances(k, c, p, x);
  const double A = attention_factor(c.spec.table);
  for (size_t o = 0; o < x.size(); o += c.spec.head_dim)
    for (int j = 0; j < c.spec.table.d_model / 2; ++j) {
      const auto [a, b] = rotated_dims(c.spec, j);
      const double got = std::hypot(y.out[o + a], y.out[o + b]);
      const double want = A * std::hypot(x[o + a], x[o + b]);
      const double tol = std::hypot(y.allowance[o + a], y.allowance[o + b]) + kDoubleSlack * want;
      if (!(std::fabs(got - want) <= tol))
        RC_LOG() << "pair " << j << " of row " << o / c.spec.head_dim << ": |out| " << got
                 << ", A |in| " << want << ", tolerance " << tol << "\n";
      RC_ASSERT(std::fabs(got - want) <= tol);
    }
}

void rotation_relative_position_property(const RotationUnderTest& k) {
  RotationCase c = draw_case();
  const uint64_t m = draw_position(), n = draw_position(), s = draw_position();
  // Rows: q at m, k at n, q at m + s, k at n + s.
  const RowPositions p = with_positions(c, {m, n, m + s, n + s});
  const size_t row = static_cast<size_t>(c.heads) * c.spec.head_dim;
  const std::vector<double> q = draw_values(row, k.input), kv = draw_values(row, k.input);
  std::vector<double> x;
  for (int r = 0; r < 2; ++r) {
    x.insert(x.end(), q.begin(), q.end());
    x.insert(x.end(), kv.begin(), kv.end());
  }
  const Applied y = apply_with_allowances(k, c, p, x);
  for (int h = 0; h < c.heads; ++h) {
    double dot[2] = {0, 0}, bound = 0, magnitude = 0;
    for (int side = 0; side < 2; ++side) {
      const size_t qo = (2 * side) * row + h * c.spec.head_dim, ko = qo + row;
      for (int i = 0; i < c.spec.head_dim; ++i) {
        const double qi = y.out[qo + i], ki = y.out[ko + i];
        const double eq = y.allowance[qo + i], ek = y.allowance[ko + i];
        dot[side] += qi * ki;
        bound += eq * std::fabs(ki) + (std::fabs(qi) + eq) * ek;
        magnitude += std::fabs(qi * ki);
      }
    }
    const double tol = bound + kDoubleSlack * magnitude;
    if (!(std::fabs(dot[0] - dot[1]) <= tol))
      RC_LOG() << "head " << h << ": <R(" << m << ")q, R(" << n << ")k> = " << dot[0]
               << ", shifted by " << s << ": " << dot[1] << ", tolerance " << tol << "\n";
    RC_ASSERT(std::fabs(dot[0] - dot[1]) <= tol);
  }
}

void rotation_inverse_property(const RotationUnderTest& k) {
  RotationCase c = draw_case();
  const RowPositions p = with_positions(c, {draw_position(), draw_position()});
  const std::vector<double> x = draw_values(2 * c.heads * c.spec.head_dim, k.input);
  const Applied y = apply_with_allowances(k, c, p, x);
  // R(m)^T v is R(m) applied with each pair's dims exchanged, then exchanged back.
  const auto swap_pairs = [&](std::vector<double> v) {
    for (size_t o = 0; o < v.size(); o += c.spec.head_dim)
      for (int j = 0; j < c.spec.table.d_model / 2; ++j) {
        const auto [a, b] = rotated_dims(c.spec, j);
        std::swap(v[o + a], v[o + b]);
      }
    return v;
  };
  const oracle::RotationOracle exact(c.spec, Dtype::kFloat64, oracle::EngineKind::kFast);
  oracle::RotatedValues back;
  const std::vector<uint64_t> tokens = iota(2);
  const std::vector<double> swapped = swap_pairs(y.out);
  exact.rotate(p, tokens.data(), 2, c.heads, swapped.data(), back);
  const std::vector<double> z = swap_pairs(back.exact);
  const double A = attention_factor(c.spec.table);
  for (size_t o = 0; o < x.size(); o += c.spec.head_dim) {
    for (int i = c.spec.table.d_model; i < c.spec.head_dim; ++i)
      RC_ASSERT(y.out[o + i] == x[o + i]);
    for (int j = 0; j < c.spec.table.d_model / 2; ++j) {
      const auto [a, b] = rotated_dims(c.spec, j);
      const double da = z[o + a] - A * A * x[o + a], db = z[o + b] - A * A * x[o + b];
      const double size = std::hypot(z[o + a], z[o + b]) + A * A * std::hypot(x[o + a], x[o + b]);
      const double tol =
          A * std::hypot(y.allowance[o + a], y.allowance[o + b]) + kDoubleSlack * size;
      if (!(std::hypot(da, db) <= tol))
        RC_LOG() << "pair " << j << " of row " << o / c.spec.head_dim << ": |R^T R x - A^2 x| "
                 << std::hypot(da, db) << ", tolerance " << tol << "\n";
      RC_ASSERT(std::hypot(da, db) <= tol);
    }
  }
}

void rotation_composition_property(const RotationUnderTest& k) {
  // The kernel's output is its input again: only where the output type holds no more than the
  // input type does (a float32 kernel reading bfloat16 q could not take its own output).
  RC_PRE(traits_of(k.output).precision <= traits_of(k.input).precision);
  RotationCase c = draw_case();
  const uint64_t a = draw_position(), b = draw_position();
  const std::vector<double> x = draw_values(c.heads * c.spec.head_dim, k.input);
  const Applied first = apply_with_allowances(k, c, with_positions(c, {b}), x);
  const Applied twice = apply_with_allowances(k, c, with_positions(c, {a}), first.out);
  const Applied once = apply_with_allowances(k, c, with_positions(c, {a + b}), x);
  // R(a) R(b) = A R(a + b): |K_a(K_b x) - A K_(a+b)(x)| per pair is within the second
  // application's budget, the first's error turned by R(a) (times A), and A times the single one's.
  const double A = attention_factor(c.spec.table);
  for (size_t o = 0; o < x.size(); o += c.spec.head_dim) {
    for (int i = c.spec.table.d_model; i < c.spec.head_dim; ++i)
      RC_ASSERT(twice.out[o + i] == x[o + i]);
    for (int j = 0; j < c.spec.table.d_model / 2; ++j) {
      const auto [u, v] = rotated_dims(c.spec, j);
      const double du = twice.out[o + u] - A * once.out[o + u];
      const double dv = twice.out[o + v] - A * once.out[o + v];
      const double size = std::hypot(twice.out[o + u], twice.out[o + v]) +
                          A * std::hypot(once.out[o + u], once.out[o + v]);
      const double tol = std::hypot(twice.allowance[o + u], twice.allowance[o + v]) +
                         A * std::hypot(first.allowance[o + u], first.allowance[o + v]) +
                         A * std::hypot(once.allowance[o + u], once.allowance[o + v]) +
                         kDoubleSlack * size;
      if (!(std::hypot(du, dv) <= tol))
        RC_LOG() << "pair " << j << ": |K(" << a << ") K(" << b << ") x - A K(" << a + b << ") x| "
                 << std::hypot(du, dv) << ", tolerance " << tol << "\n";
      RC_ASSERT(std::hypot(du, dv) <= tol);
    }
  }
}

bool check_rotation_properties(const RotationUnderTest& k) {
  bool ok = rc::check(k.name + ": norm per pair", [&] { rotation_norm_property(k); });
  ok &= rc::check(k.name + ": relative position", [&] { rotation_relative_position_property(k); });
  ok &= rc::check(k.name + ": R(m)^T R(m) = A^2 I", [&] { rotation_inverse_property(k); });
  ok &= rc::check(k.name + ": R(a) R(b) = A R(a + b)", [&] { rotation_composition_property(k); });
  ok &= rc::check(k.name + ": attention score", [&] { rotation_score_property(k); });
  return ok;
}

}  // namespace pev::properties
