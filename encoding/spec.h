// The mathematical contract every part of peverify shares (docs/mathematics.md §1): what a
// positional-encoding table is, independent of how anyone computes it. Both core/ and oracle/
// depend on this header and on nothing of each other.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "peverify/encoding/layout.h"
#include "peverify/encoding/rope.h"
#include "peverify/encoding/vocabulary.h"

namespace pev {

// How the frequency of pair k falls with k.
enum class Schedule {
  kPaper,  // w_k = b^(-2k/d), the paper's formula.
  kT2T,    // w_k = b^(-k/(d/2-1)), what tensor2tensor and fairseq compute.
};

// The storage formats peverify reads and writes.
enum class Dtype { kFloat64, kFloat32, kFloat16, kBFloat16 };

// One table: rows are positions start .. start + count - 1 (count is given per request).
struct TableSpec {
  int d_model = 512;             // even, >= 2; for rotary caches the rotary dimension.
  double base = default_base();  // encoding/vocabulary.json
  Schedule schedule = Schedule::kPaper;
  Layout layout = Layout::kInterleaved;
  uint64_t start = 0;  // first position.
  RopeScaling rope;    // the rotary recipe (default: the schedule's frequencies unchanged)
};

// A plain table of d and base, every other field at its default.
inline TableSpec grid_spec(int d_model, double base) {
  TableSpec s;
  s.d_model = d_model;
  s.base = base;
  return s;
}

// Largest position any part of peverify accepts: every integer up to it is a double.
inline constexpr uint64_t kMaxPosition = uint64_t{1} << 53;

// The spec's layout (encoding/layout.h): its width, and what column `column` holds.
int table_width(const TableSpec& spec);
Column column_at(const TableSpec& spec, int column);

// The rational exponent e_k with w_k = b^e_k: numerator / denominator, both exact integers.
struct FrequencyExponent {
  int64_t numerator;    // -2k (paper) or -k (t2t)
  int64_t denominator;  // d (paper) or d/2 - 1 (t2t)
};
FrequencyExponent frequency_exponent(const TableSpec& spec, int pair);

// w_k in double (pow of the exact exponent, then the recipe): what budgets and identities use for
// the angle pos * w_k, where a relative error of 2^-52 does not matter. The exact w_k is the
// oracle's.
double frequency(const TableSpec& spec, int pair);
// The factor every value is multiplied by, in double (1 but for yarn and longrope).
double attention_factor(const TableSpec& spec);
// Whether the table is the plain sinusoidal encoding (no recipe, attention 1).
inline bool is_plain(const TableSpec& spec) { return spec.rope.type == RopeType::kDefault; }

// Empty when the spec is valid, else a one-line reason ("d_model must be even, got 7").
std::optional<std::string> validate(const TableSpec& spec);
// Also checks that positions start .. start + count - 1 stay within kMaxPosition.
std::optional<std::string> validate_range(const TableSpec& spec, uint64_t count);

// Names as the command line spells them; parse_* return nullopt for an unknown name (the
// layouts' are encoding/layout.h's).
std::string_view name_of(Schedule s);
std::string_view name_of(Dtype t);
std::optional<Schedule> parse_schedule(std::string_view name);
std::optional<Dtype> parse_dtype(std::string_view name);

}  // namespace pev
