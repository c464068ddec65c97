#include "peverify/core/row_writer.h"

#include <algorithm>

namespace pev::core {

size_t element_size(Dtype output) {
  switch (output) {
    case Dtype::kFloat64:
      return 8;
    case Dtype::kFloat32:
      return 4;
    default:
      return 2;
  }
}

template <typename T>
RowWriter<T>::RowWriter(const TableSpec& spec, Dtype output, Conversion conversion)
    : spec_(spec),
      output_(output),
      conversion_(conversion),
      width_(table_width(spec)),
      row_(static_cast<size_t>(width_)) {}

template <typename T>
void RowWriter<T>::write(const T* sin, const T* cos, void* table, uint64_t row) {
  const int half = spec_.d_model / 2;
  T* r = row_.data();
  switch (spec_.layout) {
    case Layout::kInterleaved:
      for (int k = 0; k < half; ++k) {
        r[2 * k] = sin[k];
        r[2 * k + 1] = cos[k];
      }
      break;
    case Layout::kHalves:
      std::copy(sin, sin + half, r);
      std::copy(cos, cos + half, r + half);
      break;
    case Layout::kRopeCos:
      std::copy(cos, cos + half, r);
      break;
    case Layout::kRopeSin:
      std::copy(sin, sin + half, r);
      break;
    case Layout::kRopeCosDup:
      std::copy(cos, cos + half, r);
      std::copy(cos, cos + half, r + half);
      break;
    case Layout::kRopeSinDup:
      std::copy(sin, sin + half, r);
      std::copy(sin, sin + half, r + half);
      break;
    case Layout::kRopeCosPairs:
      for (int k = 0; k < half; ++k) r[2 * k] = r[2 * k + 1] = cos[k];
      break;
    case Layout::kRopeSinPairs:
      for (int k = 0; k < half; ++k) r[2 * k] = r[2 * k + 1] = sin[k];
      break;
    case Layout::kRopeCosSin:
      std::copy(cos, cos + half, r);
      std::copy(sin, sin + half, r + half);
      break;
    case Layout::kPolar:
      for (int k = 0; k < half; ++k) {
        r[2 * k] = cos[k];
        r[2 * k + 1] = sin[k];
      }
      break;
  }
  char* dst = static_cast<char*>(table) + row * width_ * element_size(output_);
  convert_row(r, static_cast<size_t>(width_), output_, conversion_, dst);
}

template class RowWriter<float>;
template class RowWriter<double>;

}  // namespace pev::core
