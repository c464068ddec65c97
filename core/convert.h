// Conversions from the compute type to the storage type of a table. The 16-bit rows are compiled
// for every x86 target Highway builds by default (AVX3, AVX2, SSE4, SSSE3 and the scalar baseline)
// and dispatched at run time; the per-vector kernels are in convert-inl.h. float16 uses Highway's
// DemoteTo where that is F16C's VCVTPS2PH (AVX2 and up); on the other targets, and for bfloat16
// round-to-nearest-even, Highway 1.0.3 has no rounding conversion, so those are written with
// Highway's integer ops. Doubles are rounded to odd to float first, which makes the second
// rounding innocuous (proved in convert-inl.h). Every target gives the same bits:
// crosscheck/convert_exhaustive_test.cc checks all 2^32 floats, as floats and as doubles, and
// crosscheck/convert_test.cc dense doubles around every 16-bit midpoint, against the oracle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "peverify/core/implementation.h"

namespace pev::core {

// float -> float16 / bfloat16 bit patterns.
//   Domain: every float, subnormals included (DAZ/FTZ and the rounding mode are not consulted).
//   Error: 0.5 ulp of the output, ties to even (correctly rounded, as IEEE 754 convertFormat);
//   float16 overflows to Inf from 65520 on; a NaN stays NaN, made quiet, sign and the top payload
//   bits kept. The scalar functions convert a one-element row: the same code as convert_row.
uint16_t f16_from_f32(float x);
uint16_t bf16_from_f32(float x);
// Drops the low 16 bits, as Highway 1.0.3's DemoteTo does (what real code ships): up to 1 ulp,
// toward zero; a NaN whose payload lies only in the low 16 bits becomes Inf.
uint16_t bf16_from_f32_truncate(float x);

// double -> float16 / bfloat16 in one rounding (going via float to nearest would round twice).
//   Domain: every double; the rounding mode and FTZ/DAZ are not consulted. Error: 0.5 ulp, ties
//   to even; overflow gives Inf; NaN gives a quiet NaN of its sign. One-element rows, as above.
uint16_t f16_from_f64(double x);
uint16_t bf16_from_f64(double x);

// Exact widenings.
float f32_from_f16(uint16_t bits);
float f32_from_bf16(uint16_t bits);

// Converts n floats into dst: float for float32 output (a copy), double for float64 (exact), the
// uint16 bit patterns for float16 and bfloat16. `conversion` applies to bfloat16 only (float16 is
// always rounded to nearest even). Any n, any alignment; in and dst must not overlap.
void convert_row(const float* in, size_t n, Dtype output, Conversion conversion, void* dst);
// The same from double, each element rounded once (vectorised for the 16-bit outputs); kTruncate
// rounds to float first, then drops the low bits, as code that stores a float tensor truncated to
// bfloat16 does.
void convert_row(const double* in, size_t n, Dtype output, Conversion conversion, void* dst);

// Name of the Highway target convert_row dispatches to on this CPU ("AVX3", "AVX2", "SSE4", ...).
std::string_view convert_target();

}  // namespace pev::core
