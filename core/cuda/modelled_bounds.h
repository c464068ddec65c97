// The modelled accuracy of every CUDA entry (device_model.h: modelled, not measured), recorded
// as data for listings and reports: computed against the oracle by core/cuda/device_model_test.cc,
// which fails, printing the lines to paste, when a recorded figure no longer matches the model.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "peverify/core/implementation.h"

namespace pev::core::cuda {

// The grids the figures are for: d = 512, base 10^4, interleaved; every position in
// [0, min(8192, max_position + 1)), and the 64 positions ending at 2^20.
inline constexpr int kRecordedDModel = 512;
inline constexpr uint64_t kRecordedRows = 8192;
inline constexpr uint64_t kRecordedFarLast = uint64_t{1} << 20;
inline constexpr uint64_t kRecordedFarRows = 64;

// The recorded figures are the model's to within this relative difference (written with 4
// significant digits; core/cuda/device_model_test.cc holds them to it).
inline constexpr double kRecordedRelativeTolerance = 0.002;

// ModelledError's figures (device_model.h) on each grid: the max abs error over the elements with
// documented bounds, the fraction of elements without (fast __sinf / __cosf beyond [-pi, pi]),
// and the max abs error if the in-range bounds held there too. far_abs < 0: 2^20 is beyond the
// entry's max_position.
struct RecordedModel {
  const char* name;
  double near_abs, near_out_of_range, near_assumed_abs;
  double far_abs, far_out_of_range, far_assumed_abs;
};

// nullptr when nothing is recorded for `name`.
const RecordedModel* recorded_model(std::string_view name);

// "modelled, not measured, d=512: max abs 3.6e-03 at pos < 8192, 0.46 at 2^20" for a listing;
// for fast entries also the share of elements left unbounded (arguments outside [-pi, pi]).
std::string modelled_text(const Implementation& e);

}  // namespace pev::core::cuda
