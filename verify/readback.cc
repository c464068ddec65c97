// Reading back a sample's positions, amplitudes and frequencies (verify/readback.h). Written by
// hand: no library fits phases; the arithmetic is a median, a vernier and a least-squares line.
#include "peverify/verify/readback.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pev::verify::readback {
namespace {

// x wrapped to (-pi, pi].
double wrapped(double x) { return x - 2 * M_PI * std::ceil((x - M_PI) / (2 * M_PI)); }

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// One pair's angle as its stored values give it, in [0, 2 pi), with how far the values'
// rounding may move it.
struct PairAngle {
  double angle, frequency, error;
};

// The position a row's angles put it at, in [0, 2 pi / lowest w): the lowest frequency first,
// each higher one refining the estimate while its period is over 4x the estimate's uncertainty
// (a vernier); nullopt where the uncertainty left is 0.25 or more, or a higher pair contradicts
// the estimate by more than its own error.
std::optional<double> position_of_angles(std::vector<PairAngle> pairs) {
  std::sort(pairs.begin(), pairs.end(),
            [](const PairAngle& a, const PairAngle& b) { return a.frequency < b.frequency; });
  if (pairs.empty() || !(pairs[0].frequency > 0)) return std::nullopt;
  double position = pairs[0].angle / pairs[0].frequency;
  double uncertainty = pairs[0].error / pairs[0].frequency;
  for (const PairAngle& p : pairs) {
    if (!std::isfinite(p.angle) || !std::isfinite(p.error)) continue;  // a NaN or Inf stored
    const double period = 2 * M_PI / p.frequency;
    if (!(period > 4 * uncertainty)) break;  // this pair's turns could not be told apart
    const double turns = std::nearbyint((position - p.angle / p.frequency) / period);
    position = p.angle / p.frequency + turns * period;
    uncertainty = std::min(uncertainty, p.error / p.frequency);
  }
  if (!(uncertainty < 0.25) || !std::isfinite(position)) return std::nullopt;
  return position;
}

double lowest_turning(const std::vector<double>& w) {
  double lowest = INFINITY;
  for (const double f : w)
    if (f > 0) lowest = std::min(lowest, f);
  return lowest;
}

}  // namespace

RowReading read_row(const Row& r, const Observations& o) {
  RowReading out;
  const size_t pairs = r.c.size();
  const bool has_sin = !r.s.empty();
  const auto zero = [](double v) { return v == 0; };
  if (std::all_of(r.c.begin(), r.c.end(), zero) && std::all_of(r.s.begin(), r.s.end(), zero)) {
    out.state = RowState::kZeros;
    return out;
  }
  if (!has_sin) {  // cos alone: A and the sign of sin are not read back
    bool identity = true;
    for (size_t j = 0; j < pairs; ++j)
      identity = identity && std::fabs(r.c[j] - o.amplitude) <= 2 * r.error;
    if (identity) {
      out.state = RowState::kIdentity, out.position = 0;
      return out;
    }
    // The lowest turning pair's acos, where its rounding leaves it within 0.25 of a position.
    size_t k = pairs;
    for (size_t j = 0; j < pairs; ++j)
      if (o.frequencies[j] > 0 && (k == pairs || o.frequencies[j] < o.frequencies[k])) k = j;
    if (k == pairs) return out;
    const double c = std::clamp(r.c[k] / o.amplitude, -1.0, 1.0);
    out.state = RowState::kRotation;
    if (r.error / o.amplitude / std::max(std::sqrt(1 - c * c), 1e-300) / o.frequencies[k] < 0.25)
      out.position = std::acos(c) / o.frequencies[k];
    return out;
  }
  std::vector<double> norms(pairs);
  for (size_t j = 0; j < pairs; ++j) norms[j] = std::hypot(r.c[j], r.s[j]);
  out.amplitude = median(norms);
  for (size_t j = 0; j < pairs; ++j)
    if (!(std::fabs(norms[j] - out.amplitude) <= 8 * r.error + 1e-9 * out.amplitude))
      return out;  // not a rotation: its pairs' norms differ
  bool identity = true;
  for (size_t j = 0; j < pairs; ++j) identity = identity && std::fabs(r.s[j]) <= 2 * r.error;
  if (identity) {
    out.state = RowState::kIdentity, out.position = 0;
    return out;
  }
  std::vector<PairAngle> angles;
  for (size_t j = 0; j < pairs; ++j) {
    if (!(o.frequencies[j] > 0)) continue;
    double a = std::atan2(r.s[j], r.c[j]);
    if (a < 0) a += 2 * M_PI;
    angles.push_back({a, o.frequencies[j], 2 * r.error / norms[j]});
  }
  out.position = position_of_angles(std::move(angles));
  out.state = out.position ? RowState::kRotation : RowState::kNotRotation;
  return out;
}

