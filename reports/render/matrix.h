// The recommendation as a matrix (internal to reports/): rows output x target, columns context
// lengths, each cell the implementation and its speed; identical neighbouring cells merged, and a
// row identical to the one above it marked "same as". report.json and the CSV keep the long form.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pev::reports::render {

struct MatrixCell {
  std::string entry;  // the implementation; empty when nothing meets the target
  std::string text;   // its speed, or why nothing meets the target
  int span = 1;       // columns this cell covers after merging identical neighbours
};

struct MatrixRow {
  std::vector<std::string> labels;  // {"float32", "1e-4"} or {"llama-3.1-8b", "bfloat16"}
  std::vector<MatrixCell> cells;    // merged: their spans add up to the columns
  std::string same_as;  // the label of the row above when every cell equals it (cells empty)
};

struct Matrix {
  std::vector<std::string> label_headers;   // {"output", "target"}
  std::vector<std::string> column_headers;  // the contexts, or the targets
  std::vector<MatrixRow> rows;
};

// The plain encoding's recommendations: rows output x target, columns context lengths.
Matrix recommendation_matrix(const nlohmann::json& report);
// The rotary models' recommendations: rows model x output, columns targets.
Matrix model_matrix(const nlohmann::json& report);

}  // namespace pev::reports::render
