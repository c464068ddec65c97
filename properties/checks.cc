#include "properties/checks.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "encoding/format.h"
#include "oracle/engine.h"
#include "oracle/error_measure.h"
#include "oracle/table.h"

namespace pev::properties {
namespace {

double frequency(const TableSpec& spec, int pair) {
  const FrequencyExponent e = frequency_exponent(spec, pair);
  return std::pow(spec.base, static_cast<double>(e.numerator) / static_cast<double>(e.denominator));
}

// The first column holding sin and cos of each pair (-1 where the layout has none).
struct PairColumns {
  int sin = -1, cos = -1;
};
std::vector<PairColumns> pair_columns(const TableSpec& spec) {
  std::vector<PairColumns> p(spec.d_model / 2);
  for (int c = table_width(spec) - 1; c >= 0; --c) {
    const Column col = column_at(spec, c);
    (col.is_sin ? p[col.pair].sin : p[col.pair].cos) = c;
  }
  return p;
}

// Keeps the worst findings by error / allowed.
void keep_worst(std::vector<Finding>& worst, const Finding& f) {
  const auto ratio = [](const Finding& x) {
    return x.allowed > 0 ? x.error / x.allowed : (x.error > 0 ? INFINITY : 0.0);
  };
  const double r = std::isnan(f.error) ? INFINITY : ratio(f);
  if (worst.size() == Verdict::kMaxFindings && r <= ratio(worst.back())) return;
  auto it =
      std::find_if(worst.begin(), worst.end(), [&](const Finding& x) { return ratio(x) < r; });
  worst.insert(it, f);
  if (worst.size() > Verdict::kMaxFindings) worst.pop_back();
}

std::string fmt(const char* format, double a, double b = 0, double c = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, format, a, b, c);
  return buf;
}

// The budget of a value known only through the implementation's output: the exact value may sit
// one output ulp away, in a binade with a larger ulp, so take the budget there.
double allowed_near(const Budget& b, double got, double angle, double steps, Dtype output) {
  const double a = std::fabs(got);
  return b.allowed(std::min(1.0, a + ulp_of(a, output)), angle, steps, output);
}

std::vector<double> frequencies(const TableSpec& spec) {
  std::vector<double> w(spec.d_model / 2);
  for (int k = 0; k < spec.d_model / 2; ++k) w[k] = frequency(spec, k);
  return w;
}

// Hands the rows to `body` a few thousand at a time, so that a table of 131072 x 4096 is never
// copied whole: body(first row index, rows, number of rows).
template <typename Body>
void for_each_chunk(const UnderTest& ut, const TableSpec& spec, uint64_t count, Body body) {
  const uint64_t chunk = std::max<uint64_t>(1, (uint64_t{1} << 22) / table_width(spec));
  for (uint64_t first = 0; first < count; first += chunk) {
    const uint64_t n = std::min(chunk, count - first);
    TableSpec part = spec;
    part.start = spec.start + first;
    body(first, ut.rows(part, n), n);
  }
}

}  // namespace