namespace {

// One pair's angle over the declared positions as a line theta = w p + phase, fitted on rows
// ever further out (each unwrapped by the turns the line so far predicts) until every row is in.
struct Point {
  double p, angle, error;
};

PairReading fit_pair(std::vector<Point> pts, double declared) {
  PairReading out;
  if (pts.size() < 4) return out;
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.p < b.p; });
  double e_max = 0;
  for (const Point& q : pts) e_max = std::max(e_max, q.error);
  // The first estimate: the angle's step between rows one position apart (any w below pi).
  std::vector<double> steps;
  for (size_t i = 0; i + 1 < pts.size(); ++i)
    if (pts[i + 1].p - pts[i].p == 1) steps.push_back(wrapped(pts[i + 1].angle - pts[i].angle));
  double w = steps.empty() ? declared : median(steps);
  double sigma = steps.empty() ? std::fabs(declared) * 1e-6 + 1e-12 : 2 * e_max + 1e-12;
  double phase = wrapped(pts[0].angle - w * pts[0].p);
  size_t in = 0;
  for (int round = 0; round < 64 && in < pts.size(); ++round) {
    const double reach = pts[0].p + M_PI / (8 * sigma);
    size_t next = in;
    while (next < pts.size() && pts[next].p <= reach) ++next;
    in = std::max(next, std::min<size_t>(pts.size(), in + 2));
    // Least squares on the unwrapped angles of the rows in, centred for conditioning.
    std::vector<double> unwrapped(in);
    double mp = 0, ma = 0;
    for (size_t i = 0; i < in; ++i) {
      const double predicted = w * pts[i].p + phase;
      unwrapped[i] =
          pts[i].angle + 2 * M_PI * std::nearbyint((predicted - pts[i].angle) / (2 * M_PI));
      mp += pts[i].p, ma += unwrapped[i];
    }
    mp /= in, ma /= in;
    double spp = 0, spa = 0;
    for (size_t i = 0; i < in; ++i) {
      spp += (pts[i].p - mp) * (pts[i].p - mp);
      spa += (pts[i].p - mp) * (unwrapped[i] - ma);
    }
    if (spp > 0) w = spa / spp;
    phase = ma - w * mp;
    double residual = 0;
    for (size_t i = 0; i < in; ++i)
      residual = std::max(residual, std::fabs(unwrapped[i] - w * pts[i].p - phase));
    out.residual = residual;
    const double span = std::max(pts[in - 1].p - pts[0].p, 1.0);
    sigma = (residual + e_max) / span + 1e-300;
  }
  out.phase = wrapped(phase);
  double within = 0;  // every row's own error must hold its distance from the line
  for (const Point& q : pts) within = std::max(within, q.error);
  if (out.residual <= 4 * within + 1e-12) {
    // The misfit the line has, and the values' own rounding (the smallest point error: its
    // angle's term is 0 near position 0), over the span of positions.
    double e_min = INFINITY;
    for (const Point& q : pts) e_min = std::min(e_min, q.error);
    out.frequency = w;
    out.precision = 2 * (out.residual + e_min) / std::max(pts.back().p - pts[0].p, 1.0);
  }
  return out;
}

}  // namespace

