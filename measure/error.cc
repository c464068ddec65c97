#include "peverify/measure/error.h"

#include <cmath>

namespace pev::measure {

std::string_view name_of(Category c) {
  switch (c) {
    case Category::kNumber:
      return "number";
    case Category::kNaN:
      return "nan";
    case Category::kInf:
      return "inf";
    case Category::kSignMismatch:
      return "sign";
  }
  return "?";
}

double format_neighbour(double r, int dir, Dtype t, double zero_sign) {
  const FormatTraits f = traits_of(t);
  const double a = std::fabs(r);
  // Away from zero the step is the ulp of r's binade; towards zero it halves below a power of two
  // (a normal one: the subnormal range is evenly spaced).
  const bool away = r == 0.0 || (dir > 0) == (r > 0);
  double step = ulp_of(r, t);
  if (!away && a == std::ldexp(1.0, std::ilogb(a)) && std::ilogb(a) > f.min_exponent) step /= 2;
  const double next = r + (dir > 0 ? step : -step);
  return next == 0.0 ? std::copysign(0.0, zero_sign) : next;
}

bool is_faithful_encoding(double got, double exact, double rounded, Dtype t, bool exact_is_true) {
  if (same_encoding(got, rounded)) return true;
  if (std::isnan(got) || std::isinf(got)) return false;
  if (exact != rounded) {
    const int side = exact > rounded ? 1 : -1;
    return same_encoding(got, format_neighbour(rounded, side, t, exact));
  }
  if (exact_is_true) return false;
  // The double cannot tell which side the true value lies on: either neighbour brackets it.
  return same_encoding(got, format_neighbour(rounded, 1, t, rounded)) ||
         same_encoding(got, format_neighbour(rounded, -1, t, rounded));
}

}  // namespace pev::measure
