#include "peverify/oracle/hard_cases_testutil.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "peverify/encoding/format.h"
#include "peverify/oracle/arb_agreement_testutil.h"
#include "peverify/oracle/engine.h"

namespace pev::oracle {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, '\t');) fields.push_back(f);
  return fields;
}

// One data row, or nullopt when its fields do not parse.
std::optional<HardCase> parse_row(const std::string& line, int n) {
  const std::vector<std::string> f = split_tabs(line);
  const auto schedule = f.size() == 10 ? parse_schedule(f[2]) : std::nullopt;
  const auto dtype = f.size() == 10 ? parse_dtype(f[6]) : std::nullopt;
  if (!schedule || !dtype || (f[5] != "sin" && f[5] != "cos")) return std::nullopt;
  HardCase c;
  c.line = n;
  try {
    c.spec.d_model = std::stoi(f[0]);
    c.pos = std::stoull(f[3]);
    c.pair = std::stoi(f[4]);
    c.expected_bits = std::stoull(f[7], nullptr, 16);
    c.min_rung = std::stoi(f[8]);
  } catch (const std::logic_error&) {  // std::invalid_argument or std::out_of_range
    return std::nullopt;
  }
  c.base_text = f[1];
  c.spec.base = std::strtod(f[1].c_str(), nullptr);  // decimal or hex-float, both exact
  c.spec.schedule = *schedule;
  c.is_sin = f[5] == "sin";
  c.dtype = *dtype;
  c.origin = f[9];
  return c;
}

}  // namespace

HardCases read_hard_cases(const std::string& path) {
  HardCases out;
  std::ifstream in(path);
  if (!in) {
    out.errors.push_back("cannot open " + path + " (run from the repository root)");
    return out;
  }
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#' || line.rfind("d_model", 0) == 0) continue;
    std::optional<HardCase> c = parse_row(line, n);
    if (!c) {
      out.errors.push_back(fmt::format("{}:{}: malformed row: {}", path, n, line));
      continue;
    }
    if (auto err = validate_range(c->spec, 1)) {
      out.errors.push_back(fmt::format("{}:{}: {}", path, n, *err));
      continue;
    }
    out.cases.push_back(*c);
  }
  return out;
}

std::string where(const HardCase& c, const std::string& path) {
  return fmt::format("{}:{}: d={} base={} {} pos={} pair={} {} {}", path, c.line, c.spec.d_model,
                     c.base_text, name_of(c.spec.schedule), c.pos, c.pair, c.is_sin ? "sin" : "cos",
                     name_of(c.dtype));
}

Evaluated evaluate(const HardCase& c) {
  const auto engine = make_mpfr_engine(c.spec, c.dtype);
  TileValues v;
  const int rung = agreement::decided_rung(*engine, c.pos, c.pair, v);
  const double value = c.is_sin ? v.sin_rounded[0] : v.cos_rounded[0];
  return {encode_exact(value, c.dtype), value, rung};
}

std::string row_of(const HardCase& c, uint64_t expected_bits, int min_rung) {
  return fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t0x{:x}\t{}\t{}", c.spec.d_model, c.base_text,
                     name_of(c.spec.schedule), c.pos, c.pair, c.is_sin ? "sin" : "cos",
                     name_of(c.dtype), expected_bits, min_rung, c.origin);
}

}  // namespace pev::oracle