Verdict check_bounded(const UnderTest& ut, const TableSpec& spec, uint64_t count) {
  Verdict v;
  v.property = "bounded";
  const int width = table_width(spec);
  const std::vector<PairColumns> cols = pair_columns(spec);
  const std::vector<double> w = frequencies(spec);
  const Budget budget = ut.budget();
  double worst_identity = 0;
  uint64_t bad = 0;
  for_each_chunk(ut, spec, count, [&](uint64_t first, const std::vector<double>& t, uint64_t n) {
    for (uint64_t r = 0; r < n; ++r) {
      const uint64_t pos = spec.start + first + r;
      const double* row = t.data() + r * width;
      for (int c = 0; c < width; ++c) {
        ++v.checked;
        if (!std::isfinite(row[c]) || std::fabs(row[c]) > 1) {
          ++bad;
          keep_worst(v.worst, {pos, c, row[c], std::clamp(row[c], -1.0, 1.0),
                               std::isnan(row[c]) ? NAN : std::fabs(row[c]) - 1, 0, 0,
                               std::isfinite(row[c]) ? "out of [-1, 1]" : "not finite"});
        }
      }
      for (int k = 0; k < static_cast<int>(cols.size()); ++k) {
        if (cols[k].sin < 0 || cols[k].cos < 0) continue;
        const double s = row[cols[k].sin], co = row[cols[k].cos];
        if (!std::isfinite(s) || !std::isfinite(co)) continue;
        const double a = static_cast<double>(pos) * w[k];
        const double steps = static_cast<double>(ut.steps_since_direct(pos));
        const double es = allowed_near(budget, s, a, steps, ut.output());
        const double ec = allowed_near(budget, co, a, steps, ut.output());
        // |(s+e_s)^2 + (c+e_c)^2 - 1| <= 2|s||e_s| + 2|c||e_c| + e_s^2 + e_c^2, plus the
        // evaluation's own rounding in double.
        const double tol =
            2 * (std::fabs(s) * es + std::fabs(co) * ec) + es * es + ec * ec + 0x1p-50;
        const double dev = std::fabs(s * s + co * co - 1);
        worst_identity = std::max(worst_identity, dev / tol);
        if (dev > tol) {
          ++bad;
          keep_worst(v.worst, {pos, cols[k].sin, s * s + co * co, 1.0, dev, tol, 0, "sin^2+cos^2"});
        }
      }
    }
  });
  v.holds = bad == 0;
  v.figures["violations"] = static_cast<double>(bad);
  v.figures["identity_worst_fraction_of_tolerance"] = worst_identity;
  v.summary = v.holds ? fmt("all %.0f values finite and in [-1, 1]; sin^2+cos^2-1 at most %.3g of "
                            "its tolerance",
                            static_cast<double>(v.checked), worst_identity)
                      : fmt("%.0f violations among %.0f values", static_cast<double>(bad),
                            static_cast<double>(v.checked));
  return v;
}

Verdict check_unique(const UnderTest& ut, const TableSpec& spec, uint64_t count) {
  Verdict v;
  v.property = "unique";
  const size_t width = static_cast<size_t>(table_width(spec));
  std::unordered_map<uint64_t, uint64_t> seen;  // row hash -> first row with it
  uint64_t duplicates = 0, first_duplicate = 0, first_original = 0;
  double nearest = INFINITY;
  uint64_t nearest_at = 0;
  std::vector<double> previous;
  seen.reserve(count);
  for_each_chunk(ut, spec, count, [&](uint64_t first, const std::vector<double>& t, uint64_t n) {
    for (uint64_t r = 0; r < n; ++r) {
      const double* row = t.data() + r * width;
      uint64_t h = 1469598103934665603ull;  // FNV-1a over the bit patterns (+0 and -0 differ)
      for (size_t c = 0; c < width; ++c) {
        h ^= std::bit_cast<uint64_t>(row[c]);
        h *= 1099511628211ull;
      }
      auto [it, inserted] = seen.emplace(h, first + r);
      if (!inserted) {
        TableSpec at = spec;
        at.start = spec.start + it->second;
        const std::vector<double> earlier = ut.rows(at, 1);
        if (std::memcmp(row, earlier.data(), width * sizeof(double)) == 0 && duplicates++ == 0) {
          first_duplicate = first + r;
          first_original = it->second;
        }
      }
      if (!previous.empty()) {
        double d2 = 0;
        for (size_t c = 0; c < width; ++c) d2 += (row[c] - previous[c]) * (row[c] - previous[c]);
        if (std::sqrt(d2) < nearest) {
          nearest = std::sqrt(d2);
          nearest_at = spec.start + first + r;
        }
      }
      previous.assign(row, row + width);
    }
  });
  v.checked = count;
  v.holds = duplicates == 0;
  v.figures["duplicate_rows"] = static_cast<double>(duplicates);
  v.figures["nearest_neighbour_distance"] = nearest;
  v.figures["nearest_neighbour_position"] = static_cast<double>(nearest_at);
  if (!v.holds) {
    v.figures["first_duplicate_position"] = static_cast<double>(spec.start + first_duplicate);
    v.worst.push_back({spec.start + first_duplicate, 0, 0, 0, 0, 0, 0,
                       "same row as position " + std::to_string(spec.start + first_original)});
    v.summary = fmt("%.0f of %.0f rows repeat an earlier row; the first at position %.0f",
                    static_cast<double>(duplicates), static_cast<double>(count),
                    static_cast<double>(spec.start + first_duplicate));
  } else {
    v.summary = fmt("%.0f rows, all distinct; nearest neighbours %.3g apart (at position %.0f)",
                    static_cast<double>(count), nearest, static_cast<double>(nearest_at));
  }
  return v;
}

