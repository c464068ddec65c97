// What a user declares about a timestep embedding or a multi-axis RoPE table, turned into what the
// pass judges (sinusoid_verify.h) and the declarations one field away the diagnosis tries. The
// command line and the Python module both come through here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "peverify/encoding/layout.h"
#include "peverify/encoding/sinusoids/rope_axes.h"
#include "peverify/encoding/sinusoids/timestep.h"
#include "peverify/verify/sinusoids/sinusoid_verify.h"

namespace pev::verify::sinusoids {

// Numbers as read (a .npy or an array): their shape and values in C order.
struct Numbers {
  std::string name;  // "T.npy", "timesteps"
  std::string type;  // "float32", "int64"
  std::vector<uint64_t> shape;
  std::vector<double> values;
};

// The timesteps of `rows` rows: shape [N] (dimensions of size 1 allowed); ConfigError otherwise.
SinusoidDeclaration timestep_declaration(const TimestepRecipe& r, int width, const Numbers& t,
                                         uint64_t rows);
std::vector<SinusoidAlternative> timestep_alternatives(const TimestepRecipe& r, int width,
                                                       const Numbers& t, uint64_t rows);

// The ids of `rows` rows on each axis: shape [A, N], or [N, A] as Flux keeps img_ids (dimensions
// of size 1 allowed); ConfigError otherwise, or where the axes' width is not the table's.
SinusoidDeclaration axes_declaration(const RopeAxes& a, Layout layout, const Numbers& ids,
                                     uint64_t rows, uint64_t width);
std::vector<SinusoidAlternative> axes_alternatives(const RopeAxes& a, Layout layout,
                                                   const SinusoidDeclaration& declared);

}  // namespace pev::verify::sinusoids
