#include "measure/error.h"

namespace pev::measure {

std::string_view name_of(Category c) {
  switch (c) {
    case Category::kNumber:
      return "number";
    case Category::kNaN:
      return "nan";
    case Category::kInf:
      return "inf";
    case Category::kSignMismatch:
      return "sign";
  }
  return "?";
}

}  // namespace pev::measure