Verdict check_shift(const UnderTest& ut, const TableSpec& spec,
                    const std::vector<ShiftCase>& cases) {
  Verdict v;
  v.property = "shift";
  const std::vector<PairColumns> cols = pair_columns(spec);
  const Budget budget = ut.budget();
  const auto engine = oracle::make_engine(oracle::EngineKind::kFast, spec, ut.output());
  uint64_t bad = 0;
  double worst_fraction = 0;
  const auto row_of = [&](uint64_t pos) {
    TableSpec s = spec;
    s.start = pos;
    return ut.rows(s, 1);
  };
  for (const ShiftCase& sc : cases) {
    const PairColumns pc = cols[sc.pair];
    if (pc.sin < 0 || pc.cos < 0) continue;  // a cache of one function has no pairs to rotate
    const std::vector<double> r0 = row_of(sc.pos), r1 = row_of(sc.pos + sc.m);
    TableSpec at_m = spec;
    at_m.start = sc.m;
    // M_m read from the implementation's own row m, when it has that row (a loaded table
    // starting later does not).
    const std::vector<double> rm = ut.can_produce(at_m, 1) ? row_of(sc.m) : std::vector<double>();
    oracle::TileValues mv;
    engine->evaluate({sc.m, 1, sc.pair, 1}, mv);
    const double cm = mv.cos_exact[0], sm = mv.sin_exact[0];  // M_m, exact to 2^-53
    const double w = frequency(spec, sc.pair);
    const auto err_of = [&](const std::vector<double>& r, uint64_t pos) {
      const double a = static_cast<double>(pos) * w,
                   st = static_cast<double>(ut.steps_since_direct(pos));
      const double es = allowed_near(budget, r[pc.sin], a, st, ut.output());
      const double ec = allowed_near(budget, r[pc.cos], a, st, ut.output());
      return std::hypot(es, ec);
    };
    const double e0 = err_of(r0, sc.pos), e1 = err_of(r1, sc.pos + sc.m);
    const auto check = [&](double got, double predicted, double tol, uint64_t pos, int column,
                           const char* what) {
      ++v.checked;
      const double dev = std::fabs(got - predicted);
      worst_fraction = std::max(worst_fraction, dev / tol);
      if (!(dev <= tol)) {
        ++bad;
        keep_worst(v.worst, {pos, column, got, predicted, dev, tol, 0, what});
      }
    };
    const double s0 = r0[pc.sin], c0 = r0[pc.cos], s1 = r1[pc.sin], c1 = r1[pc.cos];
    // Forward: rotating an error e gives an error |e|; M_m itself is off by ~2^-53.
    const double tol_fwd = e0 + e1 + 0x1p-50;
    check(s1, s0 * cm + c0 * sm, tol_fwd, sc.pos + sc.m, pc.sin, "M_m");
    check(c1, c0 * cm - s0 * sm, tol_fwd, sc.pos + sc.m, pc.cos, "M_m");
    check(s0, s1 * cm - c1 * sm, tol_fwd, sc.pos, pc.sin, "M_m^T");
    check(c0, c1 * cm + s1 * sm, tol_fwd, sc.pos, pc.cos, "M_m^T");
    if (rm.empty()) continue;
    // Composition with the implementation's own rotations: M_pos M_m = M_{pos+m}. Products of
    // perturbed rotations: |M_a~ M_b~ - M_a M_b| <= e_a + e_b + e_a e_b per entry.
    const double em = err_of(rm, sc.m);
    const double sa = rm[pc.sin], ca = rm[pc.cos];
    const double tol_comp = e0 + em + e0 * em + e1 + 0x1p-50;
    check(s1, s0 * ca + c0 * sa, tol_comp, sc.pos + sc.m, pc.sin, "M_a M_b = M_{a+b}");
    check(c1, c0 * ca - s0 * sa, tol_comp, sc.pos + sc.m, pc.cos, "M_a M_b = M_{a+b}");
  }
  v.holds = bad == 0;
  v.figures["violations"] = static_cast<double>(bad);
  v.figures["worst_fraction_of_tolerance"] = worst_fraction;
  v.summary = v.holds
                  ? fmt("%.0f identity checks within tolerance (worst %.3g of it)",
                        static_cast<double>(v.checked), worst_fraction)
                  : fmt("%.0f of %.0f identity checks broke (worst %.3g x tolerance)",
                        static_cast<double>(bad), static_cast<double>(v.checked), worst_fraction);
  return v;
}

