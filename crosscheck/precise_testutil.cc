#include "peverify/crosscheck/precise_testutil.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "peverify/core/generate.h"
#include "peverify/core/precise/frequencies.h"
#include "peverify/core/precise/plan.h"
#include "peverify/core/registry.h"
#include "peverify/measure/sampling.h"
#include "peverify/oracle/engine.h"
#include "peverify/oracle/frequencies.h"
#include "peverify/oracle/table.h"

namespace pev::core::precise {

const Implementation& precise_entry(Dtype output) {
  const std::string name = "cpu/precise/f64>" + std::string(short_name(output)) + "/hwy";
  const Implementation* impl = find_implementation(name);
  if (impl == nullptr) throw std::runtime_error("no registry entry " + name);
  return *impl;
}

void WorstElement::merge(const WorstElement& other) {
  const uint64_t total = elements + other.elements;
  const uint64_t total_misrounded = misrounded + other.misrounded;
  if (other.ulp > ulp) *this = other;
  elements = total;
  misrounded = total_misrounded;
}

WorstElement worst_against_oracle(const Implementation& impl, const TableSpec& spec,
                                  uint64_t count) {
  const GeneratedTable got = generate(impl, spec, count);
  const auto engine = oracle::make_mpfr_engine(spec, impl.output);
  const oracle::ExactTable exact = oracle::compute_table(*engine, spec, count);
  WorstElement worst;
  for (uint64_t i = 0; i < got.size(); ++i) {
    const measure::ElementError e = measure::error_of(got.value(i), exact.exact[i], impl.output);
    const double ulp = e.category == measure::Category::kNumber ? e.ulp : INFINITY;
    if (got.value(i) != exact.rounded[i]) ++worst.misrounded;
    if (ulp > worst.ulp) {
      worst.ulp = ulp;
      worst.pos = spec.start + i / got.width;
      worst.column = static_cast<int>(i % got.width);
      worst.got = got.value(i);
      worst.exact = exact.exact[i];
      worst.category = e.category;
    }
  }
  worst.elements = got.size();
  return worst;
}

std::string describe(const Implementation& impl, const TableSpec& spec, const WorstElement& w) {
  return fmt::format(
      "{} d={} base={:g} {} {} {} pos={} dim={} got={:a} exact={:a} ({}, {:.9g} ulp)", impl.name,
      spec.d_model, spec.base, name_of(spec.schedule), pev::describe(spec.rope),
      name_of(spec.layout), w.pos, w.column, w.got, w.exact, measure::name_of(w.category), w.ulp);
}

void expect_faithful(Dtype output, const TableSpec& spec, uint64_t count) {
  const Implementation& impl = precise_entry(output);
  const WorstElement w = worst_against_oracle(impl, spec, count);
  EXPECT_LT(w.ulp, 1.0) << describe(impl, spec, w);
}

double worst_frequency_error(const TableSpec& spec) {
  const std::vector<DoubleDouble> w = double_double_frequencies(spec);
  const oracle::Frequencies exact(spec);
  double worst = 0;
  mpfr_t sum, rel;
  mpfr_inits2(400, sum, rel, static_cast<mpfr_ptr>(nullptr));
  for (int k = 0; k < spec.d_model / 2; ++k) {
    EXPECT_LE(std::fabs(w[k].lo), std::ldexp(std::fabs(w[k].hi), -53)) << k;
    mpfr_set_d(sum, w[k].hi, MPFR_RNDN);
    mpfr_add_d(sum, sum, w[k].lo, MPFR_RNDN);  // exact at 400 bits
    mpfr_sub(rel, sum, exact.cached(k), MPFR_RNDN);
    mpfr_div(rel, rel, exact.cached(k), MPFR_RNDN);
    worst = std::max(worst, std::fabs(mpfr_get_d(rel, MPFR_RNDN)));
  }
  mpfr_clears(sum, rel, static_cast<mpfr_ptr>(nullptr));
  return worst;
}

std::vector<uint64_t> sample_starts(uint64_t limit, int per_octave, uint64_t block_rows) {
  std::vector<uint64_t> starts;
  if (limit >= 16 + block_rows) {
    const int steps = static_cast<int>(
        std::lround(per_octave * std::log2(static_cast<double>(limit - block_rows) / 16)));
    for (const measure::RowBlock& b :
         measure::log_spaced_blocks(16, limit - block_rows, std::max(steps, 1), block_rows, true))
      starts.push_back(b.first);
  }
  // Across an anchor: the last rotated rows of one interval and the first of the next.
  for (uint64_t anchor :
       {kAnchorInterval, uint64_t{1} << 20, (uint64_t{1} << 24) - kAnchorInterval})
    if (anchor + block_rows / 2 <= limit) starts.push_back(anchor - block_rows / 2);
  return starts;
}

}  // namespace pev::core::precise
