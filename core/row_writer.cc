#include "peverify/core/row_writer.h"

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
      shape_(row_shape(spec.layout, spec.d_model / 2)),
      width_(table_width(spec)),
      row_(static_cast<size_t>(width_)) {}

template <typename T>
void RowWriter<T>::write(const T* sin, const T* cos, void* table, uint64_t row) {
  lay_out_row(shape_, spec_.d_model / 2, sin, cos, row_.data());
  char* dst = static_cast<char*>(table) + row * width_ * element_size(output_);
  convert_row(row_.data(), static_cast<size_t>(width_), output_, conversion_, dst);
}

template class RowWriter<float>;
template class RowWriter<double>;

}  // namespace pev::core