Verdict check_oracle(const UnderTest& ut, const TableSpec& spec, uint64_t count) {
  Verdict v;
  v.property = "oracle";
  const int width = table_width(spec);
  const Budget budget = ut.budget();
  const std::vector<double> w = frequencies(spec);
  uint64_t bad = 0, categories = 0;
  double max_abs = 0, sum_abs = 0, max_ulp = 0;
  for_each_chunk(ut, spec, count, [&](uint64_t first, const std::vector<double>& got, uint64_t n) {
    TableSpec part = spec;
    part.start = spec.start + first;
    const std::vector<double> exact = oracle::exact_values(part, n);
    for (uint64_t r = 0; r < n; ++r) {
      const uint64_t pos = part.start + r;
      for (int c = 0; c < width; ++c) {
        const size_t i = r * width + c;
        const double x = exact[i];
        const oracle::ElementError e = oracle::measure(got[i], x, ut.output(), 0);
        const bool number = e.category == oracle::ErrorCategory::kFinite ||
                            e.category == oracle::ErrorCategory::kSignMismatch;
        const double angle = static_cast<double>(pos) * w[column_at(spec, c).pair];
        const double allowed =
            budget.allowed(x, angle, static_cast<double>(ut.steps_since_direct(pos)), ut.output());
        ++v.checked;
        if (!number) ++categories;
        if (number) {
          max_abs = std::max(max_abs, e.abs);
          max_ulp = std::max(max_ulp, e.ulp);
          sum_abs += e.abs;
        }
        if (!number || !(e.abs <= allowed)) {
          ++bad;
          keep_worst(v.worst, {pos, c, got[i], x, number ? e.abs : NAN, allowed, e.ulp,
                               std::string(oracle::name_of(e.category))});
        }
      }
    }
  });
  v.holds = bad == 0;
  v.figures["max_abs"] = max_abs;
  v.figures["mean_abs"] = v.checked ? sum_abs / static_cast<double>(v.checked) : 0;
  v.figures["sum_abs"] = sum_abs;
  v.figures["max_ulp"] = max_ulp;
  v.figures["violations"] = static_cast<double>(bad);
  v.figures["nan_inf"] = static_cast<double>(categories);
  v.summary = fmt("max abs error %.3g, max %.3g ulp; %.0f elements outside the budget", max_abs,
                  max_ulp, static_cast<double>(bad)) +
              " (" + budget.describe() + ")";
  return v;
}

Verdict merge(const std::vector<Verdict>& parts) {
  Verdict v = parts.front();
  v.worst.clear();
  v.checked = 0;
  std::map<std::string, double> figures;
  for (const Verdict& p : parts) {
    if (!p.holds && v.holds) v.summary = p.summary;
    v.holds = v.holds && p.holds;
    v.checked += p.checked;
    for (const Finding& f : p.worst) keep_worst(v.worst, f);
    for (const auto& [name, value] : p.figures) {
      auto [it, fresh] = figures.emplace(name, value);
      if (fresh) continue;
      if (name == "violations" || name == "nan_inf" || name == "sum_abs" ||
          name == "duplicate_rows")
        it->second += value;
      else if (name == "nearest_neighbour_distance")
        it->second = std::min(it->second, value);
      else
        it->second = std::max(it->second, value);
    }
  }
  if (figures.count("sum_abs") && v.checked)
    figures["mean_abs"] = figures["sum_abs"] / static_cast<double>(v.checked);
  v.figures = figures;
  return v;
}

