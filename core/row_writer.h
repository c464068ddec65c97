// Every strategy computes, per row, sin and cos for each pair in its compute precision; the
// RowWriter lays them out (interleaved, halves, rotary caches) and converts them to the output
// type. One per thread: it owns a scratch row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "peverify/core/convert.h"
#include "peverify/encoding/spec.h"

namespace pev::core {

size_t element_size(Dtype output);  // bytes per stored element

template <typename T>  // float or double
class RowWriter {
 public:
  RowWriter(const TableSpec& spec, Dtype output, Conversion conversion);
  // sin[k], cos[k] for k in [0, d/2) become row `row` of `table`.
  void write(const T* sin, const T* cos, void* table, uint64_t row);

 private:
  TableSpec spec_;
  Dtype output_;
  Conversion conversion_;
  int width_;
  std::vector<T> row_;
};

extern template class RowWriter<float>;
extern template class RowWriter<double>;

}  // namespace pev::core
