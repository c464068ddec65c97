// verify for the sinusoidal tables beyond the Transformer's (docs/features.md §16): a diffusion
// timestep embedding or a multi-axis RoPE table, every element judged against its exact value,
// and ALiBi's slopes. The same claims, words and exit codes as `peverify verify`.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "peverify/encoding/claim.h"
#include "peverify/encoding/sinusoids/table.h"
#include "peverify/verify/verify.h"

namespace pev::verify::sinusoids {

// One element a property names: its row and column, the row's positions, its value, the exact
// value and what was allowed.
struct SinusoidFinding {
  uint64_t row = 0;               // a table's row, or a rotation's token
  int column = 0;                 // a table's column, or a rotation's dim
  std::vector<double> positions;  // the row's position on each axis (a timestep: tau)
  double got = 0, exact = 0, error = 0, allowed = 0, ulp = 0;
  std::string what;   // "number", "nan", "inf", or what the property compared
  int64_t head = -1;  // a rotation's head; -1 for a table
};

struct SinusoidProperty {
  explicit SinusoidProperty(std::string name = {}) : property(std::move(name)) {}
  std::string property;  // oracle, bounded, copies, consistent
  bool holds = true;
  uint64_t judged = 0, failed = 0;
  std::string note;                    // one line: what was checked
  std::vector<SinusoidFinding> worst;  // the worst failing elements, worst first
};

// A property's failing element: counted, and kept among its worst (by error over allowed; NaN and
// Inf first), at most kWorstFindings of them. keep_worst keeps without counting (merging tallies).
inline constexpr size_t kWorstFindings = 8;
void record_failure(SinusoidProperty& p, SinusoidFinding f);
void keep_worst(SinusoidProperty& p, SinusoidFinding f);

// What the caller declared: the table's description and the rows' positions.
struct SinusoidDeclaration {
  SinusoidTable table;
  AxisPositions positions;     // the exact argument of each row on each axis (tau for timesteps)
  std::string what;            // "timestep recipe adm (...)", "axes flux: 16+56+56, theta 10000"
  std::string positions_text;  // "T.npy: 1000 timesteps float32, 0 .. 999"
  // The flags of the declaration, for the diagnosis's "matches" ("--timestep-recipe adm").
  std::vector<std::string> flags;
};

// Declarations one field away from the user's, each with the cause it names and its flags: built
// by the command (it knows the recipe) and tried by the diagnosis on failing rows.
struct SinusoidAlternative {
  std::string cause, detail;
  SinusoidDeclaration declaration;
};

struct SinusoidInput {
  std::string name, description;
  Dtype dtype = Dtype::kFloat32;
  uint64_t rows = 0, width = 0;
  std::vector<double> values;  // rows x width, widened exactly
};

struct SinusoidVerdict {
  SinusoidVerdict() = default;
  // The input's name and storage, what was declared and the claim: every verdict starts so.
  SinusoidVerdict(const SinusoidInput& in, std::string kind, std::string declared,
                  std::string positions, const Claim& claim)
      : table(in.name),
        description(in.description),
        kind(std::move(kind)),
        declaration(std::move(declared)),
        positions(std::move(positions)),
        dtype(in.dtype),
        claim(claim) {}
  std::string table, description, kind, declaration, positions;
  Dtype dtype = Dtype::kFloat32;
  Claim claim;
  uint64_t elements = 0;
  double max_abs_error = 0, max_ulp = 0;  // over the finite elements (ulps floored as verify's)
  std::vector<SinusoidProperty> properties;
  std::optional<Diagnosis> diagnosis;
  double seconds = 0;
  bool holds() const;
};

SinusoidVerdict verify_sinusoid(const SinusoidInput& input, const SinusoidDeclaration& declared,
                                const std::vector<SinusoidAlternative>& alternatives,
                                const Claim& claim, int threads);

nlohmann::json to_json(const SinusoidVerdict& v);
std::string to_text(const SinusoidVerdict& v);

}  // namespace pev::verify::sinusoids
