#include "peverify/reports/render/code_advice.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "peverify/support/html_escape.h"

namespace pev::reports::render {
namespace {

using nlohmann::json;

// One piece of code and every cell it answers: per (output, target), the contexts.
struct Advice {
  std::string implementation, code, cuda;
  std::vector<std::pair<std::string, std::vector<uint64_t>>> cells;  // "float32 at 1e-4"
  std::vector<std::string> replaces;                                 // distinct
};

std::vector<Advice> grouped(const json& r) {
  std::vector<Advice> out;
  if (!r.contains("recommendations")) return out;
  for (const json& x : r["recommendations"]) {
    if (!x.contains("pytorch") || !x["model"].is_null()) continue;
    const json& p = x["pytorch"];
    const std::string name = p["implementation"].get<std::string>();
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const Advice& a) { return a.implementation == name; });
    if (it == out.end()) {
      out.push_back({name, p["code"].get<std::string>(), p["cuda"].get<std::string>(), {}, {}});
      it = out.end() - 1;
    }
    const std::string cell =
        fmt::format("{} at {}", x["dtype"].get<std::string>(), x["target"].get<std::string>());
    auto c = std::find_if(it->cells.begin(), it->cells.end(),
                          [&](const auto& e) { return e.first == cell; });
    if (c == it->cells.end()) c = it->cells.insert(it->cells.end(), {cell, {}});
    c->second.push_back(x["context"].get<uint64_t>());
    const std::string replaces = p["replaces"].get<std::string>();
    if (!replaces.empty() &&
        std::find(it->replaces.begin(), it->replaces.end(), replaces) == it->replaces.end())
      it->replaces.push_back(replaces);
  }
  return out;
}

// "float32 at 1e-4 (4096, 32768 positions); float32 at faithful (4096 positions)"
std::string cells_text(const Advice& a) {
  std::vector<std::string> cells;
  for (const auto& [cell, contexts] : a.cells)
    cells.push_back(fmt::format("{} ({} positions)", cell, fmt::join(contexts, ", ")));
  return fmt::format("{}", fmt::join(cells, "; "));
}

constexpr const char* kIntro =
    "What to write for each cell of the matrix above: the PyTorch function whose table is, bit "
    "for bit, the named entry's (its figures are that entry's), float64 arithmetic where it meets "
    "the target and peverify's generator where nothing in PyTorch does; each is run as printed "
    "and verified at its cell's target by python/tests/test_recommend_snippets.py. `peverify "
    "recommend --json FILE` gives the same under \"pytorch\".";

}  // namespace

std::string code_advice_markdown(const json& r) {
  const std::vector<Advice> advice = grouped(r);
  if (advice.empty()) return "";
  std::string md = fmt::format("\n## In your code\n\n{}\n", kIntro);
  for (const Advice& a : advice) {
    md += fmt::format("\n**`{}`**, for {}:\n\n```python\n{}```\n\nIn a CUDA kernel: {}.\n",
                      a.implementation, cells_text(a), a.code, a.cuda);
    for (const std::string& x : a.replaces) md += fmt::format("\nReplaces {}.\n", x);
  }
  return md;
}

std::string code_advice_html(const json& r) {
  const std::vector<Advice> advice = grouped(r);
  if (advice.empty()) return "";
  std::string h =
      fmt::format("<section id=\"code\"><h2>In your code</h2><p>{}</p>\n", html_escape(kIntro));
  for (const Advice& a : advice) {
    h +=
        fmt::format("<h3><code>{}</code></h3><p>For {}.</p><pre><code>{}</code></pre>",
                    html_escape(a.implementation), html_escape(cells_text(a)), html_escape(a.code));
    h += fmt::format("<p>In a CUDA kernel: {}.</p>\n", html_escape(a.cuda));
    for (const std::string& x : a.replaces)
      h += fmt::format("<p>Replaces {}.</p>\n", html_escape(x));
  }
  return h + "</section>\n";
}

}  // namespace pev::reports::render
