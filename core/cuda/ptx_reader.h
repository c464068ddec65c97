// Reading PTX for the tests that inspect it without a GPU (ptx_test.cc, rotation_ptx_test.cc):
// the kernels and device functions of PTX files, each with its body and what it calls.
#pragma once

#include <cxxabi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace pev::core::cuda {

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);)
    if (!part.empty()) out.push_back(part);
  return out;
}

inline std::string without_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

inline std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 ? std::string(d.get()) : name;
}

// The functions of PTX files: kernels (.entry) and device functions (.func), each with its body
// and the functions it calls.
class Ptx {
 public:
  explicit Ptx(const std::string& files) {
    const std::regex head(
        R"(^\s*(?:\.visible\s+|\.weak\s+)?\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+))");
    const std::regex call(R"(call(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([\w$]+))");
    for (const std::string& path : split(files, '|')) {
      std::ifstream in(path);
      EXPECT_TRUE(in) << "cannot read " << path;
      std::string line, current;
      bool in_body = false;
      while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, head)) {
          current = m[2];
          if (m[1] == "entry") kernels_.push_back(current);
          in_body = true;
        }
        if (!in_body) continue;
        body_[current] += line + "\n";
        if (std::regex_search(line, m, call)) calls_[current].insert(m[1]);
        if (line == "}") in_body = false;
      }
    }
  }
  // Mangled names of the kernels whose demangled name contains `needle` (spaces ignored: the
  // demangler writes "> >").
  std::vector<std::string> kernels_matching(const std::string& needle) const {
    std::vector<std::string> out;
    for (const std::string& k : kernels_)
      if (without_spaces(demangle(k)).find(without_spaces(needle)) != std::string::npos)
        out.push_back(k);
    return out;
  }
  // The kernel's code with everything it calls.
  std::string code(const std::string& kernel) const {
    std::string out;
    std::set<std::string> seen;
    std::vector<std::string> todo{kernel};
    while (!todo.empty()) {
      const std::string f = todo.back();
      todo.pop_back();
      if (!seen.insert(f).second) continue;
      if (auto it = body_.find(f); it != body_.end()) out += it->second;
      if (auto it = calls_.find(f); it != calls_.end())
        for (const std::string& g : it->second) todo.push_back(g);
    }
    return out;
  }
  const std::vector<std::string>& kernels() const { return kernels_; }

 private:
  std::vector<std::string> kernels_;
  std::map<std::string, std::string> body_;
  std::map<std::string, std::set<std::string>> calls_;
};

inline bool has(const std::string& code, const std::string& token) {
  return code.find(token) != std::string::npos;
}

}  // namespace pev::core::cuda
