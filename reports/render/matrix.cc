#include "peverify/reports/render/matrix.h"

#include <fmt/format.h>

#include <algorithm>

#include "peverify/encoding/format.h"
#include "peverify/encoding/targets.h"
#include "peverify/reports/render/report_text.h"

namespace pev::reports::render {
namespace {

using nlohmann::json;

MatrixCell cell_of(const json& r, const json* rec) {
  if (!rec) return {"", "not studied"};
  // No pick: the study's evidence says why (below what the format holds, or nothing available).
  if ((*rec)["implementation"].is_null()) return {"", (*rec)["evidence"].get<std::string>()};
  const std::string name = (*rec)["implementation"].get<std::string>();
  const json* e = entry_named(r, name);
  return {name, e ? speed_text((*e)["values_per_s"]) : ""};
}

bool same_cell(const MatrixCell& a, const MatrixCell& b) {
  return a.entry == b.entry && a.text == b.text;
}

// Merges runs of identical cells into one spanning cell, and marks a row equal to the previous
// row with the same first label.
void add_row(Matrix& m, std::vector<std::string> labels, const std::vector<MatrixCell>& cells) {
  MatrixRow row;
  row.labels = std::move(labels);
  if (!m.rows.empty() && m.rows.back().labels[0] == row.labels[0]) {
    // Compare with the last row of the group that holds cells.
    const MatrixRow* above = nullptr;
    for (auto it = m.rows.rbegin(); it != m.rows.rend() && it->labels[0] == row.labels[0]; ++it)
      if (it->same_as.empty()) {
        above = &*it;
        break;
      }
    std::vector<MatrixCell> expanded;
    if (above)
      for (const MatrixCell& c : above->cells)
        for (int i = 0; i < c.span; ++i) expanded.push_back({c.entry, c.text, 1});
    if (above && expanded.size() == cells.size() &&
        std::equal(cells.begin(), cells.end(), expanded.begin(), same_cell)) {
      row.same_as = above->labels[1];
      m.rows.push_back(std::move(row));
      return;
    }
  }
  for (const MatrixCell& c : cells) {
    if (!row.cells.empty() && same_cell(row.cells.back(), c))
      ++row.cells.back().span;
    else
      row.cells.push_back(c);
  }
  m.rows.push_back(std::move(row));
}

}  // namespace

Matrix recommendation_matrix(const json& r) {
  Matrix m;
  m.label_headers = {"output", "target"};
  std::vector<uint64_t> contexts;
  std::vector<std::string> dtypes, targets;
  const auto add_unique = [](auto& v, const auto& x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
  };
  for (const json& x : r["recommendations"])
    if (x["model"].is_null()) {
      add_unique(contexts, x["context"].get<uint64_t>());
      add_unique(dtypes, x["dtype"].get<std::string>());
      add_unique(targets, x["target"].get<std::string>());
    }
  for (uint64_t c : contexts) m.column_headers.push_back(fmt::format("{} positions", c));
  for (const std::string& dtype : dtypes)
    for (const std::string& target : targets) {
      std::vector<MatrixCell> cells;
      bool asked = false;  // the study asks no type a target it cannot hold: no row for it
      for (uint64_t context : contexts) {
        const json* rec = nullptr;
        for (const json& x : r["recommendations"])
          if (x["model"].is_null() && x["dtype"] == dtype && x["target"] == target &&
              x["context"] == context)
            rec = &x;
        asked = asked || rec;
        cells.push_back(cell_of(r, rec));
      }
      if (asked) add_row(m, {dtype, target}, cells);
    }
  return m;
}

Matrix model_matrix(const json& r) {
  Matrix m;
  m.label_headers = {"model", "output"};
  std::vector<std::string> targets, dtypes;
  const auto add_unique = [](auto& v, const auto& x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
  };
  for (const json& x : r["recommendations"])
    if (!x["model"].is_null()) {
      add_unique(targets, x["target"].get<std::string>());
      add_unique(dtypes, x["dtype"].get<std::string>());
    }
  m.column_headers = targets;
  if (!r.contains("models")) return m;
  for (const json& model : r["models"])
    for (const std::string& dtype : dtypes) {
      std::vector<MatrixCell> cells;
      for (const std::string& target : targets) {
        const json* rec = nullptr;
        for (const json& x : r["recommendations"])
          if (x["model"] == model["name"] && x["dtype"] == dtype && x["target"] == target) rec = &x;
        const std::optional<Dtype> t = parse_dtype(dtype);
        if (!rec && t && beyond_output_format(*t, target))  // not asked of this type
          cells.push_back({"", fmt::format("not asked: {}'s own rounding errs by up to {:.2g}",
                                           dtype, output_rounding_error(*t))});
        else
          cells.push_back(cell_of(r, rec));
      }
      // Rows of one model never merge with another model's.
      add_row(m, {model["name"].get<std::string>(), dtype}, cells);
    }
  return m;
}

}  // namespace pev::reports::render
