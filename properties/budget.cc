#include "properties/budget.h"

#include <cmath>
#include <cstdio>

#include "encoding/format.h"
#include "oracle/error_measure.h"

namespace pev::properties {

double unit_roundoff_of(Dtype t) { return std::ldexp(1.0, -traits_of(t).precision); }

Budget Budget::model(Dtype compute, double c, double output_ulps) {
  Budget b;
  b.kind = Kind::kModel;
  b.c = c;
  b.u = unit_roundoff_of(compute);
  b.output_ulps = output_ulps;
  return b;
}

Budget Budget::faithful() {
  Budget b;
  b.kind = Kind::kFaithful;
  return b;
}

Budget Budget::strict() {
  Budget b;
  b.kind = Kind::kStrict;
  return b;
}

double Budget::allowed(double exact, double angle, double steps, Dtype output) const {
  switch (kind) {
    case Kind::kModel:
      return oracle::model_budget(exact, angle, steps, output, c, u, output_ulps);
    case Kind::kFaithful:  // strictly below one ulp: the largest double below it
      return std::nextafter(ulp_of(exact, output), 0.0);
    case Kind::kStrict:  // half an ulp, plus the exact value's own rounding to double
      return ulp_of(exact, output) * (0.5 + 0x1p-28);
  }
  return 0;
}

std::string Budget::describe() const {
  char buf[96];
  switch (kind) {
    case Kind::kModel:
      std::snprintf(buf, sizeof buf, "model(C=%g, u=2^%d%s)", c, std::ilogb(u),
                    output_ulps != 0.5 ? ", 1 ulp for the output" : "");
      return buf;
    case Kind::kFaithful:
      return "faithful";
    case Kind::kStrict:
      return "strict";
  }
  return "?";
}

}  // namespace pev::properties