std::vector<uint64_t> growth_positions(uint64_t max_position) {
  std::vector<uint64_t> p = {0, 1, 2, 3, 5, 7, 10, 31, 100};
  for (int e = 7; e < 64 && (uint64_t{1} << e) <= max_position; ++e) {
    const uint64_t x = uint64_t{1} << e;
    for (const uint64_t q : {x - 1, x + x / 3, x + x / 2 + 1})
      if (q <= max_position) p.push_back(q);
  }
  p.push_back(max_position);
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  while (!p.empty() && p.back() > max_position) p.pop_back();
  return p;
}

const std::vector<Target>& horizon_targets() {
  static const std::vector<Target> t = {
      {"1e-6", 1e-6}, {"1e-4", 1e-4}, {"1e-2", 1e-2}, {"faithful", 0}};
  return t;
}

Verdict check_growth(const UnderTest& ut, const TableSpec& spec_template,
                     const std::vector<uint64_t>& positions) {
  Verdict v;
  v.property = "growth";
  const Budget budget = ut.budget();
  const Dtype out = ut.output();
  const auto engine = oracle::make_engine(oracle::EngineKind::kFast, spec_template, out);
  const int width = table_width(spec_template);
  std::vector<double> w(spec_template.d_model / 2);
  for (int k = 0; k < spec_template.d_model / 2; ++k) w[k] = frequency(spec_template, k);
  double fitted_c = 0;
  bool within = true;
  std::vector<bool> target_met(horizon_targets().size(), true);
  std::vector<uint64_t> horizon(horizon_targets().size(), 0);
  for (const uint64_t pos : positions) {
    TableSpec spec = spec_template;
    spec.start = pos;
    if (!ut.can_produce(spec, 1)) continue;
    const std::vector<double> got = ut.rows(spec, 1);
    const oracle::ExactTable exact = oracle::compute_table(*engine, spec, 1, 1);
    double row_abs = 0, row_ulp = 0;
    for (int c = 0; c < width; ++c) {
      const double x = exact.exact[c];
      const oracle::ElementError e = oracle::measure(got[c], x, out, 0);
      const bool number = e.category == oracle::ErrorCategory::kFinite ||
                          e.category == oracle::ErrorCategory::kSignMismatch;
      const double abs = number ? e.abs : INFINITY;
      const double angle = static_cast<double>(pos) * w[column_at(spec, c).pair];
      row_abs = std::max(row_abs, abs);
      row_ulp = std::max(row_ulp, number ? e.ulp : INFINITY);
      // The direct model's C for this element: what is left after the output rounding.
      const double rest = abs - budget.output_ulps * ulp_of(x, out);
      if (rest > 0) fitted_c = std::max(fitted_c, rest / (budget.u * (std::fabs(x) + angle)));
      const double allowed = budget.allowed(x, angle, 0, out);
      if (!(abs <= allowed)) {
        within = false;
        keep_worst(v.worst, {pos, c, got[c], x, abs, allowed, e.ulp, "direct model"});
      }
      ++v.checked;
    }
    for (size_t t = 0; t < horizon_targets().size(); ++t) {
      const Target& target = horizon_targets()[t];
      const bool met = target.abs > 0 ? row_abs <= target.abs : row_ulp < 1;
      if (target_met[t] && met) horizon[t] = pos;
      if (!met) target_met[t] = false;
    }
  }
  v.figures["fitted_c"] = fitted_c;
  for (size_t t = 0; t < horizon_targets().size(); ++t)
    v.figures["horizon_" + horizon_targets()[t].name] = static_cast<double>(horizon[t]);
  if (budget.kind == Budget::Kind::kModel) {
    v.holds = fitted_c <= budget.c;
    v.summary = fmt("fitted C = %.3g (claimed %.3g); horizon for 1e-4 abs: %.0f", fitted_c,
                    budget.c, static_cast<double>(horizon[1]));
  } else {
    v.holds = within;
    v.summary = fmt("fitted C = %.3g (u = 2^%.0f); horizon for 1e-4 abs: %.0f", fitted_c,
                    std::ilogb(budget.u), static_cast<double>(horizon[1]));
  }
  return v;
}

}  // namespace pev::properties
