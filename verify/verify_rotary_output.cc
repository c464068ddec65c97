// verify-rotary's verdict as text and as JSON: each element named by token, head and dimension.
#include <fmt/format.h>

#include "peverify/encoding/format.h"
#include "peverify/support/json_number.h"
#include "peverify/verify/verify.h"
#include "peverify/verify/verify_rotary.h"

namespace pev::verify {
namespace {

std::string where(const VerifyRotaryResult& r, const properties::Finding& f) {
  const TensorGeometry& g = r.options.geometry;
  const uint64_t row = f.row.value_or(0);
  const TensorGeometry::Place p = g.place(row);
  const std::string token = g.batch > 1 ? fmt::format("batch {}, seq {}", p.batch, p.seq)
                                        : fmt::format("token {}", p.seq);
  return fmt::format(
      "{}, head {}, dim {} (position {}{})", token, p.head, f.column, f.pos,
      f.stream >= 0 ? fmt::format(", stream {}", measure::stream_name(f.stream)) : "");
}

// "pairs interleaved in and out", or DeepSeek's "pairs interleaved in, halves out".
std::string pairs_text(const RotationSpec& s) {
  const PairConvention out = output_convention(s);
  if (out == s.pairs) return fmt::format("pairs {} in and out", name_of(s.pairs));
  return fmt::format("pairs {} in, {} out", name_of(s.pairs), name_of(out));
}

std::string positions_text(const VerifyRotaryOptions& o) {
  if (o.positions) return o.positions->describe(o.positions_name);
  return fmt::format("positions {}.. along each sequence", o.start);
}

}  // namespace

std::string to_text(const VerifyRotaryResult& r) {
  const VerifyRotaryOptions& o = r.options;
  const RotationSpec& s = o.spec;
  std::string out = fmt::format(
      "{} -> {}: {}; axes {}{}, {} x {} heads x {}; rotary dim {} of {}, {}, base {:g}, {}, "
      "{}{}; budget {}\n",
      r.input, r.output, r.description, name_of(o.geometry.axes),
      o.axes_assumed ? " (assumed from the rank: say --axes)" : "",
      o.geometry.batch * o.geometry.seq, o.geometry.heads, o.geometry.head_dim, s.table.d_model,
      s.head_dim, pairs_text(s), s.table.base,
      is_plain(s.table) && s.table.rope.mrope_section.empty()
          ? std::string(name_of(s.table.schedule)) + " schedule"
          : "rotary " + describe(s.table.rope),
      positions_text(o), o.source.empty() ? "" : "; from " + o.source,
      o.claim == Claim::Kind::kModel
          ? "model (" + o.compute.describe() + ")"
          : std::string(o.claim == Claim::Kind::kStrict ? "strict" : "faithful"));
  for (const properties::PropertyVerdict& v : r.verdicts)
    out += fmt::format("  {:<12} {:<5} {}\n", v.property, v.holds ? "holds" : "FAILS", v.summary);
  bool header = false;
  for (const properties::PropertyVerdict& v : r.verdicts) {
    if (v.holds) continue;
    if (!header) out += "worst elements:\n";
    header = true;
    for (const properties::Finding& f : v.worst)
      out += fmt::format(
          "  {}: got {:.9g} ({:a}), {} {:.9g}, abs error {:.3g}; {} allows {:.3g} ({})\n",
          where(r, f), f.got, f.got, v.property == "rotation" ? "exact" : "input", f.expected,
          f.error, v.property, f.allowed, f.what);
  }
  if (r.diagnosis) out += to_text(*r.diagnosis) + "\n";
  int failing = 0;
  for (const properties::PropertyVerdict& v : r.verdicts) failing += !v.holds;
  out += failing ? fmt::format("verdict: FAIL ({} of {} properties)\n", failing, r.verdicts.size())
                 : std::string("verdict: PASS\n");
  return out;
}

nlohmann::json to_json(const VerifyRotaryResult& r) {
  const VerifyRotaryOptions& o = r.options;
  nlohmann::json j;
  j["input"] = r.input;
  j["output"] = r.output;
  j["description"] = r.description;
  j["output_dtype"] = name_of(r.output_dtype);
  j["axes"] = name_of(o.geometry.axes);
  j["axes_assumed"] = o.axes_assumed;
  j["shape"] = {{"batch", o.geometry.batch},
                {"seq", o.geometry.seq},
                {"heads", o.geometry.heads},
                {"head_dim", o.geometry.head_dim}};
  j["rotary_dim"] = o.spec.table.d_model;
  j["pairs"] = name_of(o.spec.pairs);
  j["output_pairs"] = name_of(output_convention(o.spec));
  j["rope"] = rope_json(o.spec.table);
  j["base"] = o.spec.table.base;
  j["positions"] = positions_text(o);
  j["source"] = o.source;
  j["budget"] = o.claim == Claim::Kind::kModel    ? "model"
                : o.claim == Claim::Kind::kStrict ? "strict"
                                                  : "faithful";
  j["compute"] = o.compute.name;
  j["holds"] = r.holds();
  j["elements"] = r.elements;
  j["seconds"] = r.seconds;
  if (r.diagnosis) {
    j["diagnosis"] = to_json(*r.diagnosis);
    j["diagnosis_seconds"] = r.diagnosis_seconds;
  }
  j["properties"] = nlohmann::json::array();
  for (const properties::PropertyVerdict& v : r.verdicts) {
    nlohmann::json worst = nlohmann::json::array();
    for (const properties::Finding& f : v.worst) {
      const TensorGeometry::Place p = o.geometry.place(f.row.value_or(0));
      worst.push_back({{"row", f.row.value_or(0)},
                       {"batch", p.batch},
                       {"seq", p.seq},
                       {"head", p.head},
                       {"dim", f.column},
                       {"pos", f.pos},
                       {"got", finite_or_null(f.got)},
                       {"expected", f.expected},
                       {"abs_error", finite_or_null(f.error)},
                       {"budget", f.allowed},
                       {"what", f.what}});
      if (f.stream >= 0) worst.back()["stream"] = measure::stream_name(f.stream);
    }
    j["properties"].push_back({{"property", v.property},
                               {"holds", v.holds},
                               {"summary", v.summary},
                               {"checked", v.checked},
                               {"figures", v.figures},
                               {"worst", worst}});
  }
  return j;
}

}  // namespace pev::verify
