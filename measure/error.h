// How far a stored value is from the exact one (docs/mathematics.md §4). The exact value is the
// oracle's correct rounding to double: for float32/16/bf16 outputs its own error (2^-53 relative)
// is far below what these measures resolve.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "peverify/encoding/format.h"
#include "peverify/encoding/spec.h"

namespace pev::measure {

// What a stored value is, before any number is taken from it. NaN and Inf are categories, not
// numbers: a NaN has no "ulp error". A wrong sign is a number with a category of its own.
enum class Category {
  kNumber,        // a finite value with a measurable error
  kNaN,           // got NaN
  kInf,           // got +-Inf (every exact value is finite)
  kSignMismatch,  // finite, but the encodings' signs differ (+0 versus -0 counts)
};
std::string_view name_of(Category c);
// Finite values (sign mismatches included) have a numeric error; NaN and Inf do not.
inline bool is_number(Category c) { return c == Category::kNumber || c == Category::kSignMismatch; }

// Ulp errors are shown to people at max(|exact|, kUlpFloor): near the zeros of sin and cos an ulp
// of the exact value shrinks without bound, and a float32 error of 1e-7 there reads as 1e10 ulps.
// Every figure a person reads in ulps (verify, check, the report, Python) is floored so.
inline constexpr double kUlpFloor = 0x1p-10;
// The one floored measure: `abs_error` in ulps of the output at max(|exact|, floor). NaN and Inf
// errors stay NaN and Inf.
inline double floored_ulps(double abs_error, double exact, Dtype output, double floor = kUlpFloor) {
  return abs_error / ulp_of(std::fmax(std::fabs(exact), floor), output);
}

struct ElementError {
  Category category = Category::kNumber;
  double abs = 0;          // |got - exact| (0 for NaN and Inf, which have none)
  double ulp = 0;          // |got - exact| / ulp_out(exact), ulp clamped at the smallest subnormal
  double ulp_floored = 0;  // the same with ulp_out(max(|exact|, floor))
};

// `got` is the value as stored in `output` (widened to double). `ulp_floor` keeps the floored
// measure finite near the zeros of sin and cos (plain ulp error explodes there). Inline: it runs
// for every element of every table peverify judges.
inline ElementError error_of(double got, double exact, Dtype output, double ulp_floor = 0) {
  ElementError e;
  if (std::isnan(got)) {
    e.category = Category::kNaN;
    return e;
  }
  if (std::isinf(got)) {
    e.category = Category::kInf;
    return e;
  }
  e.abs = std::fabs(got - exact);
  e.ulp = e.abs / ulp_of(exact, output);
  e.ulp_floored = ulp_floor > 0 ? floored_ulps(e.abs, exact, output, ulp_floor) : e.ulp;
  // A zero result for a tiny nonzero exact value is a numeric error, not a sign error; otherwise
  // compare sign bits, so that -0 for an exact +0 is caught.
  const bool got_zero_of_nonzero = got == 0.0 && exact != 0.0;
  if (!got_zero_of_nonzero && std::signbit(got) != std::signbit(exact))
    e.category = Category::kSignMismatch;
  return e;
}

// Values of a storage format widened to double keep their encodings apart: two of them have the
// same double bit pattern exactly when they have the same encoding (NaN payloads aside). Compare
// these, not the values: got == rounded would not tell +0 from -0.
inline bool same_encoding(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

// The format's next value after the representable `r` towards +Inf (dir > 0) or -Inf (dir < 0).
// A zero neighbour carries `zero_sign`'s sign: the side the exact value lies on.
double format_neighbour(double r, int dir, Dtype t, double zero_sign);

// Faithful by encoding (docs/mathematics.md §3.3): `got` is one of the two values of the format
// that bracket the exact value, i.e. the correctly rounded `rounded` or its neighbour on the exact
// value's side. `exact` is the exact value rounded to double; when it equals `rounded` the true
// value's side is unknown (always so for float64 tables), and both neighbours are accepted,
// unless `exact_is_true` (sin 0 = +0 and cos 0 = 1: nothing else is).
bool is_faithful_encoding(double got, double exact, double rounded, Dtype t, bool exact_is_true);

}  // namespace pev::measure