size_t ReadBack::misplaced_rows() const {
  size_t n = 0;
  for (const RowReading& r : rows)
    if (r.state == RowState::kZeros || r.state == RowState::kNotRotation) ++n;
  return n;
}

ReadBack read_back(const Observations& o) {
  ReadBack out;
  const size_t pairs = o.frequencies.size();
  out.period = 2 * M_PI / lowest_turning(o.frequencies);
  const bool has_sin = !o.rows.empty() && !o.rows[0].s.empty();
  for (const Row& r : o.rows) out.rows.push_back(read_row(r, o));
  if (!has_sin) {
    out.limits.push_back(
        "the layout holds cos alone: the sign of sin, the amplitude and the frequencies are not "
        "read back, positions only up to their sign");
    out.pairs.resize(pairs);
    return out;
  }
  std::vector<double> amplitudes;
  for (const RowReading& r : out.rows)
    if (r.state == RowState::kRotation || r.state == RowState::kIdentity)
      amplitudes.push_back(r.amplitude);
  if (!amplitudes.empty()) out.amplitude = median(amplitudes);
  // Rows the vernier places elsewhere are left out of the frequencies, unless they are most of
  // the rows (then the frequencies, not the rows, are what differ).
  std::vector<bool> placed(o.rows.size(), false);
  size_t misplaced = 0;
  for (size_t i = 0; i < o.rows.size(); ++i) {
    const RowReading& r = out.rows[i];
    if (r.state != RowState::kRotation && r.state != RowState::kIdentity) continue;
    const double d = std::fmod(static_cast<double>(o.rows[i].declared), out.period);
    const bool here = r.position && std::fabs(wrapped(2 * M_PI * (*r.position - d) / out.period)) *
                                            out.period / (2 * M_PI) <
                                        0.5;
    placed[i] = here;
    misplaced += !here;
  }
  const bool use_all = 2 * misplaced > o.rows.size();
  for (size_t j = 0; j < pairs; ++j) {
    std::vector<Point> pts;
    for (size_t i = 0; i < o.rows.size(); ++i) {
      const RowReading& r = out.rows[i];
      if (r.state != RowState::kRotation && r.state != RowState::kIdentity) continue;
      if (!use_all && !placed[i]) continue;
      const Row& row = o.rows[i];
      const double norm = std::hypot(row.c[j], row.s[j]);
      if (!(norm > 0)) continue;
      const double p = static_cast<double>(row.declared);
      // The angle's own rounding, and what an honest computation's rounding of p w adds.
      const double error = 2 * row.error / norm + 4 * 0x1p-24 * p * std::fabs(o.frequencies[j]);
      pts.push_back({p, std::atan2(row.s[j], row.c[j]), error});
    }
    out.pairs.push_back(fit_pair(std::move(pts), o.frequencies[j]));
  }
  return out;
}

