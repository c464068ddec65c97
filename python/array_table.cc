#include "peverify/python/array_table.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "peverify/encoding/model_config.h"

namespace py = pybind11;

namespace pev::python {
namespace {

[[noreturn]] void fail(const std::string& message) { throw ConfigError(message); }

struct ElementType {
  Dtype dtype = Dtype::kFloat32;
  bool complex = false;
  bool big_endian = false;
  bool patterns = false;  // 16-bit integers: bit patterns of a 16-bit float
  std::string descr;      // NumPy's spelling, for messages: "<f4"
};

// The struct-module format of a buffer ("f", "<e", "Zf", "=H", ...) as an element type.
ElementType element_type(std::string_view format, py::ssize_t itemsize) {
  ElementType t;
  char order = '=';
  if (!format.empty() && std::string_view("<>=@!").find(format[0]) != std::string_view::npos) {
    order = format[0];
    format.remove_prefix(1);
  }
  t.big_endian = order == '>' || order == '!';
  const char* e = t.big_endian ? ">" : "<";
  if (format == "d" && itemsize == 8) {
    t.dtype = Dtype::kFloat64;
    t.descr = fmt::format("{}f8", e);
  } else if (format == "f" && itemsize == 4) {
    t.descr = fmt::format("{}f4", e);
  } else if (format == "e" && itemsize == 2) {
    t.dtype = Dtype::kFloat16;
    t.descr = fmt::format("{}f2", e);
  } else if (format == "Zf" && itemsize == 8) {
    t.complex = true;
    t.descr = fmt::format("{}c8", e);
  } else if (format == "Zd" && itemsize == 16) {
    t.dtype = Dtype::kFloat64;
    t.complex = true;
    t.descr = fmt::format("{}c16", e);
  } else if ((format == "H" || format == "h") && itemsize == 2) {
    t.patterns = true;
    t.descr = fmt::format("{}{}2", e, format == "H" ? 'u' : 'i');
  } else {
    fail(
        fmt::format("unsupported element type '{}' ({} bytes): peverify reads float64, float32, "
                    "float16, complex64/128 (polar), and uint16/int16 bit patterns with "
                    "dtype='bfloat16' or 'float16'",
                    format, itemsize));
  }
  return t;
}

// The buffer of `table`: its own, or NumPy's view of an object with __array__ (a CPU tensor
// shares its memory with it).
py::buffer_info buffer_of(const py::object& table) {
  if (py::isinstance<py::buffer>(table)) return table.cast<py::buffer>().request();
  if (!py::hasattr(table, "__array__"))
    fail(
        fmt::format("the table must be a NumPy array, a CPU tensor or another object with the "
                    "buffer protocol, not {}",
                    py::str(py::type::of(table).attr("__name__")).cast<std::string>()));
  try {
    return py::module_::import("numpy").attr("asarray")(table).cast<py::buffer>().request();
  } catch (const py::error_already_set& e) {
    fail(
        fmt::format("cannot read the table as an array ({}); a bfloat16 tensor is read as "
                    "t.view(torch.int16).numpy() with dtype='bfloat16'",
                    e.what()));
  }
}

}  // namespace

ArrayTable array_table(const py::object& table, const std::optional<std::string>& dtype_name) {
  ArrayTable a{buffer_of(table), nullptr};
  ElementType t = element_type(a.buffer.format, a.buffer.itemsize);
  std::optional<Dtype> requested;
  if (dtype_name) {
    requested = parse_dtype(*dtype_name);
    if (!requested)
      fail(fmt::format("unknown dtype '{}' (float64, float32, float16, bfloat16)", *dtype_name));
  }
  if (t.patterns) {
    if (!requested || (*requested != Dtype::kBFloat16 && *requested != Dtype::kFloat16))
      fail(
          fmt::format("the table holds 16-bit integers ({}); if these are bfloat16 bit "
                      "patterns, pass dtype='bfloat16' (or 'float16')",
                      t.descr));
    t.dtype = *requested;
  } else if (requested && *requested != t.dtype) {
    fail(fmt::format("dtype='{}' does not match the array's {}", *dtype_name, t.descr));
  }

  std::vector<uint64_t> shape(a.buffer.shape.begin(), a.buffer.shape.end());
  const auto dims = table_shape(shape);
  if (!dims)
    fail(fmt::format("expected shape [N, d] (extra dimensions of size 1 allowed), found {}",
                     shape_string(shape)));
  const auto [rows, width] = *dims;
  if (rows == 0 || width == 0)
    fail(fmt::format("the table is empty (shape {})", shape_string(shape)));

  // Which dimensions hold the rows and the columns, and whether memory is in C or Fortran order
  // along them (dimensions of size 1 have any stride).
  const int last = static_cast<int>(shape.size()) - 1;
  int row_dim = last - 1;
  for (int i = 0; i < last; ++i)
    if (shape[i] != 1) row_dim = i;
  const py::ssize_t item = a.buffer.itemsize;
  const auto stride = [&](int dim) { return a.buffer.strides[static_cast<size_t>(dim)]; };
  const bool c_order = (width == 1 || stride(last) == item) &&
                       (rows == 1 || stride(row_dim) == static_cast<py::ssize_t>(width) * item);
  const bool f_order = !t.complex && (rows == 1 || stride(row_dim) == item) &&
                       (width == 1 || stride(last) == static_cast<py::ssize_t>(rows) * item);
  if (!c_order && !f_order) {
    // A strided view: read from a contiguous copy (the only case that copies).
    py::object copy = py::module_::import("numpy").attr("ascontiguousarray")(table);
    ArrayTable c = array_table(copy, dtype_name);
    c.copied = true;
    return c;
  }

  TableHeader header;
  header.layout.dtype = t.dtype;
  header.layout.big_endian = t.big_endian;
  header.layout.column_major = !c_order;
  header.layout.rows = rows;
  header.layout.width = t.complex ? 2 * width : width;
  header.complex = t.complex;
  header.shape = shape;
  header.description = fmt::format("array {} {}", t.descr, shape_string(shape));
  const std::string_view bytes(static_cast<const char*>(a.buffer.ptr),
                               static_cast<size_t>(rows * width * static_cast<uint64_t>(item)));
  a.stream = std::make_unique<TableStream>(std::make_unique<MemorySource>(bytes, "array"),
                                           std::move(header));
  return a;
}

std::pair<py::object, std::optional<std::string>> host_array(
    const py::object& v, const std::optional<std::string>& dtype) {
  if (!(py::hasattr(v, "detach") && py::hasattr(v, "cpu") && py::hasattr(v, "dtype")))
    return {v, dtype};
  py::object a = v.attr("detach")().attr("cpu")();  // a device tensor: one copy to the host
  if (py::str(a.attr("dtype")).cast<std::string>() != "torch.bfloat16") return {a, dtype};
  if (dtype && *dtype != "bfloat16")
    throw ConfigError("a bfloat16 tensor, read with dtype='" + *dtype + "'");
  return {a.attr("contiguous")().attr("view")(py::module_::import("torch").attr("int16")),
          std::string("bfloat16")};
}

}  // namespace pev::python
