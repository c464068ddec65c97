// What the host side (cuda_entries.cc, built by g++) asks of the kernels (kernels_*.cu, built by
// nvcc): one request fills rows of a table that is already in device memory.
#pragma once

#include <cstdint>

#include "peverify/core/implementation.h"
#include "peverify/core/recipe_arith.h"
#include "peverify/encoding/spec.h"

namespace pev::core::cuda {

struct Request {
  Strategy strategy = Strategy::kPow;
  Dtype compute = Dtype::kFloat32;
  Dtype output = Dtype::kFloat32;
  int d_model = 0;
  int width = 0;  // table_width of the spec
  Schedule schedule = Schedule::kPaper;
  Layout layout = Layout::kInterleaved;
  double base = 0;  // the base the strategy raises (dynamic: the rescaled base, core/recipe.h)
  double step = 0;  // logspace: -ln b / (d or d/2 - 1), computed in double on the host
  // The recipe's Python floats; ext_factors (longrope) points to device memory. For the precise
  // strategy, attention is A in __float128 rounded to double (core/precise/frequencies.h).
  RecipeScalars recipe;
  uint64_t start = 0;
  uint64_t count = 0;
  uint64_t anchor_interval = 0;
  // Device memory: the table (count x width, float or uint16 bit patterns) and scratch of
  // 3 x d/2 floats (frequencies, sin w, cos w), or the precise strategy's w_hi, w_lo (d/2 each).
  void* table = nullptr;
  float* scratch = nullptr;
  const double* w_hi = nullptr;
  const double* w_lo = nullptr;
};

// Launch the kernels of one request on the default stream; return the cudaError_t of the launch
// (0 on success). One function per translation unit, so that each math backend's kernels compile
// (and are inspected as PTX) on their own.
int run_accurate(const Request& r);  // kernels_accurate.cu: sincosf, expf, powf
int run_fast(const Request& r);      // kernels_fast.cu: __sincosf, __expf, __powf, __fdividef
int run_precise(const Request& r);   // kernels_precise.cu: double-double, no library function

}  // namespace pev::core::cuda
