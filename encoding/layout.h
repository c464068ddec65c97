// The layouts: where pair k's sin and cos land in a row (docs/mathematics.md §1.2). One table lists
// every layout, as SLEEF's funcproto.h lists every function, and everything else is derived from
// it: the width, whether a row holds both functions, the columns of a pair and the pair of a
// column, the names the command line and Python use, and the row filling of core/ and the oracle.
// The kernels read it too, so the table is a constexpr function (device code cannot read a host
// array) compiled by g++ and by nvcc (C++17).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "peverify/encoding/host_device.h"

namespace pev {

// Where PE(pos, k)'s sin and cos land in a row; layout_entry below says exactly.
enum class Layout {
  kInterleaved,   // the paper's [sin w_0, cos w_0, sin w_1, cos w_1, ...]
  kHalves,        // tensor2tensor, fairseq: every sin, then every cos
  kRopeCos,       // a rotary cache of cos alone
  kRopeSin,       // a rotary cache of sin alone
  kRopeCosDup,    // GPT-NeoX / Llama / Hugging Face cos cache: the d/2 columns twice
  kRopeSinDup,    // GPT-NeoX / Llama / Hugging Face sin cache
  kRopeCosPairs,  // GPT-J / Meta interleaved cos cache: each column twice in a row
  kRopeSinPairs,  // GPT-J / Meta interleaved sin cache
  kRopeCosSin,    // vLLM's cos_sin_cache: every cos, then every sin
  kPolar,         // Meta's freqs_cis, complex cos + i sin per pair, real then imaginary
};

// Every layout, in the order the command line lists them.
inline constexpr Layout kAllLayouts[] = {
    Layout::kInterleaved, Layout::kHalves,     Layout::kRopeCos,      Layout::kRopeSin,
    Layout::kRopeCosDup,  Layout::kRopeSinDup, Layout::kRopeCosPairs, Layout::kRopeSinPairs,
    Layout::kRopeCosSin,  Layout::kPolar};

// Where one copy of a function's values sits in a row of d/2 pairs (half = d/2): pair k at
// column step * k + halves * half + offset. A run (step 1) holds d/2 consecutive columns from a
// multiple of d/2; a zipped slot (step 2) every other column, from column 0 or 1.
struct Slot {
  int8_t step = 0;  // 0: no slot
  int8_t halves = 0;
  int8_t offset = 0;
  PEV_HD constexpr bool stored() const { return step != 0; }
  PEV_HD constexpr int first(int half) const { return halves * half + offset; }
  PEV_HD constexpr int column(int half, int k) const { return step * k + first(half); }
  // The inverse: the pair whose value this slot puts at `column`, or -1.
  PEV_HD constexpr int pair_at(int half, int column) const {
    const int from_first = column - first(half);
    const bool hit =
        stored() && from_first >= 0 && from_first % step == 0 && from_first < step * half;
    return hit ? from_first / step : -1;
  }
};
PEV_HD constexpr Slot run_from(int halves) { return {1, static_cast<int8_t>(halves), 0}; }
PEV_HD constexpr Slot zipped_at(int offset) { return {2, 0, static_cast<int8_t>(offset)}; }

// One row of the table: a layout's name, its width in units of d/2, and the slots of each
// function (up to two copies each).
struct LayoutEntry {
  const char* name;
  int width_in_halves;  // 2: width d; 1: width d/2
  Slot sin[2];
  Slot cos[2];
};

// The table (docs/mathematics.md §1.2; layout_test.cc checks it against the documented rows).
PEV_HD constexpr LayoutEntry layout_entry(Layout layout) {
  switch (layout) {
    case Layout::kInterleaved:
      return {"interleaved", 2, {zipped_at(0)}, {zipped_at(1)}};
    case Layout::kHalves:
      return {"halves", 2, {run_from(0)}, {run_from(1)}};
    case Layout::kRopeCos:
      return {"rope-cos", 1, {}, {run_from(0)}};
    case Layout::kRopeSin:
      return {"rope-sin", 1, {run_from(0)}, {}};
    case Layout::kRopeCosDup:
      return {"rope-cos-dup", 2, {}, {run_from(0), run_from(1)}};
    case Layout::kRopeSinDup:
      return {"rope-sin-dup", 2, {run_from(0), run_from(1)}, {}};
    case Layout::kRopeCosPairs:
      return {"rope-cos-pairs", 2, {}, {zipped_at(0), zipped_at(1)}};
    case Layout::kRopeSinPairs:
      return {"rope-sin-pairs", 2, {zipped_at(0), zipped_at(1)}, {}};
    case Layout::kRopeCosSin:
      return {"rope-cos-sin", 2, {run_from(1)}, {run_from(0)}};
    case Layout::kPolar:
      return {"polar", 2, {zipped_at(1)}, {zipped_at(0)}};
  }
  return {"?", 0, {}, {}};
}

// Derived from the table.

// Multiplied before dividing, so that an odd d (refused by validate) gives the width it always
// gave: d, or d/2 rounded down.
PEV_HD constexpr int layout_width(Layout layout, int d_model) {
  return layout_entry(layout).width_in_halves * d_model / 2;
}

// Whether a row holds both sin and cos of each pair (what the shift identities rotate), or a
// cache of one function.
PEV_HD constexpr bool holds_sin_and_cos(Layout layout) {
  const LayoutEntry e = layout_entry(layout);
  return e.sin[0].stored() && e.cos[0].stored();
}

// Which pair and which function a table column holds.
struct Column {
  int pair;     // k in [0, d/2)
  bool is_sin;  // sin or cos
};

// Column -> pair: what column `column` of a row holds ({-1, false} outside the row).
PEV_HD constexpr Column pair_of_column(Layout layout, int half, int column) {
  const LayoutEntry e = layout_entry(layout);
  for (int i = 0; i < 2; ++i) {
    if (const int k = e.sin[i].pair_at(half, column); k >= 0) return {k, true};
    if (const int k = e.cos[i].pair_at(half, column); k >= 0) return {k, false};
  }
  return {-1, false};
}

// Pair -> columns: the columns pair k's sin and cos take in a row, -1 where a copy is absent.
struct ColumnsOfPair {
  int sin[2] = {-1, -1};
  int cos[2] = {-1, -1};
};
PEV_HD constexpr ColumnsOfPair columns_of_pair(Layout layout, int half, int k) {
  const LayoutEntry e = layout_entry(layout);
  ColumnsOfPair c;
  for (int i = 0; i < 2; ++i) {
    if (e.sin[i].stored()) c.sin[i] = e.sin[i].column(half, k);
    if (e.cos[i].stored()) c.cos[i] = e.cos[i].column(half, k);
  }
  return c;
}

// The two shapes a row takes, which the fast copies follow: zipped (columns 2k and 2k + 1 hold
// two of pair k's values) or runs (up to two runs of d/2 sin values and two of cos values, each
// from a multiple of d/2). Every layout is one or the other: its slots all step 2 or all step 1.
struct RowShape {
  bool zipped = false;
  bool zipped_sin[2] = {false, false};  // zipped: whether column 2k + i holds sin (else cos)
  int sin_runs[2] = {-1, -1};           // runs: the first column of each run of sin (-1: none)
  int cos_runs[2] = {-1, -1};
};
PEV_HD constexpr RowShape row_shape(Layout layout, int half) {
  const LayoutEntry e = layout_entry(layout);
  RowShape shape;
  shape.zipped = e.sin[0].step == 2 || e.cos[0].step == 2;
  for (int i = 0; i < 2; ++i) {
    if (e.sin[i].step == 2) shape.zipped_sin[e.sin[i].offset] = true;
    if (e.sin[i].step == 1) shape.sin_runs[i] = e.sin[i].first(half);
    if (e.cos[i].step == 1) shape.cos_runs[i] = e.cos[i].first(half);
  }
  return shape;
}

// One row from the values of every pair, sin[k] and cos[k] for k in [0, half): what core/'s
// RowWriter and the oracle's tiles both do, as fast as a copy written for each layout.
template <class T>
void lay_out_row(const RowShape& shape, int half, const T* sin, const T* cos, T* row) {
  if (shape.zipped) {
    const T* first = shape.zipped_sin[0] ? sin : cos;
    const T* second = shape.zipped_sin[1] ? sin : cos;
    for (int k = 0; k < half; ++k) {
      row[2 * k] = first[k];
      row[2 * k + 1] = second[k];
    }
    return;
  }
  for (const int at : shape.sin_runs)
    if (at >= 0) std::copy(sin, sin + half, row + at);
  for (const int at : shape.cos_runs)
    if (at >= 0) std::copy(cos, cos + half, row + at);
}

// The names the command line spells; parse_layout returns nullopt for an unknown name.
inline std::string_view name_of(Layout layout) { return layout_entry(layout).name; }
inline std::optional<Layout> parse_layout(std::string_view name) {
  for (const Layout l : kAllLayouts)
    if (name == name_of(l)) return l;
  return std::nullopt;
}
// kAllLayouts as the vector the option parsers and test drivers take.
inline const std::vector<Layout>& all_layouts() {
  static const std::vector<Layout> all(std::begin(kAllLayouts), std::end(kAllLayouts));
  return all;
}

}  // namespace pev