namespace {

// float32 against float32's claim (ggml's recurrence, a float64 claim met in float32): in an
// element of the pair, an error of a sixteenth of float32's rounding of its value and angle.
bool noisy_as_float32(const Observations& o, const ReadBack& r, size_t j) {
  const double w = o.frequencies[j], u = unit_roundoff(Dtype::kFloat32);
  for (size_t i = 0; i < o.rows.size(); ++i) {
    if (r.rows[i].state == RowState::kZeros) continue;
    const Row& row = o.rows[i];
    const double angle = static_cast<double>(row.declared) * w, turn = angle * o.amplitude;
    const double c = o.amplitude * std::cos(angle), s = o.amplitude * std::sin(angle);
    if (std::fabs(row.c[j] - c) >= u / 16 * (std::fabs(c) + turn)) return true;
    if (!row.s.empty() && std::fabs(row.s[j] - s) >= u / 16 * (std::fabs(s) + turn)) return true;
  }
  return false;
}

// A format coarser than float32: of the pair's elements whose value's rounding in it (u |v| / 16)
// stands above what float32's angle may add (4 u_32 p w A), the share off by that much; nullopt
// where fewer than 4 elements stand so (the pair says nothing).
std::optional<double> noisy_share(const Observations& o, const ReadBack& r, size_t j, double u) {
  const double w = o.frequencies[j], floor = 4 * unit_roundoff(Dtype::kFloat32);
  uint64_t judged = 0, noisy = 0;
  const auto judge = [&](double got, double exact, double turn) {
    const double level = u * std::fabs(exact) / 16;
    if (!(level > floor * turn)) return;
    ++judged;
    noisy += std::fabs(got - exact) >= level;
  };
  for (size_t i = 0; i < o.rows.size(); ++i) {
    if (r.rows[i].state == RowState::kZeros) continue;
    const Row& row = o.rows[i];
    const double angle = static_cast<double>(row.declared) * w, turn = angle * o.amplitude;
    judge(row.c[j], o.amplitude * std::cos(angle), turn);
    if (!row.s.empty()) judge(row.s[j], o.amplitude * std::sin(angle), turn);
  }
  if (judged < 4) return std::nullopt;
  return double(noisy) / double(judged);
}

}  // namespace

bool has_signature_of(const Observations& o, const ReadBack& r, Dtype narrower) {
  const double u = unit_roundoff(narrower);
  const bool as_float32 = u <= unit_roundoff(Dtype::kFloat32);
  size_t counted = 0, noisy = 0, lines = 0;
  for (size_t j = 0; j < o.frequencies.size(); ++j) {
    if (!(o.frequencies[j] > 0)) continue;
    if (as_float32) {
      ++counted;
      noisy += noisy_as_float32(o, r, j);
    } else if (const std::optional<double> share = noisy_share(o, r, j, u)) {
      ++counted;
      noisy += *share >= 0.125;
    }
    lines += j < r.pairs.size() && r.pairs[j].frequency.has_value();
  }
  // Errors of narrower's size in three pairs in four at least, and (a format coarser than
  // float32, where sin is held) not the clean lines a wrong frequency draws. The lines tell only
  // where their tolerance, the data's own rounding, is finer than narrower's: a rotation of
  // bfloat16 tensors draws clean lines at bfloat16's tolerance whatever it computed in.
  const bool sized = counted > 0 && 4 * noisy >= 3 * counted;
  const bool has_sin = !o.rows.empty() && !o.rows[0].s.empty();
  const bool lines_tell =
      has_sin && !as_float32 && o.rows[0].error < u * std::max(o.amplitude, 1.0);
  return sized && (!lines_tell || 2 * lines < counted);
}

std::string differing_pairs(const ReadBack& r, const std::vector<double>& declared) {
  std::vector<size_t> differ;
  double lo = INFINITY, hi = -INFINITY;
  for (size_t j = 0; j < r.pairs.size() && j < declared.size(); ++j) {
    const PairReading& p = r.pairs[j];
    if (!p.frequency || !(declared[j] > 0)) continue;
    if (std::fabs(*p.frequency - declared[j]) <= 3 * p.precision + 1e-12 * declared[j]) continue;
    differ.push_back(j);
    lo = std::min(lo, *p.frequency / declared[j]), hi = std::max(hi, *p.frequency / declared[j]);
  }
  if (differ.empty()) return "";
  const bool run = differ.back() - differ.front() + 1 == differ.size();
  return fmt::format(
      "pair{} {}{} ({} of {}): w read back {} of the declared", differ.size() == 1 ? "" : "s",
      differ.front(),
      differ.size() == 1 ? "" : fmt::format("{}{}", run ? ".." : " .. ", differ.back()),
      differ.size(), r.pairs.size(),
      lo == hi ? fmt::format("{:.6g}", lo) : fmt::format("{:.6g} .. {:.6g}", lo, hi));
}

}  // namespace pev::verify::readback
