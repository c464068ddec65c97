// How a file's element type becomes a Dtype, for both readers: one table of the types peverify
// reads (a .npy descr without its byte order, a .safetensors dtype name) and one rule for what
// `--dtype` may say about each (docs/architecture.md §9). The readers word their own messages.
//
// Header-only: every build of the readers (the library, the fuzz targets) compiles it for free.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peverify/encoding/format.h"
#include "peverify/encoding/spec.h"
#include "peverify/encoding/vocabulary.h"

namespace pev {

struct StoredType {
  std::string_view npy = {};          // the descr's type without its byte order ("f4"); "": none
  std::string_view safetensors = {};  // the header's dtype ("F32"); "": none
  // The float type stored (a complex type: that of each part); nullopt: 16-bit patterns that
  // are no float type of their own, read as --dtype says.
  std::optional<Dtype> natural = std::nullopt;
  bool complex = false;  // each element two values of `natural`: real, imaginary
  // Bit patterns only: what NumPy calls them, for messages; how to read them without --dtype.
  std::string_view patterns = {};
  std::optional<Dtype> implied = std::nullopt;

  bool bit_patterns() const { return !natural; }
  int parts() const { return complex ? 2 : 1; }  // values per element
  // Bytes per element when each value is read as `dtype`.
  int element_bytes(Dtype dtype) const { return traits_of(dtype).storage_bits / 8 * parts(); }
};

// Floats first, then bit patterns: the order the readers' messages list them in.
inline constexpr StoredType kStoredTypes[] = {
    {.npy = "f8", .safetensors = "F64", .natural = Dtype::kFloat64},
    {.npy = "f4", .safetensors = "F32", .natural = Dtype::kFloat32},
    {.npy = "f2", .safetensors = "F16", .natural = Dtype::kFloat16},
    {.safetensors = "BF16", .natural = Dtype::kBFloat16},
    {.npy = "c8", .safetensors = "C64", .natural = Dtype::kFloat32, .complex = true},
    {.npy = "c16", .natural = Dtype::kFloat64, .complex = true},
    {.npy = "u2", .safetensors = "U16", .patterns = "uint16"},
    {.npy = "i2", .safetensors = "I16", .patterns = "int16"},
    // NumPy saves ml_dtypes' bfloat16 as a 2-byte void.
    {.npy = "V2", .patterns = "2-byte void", .implied = Dtype::kBFloat16},
};

// The entry a format names `name` (format: &StoredType::npy or &StoredType::safetensors), or
// nullptr when peverify does not read it.
inline const StoredType* find_stored_type(std::string_view StoredType::*format,
                                          std::string_view name) {
  if (name.empty()) return nullptr;  // "" marks a type the format lacks
  for (const StoredType& t : kStoredTypes)
    if (t.*format == name) return &t;
  return nullptr;
}

// What stops a type being read with the --dtype given.
enum class DtypeProblem {
  kNone,
  kMismatch,        // --dtype names another float type than the file stores
  kNotPatternType,  // --dtype names a type 16-bit patterns cannot be (neither bfloat16 nor float16)
  kNeedsDtype,      // bit patterns with no --dtype and no implied reading
};

struct DtypeChoice {
  Dtype dtype = Dtype::kFloat32;  // what the elements are read as (when problem is kNone)
  DtypeProblem problem = DtypeProblem::kNone;
};

// A float type is read as itself, and --dtype must agree; bit patterns are read as --dtype says
// (bfloat16 or float16), else as their implied type.
inline DtypeChoice choose_dtype(const StoredType& t, std::optional<Dtype> requested) {
  if (t.natural) {
    if (requested && *requested != *t.natural) return {*t.natural, DtypeProblem::kMismatch};
    return {*t.natural};
  }
  if (requested) {
    if (*requested != Dtype::kBFloat16 && *requested != Dtype::kFloat16)
      return {*requested, DtypeProblem::kNotPatternType};
    return {*requested};
  }
  if (t.implied) return {*t.implied};
  return {Dtype::kFloat32, DtypeProblem::kNeedsDtype};
}

// The names a format reads, for its messages, each as `show` writes it: the floats joined by
// ", " ("F64, F32, F16, BF16, C64") and the bit patterns with "or" before the last
// ("U16 or I16").
struct ReadableNames {
  std::string floats, patterns;
};
template <typename Show>
ReadableNames readable_names(std::string_view StoredType::*format, Show show) {
  std::vector<std::string> floats, patterns;
  for (const StoredType& t : kStoredTypes)
    if (!(t.*format).empty()) (t.bit_patterns() ? patterns : floats).push_back(show(t.*format));
  ReadableNames names;
  names.floats = fmt::format("{}", fmt::join(floats, ", "));
  names.patterns = in_words(patterns, "or");
  return names;
}

}  // namespace pev
